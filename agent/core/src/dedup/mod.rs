//! Seen before? Each page's content is looked up, as its verdict is written,
//! in an index of the pages already seen — this crawl's, and earlier
//! crawls' opened read-only — and a page whose content was seen gets
//! `duplicate_of`: the first page seen with it, exactly (the same
//! normalised content, its SHA-1) or nearly (MinHash similarity of its
//! shingles at `dedup.threshold` or above, `fingerprints::minhash`).
//!
//! The first page seen keeps; a duplicate is noted (reason `duplicate`) or
//! dropped (`dedup.action`), and is not added to the index: a corpus keeps
//! one copy, and a copy of a copy leads to the first. Only pages kept or
//! flagged are looked up and added: a dropped page is not stored anyway.
//!
//! Lookups run where verdicts leave in input order (`scan`'s writer), so
//! which page is first does not depend on the thread count.

pub mod store;

use crate::fingerprints::minhash;
use crate::verdict::{DuplicateOf, Kind, Reason, Verdict};
use serde::Deserialize;
use std::path::PathBuf;
use store::{Entry, Store};

/// What is done with a page whose content was seen before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// The verdict stands; the reason `duplicate` and `duplicate_of` say it.
    Note,
    /// The verdict is `drop`, reason `duplicate`.
    Drop,
}

/// `[dedup]`: duplicates in the stream.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DedupSettings {
    /// Look every page up in the index of pages seen.
    pub check: bool,
    pub action: Action,
    /// The index file (redb), created when missing; empty: in memory, for
    /// this run only.
    pub index: Option<PathBuf>,
    /// Indexes of earlier crawls, opened read-only: their pages count as seen.
    pub previous: Vec<PathBuf>,
    /// LSH bands × rows per band: the MinHash signature's values.
    pub bands: usize,
    pub rows: usize,
    /// Estimated Jaccard similarity at or above which a page is a near duplicate.
    pub threshold: f64,
    /// Pages the index holds at most; past it, pages are still looked up,
    /// and not added (counted as `unindexed`).
    pub max_pages: u64,
    /// Memory for each index's cache of its file, MiB.
    pub cache_mb: usize,
}

impl DedupSettings {
    pub(crate) fn validate(&self) -> anyhow::Result<()> {
        let hashes = self.bands * self.rows;
        anyhow::ensure!(
            self.bands >= 1 && self.rows >= 1 && hashes <= minhash::MAX_HASHES,
            "configuration: key `dedup.bands`: bands × rows = {hashes}, must be 1 to {}",
            minhash::MAX_HASHES
        );
        anyhow::ensure!(
            self.threshold > 0.0 && self.threshold <= 1.0,
            "configuration: key `dedup.threshold`: {} is not in (0, 1]",
            self.threshold
        );
        Ok(())
    }

    /// Values in each page's signature, when pages are checked.
    pub fn hashes(&self) -> Option<usize> {
        self.check.then_some(self.bands * self.rows)
    }
}

/// What the index did in a run.
#[derive(Debug, Default, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SeenStats {
    pub checked: u64,
    pub exact: u64,
    pub near: u64,
    /// Found in an earlier crawl's index.
    pub previous: u64,
    /// First seen, but not added: the index was full.
    pub unindexed: u64,
    /// Not looked up: the index failed (the page keeps its verdict, noted
    /// `duplicate_unchecked`).
    pub unchecked: u64,
}

/// This crawl's index and earlier crawls'.
pub struct Seen {
    current: Store,
    previous: Vec<(String, Store)>,
    settings: DedupSettings,
    pub stats: SeenStats,
}

/// A page's content as the index knows it.
struct Content {
    digest: Option<u128>,
    keys: Vec<u64>,
    sketch: Vec<u8>,
}

impl Seen {
    /// The indexes `settings` name; `None` when pages are not checked.
    pub fn open(settings: &DedupSettings) -> anyhow::Result<Option<Seen>> {
        if !settings.check {
            return Ok(None);
        }
        let cache = settings.cache_mb << 20;
        let index = settings
            .index
            .as_deref()
            .filter(|p| !p.as_os_str().is_empty());
        let current = Store::open(index, settings.bands, settings.rows, cache).map_err(|e| {
            let at = index.map(|p| p.display().to_string()).unwrap_or_default();
            anyhow::anyhow!("configuration: key `dedup.index`: {at}: {e}")
        })?;
        let mut previous = Vec::new();
        for p in &settings.previous {
            let store = Store::open_read_only(p, cache).map_err(|e| {
                anyhow::anyhow!("configuration: key `dedup.previous`: {}: {e}", p.display())
            })?;
            anyhow::ensure!(
                store.shape() == (settings.bands, settings.rows),
                "configuration: key `dedup.previous`: {}: made with {:?} bands × rows, not {} × {}",
                p.display(),
                store.shape(),
                settings.bands,
                settings.rows
            );
            previous.push((p.display().to_string(), store));
        }
        Ok(Some(Seen {
            current,
            previous,
            settings: settings.clone(),
            stats: SeenStats::default(),
        }))
    }

