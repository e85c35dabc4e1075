//! Upper bounds of the n-gram shares, cheaper than the counts: a page whose
//! bound keeps under a rule's limit passes it, and only a page near or over
//! the limit is counted exactly (`grams.rs`). Most pages sit far under
//! every limit, so most pay for the bounds alone.
//!
//! A bound is never under the exact value, so a rule fails exactly where
//! the count would fail it, with the count's value: the bounds change what
//! is computed, never a decision.

use super::grams::{Hashed, KEY, LOW_BYTES};
use crate::filters::words::split_sixteen;

/// The arrays the bounds are summed in, kept on a thread from one page to
/// the next.
#[derive(Default)]
pub(super) struct Bounds {
    /// The most frequent n-gram's: each gram's characters and its count
    /// added to one bucket of its hash (`mass << COUNT_BITS | count`).
    buckets: Vec<u64>,
    /// The repeats': a Bloom filter of the keys seen so far, one bit a key
    /// (a bit set by chance only sends a page to be counted).
    seen: Vec<u64>,
    /// A word's flags: `STARTS`, `ENDS`, and bit `k` where the `k`-th n's
    /// short gram from it may have occurred before.
    flags: Vec<u8>,
    /// The positions where a gram may begin that occurred before, in order.
    again: Vec<u32>,
}

/// The low bits of a bucket count a gram's occurrences, the rest its
/// characters: a page of 2^24 words or more is counted exactly.
const COUNT_BITS: u32 = 24;

/// [`Bounds::flags`]: the `KEY` bytes from the word's start, and those up
/// to its end, may have occurred before at a word's.
const STARTS: u8 = 0x80;
const ENDS: u8 = 0x40;

/// The most n's the repeats' bound keeps a short key for (the flags' six
/// low bits).
pub(super) const MOST_NS: usize = 6;

impl Bounds {
    /// An upper bound of [`Hashed::top`]'s `(characters times count, count)`.
    ///
    /// Every occurrence of an n-gram adds its characters (joined by
    /// spaces) and 1 to the bucket of its hash: a bucket holds at least
    /// what its most frequent gram adds, and others that share it only
    /// raise it. An eighth as many buckets as grams (64 to 4,096) keep
    /// that small beside the limits (a fifth of the text's characters and
    /// less). `None` for a page too long for a bucket's two counts.
    pub(super) fn top(&mut self, h: &Hashed, n: usize) -> Option<(usize, u32)> {
        let grams = (h.len() + 1).checked_sub(n)?;
        // A bucket's characters are at most n times the text's.
        let chars = u64::from(h.chars[h.len()]) + h.len() as u64;
        if grams >= 1 << COUNT_BITS || chars.saturating_mul(n as u64) >> (63 - COUNT_BITS) != 0 {
            return None;
        }
        let bits = (grams / 8)
            .next_power_of_two()
            .clamp(64, 1 << 12)
            .trailing_zeros();
        self.buckets.clear();
        self.buckets.resize(1 << bits, 0);
        let buckets = &mut self.buckets[..];
        let shift = super::grams::WORD_BASE.wrapping_pow(n as u32);
        let (sums, chars) = (&h.sequence[..=h.len()], &h.chars[..=h.len()]);
        let (sums_to, sums_from) = (&sums[n..], &sums[..grams]);
        let (chars_to, chars_from) = (&chars[n..], &chars[..grams]);
        let spaces = (n - 1) as u64;
        for k in 0..grams {
            // The words' hashes are mixed already: a polynomial of them is
            // bucketed by its high bits as it is.
            let hash = sums_to[k].wrapping_sub(sums_from[k].wrapping_mul(shift));
            let mass = (chars_to[k] - chars_from[k]) as u64 + spaces;
            buckets[(hash >> (64 - bits)) as usize] += mass << COUNT_BITS | 1;
        }
        let (mass, count) = buckets.iter().fold((0, 0), |(m, c), &b| {
            (m.max(b >> COUNT_BITS), c.max(b & ((1 << COUNT_BITS) - 1)))
        });
        Some((mass as usize, count as u32))
    }

