//! MinHash (Broder 1997) over a page's word shingles: the near-duplicate
//! signature the field deduplicates with (FineWeb, datatrove, text-dedup),
//! so that "was this content seen before?" is answered by a few index
//! look-ups, never by comparing against every page seen.
//!
//! - **Input**: every 6-word shingle hash of the content (`shingles`, the
//!   same stream the SimHash is made from: stop chunks left out, shingles
//!   never across paragraphs). No second pass over the words.
//! - **Signature**: for each of `bands × rows` functions
//!   `x ↦ a·x + b (mod 2³²)`, `a` odd (a permutation of the 32-bit values),
//!   the least image of the page's shingles, each shingle taken as its
//!   hash's low 32 bits xor its high 32 bits. Two pages agree on one
//!   function with probability close to their shingles' Jaccard similarity.
//!   32 bits and not 64: the functions run side by side in SIMD lanes (a
//!   64-bit multiply has no SIMD form on x86-64), a sixth of the cost.
//! - **Bands** (LSH): the signature cut into `bands` runs of `rows` values,
//!   each hashed to one 64-bit key. Two pages share a key with probability
//!   `1 − (1 − J^rows)^bands` — at 20 × 5, .9996 for J = .8 and .47 for
//!   J = .5 — so the index finds near pairs and the sketch below sorts out
//!   the false candidates.
//! - **Sketch**: one byte of each value, mixed (b-bit MinHash, Li and König 2010),
//!   what the index keeps per page to estimate a candidate's similarity:
//!   two bytes agree with probability `J + (1 − J)/256`.
//!
//! The functions' coefficients come from SplitMix64 with a fixed seed: the
//! same on every machine, so indexes built on one are read on all.

use xxhash_rust::xxh3::xxh3_64;

/// Bumped whenever the signature, band keys or sketch change: an index
/// records it and is refused by a build with another.
pub const MINHASH_VERSION: u8 = 1;

/// The coefficients of every function a signature may use (the most
/// `bands × rows` allowed).
pub const MAX_HASHES: usize = 256;

/// The functions' `a` (odd) and `b`, apart so that they load as SIMD lanes.
struct Coefficients {
    a: [u32; MAX_HASHES],
    b: [u32; MAX_HASHES],
}

fn coefficients() -> &'static Coefficients {
    static TABLE: std::sync::OnceLock<Coefficients> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut state = 0x6d69_6e68_6173_6831; // "minhash1"
        let mut c = Coefficients {
            a: [0; MAX_HASHES],
            b: [0; MAX_HASHES],
        };
        for i in 0..MAX_HASHES {
            let r = super::splitmix64(&mut state);
            c.a[i] = (r as u32) | 1;
            c.b[i] = (r >> 32) as u32;
        }
        c
    })
}

/// The least images of a page's shingles, one per function.
#[derive(Debug, Clone)]
pub struct MinHasher {
    mins: Vec<u32>,
    added: u64,
}

impl MinHasher {
    /// A signature of `hashes` values (at most [`MAX_HASHES`]).
    pub fn new(hashes: usize) -> Self {
        assert!(
            (1..=MAX_HASHES).contains(&hashes),
            "1 to {MAX_HASHES} hashes"
        );
        MinHasher {
            mins: vec![u32::MAX; hashes],
            added: 0,
        }
    }

    /// Adds one shingle hash.
    #[inline(always)]
    pub fn add(&mut self, shingle: u64) {
        let x = (shingle as u32) ^ ((shingle >> 32) as u32);
        let c = coefficients();
        let n = self.mins.len();
        for ((m, &a), &b) in self.mins.iter_mut().zip(&c.a[..n]).zip(&c.b[..n]) {
            *m = (*m).min(a.wrapping_mul(x).wrapping_add(b));
        }
        self.added += 1;
    }

    /// The signature (`None` without a shingle); resets for the next page.
    pub fn finish(&mut self) -> Option<Vec<u32>> {
        let fresh = vec![u32::MAX; self.mins.len()];
        let mins = std::mem::replace(&mut self.mins, fresh);
        let added = std::mem::take(&mut self.added);
        (added > 0).then_some(mins)
    }
}

/// The signature's band keys, band `i` first: XXH3 of the band's number and
/// its `rows` values (little-endian), so equal runs in different bands make
/// different keys.
pub fn bands(signature: &[u32], rows: usize) -> impl Iterator<Item = u64> + '_ {
    signature
        .chunks_exact(rows)
        .enumerate()
        .map(move |(i, run)| {
            let mut bytes = Vec::with_capacity(8 + 4 * rows);
            bytes.extend_from_slice(&(i as u64).to_le_bytes());
            for v in run {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
            xxh3_64(&bytes)
        })
}

/// One byte of each value: the top byte of the value times an odd
/// constant. Not the value's own top byte: a least value is small, its top
/// byte 0 on any page of a few hundred shingles, and two unrelated pages
/// would agree everywhere.
pub fn sketch(signature: &[u32]) -> Vec<u8> {
    signature
        .iter()
        .map(|v| (v.wrapping_mul(0x9e37_79b1) >> 24) as u8)
        .collect()
}

/// The Jaccard similarity two sketches estimate: the share of agreeing
/// bytes, less the agreements chance makes (1 in 256), clamped to 0..1.
pub fn similarity(a: &[u8], b: &[u8]) -> f64 {
    let n = a.len().min(b.len());
    if n == 0 {
        return 0.0;
    }
    let agree = a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / n as f64;
    let chance = 1.0 / 256.0;
    ((agree - chance) / (1.0 - chance)).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signature(shingles: impl Iterator<Item = u64>, hashes: usize) -> Vec<u32> {
        let mut m = MinHasher::new(hashes);
        shingles.for_each(|s| m.add(s));
        m.finish().unwrap()
    }

    /// Shingle hashes as the shingler makes them (XXH3 of a number).
    fn shingle(i: u64) -> u64 {
        xxh3_64(&i.to_le_bytes())
    }

    #[test]
    fn the_sketch_estimates_jaccard_within_its_sampling_error() {
        // Sets of 2,000 shingles sharing a known part: J = shared / (4000 − shared).
        for shared in [0u64, 500, 1000, 1600, 1800, 2000] {
            let a = signature((0..2000).map(shingle), 100);
            let b = signature((2000 - shared..4000 - shared).map(shingle), 100);
            let truth = shared as f64 / (4000 - shared) as f64;
            let est = similarity(&sketch(&a), &sketch(&b));
            // 100 samples: a standard error of at most .05.
            assert!(
                (est - truth).abs() < 0.15,
                "J {truth:.3}, estimated {est:.3}"
            );
        }
    }

    #[test]
    fn equal_sets_share_every_band_and_disjoint_ones_none() {
        let a = signature((0..300).map(shingle), 100);
        let same = signature((0..300).rev().map(shingle), 100);
        let other = signature((300..600).map(shingle), 100);
        let keys = |s: &[u32]| bands(s, 5).collect::<Vec<_>>();
        assert_eq!(keys(&a), keys(&same));
        assert_eq!(keys(&a).len(), 20);
        let ka = keys(&a);
        assert!(keys(&other).iter().all(|k| !ka.contains(k)));
    }

    #[test]
    fn a_page_without_shingles_has_no_signature_and_the_next_starts_afresh() {
        let mut m = MinHasher::new(10);
        assert!(m.finish().is_none());
        m.add(shingle(1));
        let first = m.finish().unwrap();
        m.add(shingle(1));
        assert_eq!(m.finish().unwrap(), first);
    }
}
