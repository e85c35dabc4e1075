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
        for &NGramShare(n, share) in &self.top_n_grams {
            if words.len() >= n {
                over(
                    &format!("top_{n}_gram"),
                    hashed.top(n) as f64 / length,
                    share,
                )?;
            }
        }
        // A text with no repeated n-gram has no repeated longer one either.
        let mut none_repeat = false;
        let mut by_n: Vec<_> = self.dup_n_grams.clone();
        by_n.sort_by_key(|g| g.0);
        for NGramShare(n, share) in by_n {
            let repeated = if none_repeat { 0 } else { hashed.repeated(n) };
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

/// The words as polynomial hashes of their bytes, so that the hash of an
/// n-gram's concatenation (what datatrove's `"".join` compares) is a few
/// multiplications, not a new string.
struct Hashed {
    hash: Vec<u64>,
    /// `BASE` to the word's length in bytes.
    power: Vec<u64>,
    chars: Vec<u32>,
}

const BASE: u64 = 0x100_0000_01b3;

impl Hashed {
    fn of(words: &[&str]) -> Hashed {
        let mut h = Hashed {
            hash: Vec::with_capacity(words.len()),
            power: Vec::with_capacity(words.len()),
            chars: Vec::with_capacity(words.len()),
        };
        for w in words {
            let (mut x, mut p) = (0u64, 1u64);
            for &b in w.as_bytes() {
                x = x.wrapping_mul(BASE).wrapping_add(b as u64 + 1);
                p = p.wrapping_mul(BASE);
            }
            h.hash.push(x);
            h.power.push(p);
            h.chars.push(chars(w) as u32);
        }
        h
    }

    /// The hash of words `i..i + n` concatenated, with `sep` between them
    /// (a space for datatrove's `" ".join`, none for `"".join`).
    fn gram(&self, i: usize, n: usize, sep: bool) -> u64 {
        let mut x = self.hash[i];
        for j in i + 1..i + n {
            if sep {
                x = x.wrapping_mul(BASE).wrapping_add(b' ' as u64 + 1);
            }
            x = x.wrapping_mul(self.power[j]).wrapping_add(self.hash[j]);
        }
        x
    }

    fn gram_chars(&self, i: usize, n: usize) -> usize {
        self.chars[i..i + n].iter().map(|&c| c as usize).sum()
    }

    /// The most frequent n-gram's characters (words joined by spaces) times
    /// its count; of equal counts, the first seen (`Counter.most_common`).
    fn top(&self, n: usize) -> usize {
        let mut counts: FxHashMap<u64, (u32, u32)> = FxHashMap::default();
        counts.reserve(self.hash.len());
        for i in 0..=self.hash.len() - n {
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
        (self.gram_chars(first as usize, n) + n - 1) * count as usize
    }

    /// Characters of the n-grams seen before, a repeat skipping its n words
    /// (datatrove's `find_all_duplicate`).
    fn repeated(&self, n: usize) -> usize {
        let mut seen = FxHashSet::default();
        seen.reserve(self.hash.len());
        let (mut total, mut i) = (0, 0);
        while i + n <= self.hash.len() {
            if seen.insert(self.gram(i, n, false)) {
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
}
