//! Gopher's repetition rules (Rae et al., 2021, Table A1; datatrove's
//! `GopherRepetitionFilter`): a page that repeats its lines, paragraphs or
//! n-grams is dropped. Each share is of the text's characters.

use super::words::{self, chars};
use super::{Failure, NGramShare};
use rustc_hash::FxHashSet;
use serde::Deserialize;

/// `[filters.gopher_repetition]`; a share of 0 turns its check off.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GopherRepetition {
    pub dup_line_frac: f64,
    pub dup_para_frac: f64,
    pub dup_line_char_frac: f64,
    pub dup_para_char_frac: f64,
    /// `[n, share]`: the most frequent n-gram's characters over the text's.
    pub top_n_grams: Vec<NGramShare>,
    /// `[n, share]`: the characters of n-grams seen before, over the text's.
    pub dup_n_grams: Vec<NGramShare>,
}

impl GopherRepetition {
    pub fn check(&self, text: &str, words: &[&str]) -> Result<(), Failure> {
        if text.is_empty() {
            return Err(Failure::new("empty", 0.0, 0.0));
        }
        let length = chars(text) as f64;
        let paragraphs: Vec<&str> = split_paragraphs(words::strip(text));
        let (dups, dup_chars) = duplicates(&paragraphs);
        over(
            "dup_para_frac",
            dups as f64 / paragraphs.len() as f64,
            self.dup_para_frac,
        )?;
        over(
            "dup_para_char_frac",
            dup_chars as f64 / length,
            self.dup_para_char_frac,
        )?;

        let lines = split_runs(text);
        let (dups, dup_chars) = duplicates(&lines);
        over(
            "dup_line_frac",
            dups as f64 / lines.len() as f64,
            self.dup_line_frac,
        )?;
        over(
            "dup_line_char_frac",
            dup_chars as f64 / length,
            self.dup_line_char_frac,
        )?;

        let hashed = Hashed::of(words);
        let mut counts = Counts::default();
        // An n-gram occurs no more often than its first m words (m < n): the
        // most frequent m-gram's count bounds every longer n-gram's, and a
        // share that bound keeps under its limit needs no count of its own.
        let mut bound: Option<(usize, u32)> = None;
        for &NGramShare(n, share) in &self.top_n_grams {
            // A share of 0 turns the rule off: nothing to count.
            if words.len() < n || share <= 0.0 {
                continue;
            }
            if let Some((_, count)) = bound.filter(|&(m, _)| m < n) {
                let most = (hashed.longest(n) + n - 1) * count as usize;
                if most as f64 / length <= share {
                    continue;
                }
            }
            let (chars_times_count, count) = hashed.top(n, &mut counts);
            if bound.is_none_or(|(m, _)| n < m) {
                bound = Some((n, count));
            }
            over(
                &format!("top_{n}_gram"),
                chars_times_count as f64 / length,
                share,
            )?;
        }
        // A text with no repeated n-gram has no repeated longer one either.
        let mut none_repeat = false;
        let mut by_n: Vec<_> = self.dup_n_grams.clone();
        by_n.sort_by_key(|g| g.0);
        let may = by_n.first().map(|g| hashed.may_repeat(g.0, &mut counts));
        for NGramShare(n, share) in by_n {
            let may = may.as_deref().unwrap_or_default();
            let repeated = if none_repeat {
                0
            } else {
                hashed.repeated(n, may)
            };
            none_repeat |= repeated == 0;
            over(
                &format!("duplicated_{n}_n_grams"),
                repeated as f64 / length,
                share,
            )?;
        }
        Ok(())
    }
}

/// A share over its limit fails the rule (a limit of 0: the rule is off).
fn over(rule: &str, value: f64, limit: f64) -> Result<(), Failure> {
    if limit > 0.0 && value > limit {
        Err(Failure::new(rule, value, limit))
    } else {
        Ok(())
    }
}

/// Python's `re.split(r"\n{2,}", text)`.
fn split_paragraphs(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut start = 0;
    let mut from = 0;
    while let Some(k) = memchr::memmem::find(&b[from..], b"\n\n") {
        let end = from + k;
        let mut i = end + 2;
        while i < b.len() && b[i] == b'\n' {
            i += 1;
        }
        out.push(&text[start..end]);
        start = i;
        from = i;
    }
    out.push(&text[start..]);
    out
}