    /// Looks the page up; a duplicate gets `duplicate_of` and its reason, a
    /// first sight is added. A failing index leaves the verdict as it is,
    /// with the note `duplicate_unchecked`.
    pub fn check(&mut self, v: &mut Verdict) {
        let signature = v.minhash.take();
        if !matches!(v.verdict, Kind::Keep | Kind::Flag) || v.revisit_of.is_some() {
            return;
        }
        let digest = v.content_sha1.as_deref().and_then(digest_of);
        if digest.is_none() && signature.is_none() {
            return;
        }
        let rows = self.settings.rows;
        let content = Content {
            digest,
            keys: signature
                .as_deref()
                .map(|s| minhash::bands(s, rows).collect())
                .unwrap_or_default(),
            sketch: signature
                .as_deref()
                .map(minhash::sketch)
                .unwrap_or_default(),
        };
        self.stats.checked += 1;
        match self.look_up_and_add(&content, v) {
            Ok(Some(of)) => self.mark(v, of),
            Ok(None) => {}
            Err(e) => {
                tracing::warn!(error = %e, id = %v.id, "index of pages seen failed; page not checked");
                self.stats.unchecked += 1;
                v.reasons.push(Reason::DuplicateUnchecked);
            }
        }
    }

    fn look_up_and_add(&mut self, c: &Content, v: &Verdict) -> anyhow::Result<Option<DuplicateOf>> {
        for (name, store) in &self.previous {
            if let Some((_, mut of)) = self.find(store, c)? {
                of.previous = Some(name.clone());
                return Ok(Some(of));
            }
        }
        if let Some((n, of)) = self.find(&self.current, c)? {
            // An exact copy of this near duplicate leads to the page it duplicates.
            if let (false, Some(d)) = (of.exact, c.digest) {
                self.current.alias(d, n)?;
            }
            return Ok(Some(of));
        }
        if self.current.pages() >= self.settings.max_pages {
            self.stats.unindexed += 1;
            return Ok(None);
        }
        let entry = Entry {
            sketch: c.sketch.clone(),
            id: v.id.clone(),
            url: v.url.clone(),
        };
        self.current.add(c.digest, &c.keys, entry)?;
        Ok(None)
    }

    /// The first page of `store` with this content: the exact one, else the
    /// most similar candidate at the threshold or above.
    fn find(&self, store: &Store, c: &Content) -> anyhow::Result<Option<(u64, DuplicateOf)>> {
        let of = |e: Entry, similarity: f64, exact: bool| DuplicateOf {
            id: e.id,
            url: e.url,
            similarity: (similarity * 1000.0).round() / 1000.0,
            exact,
            previous: None,
        };
        if let Some(n) = c.digest.map(|d| store.digest(d)).transpose()?.flatten() {
            return Ok(store.entry(n)?.map(|e| (n, of(e, 1.0, true))));
        }
        let mut best: Option<(f64, u64, Entry)> = None;
        for n in store.candidates(&c.keys)? {
            let Some(e) = store.entry(n)? else { continue };
            let s = minhash::similarity(&c.sketch, &e.sketch);
            if s >= self.settings.threshold && best.as_ref().is_none_or(|(b, ..)| s > *b) {
                best = Some((s, n, e));
            }
        }
        Ok(best.map(|(s, n, e)| (n, of(e, s, false))))
    }

    fn mark(&mut self, v: &mut Verdict, of: DuplicateOf) {
        if of.exact {
            self.stats.exact += 1;
        } else {
            self.stats.near += 1;
        }
        if of.previous.is_some() {
            self.stats.previous += 1;
        }
        match self.settings.action {
            Action::Note => v.reasons.push(Reason::Duplicate),
            Action::Drop => {
                v.verdict = Kind::Drop;
                v.reasons.insert(0, Reason::Duplicate);
            }
        }
        v.duplicate_of = Some(of);
    }

    /// Writes what the index collected to its file.
    pub fn flush(&mut self) -> anyhow::Result<()> {
        self.current.commit()
    }
}

/// The first 16 bytes of a content SHA-1 (hex).
fn digest_of(hex: &str) -> Option<u128> {
    u128::from_str_radix(hex.get(..32)?, 16).ok()
}
