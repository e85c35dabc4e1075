//! The in-memory form of one labeled set: small, exact enough, one or two
//! cache lines per lookup.
//!
//! A set holds 64-bit keys (the first 8 bytes of chunk SHA-1s, see
//! [`super::key`]). Keys are uniformly distributed, so they are quotiented:
//! the top `q` bits pick one of `2^q` buckets, and only the next 32 bits (the
//! *remainder*) are stored, sorted within the bucket. `q` is chosen so that a
//! bucket holds 2–4 keys on average. Bucket starts are a `u32` base per 256
//! buckets plus a `u16` offset per bucket.
//!
//! - **Memory**: 4 bytes per key + 2.02 bytes per bucket = 4.5–5.0 bytes per key.
//! - **False matches**: a key not in the set matches only when its remainder
//!   equals one of the ≤ 4 (on average) remainders in its bucket: at most
//!   4 · 2⁻³² ≈ 9.3·10⁻¹⁰ per lookup. A true member always matches.
//! - **Lookup**: two reads (offsets, then a short run of remainders), no
//!   pointer chasing, no hashing (the key already is a hash).

/// Buckets per `u32` base offset.
const GROUP: usize = 256;

/// One labeled set in memory. Immutable once built.
#[derive(Debug, Clone, Default)]
pub struct CompactSet {
    /// `log2` of the bucket count.
    q: u32,
    /// Start of every 256-bucket group in `remainders`.
    bases: Vec<u32>,
    /// Start of each bucket relative to its group's base; one extra at the end.
    offsets: Vec<u16>,
    remainders: Vec<u32>,
}

/// A group of 256 buckets held more than 65,535 keys: keys are not uniformly
/// distributed (they are not SHA-1 prefixes).
#[derive(Debug, thiserror::Error)]
#[error("labeled set keys are not uniformly distributed (bucket group {0} overflows); keys must be SHA-1 prefixes")]
pub struct Skewed(usize);

impl CompactSet {
    /// Builds the set in one pass from keys sorted ascending (duplicates allowed).
    pub fn from_sorted(keys: impl ExactSizeIterator<Item = u64>) -> Result<Self, Skewed> {
        let n = keys.len().max(1) as u64;
        // Smallest q with n / 2^q <= 4; at most 32 so a remainder fits in u32.
        let q = (64 - n.div_ceil(4).saturating_sub(1).leading_zeros()).min(32);
        let buckets = 1usize << q;
        let mut set = CompactSet {
            q,
            bases: Vec::with_capacity(buckets / GROUP + 2),
            offsets: Vec::with_capacity(buckets + 1),
            remainders: Vec::with_capacity(keys.len()),
        };
        // Buckets below `next` have their start written.
        let mut next = 0usize;
        let mut last: Option<(usize, u32)> = None;
        for key in keys {
            let b = bucket(key, q);
            while next <= b {
                set.start_bucket(next)?;
                next += 1;
            }
            let r = remainder(key, q);
            if last != Some((b, r)) {
                set.remainders.push(r);
                last = Some((b, r));
            }
        }
        while next <= buckets {
            set.start_bucket(next)?;
            next += 1;
        }
        if set.remainders.len() > u32::MAX as usize {
            return Err(Skewed(0));
        }
        Ok(set)
    }

    /// Records that bucket `b` starts at the current end of `remainders`.
    fn start_bucket(&mut self, b: usize) -> Result<(), Skewed> {
        if b % GROUP == 0 {
            self.bases.push(self.remainders.len() as u32);
        }
        let rel = self.remainders.len() - self.bases[b / GROUP] as usize;
        self.offsets
            .push(u16::try_from(rel).map_err(|_| Skewed(b / GROUP))?);
        Ok(())
    }

    /// Whether `key` is in the set (false matches as in the module docs).
    #[inline]
    pub fn contains(&self, key: u64) -> bool {
        if self.remainders.is_empty() {
            return false;
        }
        let b = bucket(key, self.q);
        let start = self.bases[b / GROUP] as usize + self.offsets[b] as usize;
        let end = self.bases[(b + 1) / GROUP] as usize + self.offsets[b + 1] as usize;
        let r = remainder(key, self.q);
        // Buckets hold a handful of sorted remainders: a linear scan beats a search.
        self.remainders[start..end].contains(&r)
    }