/// Python's `re.split("\n+", text)`: empty only at the ends.
fn split_runs(text: &str) -> Vec<&str> {
    let mut out: Vec<&str> = text.split('\n').filter(|l| !l.is_empty()).collect();
    if text.starts_with('\n') || text.is_empty() {
        out.insert(0, "");
    }
    if text.ends_with('\n') {
        out.push("");
    }
    out
}

/// Elements seen before, and their characters (datatrove's `find_duplicates`).
pub(crate) fn duplicates(elements: &[&str]) -> (usize, usize) {
    let mut seen = FxHashSet::default();
    let (mut n, mut chars_) = (0, 0);
    for e in elements {
        if !seen.insert(*e) {
            n += 1;
            chars_ += chars(e);
        }
    }
    (n, chars_)
}

/// The words' polynomial hashes as prefix sums over the text they make,
/// joined without a separator (datatrove's `"".join`) and with spaces
/// (`" ".join`): the hash of any n-gram is then two multiplications, not a
/// new string nor a loop over its words. `BASE` is odd, so its powers have
/// inverses modulo 2⁶⁴ and a prefix can be taken off the front.
struct Hashed {
    /// `prefixes[k]`: of words `0..k`; one entry a word, read together.
    prefixes: Vec<Prefix>,
}

#[derive(Clone, Copy)]
struct Prefix {
    /// The hash of the words joined; `BASE` to their bytes; its inverse.
    joined: u64,
    joined_pow: u64,
    joined_inv: u64,
    /// The words joined by spaces (`spaced_end`), and the same with the
    /// space after the last (`spaced_start`: where the next word starts).
    spaced_end: u64,
    spaced_end_pow: u64,
    spaced_start: u64,
    spaced_start_inv: u64,
    /// The words' characters.
    chars: u32,
}

const BASE: u64 = 0x100_0000_01b3;
/// `BASE`'s inverse modulo 2⁶⁴ (Newton's iteration doubles the correct bits).
const INV: u64 = {
    let mut inv = BASE;
    let mut i = 0;
    while i < 6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(BASE.wrapping_mul(inv)));
        i += 1;
    }
    inv
};
const SPACE: u64 = b' ' as u64 + 1;

/// `BASE` and `INV` to the powers 0 to 63: a word's, looked up, not
/// multiplied out byte by byte.
const POWERS: [(u64, u64); 64] = {
    let mut t = [(1u64, 1u64); 64];
    let mut k = 1;
    while k < 64 {
        t[k] = (t[k - 1].0.wrapping_mul(BASE), t[k - 1].1.wrapping_mul(INV));
        k += 1;
    }
    t
};

/// `BASE` and its inverse to the power `k`.
#[inline]
fn powers(k: usize) -> (u64, u64) {
    match POWERS.get(k) {
        Some(&p) => p,
        None => {
            let (mut p, mut ip) = POWERS[63];
            for _ in 63..k {
                p = p.wrapping_mul(BASE);
                ip = ip.wrapping_mul(INV);
            }
            (p, ip)
        }
    }
}

/// Counts of 64-bit n-gram hashes, by open addressing: a probe is a
/// multiplication and a compare, and the table is emptied from one n to the
/// next by a new generation, not by writing it again (a map with the same
/// keys did five times the work).
#[derive(Default)]
struct Counts {
    slots: Vec<Slot>,
    shift: u32,
    generation: u32,
}

/// Empty unless `generation` is the table's.
#[derive(Clone, Copy, Default)]
struct Slot {
    key: u64,
    count: u32,
    first: u32,
    generation: u32,
}

impl Counts {
    /// Empties the table for `n` keys at most (filled half at most).
    fn reset(&mut self, n: usize) {
        let bits = (2 * n).next_power_of_two().max(16).trailing_zeros();
        if self.slots.len() < 1 << bits {
            self.slots.clear();
            self.slots.resize(1 << bits, Slot::default());
            self.shift = 64 - bits;
        }
        self.generation += 1;
    }

    /// The slot of `key`: its own, or the empty one it is to take (its
    /// count 0).
    #[inline]
    fn slot(&mut self, key: u64) -> &mut Slot {
        let mask = self.slots.len() - 1;
        let mut at = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize;
        loop {
            let s = self.slots[at];
            if s.generation != self.generation {
                let slot = &mut self.slots[at];
                *slot = Slot {
                    key,
                    count: 0,
                    first: 0,
                    generation: self.generation,
                };
                return slot;
            }
            if s.key == key {
                return &mut self.slots[at];
            }
            at = (at + 1) & mask;
        }
    }
}

