//! Stop chunks (seed 001 §3.4.2): common, benign paragraphs ("all rights
//! reserved", share and cookie lines) that are counted but never matched.
//!
//! They are held in a Bloom filter (`bloomfilter` crate). Its hashing is fixed
//! so that the same list gives the same bits on every machine: the item is the
//! 20-byte SHA-1 of the normalised chunk, fed to the filter's SipHash-1-3 as raw
//! bytes (no length prefix, no platform-dependent integer encoding) with the
//! fixed seed `SEED`; the number of bits and hash functions follow from the
//! entry count and the configured false-positive rate.

use crate::fingerprints::chunks::{self, Hash};
use bloomfilter::Bloom;
use serde::Deserialize;
use std::hash::{Hash as StdHash, Hasher};

/// `[stopchunks]`: the Bloom filter's false-positive rate.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StopChunkSettings {
    pub fp_rate: f64,
}

impl StopChunkSettings {
    pub(crate) fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.fp_rate > 0.0 && self.fp_rate < 1.0,
            "configuration: key `stopchunks.fp_rate`: must be in (0, 1)"
        );
        Ok(())
    }
}

/// The filter's fixed seed.
pub const SEED: [u8; 32] = *b"crawlsieve stop-chunks seed v1..";

/// A chunk hash as a Bloom item: hashed as its 20 raw bytes.
struct Item(Hash);

impl StdHash for Item {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write(&self.0);
    }
}

/// The stop-chunk filter.
pub struct StopChunks {
    bloom: Bloom<Item>,
    entries: usize,
}

impl std::fmt::Debug for StopChunks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "StopChunks({} entries, {} bits)",
            self.entries,
            self.bloom.len()
        )
    }
}

/// A stop-chunk filter that cannot be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StopChunksError {
    #[error("stopchunks.fp_rate must be in (0, 1), got {0}")]
    Rate(f64),
    /// The Bloom filter's own refusal (its error type is a string of its own).
    #[error("stop-chunk filter: {0}")]
    Filter(String),
}

impl StopChunks {
    /// Builds the filter from a stop-chunk list: one chunk per line, `#` starts
    /// a comment line, empty lines are ignored.
    pub fn from_list(list: &str, fp_rate: f64) -> Result<Self, StopChunksError> {
        let lines: Vec<&str> = list
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
            .collect();
        if !(fp_rate > 0.0 && fp_rate < 1.0) {
            return Err(StopChunksError::Rate(fp_rate));
        }
        let mut bloom = Bloom::new_for_fp_rate_with_seed(lines.len().max(1), fp_rate, &SEED)
            .map_err(|e| StopChunksError::Filter(e.to_string()))?;
        let mut normalised = String::new();
        for line in &lines {
            chunks::normalise(line, &mut normalised);
            let hash = chunks::hash(&normalised);
            bloom.set(&Item(hash));
        }
        Ok(StopChunks {
            bloom,
            entries: lines.len(),
        })
    }

    /// Whether a chunk hash is (probably) a stop chunk.
    pub fn contains(&self, hash: &Hash) -> bool {
        self.bloom.check(&Item(*hash))
    }

    /// Entries in the list.
    pub fn len(&self) -> usize {
        self.entries
    }

    /// True for an empty list.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_normalised_like_chunks() {
        let stop =
            StopChunks::from_list("# comment\nAll Rights   Reserved\n\nShare this", 1e-6).unwrap();
        assert_eq!(stop.len(), 2);
        let mut n = String::new();
        chunks::normalise("ALL RIGHTS RESERVED", &mut n);
        assert!(stop.contains(&chunks::hash(&n)));
        chunks::normalise("A paragraph that is not a stop chunk at all.", &mut n);
        assert!(!stop.contains(&chunks::hash(&n)));
    }

    #[test]
    fn bad_rate_is_an_error() {
        assert!(StopChunks::from_list("x", 0.0).is_err());
    }
}