    /// `contains` for many keys at once: `out[i] = contains(keys[i])`.
    ///
    /// A lookup is two dependent memory reads (bucket offsets, then
    /// remainders), each a likely cache miss in a large set. One at a time,
    /// the CPU waits for each miss in turn; here the reads of a batch are
    /// issued together (all offsets, then all remainder runs), so their
    /// misses overlap. A page's chunks are looked up this way.
    pub fn contains_many(&self, keys: &[u64], out: &mut [bool]) {
        const BATCH: usize = 32;
        assert_eq!(keys.len(), out.len(), "one answer per key");
        if self.remainders.is_empty() {
            out.iter_mut().for_each(|o| *o = false);
            return;
        }
        let mut ranges = [(0usize, 0usize); BATCH];
        for (ks, os) in keys.chunks(BATCH).zip(out.chunks_mut(BATCH)) {
            for &k in ks {
                crate::prefetch::prefetch(&self.offsets[bucket(k, self.q)]);
            }
            for (range, &k) in ranges.iter_mut().zip(ks) {
                let b = bucket(k, self.q);
                *range = (
                    self.bases[b / GROUP] as usize + self.offsets[b] as usize,
                    self.bases[(b + 1) / GROUP] as usize + self.offsets[b + 1] as usize,
                );
                if range.0 < self.remainders.len() {
                    crate::prefetch::prefetch(&self.remainders[range.0]);
                }
            }
            for ((o, &k), &(start, end)) in os.iter_mut().zip(ks).zip(&ranges) {
                let r = remainder(k, self.q);
                *o = self.remainders[start..end].contains(&r);
            }
        }
    }

    /// Distinct (bucket, remainder) entries.
    pub fn len(&self) -> usize {
        self.remainders.len()
    }

    /// True when the set is empty.
    pub fn is_empty(&self) -> bool {
        self.remainders.is_empty()
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.bases.capacity() * 4 + self.offsets.capacity() * 2 + self.remainders.capacity() * 4
    }

    /// The expected false-match rate per lookup of a key not in the set.
    pub fn false_match_rate(&self) -> f64 {
        self.len() as f64 / (1u64 << self.q) as f64 / 2f64.powi(32)
    }
}

#[inline]
fn bucket(key: u64, q: u32) -> usize {
    if q == 0 {
        0
    } else {
        (key >> (64 - q)) as usize
    }
}

#[inline]
fn remainder(key: u64, q: u32) -> u32 {
    ((key << q) >> 32) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(n: usize, seed: u64) -> Vec<u64> {
        // splitmix64: uniform keys like SHA-1 prefixes.
        let mut x = seed;
        let mut v: Vec<u64> = (0..n)
            .map(|_| {
                x = x.wrapping_add(0x9E3779B97F4A7C15);
                let mut z = x;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
                z ^ (z >> 31)
            })
            .collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn members_match_and_others_do_not() {
        for n in [0usize, 1, 3, 4, 5, 17, 1000, 100_000] {
            let k = keys(n, n as u64);
            let set = CompactSet::from_sorted(k.iter().copied()).unwrap();
            assert_eq!(set.len(), n);
            assert!(k.iter().all(|&x| set.contains(x)), "n = {n}");
            let mut out = vec![false; k.len()];
            set.contains_many(&k, &mut out);
            assert!(out.iter().all(|&o| o), "n = {n}");
            let others = keys(10_000, 7 + n as u64);
            let false_matches = others
                .iter()
                .filter(|x| k.binary_search(x).is_err() && set.contains(**x))
                .count();
            assert_eq!(false_matches, 0, "n = {n}");
            let mut out = vec![true; others.len()];
            set.contains_many(&others, &mut out);
            let singles: Vec<bool> = others.iter().map(|&x| set.contains(x)).collect();
            assert_eq!(out, singles);
            if n >= 1000 {
                let per_key = set.heap_bytes() as f64 / n as f64;
                assert!(per_key <= 5.05, "{per_key} bytes per key at n = {n}");
                assert!(set.false_match_rate() <= 1e-9);
            }
        }
    }

    #[test]
    fn extreme_keys_and_duplicates() {
        let k = [0, 0, 1 << 40, u64::MAX - (1 << 40), u64::MAX];
        let set = CompactSet::from_sorted(k.iter().copied()).unwrap();
        assert_eq!(set.len(), 4);
        for x in [0, 1 << 40, u64::MAX - (1 << 40), u64::MAX] {
            assert!(set.contains(x));
        }
        assert!(!set.contains(1 << 50));
    }

    #[test]
    fn skewed_keys_are_refused() {
        // All in bucket 0, distinct remainders.
        let k: Vec<u64> = (0..300_000u64).map(|i| i << 20).collect();
        assert!(CompactSet::from_sorted(k.iter().copied()).is_err());
    }
}
