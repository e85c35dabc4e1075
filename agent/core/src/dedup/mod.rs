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

pub mod batch;
pub mod shared;
pub mod store;

use crate::fingerprints::minhash;
use crate::verdict::{DuplicateOf, Kind, Reason, Verdict};
use serde::Deserialize;
use shared::{Answer, Shared};
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
    /// The index shared by the agents of a crawl: a Redis URL
    /// (`redis://host:port/db`), in place of `index`; empty: none.
    pub shared: String,
    /// The crawl's name in the shared index: agents of one crawl give the
    /// same, another crawl another.
    pub namespace: String,
    /// The shared index's password, in a file (else
    /// `CRAWLSIEVE_REDIS_PASSWORD`; none when neither is set).
    pub shared_password_file: Option<PathBuf>,
    /// How long one request to the shared index may take, ms; past it the
    /// page is noted `duplicate_unchecked`.
    pub shared_timeout_ms: u64,
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
    /// Pages get their MinHash and no index is opened: `crawlsieve dedup`
    /// gathers the signatures and clusters them afterwards. Not a key.
    #[serde(skip)]
    pub signatures_only: bool,
}

impl DedupSettings {
    /// Refuses settings that cannot work, naming the key.
    pub fn validate(&self) -> anyhow::Result<()> {
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
        anyhow::ensure!(
            self.shared.is_empty() || self.index.as_ref().is_none_or(|p| p.as_os_str().is_empty()),
            "configuration: keys `dedup.index` and `dedup.shared`: give one (a file, or the index the agents share)"
        );
        anyhow::ensure!(
            !self.namespace.is_empty() && !self.namespace.contains(['{', '}']),
            "configuration: key `dedup.namespace`: {:?} must be a name without braces",
            self.namespace
        );
        anyhow::ensure!(
            self.shared_timeout_ms > 0,
            "configuration: key `dedup.shared_timeout_ms`: must be above 0"
        );
        Ok(())
    }

    /// The shared index's password: from its file, else the environment.
    fn password(&self) -> anyhow::Result<Option<String>> {
        if let Some(p) = &self.shared_password_file {
            let text = std::fs::read_to_string(p).map_err(|e| {
                anyhow::anyhow!(
                    "configuration: key `dedup.shared_password_file`: {}: {e}",
                    p.display()
                )
            })?;
            return Ok(Some(text.trim_end_matches(['\r', '\n']).to_string()));
        }
        Ok(std::env::var("CRAWLSIEVE_REDIS_PASSWORD").ok())
    }

    /// Values in each page's signature, when pages are checked.
    pub fn hashes(&self) -> Option<usize> {
        (self.check || self.signatures_only).then_some(self.bands * self.rows)
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

/// This crawl's index: the agent's own file (or memory), or the one the
/// agents of the crawl share.
enum Current {
    Local(Store),
    Shared(Box<Shared>),
}

/// This crawl's index and earlier crawls'.
pub struct Seen {
    current: Current,
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
        if !settings.check || settings.signatures_only {
            return Ok(None);
        }
        let cache = settings.cache_mb << 20;
        let index = settings
            .index
            .as_deref()
            .filter(|p| !p.as_os_str().is_empty());
        let shape = (settings.bands, settings.rows);
        let current = if settings.shared.is_empty() {
            let store = Store::open(index, shape.0, shape.1, cache).map_err(|e| {
                let at = index.map(|p| p.display().to_string()).unwrap_or_default();
                anyhow::anyhow!("configuration: key `dedup.index`: {at}: {e}")
            })?;
            Current::Local(store)
        } else {
            let timeout = std::time::Duration::from_millis(settings.shared_timeout_ms);
            let password = settings.password()?;
            let url = &settings.shared;
            let shared =
                Shared::open(url, &settings.namespace, password, shape, timeout).map_err(|e| {
                    let url = shared::redacted(url);
                    anyhow::anyhow!("configuration: key `dedup.shared`: {url}: {e}")
                })?;
            Current::Shared(Box::new(shared))
        };
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
            Ok(Outcome::Seen(of)) => self.mark(v, of),
            Ok(Outcome::Added) => {}
            Ok(Outcome::Full) => self.stats.unindexed += 1,
            Err(e) => {
                tracing::warn!(error = %e, id = %v.id, "index of pages seen failed; page not checked");
                self.stats.unchecked += 1;
                v.reasons.push(Reason::DuplicateUnchecked);
            }
        }
    }