    /// Upper bounds of [`Hashed::repeated`] for each of `ns` (ascending,
    /// at most [`MOST_NS`]), in its order.
    ///
    /// datatrove counts an n-gram's characters where the same n-gram
    /// occurred before, and skips its words. The grams it counts lie among
    /// those that occurred before, and do not overlap: their characters
    /// are at most those of the words that such grams cover, the bound.
    ///
    /// "Occurred before" is itself bounded, by a Bloom filter of keys. Two
    /// equal n-grams join to the same bytes but may be split into words
    /// differently (`ab c` and `a bc`); what they surely share is their
    /// first `KEY` bytes, from a word's start, and their last, up to a
    /// word's end. So a gram of `KEY` bytes or more may have occurred
    /// before only where both its first and its last `KEY` bytes did, at a
    /// word's start and end; a shorter one is keyed by its bytes and
    /// length, one key for each n. A key that finds its bit set may have
    /// occurred before; one that does not, did not.
    pub(super) fn repeated(&mut self, h: &Hashed, ns: &[usize]) -> Vec<usize> {
        debug_assert!(ns.len() <= MOST_NS && ns.windows(2).all(|w| w[0] <= w[1]));
        let Some(&m) = ns.first() else {
            return Vec::new();
        };
        if h.len() < m || m == 0 {
            return vec![0; ns.len()];
        }
        self.mark_again(h, ns);
        let words = h.len();
        let (bytes, chars, flags) = (&h.bytes[..=words], &h.chars[..=words], &self.flags);
        // One sweep for every n: the position's arrays read once.
        let (mut covered, mut until) = ([0usize; MOST_NS], [0usize; MOST_NS]);
        for &i in &self.again {
            let i = i as usize;
            let (at, from, flags_i) = (bytes[i], chars[i], flags[i]);
            for (k, &n) in ns.iter().enumerate() {
                let to = i + n;
                if to > words {
                    break;
                }
                let again = if ((bytes[to] - at) as usize) < KEY {
                    flags_i & 1 << k != 0
                } else {
                    flags_i & STARTS != 0 && flags[to - 1] & ENDS != 0
                };
                if again {
                    covered[k] += (chars[to] - from.max(chars[until[k]])) as usize;
                    until[k] = to;
                }
            }
        }
        covered[..ns.len()].to_vec()
    }

    /// Sets each word's flags: whether its start's and its end's `KEY`
    /// bytes, and for each of `ns` its short gram, may have occurred
    /// before. `again` holds the positions where one of the first two
    /// kinds is set.
    fn mark_again(&mut self, h: &Hashed, ns: &[usize]) {
        let (words, positions) = (h.len(), h.len() + 1 - ns[0]);
        // 64 bits a position, about two keys a position: a key is found by
        // chance about once in 60 at most, both ends of a gram far less
        // often (half as many bits: a fifth more pages counted exactly).
        let bits = words.next_power_of_two().max(64).trailing_zeros();
        self.seen.clear();
        self.seen.resize(1 << bits, 0);
        self.flags.clear();
        self.flags.resize(words, 0);
        self.again.clear();
        let (total, bytes) = (h.total(), &h.bytes[..=words]);
        let (seen, stream) = (&mut self.seen[..], &h.stream[..]);
        let flags_of = self.flags.iter_mut().zip(bytes.windows(2)).enumerate();
        for (i, (flags_, span)) in flags_of {
            let (from, to) = (span[0] as usize, span[1] as usize);
            let mut flags = 0;
            if to >= KEY {
                let (lo, hi) = sixteen(stream, to - KEY);
                flags |= ENDS * u8::from(test_and_set(seen, bits, key(1, lo, hi)));
            }
            if i < positions {
                // The stream's padding lets any position read `KEY` bytes.
                let (lo, hi) = sixteen(stream, from);
                if total - from >= KEY {
                    flags |= STARTS * u8::from(test_and_set(seen, bits, key(0, lo, hi)));
                }
                for (k, &n) in ns.iter().enumerate() {
                    let Some(&end) = bytes.get(i.saturating_add(n)) else {
                        break;
                    };
                    let len = end as usize - from;
                    if len >= KEY {
                        break;
                    }
                    let seed = 2 | (len as u64) << 8 | (n as u64) << 16;
                    let short = key(seed, lo & LOW_BYTES[len], hi & LOW_BYTES[len + 16]);
                    flags |= u8::from(test_and_set(seen, bits, short)) << k;
                }
                if flags & !ENDS != 0 {
                    self.again.push(i as u32);
                }
            }
            *flags_ = flags;
        }
    }

    /// Lets go of arrays a page far longer than most made long.
    pub(super) fn trim(&mut self) {
        if self.seen.len() > 1 << 17 || self.flags.len() > 1 << 17 {
            *self = Bounds::default();
        }
    }
}

/// The sixteen bytes of `stream` from `at`, as two numbers.
#[inline(always)]
fn sixteen(stream: &[u8], at: usize) -> (u64, u64) {
    split_sixteen(stream[at..at + 16].try_into().expect("sixteen bytes"))
}