impl Hashed {
    fn of(words: &[&str]) -> Hashed {
        let mut prefixes = Vec::with_capacity(words.len() + 1);
        let mut at = Prefix {
            joined: 0,
            joined_pow: 1,
            joined_inv: 1,
            spaced_end: 0,
            spaced_end_pow: 1,
            spaced_start: 0,
            spaced_start_inv: 1,
            chars: 0,
        };
        prefixes.push(at);
        let mut spaced_start_pow = 1u64;
        for w in words {
            let bytes = w.as_bytes();
            let mut x = 0u64;
            let mut chars_in = 0u32;
            for &b in bytes {
                x = x.wrapping_mul(BASE).wrapping_add(b as u64 + 1);
                chars_in += u32::from(b & 0xc0 != 0x80);
            }
            let (p, ip) = powers(bytes.len());
            at.joined = at.joined.wrapping_mul(p).wrapping_add(x);
            at.joined_pow = at.joined_pow.wrapping_mul(p);
            at.joined_inv = at.joined_inv.wrapping_mul(ip);
            at.spaced_end = at.spaced_start.wrapping_mul(p).wrapping_add(x);
            at.spaced_end_pow = spaced_start_pow.wrapping_mul(p);
            at.spaced_start = at.spaced_end.wrapping_mul(BASE).wrapping_add(SPACE);
            spaced_start_pow = at.spaced_end_pow.wrapping_mul(BASE);
            at.spaced_start_inv = at.spaced_start_inv.wrapping_mul(ip).wrapping_mul(INV);
            at.chars += chars_in;
            prefixes.push(at);
        }
        Hashed { prefixes }
    }

    fn len(&self) -> usize {
        self.prefixes.len() - 1
    }

    /// The hash of words `i..i + n` concatenated, with `sep` between them
    /// (a space for datatrove's `" ".join`, none for `"".join`).
    fn gram(&self, i: usize, n: usize, sep: bool) -> u64 {
        let (from, to) = (&self.prefixes[i], &self.prefixes[i + n]);
        if sep {
            let front = from
                .spaced_start
                .wrapping_mul(to.spaced_end_pow)
                .wrapping_mul(from.spaced_start_inv);
            to.spaced_end.wrapping_sub(front)
        } else {
            let front = from
                .joined
                .wrapping_mul(to.joined_pow)
                .wrapping_mul(from.joined_inv);
            to.joined.wrapping_sub(front)
        }
    }

    fn gram_chars(&self, i: usize, n: usize) -> usize {
        (self.prefixes[i + n].chars - self.prefixes[i].chars) as usize
    }

    /// The characters of the longest n-gram's words.
    fn longest(&self, n: usize) -> usize {
        (0..=self.len() - n)
            .map(|i| self.gram_chars(i, n))
            .max()
            .unwrap_or(0)
    }

    /// The most frequent n-gram's characters (words joined by spaces) times
    /// its count, and the count; of equal counts, the first seen
    /// (`Counter.most_common`).
    fn top(&self, n: usize, counts: &mut Counts) -> (usize, u32) {
        counts.reset(self.len());
        // The most frequent so far, and of equal counts the first seen:
        // the final one is the most frequent of all.
        let (mut count, mut first) = (0u32, 0u32);
        for i in 0..=self.len() - n {
            let slot = counts.slot(self.gram(i, n, true));
            if slot.count == 0 {
                slot.first = i as u32;
            }
            slot.count += 1;
            if slot.count > count || (slot.count == count && slot.first < first) {
                (count, first) = (slot.count, slot.first);
            }
        }
        (
            (self.gram_chars(first as usize, n) + n - 1) * count as usize,
            count,
        )
    }

    /// The positions whose `m`-gram occurs more than once: the only ones
    /// where an n-gram (n ≥ m) can have been seen before.
    fn may_repeat(&self, m: usize, counts: &mut Counts) -> Vec<bool> {
        let mut may = vec![false; self.len()];
        if self.len() < m {
            return may;
        }
        counts.reset(self.len());
        for i in 0..=self.len() - m {
            let slot = counts.slot(self.gram(i, m, false));
            if slot.count == 0 {
                (slot.count, slot.first) = (1, i as u32);
            } else {
                may[slot.first as usize] = true;
                may[i] = true;
            }
        }
        may
    }

