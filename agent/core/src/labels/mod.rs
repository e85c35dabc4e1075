//! Labeled sets L (seed 001 §3.3): chunk hashes of known content, by name.
//!
//! Several named sets are loaded at once (`wikipedia`, `phishing-banks`...);
//! a lookup answers which of them hold a chunk, as a bitmask. Each set is a
//! [`compact::CompactSet`] (4.5–5 bytes per entry, ≤ 10⁻⁹ false matches per
//! lookup) built from a signed, versioned [`file`] or, for local work, from
//! a text list of hex SHA-1s. The sets an agent judges against live behind a
//! [`LabelsHandle`]: a new version is built off the hot path and swapped in
//! atomically, so a page is judged against one consistent snapshot and no
//! page waits for an update.
//!
//! - `file`: the signed binary format; `delta`: differences between versions;
//! - `build`: informed discovery (hash an expert corpus); `count`: blind
//!   discovery (count chunks, merge counts, keep the frequent ones);
//! - `items`: sets of short items (benchmark questions), matched by word
//!   n-grams;
//! - `keys`: ed25519 key files; `follow`: the agent side of the hub.

pub mod compact;
pub mod config;
pub mod delta;
pub mod file;
pub mod items;
pub mod keys;
pub mod origin;
pub mod protocol;

use crate::fingerprints::chunks::Hash;
use crate::fingerprints::simhash::SimhashIndex;
use arc_swap::{ArcSwap, Guard};
use compact::CompactSet;
use ed25519_dalek::VerifyingKey;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// A text list or a set that cannot be loaded beside the others.
#[derive(Debug, thiserror::Error)]
pub enum LabelsError {
    #[error("line {line}: not a 40-digit hex SHA-1 ({why})")]
    NotHex { line: usize, why: hex::FromHexError },
    #[error(transparent)]
    Origin(#[from] origin::OriginError),
    #[error("{0}")]
    Skewed(#[from] compact::Skewed),
    #[error("more than {MAX_SETS} labeled sets")]
    TooMany,
}

/// Lookups answer with a bitmask over the loaded sets, so at most this many sets.
pub const MAX_SETS: usize = 32;

/// A labeled-set key: the first 8 bytes of a chunk's SHA-1, big-endian (so
/// keys sort like the hex digests).
#[inline]
pub fn key(hash: &Hash) -> u64 {
    u64::from_be_bytes(hash[..8].try_into().expect("8 bytes"))
}

/// A hex list: one lower-case hex SHA-1 per line, optionally followed by
/// whitespace and a set name; blank lines and `#` comments are skipped.
pub fn parse_hex_list(text: &str) -> Result<Vec<(Hash, Option<&str>)>, LabelsError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split_whitespace();
        let mut hash = [0u8; 20];
        hex::decode_to_slice(parts.next().unwrap_or_default(), &mut hash)
            .map_err(|why| LabelsError::NotHex { line: n + 1, why })?;
        out.push((hash, parts.next()));
    }
    Ok(out)
}

/// A text list's origin lines, `#origin SITE [SET]` (a comment to older
/// builds): the sites a set's content comes from (`origin`).
pub fn parse_origin_lines(text: &str) -> impl Iterator<Item = (&str, Option<&str>)> {
    text.lines().filter_map(|line| {
        let mut parts = line.trim().strip_prefix("#origin ")?.split_whitespace();
        Some((parts.next()?, parts.next()))
    })
}

/// One named set, in memory.
#[derive(Debug)]
pub struct LabeledSet {
    pub name: String,
    /// `name@version` for signed sets, `name@<12 hex digits of the file's SHA-1>` for text lists.
    pub version: String,
    /// The numeric version of a signed set (0 for text lists).
    pub number: u64,
    /// Chunk keys and sampled shingles.
    pub set: CompactSet,
    /// The labeled pages' SimHashes.
    pub simhashes: SimhashIndex,
    /// The sites its content comes from: their pages are the originals.
    pub origins: origin::Origins,
    /// Its keys include immutable grams (format 4): it finds spun copies.
    pub immutables: bool,
    /// Its items (format 5): short texts found by their word n-grams.
    pub items: Option<items::ItemIndex>,
}

impl LabeledSet {
    /// Builds a set from a verified labeled-set file.
    pub fn from_file(file: &file::SetFile) -> anyhow::Result<Self> {
        let set = CompactSet::from_sorted(file.keys())?;
        Ok(LabeledSet {
            name: file.header.name.clone(),
            version: format!("{}@{}", file.header.name, file.header.version),
            number: file.header.version,
            set,
            simhashes: SimhashIndex::new(&file.simhashes().collect::<Vec<_>>()),
            origins: origin::Origins::new(&file.header.origins).map_err(anyhow::Error::msg)?,
            immutables: file.header.immutable_version != 0,
            items: items::ItemTable::of(file)?
                .map(|t| items::ItemIndex::new(t, file.header.item_n as usize)),
        })
    }