/// A key of sixteen bytes (`lo`, `hi`) of a kind (`seed`) for the filter:
/// each half multiplied, and the high bits, which every bit of the input
/// reaches, folded down to the low ones the bits within a word are taken
/// from.
#[inline(always)]
fn key(seed: u64, lo: u64, hi: u64) -> u64 {
    let h =
        (lo ^ seed).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ hi.wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
    h ^ h >> 32
}

/// Sets `key`'s bit in `seen` (`2^bits` words); whether it was set before.
#[inline(always)]
fn test_and_set(seen: &mut [u64], bits: u32, key: u64) -> bool {
    let word = (key >> (64 - bits)) as usize & (seen.len() - 1);
    let mask = 1u64 << (key & 63);
    let before = seen[word];
    seen[word] = before | mask;
    before & mask != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::gopher_repetition::reference::{
        find_all_duplicate, most_common, LONG_WORDS,
    };
    use crate::filters::words::{self, chars};

    /// Every bound is at least the count it bounds, on texts whose words
    /// repeat in runs, alone, and joined differently (`ab c`, `a bc`), of
    /// short and long words, the arrays kept from one text to the next.
    #[test]
    fn a_bound_is_never_under_its_count() {
        let mut next = crate::fingerprints::xorshift(5);
        let short: &[&str] = &["a", "b", "ab", "bc", "c", "é", "."];
        let long: &[&str] = &LONG_WORDS;
        let (mut hashed, mut bounds) = (Hashed::default(), Bounds::default());
        let ns = [5, 6, 7, 8, 9, 10];
        for (len, vocabulary) in
            (0..250).flat_map(|len| [(len, short), (len, long), (250 - len, long)])
        {
            let mut chosen: Vec<&str> = Vec::new();
            while chosen.len() < len {
                // A run copied from earlier in the text, or a new word.
                if chosen.len() > 10 && next() % 4 == 0 {
                    let from = (next() % chosen.len() as u64) as usize;
                    let run = (next() % 14) as usize;
                    let copied: Vec<&str> = chosen[from..].iter().take(run).copied().collect();
                    chosen.extend(copied);
                } else {
                    chosen.push(vocabulary[(next() % vocabulary.len() as u64) as usize]);
                }
            }
            chosen.truncate(len);
            let text = chosen.join(" ");
            let words = words::test_words(&text, &chosen, len % 2 == 0);
            hashed.fill(&text, &words);
            let most = bounds.repeated(&hashed, &ns);
            for (&n, most) in ns.iter().zip(most) {
                let exact = find_all_duplicate(&words, n);
                assert!(exact <= most, "{words:?} {n}: {exact} > {most}");
            }
            for n in 1..=4 {
                if let Some((most, count)) = bounds.top(&hashed, n) {
                    let (exact, exact_count) = most_common(&words, n);
                    assert!(exact <= most && exact_count <= count, "{words:?} {n}");
                }
            }
        }
    }

    /// The bounds are near the counts where a text repeats little: a page
    /// with a paragraph said twice is bounded by about that paragraph.
    #[test]
    fn a_bound_is_near_its_count_on_prose() {
        let prose = "Rust is a language for systems programming. It gives control over memory without \
            a garbage collector, and its compiler checks that references never outlive the data they \
            point to. Programs written in it are fast, and they are safe from whole classes of bugs \
            that plague languages with manual memory management.";
        let mut text = String::new();
        for k in 0..40 {
            // Words of their own: no gram of these sentences repeats.
            let (a, b) = (k * 7919 % 1000, k * 104_729 % 1000);
            text.push_str(&format!("Item{k} costs{a} units{b} today{k}. "));
        }
        text.push_str(prose);
        text.push(' ');
        text.push_str(prose);
        let words = words::words(&text);
        let (mut hashed, mut bounds) = (Hashed::default(), Bounds::default());
        hashed.fill(&text, &words);
        let length = chars(&text) as f64;
        for (&n, most) in [5, 10].iter().zip(bounds.repeated(&hashed, &[5, 10])) {
            let exact = find_all_duplicate(&words, n);
            // The paragraph said again, and a few words either side.
            assert!(
                exact <= most && (most - exact) as f64 / length < 0.03,
                "{n}: {exact} {most}"
            );
        }
        let (most, _) = bounds.top(&hashed, 2).unwrap();
        assert!(most as f64 / length < 0.1, "{}", most as f64 / length);
    }
}