    fn look_up_and_add(&mut self, c: &Content, v: &Verdict) -> anyhow::Result<Outcome> {
        let threshold = self.settings.threshold;
        for (name, store) in &self.previous {
            if let Some((_, mut of)) = find(store, c, threshold)? {
                of.previous = Some(name.clone());
                return Ok(Outcome::Seen(of));
            }
        }
        let entry = Entry {
            sketch: c.sketch.clone(),
            id: v.id.clone(),
            url: v.url.clone(),
        };
        let max_pages = self.settings.max_pages;
        let store = match &mut self.current {
            Current::Shared(shared) => {
                return shared_look_up_and_add(shared, c, entry, threshold, max_pages)
            }
            Current::Local(store) => store,
        };
        if let Some((n, of)) = find(store, c, threshold)? {
            // An exact copy of this near duplicate leads to the page it duplicates.
            if let (false, Some(d)) = (of.exact, c.digest) {
                store.alias(d, n)?;
            }
            return Ok(Outcome::Seen(of));
        }
        if store.pages() >= max_pages {
            return Ok(Outcome::Full);
        }
        store.add(c.digest, &c.keys, entry)?;
        Ok(Outcome::Added)
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

    /// Writes what the index collected to its file (the shared index
    /// holds every entry as it is added).
    pub fn flush(&mut self) -> anyhow::Result<()> {
        match &mut self.current {
            Current::Local(store) => store.commit(),
            Current::Shared(_) => Ok(()),
        }
    }
}

/// What looking a page up came to.
enum Outcome {
    /// Its content was seen: the first page with it.
    Seen(DuplicateOf),
    /// First seen: added.
    Added,
    /// First seen, and not added: the index is full.
    Full,
}

fn duplicate_of(e: Entry, similarity: f64, exact: bool) -> DuplicateOf {
    DuplicateOf {
        id: e.id,
        url: e.url,
        similarity: (similarity * 1000.0).round() / 1000.0,
        exact,
        previous: None,
    }
}

/// The most similar of `candidates` at `threshold` or above.
fn most_similar(
    sketch: &[u8],
    candidates: impl IntoIterator<Item = (u64, Entry)>,
    threshold: f64,
) -> Option<(u64, DuplicateOf)> {
    let mut best: Option<(f64, u64, Entry)> = None;
    for (n, e) in candidates {
        let s = minhash::similarity(sketch, &e.sketch);
        if s >= threshold && best.as_ref().is_none_or(|(b, ..)| s > *b) {
            best = Some((s, n, e));
        }
    }
    best.map(|(s, n, e)| (n, duplicate_of(e, s, false)))
}

/// The first page of `store` with this content: the exact one, else the
/// most similar candidate at the threshold or above.
fn find(store: &Store, c: &Content, threshold: f64) -> anyhow::Result<Option<(u64, DuplicateOf)>> {
    if let Some(n) = c.digest.map(|d| store.digest(d)).transpose()?.flatten() {
        return Ok(store.entry(n)?.map(|e| (n, duplicate_of(e, 1.0, true))));
    }
    let mut candidates = Vec::new();
    for n in store.candidates(&c.keys)? {
        if let Some(e) = store.entry(n)? {
            candidates.push((n, e));
        }
    }
    Ok(most_similar(&c.sketch, candidates, threshold))
}

/// Looks the page up in the shared index and adds it when first seen, in
/// rounds (`shared`'s doc): each round's new candidates are compared here.
fn shared_look_up_and_add(
    shared: &mut Shared,
    c: &Content,
    entry: Entry,
    threshold: f64,
    max_pages: u64,
) -> anyhow::Result<Outcome> {
    let mut known = Vec::new();
    // Each round adds a candidate; a page has at most one a band key.
    for _ in 0..=c.keys.len() + 1 {
        match shared.look_up_and_add(c.digest, &c.keys, &known, &entry, max_pages)? {
            Answer::Exact(_, e) => return Ok(Outcome::Seen(duplicate_of(e, 1.0, true))),
            Answer::Candidates(found) => {
                known.extend(found.iter().map(|(n, _)| *n));
                if let Some((n, of)) = most_similar(&c.sketch, found, threshold) {
                    if let Some(d) = c.digest {
                        shared.alias(d, n)?;
                    }
                    return Ok(Outcome::Seen(of));
                }
            }
            Answer::Added => return Ok(Outcome::Added),
            Answer::Full => return Ok(Outcome::Full),
        }
    }
    anyhow::bail!("shared index: candidates kept coming")
}

/// The first 16 bytes of a content SHA-1 (hex).
fn digest_of(hex: &str) -> Option<u128> {
    u128::from_str_radix(hex.get(..32)?, 16).ok()
}