    /// Parses, verifies and builds a set from a labeled-set file's bytes.
    pub fn from_bytes(bytes: &[u8], public: &VerifyingKey) -> anyhow::Result<Self> {
        let file = file::SetFile::open(bytes, public)?;
        Self::from_file(&file)
    }
}

/// The labeled sets an agent judges pages against. Immutable once built;
/// cheap to copy (the sets are shared).
#[derive(Debug, Default, Clone)]
pub struct LabeledSets {
    sets: Vec<Arc<LabeledSet>>,
    /// `version()`, made once: every verdict carries it.
    version: Option<String>,
}

impl LabeledSets {
    /// No labeled content: nothing is ever flagged.
    pub fn empty() -> Self {
        Self::default()
    }

    /// Loads labeled-set files: signed binary files (checked with `public`)
    /// or text lists (one hex SHA-1 per line, optionally followed by a set
    /// name; default name: the file's stem; `#` starts a comment).
    pub fn load(paths: &[impl AsRef<Path>], public: Option<&VerifyingKey>) -> anyhow::Result<Self> {
        let mut sets = LabeledSets::default();
        for path in paths {
            let path = path.as_ref();
            let err =
                |e: &dyn std::fmt::Display| anyhow::anyhow!("labels file {}: {e}", path.display());
            let bytes = std::fs::read(path).map_err(|e| err(&e))?;
            if bytes.starts_with(file::MAGIC) {
                let public = public.ok_or_else(|| {
                    err(&"a signed labeled set needs `labels.public_key` or `labels.public_key_file`")
                })?;
                let set = LabeledSet::from_bytes(&bytes, public).map_err(|e| err(&e))?;
                sets = sets.with_set(Arc::new(set)).map_err(|e| err(&e))?;
            } else {
                let text = String::from_utf8(bytes)
                    .map_err(|_| err(&"neither a labeled-set file nor UTF-8 text"))?;
                let stem = path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .map(|n| n.split('.').next().unwrap_or(n))
                    .unwrap_or("labels");
                for set in Self::parse_text(&text, stem).map_err(|e| err(&e))? {
                    sets = sets.with_set(Arc::new(set)).map_err(|e| err(&e))?;
                }
            }
        }
        Ok(sets)
    }

    /// Sets from a text list (see `load`).
    pub fn from_text(text: &str, default_name: &str) -> Result<Self, LabelsError> {
        let mut sets = LabeledSets::default();
        for set in Self::parse_text(text, default_name)? {
            sets = sets.with_set(Arc::new(set))?;
        }
        Ok(sets)
    }

    fn parse_text(text: &str, default_name: &str) -> Result<Vec<LabeledSet>, LabelsError> {
        let mut by_name: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
        for (hash, name) in parse_hex_list(text)? {
            by_name
                .entry(name.unwrap_or(default_name))
                .or_default()
                .push(key(&hash));
        }
        let mut origins: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (site, name) in parse_origin_lines(text) {
            origins
                .entry(name.unwrap_or(default_name))
                .or_default()
                .push(site);
        }
        let digest = crate::fingerprints::chunks::to_hex(&crate::fingerprints::chunks::hash(text));
        by_name
            .into_iter()
            .map(|(name, mut keys)| {
                keys.sort_unstable();
                Ok(LabeledSet {
                    name: name.to_string(),
                    version: format!("{name}@{}", &digest[..12]),
                    number: 0,
                    set: CompactSet::from_sorted(keys.into_iter())?,
                    simhashes: SimhashIndex::default(),
                    origins: origin::Origins::new(origins.get(name).map_or(&[][..], |v| v))?,
                    immutables: false,
                    items: None,
                })
            })
            .collect()
    }

    /// These sets with `set` added, or replacing the set of the same name.
    pub fn with_set(&self, set: Arc<LabeledSet>) -> Result<Self, LabelsError> {
        let mut sets = self.sets.clone();
        if let Some(i) = sets.iter().position(|s| s.name == set.name) {
            sets[i] = set;
        } else if sets.len() < MAX_SETS {
            sets.push(set);
        } else {
            return Err(LabelsError::TooMany);
        }
        let version = (!sets.is_empty()).then(|| {
            sets.iter()
                .map(|s| s.version.as_str())
                .collect::<Vec<_>>()
                .join(",")
        });
        Ok(LabeledSets { sets, version })
    }

    /// The sets a chunk hash is in, as a bitmask over `sets()` (0: none).
    #[inline]
    pub fn lookup(&self, hash: &Hash) -> u32 {
        let k = key(hash);
        let mut mask = 0;
        for (i, s) in self.sets.iter().enumerate() {
            if s.set.contains(k) {
                mask |= 1 << i;
            }
        }
        mask
    }

