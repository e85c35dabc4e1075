//! Gopher's repetition rules (Rae et al., 2021, Table A1; datatrove's
//! `GopherRepetitionFilter`): a page that repeats its lines, paragraphs or
//! n-grams is dropped. Each share is of the text's characters.

use super::words::{self, chars};
use super::{Failure, NGramShare};
use rustc_hash::{FxHashMap, FxHashSet};
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
            let (chars_times_count, count) = hashed.top(n);
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
        let may = by_n.first().map(|g| hashed.may_repeat(g.0));
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
    let mut start = 0;
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\n' && b.get(i + 1) == Some(&b'\n') {
            let end = i;
            while i < b.len() && b[i] == b'\n' {
                i += 1;
            }
            out.push(&text[start..end]);
            start = i;
        } else {
            i += 1;
        }
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
    /// `joined[k]`: the hash of words `0..k` joined; `joined_pow[k]`: `BASE`
    /// to their bytes; `joined_inv[k]`: its inverse.
    joined: Vec<u64>,
    joined_pow: Vec<u64>,
    joined_inv: Vec<u64>,
    /// `spaced_end[k]`: words `0..k` joined by spaces; `spaced_start[k]`:
    /// the same and the space after word `k - 1` (where word `k` starts).
    spaced_end: Vec<u64>,
    spaced_end_pow: Vec<u64>,
    spaced_start: Vec<u64>,
    spaced_start_inv: Vec<u64>,
    /// `chars[k]`: characters of words `0..k`.
    chars: Vec<u32>,
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

impl Hashed {
    fn of(words: &[&str]) -> Hashed {
        let n = words.len() + 1;
        let mut h = Hashed {
            joined: Vec::with_capacity(n),
            joined_pow: Vec::with_capacity(n),
            joined_inv: Vec::with_capacity(n),
            spaced_end: Vec::with_capacity(n),
            spaced_end_pow: Vec::with_capacity(n),
            spaced_start: Vec::with_capacity(n),
            spaced_start_inv: Vec::with_capacity(n),
            chars: Vec::with_capacity(n),
        };
        let (mut j, mut jp, mut ji) = (0u64, 1u64, 1u64);
        let (mut ss, mut ssp, mut ssi) = (0u64, 1u64, 1u64);
        let mut c = 0u32;
        let push = |h: &mut Hashed, v: [u64; 7], c: u32| {
            h.joined.push(v[0]);
            h.joined_pow.push(v[1]);
            h.joined_inv.push(v[2]);
            h.spaced_end.push(v[3]);
            h.spaced_end_pow.push(v[4]);
            h.spaced_start.push(v[5]);
            h.spaced_start_inv.push(v[6]);
            h.chars.push(c);
        };
        push(&mut h, [0, 1, 1, 0, 1, 0, 1], 0);
        for w in words {
            let (mut x, mut p, mut ip) = (0u64, 1u64, 1u64);
            for &b in w.as_bytes() {
                x = x.wrapping_mul(BASE).wrapping_add(b as u64 + 1);
                p = p.wrapping_mul(BASE);
                ip = ip.wrapping_mul(INV);
            }
            j = j.wrapping_mul(p).wrapping_add(x);
            jp = jp.wrapping_mul(p);
            ji = ji.wrapping_mul(ip);
            let se = ss.wrapping_mul(p).wrapping_add(x);
            let sep = ssp.wrapping_mul(p);
            ss = se.wrapping_mul(BASE).wrapping_add(SPACE);
            ssp = sep.wrapping_mul(BASE);
            ssi = ssi.wrapping_mul(ip).wrapping_mul(INV);
            c += chars(w) as u32;
            push(&mut h, [j, jp, ji, se, sep, ss, ssi], c);
        }
        h
    }

    fn len(&self) -> usize {
        self.chars.len() - 1
    }

    /// The hash of words `i..i + n` concatenated, with `sep` between them
    /// (a space for datatrove's `" ".join`, none for `"".join`).
    fn gram(&self, i: usize, n: usize, sep: bool) -> u64 {
        let e = i + n;
        if sep {
            let front = self.spaced_start[i]
                .wrapping_mul(self.spaced_end_pow[e])
                .wrapping_mul(self.spaced_start_inv[i]);
            self.spaced_end[e].wrapping_sub(front)
        } else {
            let front = self.joined[i]
                .wrapping_mul(self.joined_pow[e])
                .wrapping_mul(self.joined_inv[i]);
            self.joined[e].wrapping_sub(front)
        }
    }

    fn gram_chars(&self, i: usize, n: usize) -> usize {
        (self.chars[i + n] - self.chars[i]) as usize
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
    fn top(&self, n: usize) -> (usize, u32) {
        let mut counts: FxHashMap<u64, (u32, u32)> = FxHashMap::default();
        counts.reserve(self.len());
        for i in 0..=self.len() - n {
            counts
                .entry(self.gram(i, n, true))
                .or_insert((0, i as u32))
                .0 += 1;
        }
        let (count, first) = counts
            .values()
            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
            .copied()
            .unwrap_or((0, 0));
        (
            (self.gram_chars(first as usize, n) + n - 1) * count as usize,
            count,
        )
    }

    /// The positions whose `m`-gram occurs more than once: the only ones
    /// where an n-gram (n ≥ m) can have been seen before.
    fn may_repeat(&self, m: usize) -> Vec<bool> {
        let mut may = vec![false; self.len()];
        if self.len() < m {
            return may;
        }
        let mut first: FxHashMap<u64, u32> = FxHashMap::default();
        first.reserve(self.len());
        for i in 0..=self.len() - m {
            match first.entry(self.gram(i, m, false)) {
                std::collections::hash_map::Entry::Occupied(e) => {
                    may[*e.get() as usize] = true;
                    may[i] = true;
                }
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(i as u32);
                }
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
    fn repeats_are_found_where_they_may_be() {
        let text = "a b c d e f a b c d e f g a b c d e";
        let words: Vec<&str> = text.split(' ').collect();
        let h = Hashed::of(&words);
        let all = vec![true; words.len()];
        for n in 1..=6 {
            assert_eq!(
                h.repeated(n, &h.may_repeat(n.min(5))),
                h.repeated(n, &all),
                "{n}"
            );
        }
    }
}
