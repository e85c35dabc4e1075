//! Fingerprints: what a page's content hashes to, the same on every machine
//! (labeled sets built on one are matched on all).
//!
//! - `chunks`: paragraphs, normalised and hashed (Ardi & Heidemann's chunks);
//! - `stopchunks`: common benign paragraphs that are counted, never matched;
//! - `shingles`: sampled word k-grams, and the page's SimHash from them;
//! - `immutables`: the words no spinner can change, in order, as sampled
//!   k-grams (spun copies);
//! - `minhash`: MinHash signatures of the shingles, their LSH band keys
//!   and one-byte sketches (duplicates seen before, `seen`);
//! - `simhash`: SimHashes in banded tables, where every fingerprint within
//!   a few bits is found (near duplicates);
//! - `wordgrams`: every word n-gram of running text, across line breaks
//!   (short labeled items);
//! - `style`: a page's hidden-style fingerprint, from its markup (the
//!   crawl's `styles` analysis clusters them).

pub mod chunks;
pub mod immutables;
pub mod minhash;
pub mod shingles;
pub mod simhash;
pub mod stopchunks;
pub mod style;
pub mod wordgrams;

/// SplitMix64 (Steele, Lea and Flood 2014): the next of a stream of 64-bit
/// values as uniform as SHA-1 prefixes, the same on every machine. What the
/// style fingerprint's byte tables are made from, and what benchmarks draw
/// uniform keys with.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The tests' random texts: xorshift64, the same stream on every run (a
/// failure names its input), no crate needed.
#[cfg(test)]
pub(crate) fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}
