//! Labeled sets L (seed 001 §3.3): chunk hashes of known content, by label.
//!
//! First form: a text file, one lower-case hex SHA-1 per line, optionally
//! followed by whitespace and a label name (default: the file's stem). Lines
//! starting with `#` are comments. Several files and several labels per file
//! are allowed; each label is a named set. The "labeled sets and hub" work
//! replaces the file with a compact, signed, versioned format behind this
//! same type.

use crate::chunks::Hash;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::Path;

/// Labels per lookup are a bitmask, so at most this many labels.
pub const MAX_LABELS: usize = 32;

/// SHA-1 digests are uniformly distributed already: hashing them again is
/// wasted work on the hot path, so the map uses their first 8 bytes.
#[derive(Default)]
pub struct DigestHasher(u64);

impl Hasher for DigestHasher {
    fn write(&mut self, bytes: &[u8]) {
        // Arrays hash their length first (8 bytes); keep the last full word.
        if bytes.len() >= 8 {
            self.0 = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
        }
    }
    fn write_usize(&mut self, _: usize) {}
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The labeled sets an agent judges pages against. Immutable once built.
#[derive(Debug, Default)]
pub struct LabeledSets {
    map: HashMap<Hash, u32, BuildHasherDefault<DigestHasher>>,
    labels: Vec<String>,
    /// One version string for all loaded sets, carried by every verdict.
    version: Option<String>,
}

impl LabeledSets {
    /// No labeled content: nothing is ever flagged.
    pub fn empty() -> Self {
        Self::default()
    }

    /// Loads and merges labeled-set files.
    pub fn load(paths: &[impl AsRef<Path>]) -> anyhow::Result<Self> {
        let mut sets = LabeledSets::default();
        let mut versions = Vec::new();
        for path in paths {
            let path = path.as_ref();
            let text = std::fs::read_to_string(path)
                .map_err(|e| anyhow::anyhow!("labels file {}: {e}", path.display()))?;
            let stem = path
                .file_name()
                .and_then(|n| n.to_str())
                .map(|n| n.split('.').next().unwrap_or(n))
                .unwrap_or("labels")
                .to_string();
            sets.add_text(&text, &stem)
                .map_err(|e| anyhow::anyhow!("labels file {}: {e}", path.display()))?;
            let digest = crate::chunks::hash(&text);
            versions.push(format!("{stem}@{}", &crate::chunks::to_hex(&digest)[..12]));
        }
        if !versions.is_empty() {
            sets.version = Some(versions.join(","));
        }
        Ok(sets)
    }

    /// Adds the entries of one text file; `default_label` names unlabeled lines.
    pub fn add_text(&mut self, text: &str, default_label: &str) -> Result<(), String> {
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut parts = line.split_whitespace();
            let hex_hash = parts.next().unwrap_or_default();
            let label = parts.next().unwrap_or(default_label);
            let mut hash = [0u8; 20];
            hex::decode_to_slice(hex_hash, &mut hash)
                .map_err(|e| format!("line {}: not a 40-digit hex SHA-1 ({e})", n + 1))?;
            let bit = self
                .label_bit(label)
                .map_err(|e| format!("line {}: {e}", n + 1))?;
            *self.map.entry(hash).or_default() |= bit;
        }
        Ok(())
    }

    fn label_bit(&mut self, label: &str) -> Result<u32, String> {
        let idx = match self.labels.iter().position(|l| l == label) {
            Some(i) => i,
            None if self.labels.len() < MAX_LABELS => {
                self.labels.push(label.to_string());
                self.labels.len() - 1
            }
            None => return Err(format!("more than {MAX_LABELS} labels")),
        };
        Ok(1 << idx)
    }

    /// The labels a hash is in, as a bitmask (0: not labeled).
    #[inline]
    pub fn lookup(&self, hash: &Hash) -> u32 {
        self.map.get(hash).copied().unwrap_or(0)
    }

    /// The label names, indexed by bit.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// Entries (distinct hashes).
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when no hash is labeled.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The version string verdicts carry.
    pub fn version(&self) -> Option<&str> {
        self.version.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_lookup() {
        let mut sets = LabeledSets::empty();
        let a = crate::chunks::to_hex(&crate::chunks::hash("a"));
        let b = crate::chunks::to_hex(&crate::chunks::hash("b"));
        sets.add_text(&format!("# comment\n{a}\n{b} wiki\n{a} wiki\n"), "default")
            .unwrap();
        assert_eq!(sets.labels(), &["default".to_string(), "wiki".to_string()]);
        assert_eq!(sets.lookup(&crate::chunks::hash("a")), 0b11);
        assert_eq!(sets.lookup(&crate::chunks::hash("b")), 0b10);
        assert_eq!(sets.lookup(&crate::chunks::hash("c")), 0);
        assert!(sets.add_text("xyz\n", "d").unwrap_err().contains("line 1"));
    }
}
