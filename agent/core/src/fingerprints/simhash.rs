//! Near-duplicate pages: the labeled pages' SimHashes in banded tables
//! (seed 002: "b-bit fingerprint → L groups of k bits each"; Manku, Jain &
//! Das Sarma, WWW 2007, for 64-bit fingerprints).
//!
//! A 64-bit fingerprint is cut into [`BANDS`] bands of 16 bits. Two
//! fingerprints that differ in at most `BANDS − 1` bits agree exactly on at
//! least one band (pigeonhole), so looking a page up in each band's table and
//! comparing the few fingerprints that share that band finds *every*
//! labeled page within [`MAX_DISTANCE`] bits — no false negatives at that
//! distance — at the cost of `BANDS` binary searches.
//!
//! Each table is the set's fingerprints rotated so that its band is the top
//! 16 bits, sorted: one sorted `u64` array per band, 32 bytes per labeled
//! page in all, no pointers.

use crate::fingerprints::shingles::distance;

/// Bands (tables) per set.
pub const BANDS: u32 = 4;
/// Largest distance at which every labeled page is found.
pub const MAX_DISTANCE: u32 = BANDS - 1;
const BAND_BITS: u32 = 64 / BANDS;

/// The SimHashes of a labeled set, banded.
#[derive(Debug, Clone, Default)]
pub struct SimhashIndex {
    /// `tables[i]`: every fingerprint rotated left by `i · 16`, sorted.
    tables: Vec<Vec<u64>>,
}

impl SimhashIndex {
    pub fn new(simhashes: &[u64]) -> Self {
        let tables = (0..BANDS)
            .map(|band| {
                let mut t: Vec<u64> = simhashes
                    .iter()
                    .map(|h| h.rotate_left(band * BAND_BITS))
                    .collect();
                t.sort_unstable();
                t
            })
            .collect();
        SimhashIndex { tables }
    }

    pub fn len(&self) -> usize {
        self.tables.first().map_or(0, Vec::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.tables.iter().map(|t| t.len() * 8).sum()
    }

    /// The smallest distance from `h` to a labeled fingerprint, when it is at
    /// most `max` (≤ `MAX_DISTANCE`: beyond it a near page may be missed).
    pub fn nearest(&self, h: u64, max: u32) -> Option<u32> {
        let max = max.min(MAX_DISTANCE);
        let mut best: Option<u32> = None;
        let shift = 64 - BAND_BITS;
        for (band, table) in self.tables.iter().enumerate() {
            let r = h.rotate_left(band as u32 * BAND_BITS);
            let top = r >> shift;
            let start = table.partition_point(|&x| (x >> shift) < top);
            for &x in table[start..].iter().take_while(|&&x| x >> shift == top) {
                let d = distance(x, r);
                if d <= max && best.is_none_or(|b| d < b) {
                    best = Some(d);
                    if d == 0 {
                        return best;
                    }
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_fingerprint_within_the_distance_and_nothing_beyond() {
        let mut x = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let labeled: Vec<u64> = (0..5000).map(|_| next()).collect();
        let index = SimhashIndex::new(&labeled);
        assert_eq!(index.len(), 5000);
        for (i, &h) in labeled.iter().enumerate().take(500) {
            // Flip up to three bits anywhere, including all in one band.
            let flips = [i % 64, (i * 7 + 3) % 64, (i * 13 + 5) % 64];
            let mut q = h;
            for (n, &b) in flips.iter().enumerate().take(i % 4) {
                if !flips[..n].contains(&b) {
                    q ^= 1 << b;
                }
            }
            let want = distance(q, h);
            assert_eq!(index.nearest(q, 3), Some(want), "query {i}");
        }
        // Random queries are far from every labeled fingerprint.
        let misses = (0..2000)
            .filter(|_| index.nearest(next(), 3).is_some())
            .count();
        assert_eq!(misses, 0);
        assert_eq!(SimhashIndex::default().nearest(1, 3), None);
    }
}
