//! Fingerprints: what a page's content hashes to, the same on every machine
//! (labeled sets built on one are matched on all).
//!
//! - `chunks`: paragraphs, normalised and hashed (Ardi & Heidemann's chunks);
//! - `stopchunks`: common benign paragraphs that are counted, never matched;
//! - `shingles`: sampled word k-grams, and the page's SimHash from them;
//! - `immutables`: the words no spinner can change, in order, as sampled
//!   k-grams (spun copies);
//! - `simhash`: SimHashes in banded tables, where every fingerprint within
//!   a few bits is found (near duplicates).

pub mod chunks;
pub mod immutables;
pub mod shingles;
pub mod simhash;
pub mod stopchunks;