    /// `lookup` for many keys (see [`key`]) at once, into `masks` (cleared
    /// first): the memory reads of the batch overlap, which is what makes
    /// lookups fast in a large set.
    pub fn lookup_many(&self, keys: &[u64], masks: &mut Vec<u32>) {
        masks.clear();
        masks.resize(keys.len(), 0);
        let mut found = vec![false; keys.len()];
        for (i, s) in self.sets.iter().enumerate() {
            s.set.contains_many(keys, &mut found);
            for (m, &f) in masks.iter_mut().zip(&found) {
                *m |= (f as u32) << i;
            }
        }
    }

    /// The labeled page nearest to SimHash `h` within `max` bits: the sets
    /// that hold a page at the smallest distance (bitmask), and that distance.
    pub fn nearest_simhash(&self, h: u64, max: u32) -> Option<(u32, u32)> {
        let mut best: Option<(u32, u32)> = None;
        for (i, s) in self.sets.iter().enumerate() {
            if let Some(d) = s.simhashes.nearest(h, max) {
                best = match best {
                    Some((mask, b)) if b == d => Some((mask | 1 << i, d)),
                    Some((_, b)) if b < d => best,
                    _ => Some((1 << i, d)),
                };
            }
        }
        best
    }

    /// Whether a set holds items: pages' word n-grams are then looked up.
    pub fn carry_items(&self) -> bool {
        self.sets.iter().any(|s| s.items.is_some())
    }

    /// Whether a set carries immutable grams: pages' are then looked up.
    pub fn carry_immutables(&self) -> bool {
        self.sets.iter().any(|s| s.immutables)
    }

    /// The sets, in bit order.
    pub fn sets(&self) -> &[Arc<LabeledSet>] {
        &self.sets
    }

    /// The set named `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<LabeledSet>> {
        self.sets.iter().find(|s| s.name == name)
    }

    /// Entries over all sets.
    pub fn len(&self) -> usize {
        self.sets.iter().map(|s| s.set.len()).sum()
    }

    /// True when no set holds anything.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The versions verdicts carry: `name@version` of every set, comma-separated.
    pub fn version(&self) -> Option<&str> {
        self.version.as_deref()
    }
}

/// The current labeled sets, shared by every worker and replaced whole
/// (`arc-swap`): readers never lock and never wait for an update.
#[derive(Debug, Clone)]
pub struct LabelsHandle(Arc<ArcSwap<LabeledSets>>);

impl LabelsHandle {
    pub fn new(sets: LabeledSets) -> Self {
        LabelsHandle(Arc::new(ArcSwap::from_pointee(sets)))
    }

    /// A snapshot: hold it for the whole page so one verdict sees one version.
    #[inline]
    pub fn load(&self) -> Guard<Arc<LabeledSets>> {
        self.0.load()
    }

    /// The current sets, owned.
    pub fn load_full(&self) -> Arc<LabeledSets> {
        self.0.load_full()
    }

    /// Swaps in `set`, replacing the set of the same name.
    pub fn replace_set(&self, set: Arc<LabeledSet>) -> Result<(), LabelsError> {
        let mut result = Ok(());
        self.0.rcu(|current| match current.with_set(set.clone()) {
            Ok(next) => Arc::new(next),
            Err(e) => {
                result = Err(e);
                current.clone()
            }
        });
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_lists_name_sets_and_lookups_answer_with_a_mask() {
        let a = crate::fingerprints::chunks::to_hex(&crate::fingerprints::chunks::hash("a"));
        let b = crate::fingerprints::chunks::to_hex(&crate::fingerprints::chunks::hash("b"));
        let sets =
            LabeledSets::from_text(&format!("# comment\n{a}\n{b} wiki\n{a} wiki\n"), "default")
                .unwrap();
        let names: Vec<&str> = sets.sets().iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["default", "wiki"]);
        assert_eq!(sets.lookup(&crate::fingerprints::chunks::hash("a")), 0b11);
        assert_eq!(sets.lookup(&crate::fingerprints::chunks::hash("b")), 0b10);
        assert_eq!(sets.lookup(&crate::fingerprints::chunks::hash("c")), 0);
        assert!(LabeledSets::from_text("xyz\n", "d")
            .unwrap_err()
            .to_string()
            .contains("line 1"));
    }

    #[test]
    fn handle_swaps_one_set_and_keeps_the_others() {
        let h = LabelsHandle::new(
            LabeledSets::from_text(
                &crate::fingerprints::chunks::to_hex(&crate::fingerprints::chunks::hash("x")),
                "one",
            )
            .unwrap(),
        );
        let before = h.load_full();
        let two = LabeledSets::from_text(
            &crate::fingerprints::chunks::to_hex(&crate::fingerprints::chunks::hash("y")),
            "two",
        )
        .unwrap();
        h.replace_set(two.sets()[0].clone()).unwrap();
        assert_eq!(before.sets().len(), 1, "a snapshot does not change");
        assert_eq!(
            h.load().lookup(&crate::fingerprints::chunks::hash("x")),
            0b01
        );
        assert_eq!(
            h.load().lookup(&crate::fingerprints::chunks::hash("y")),
            0b10
        );
    }
}