    /// Characters of the n-grams seen before, a repeat skipping its n words
    /// (datatrove's `find_all_duplicate`). A position `may` rules out holds
    /// an n-gram no other position has: seen before it cannot be, and
    /// remembering it changes no later answer, so it is stepped over.
    fn repeated(&self, n: usize, may: &[bool]) -> usize {
        let mut seen = FxHashSet::default();
        let (mut total, mut i) = (0, 0);
        while i + n <= self.len() {
            if !may[i] || seen.insert(self.gram(i, n, false)) {
                i += 1;
            } else {
                total += self.gram_chars(i, n);
                i += n;
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> GopherRepetition {
        toml::from_str(
            "dup_line_frac = 0.3\ndup_para_frac = 0.3\ndup_line_char_frac = 0.2\ndup_para_char_frac = 0.2\n\
             top_n_grams = [[2, 0.2], [3, 0.18], [4, 0.16]]\n\
             dup_n_grams = [[5, 0.15], [6, 0.14], [7, 0.13], [8, 0.12], [9, 0.11], [10, 0.10]]",
        )
        .unwrap()
    }

    #[test]
    fn repeated_lines_and_grams_fail_and_say_by_how_much() {
        let text = "buy now\nbuy now\nbuy now\nsomething else entirely here";
        let f = rule().check(text, &words::words(text)).unwrap_err();
        assert_eq!(f.rule, "dup_line_frac");
        assert!((f.value - 0.5).abs() < 1e-9, "{f:?}");
        let prose = "Rust is a language for systems programming. It gives control over memory without a garbage \
            collector, and its compiler checks that references never outlive the data they point to.";
        assert!(rule().check(prose, &words::words(prose)).is_ok());
    }

    #[test]
    fn a_concatenation_is_compared_as_datatrove_joins_it() {
        let h = Hashed::of(&["ab", "c", "a", "bc"]);
        assert_eq!(h.gram(0, 2, false), h.gram(2, 2, false));
        assert_ne!(h.gram(0, 2, true), h.gram(2, 2, true));
    }

    #[test]
    fn a_gram_hashes_as_its_joined_string_does() {
        let direct = |s: &str| {
            s.bytes()
                .fold(0u64, |x, b| x.wrapping_mul(BASE).wrapping_add(b as u64 + 1))
        };
        assert_eq!(BASE.wrapping_mul(INV), 1);
        let words = ["Wir", "lernen", "é", "", "x", "hier", "und", "dort", "."];
        let h = Hashed::of(&words);
        for i in 0..words.len() {
            for n in 1..=words.len() - i {
                let w = &words[i..i + n];
                assert_eq!(h.gram(i, n, false), direct(&w.concat()), "{i} {n}");
                assert_eq!(h.gram(i, n, true), direct(&w.join(" ")), "{i} {n}");
                assert_eq!(
                    h.gram_chars(i, n),
                    w.iter().map(|w| chars(w)).sum::<usize>()
                );
            }
        }
    }

    #[test]
    fn the_most_frequent_gram_is_counters_most_common() {
        let mut next = crate::fingerprints::xorshift(3);
        let vocabulary = ["a", "b", "cc", "é", "the", "x"];
        let mut counts = Counts::default();
        for len in 0..300 {
            let words: Vec<&str> = (0..len)
                .map(|_| vocabulary[(next() % vocabulary.len() as u64) as usize])
                .collect();
            let h = Hashed::of(&words);
            for n in 1..=4.min(len) {
                // Python's Counter(...).most_common(1): the highest count,
                // of equal counts the first inserted.
                let grams: Vec<String> = words.windows(n).map(|w| w.join(" ")).collect();
                let mut order: Vec<&String> = Vec::new();
                let mut seen = std::collections::HashMap::new();
                for g in &grams {
                    *seen.entry(g).or_insert_with(|| {
                        order.push(g);
                        0u32
                    }) += 1;
                }
                let best = order
                    .iter()
                    .max_by(|a, b| seen[*a].cmp(&seen[*b]).then(std::cmp::Ordering::Greater))
                    .unwrap();
                let expect = (chars(best) * seen[*best] as usize, seen[*best]);
                assert_eq!(h.top(n, &mut counts), expect, "{words:?} {n}");
            }
        }
    }

    #[test]
    fn repeats_are_found_where_they_may_be() {
        let text = "a b c d e f a b c d e f g a b c d e";
        let words: Vec<&str> = text.split(' ').collect();
        let h = Hashed::of(&words);
        let all = vec![true; words.len()];
        for n in 1..=6 {
            assert_eq!(
                h.repeated(n, &h.may_repeat(n.min(5), &mut Counts::default())),
                h.repeated(n, &all),
                "{n}"
            );
        }
    }
}
