//! Gopher's repetition rules (Rae et al., 2021, Table A1; datatrove's
//! `GopherRepetitionFilter`): a page that repeats its lines, paragraphs or
//! n-grams is dropped. Each share is of the text's characters.

mod bounds;
mod grams;
#[cfg(test)]
mod reference;

use super::words::{self, chars};
use super::{Failure, NGramShare, Words};
use bounds::{Bounds, MOST_NS};
use grams::{Counts, Hashed};
use rustc_hash::FxHashSet;
use serde::Deserialize;
use std::cell::RefCell;

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
    /// `words` are split only when the lines and paragraphs pass: a page
    /// that repeats its lines is dropped without them.
    pub fn check(&self, text: &str, words: &mut Words) -> Result<(), Failure> {
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

        self.check_n_grams(text, words.all(), length)
    }

    /// The top and the repeated n-gram shares.
    fn check_n_grams(&self, text: &str, words: &[&str], length: f64) -> Result<(), Failure> {
        SCRATCH.with_borrow_mut(|scratch| {
            scratch.hashed.fill(text, words);
            let result = self
                .check_top(scratch, length)
                .and_then(|()| self.check_repeated(scratch, length));
            scratch.hashed.trim();
            scratch.counts.trim();
            scratch.bounds.trim();
            result
        })
    }

    /// The most frequent n-grams' shares, each counted only where no bound
    /// keeps it under its limit.
    fn check_top(&self, scratch: &mut Scratch, length: f64) -> Result<(), Failure> {
        // An n-gram occurs no more often than its first m words (m < n): the
        // most frequent m-gram's count bounds every longer n-gram's, and a
        // share that bound keeps under its limit needs no count of its own.
        let mut bound: Option<(usize, u32)> = None;
        for &NGramShare(n, share) in &self.top_n_grams {
            // A share of 0 turns the rule off: nothing to count.
            if scratch.hashed.len() < n || share <= 0.0 {
                continue;
            }
            if let Some((_, count)) = bound.filter(|&(m, _)| m < n) {
                let most = (scratch.hashed.longest(n) + n - 1) * count as usize;
                if most as f64 / length <= share {
                    continue;
                }
            }
            let (chars_times_count, count) = match scratch.bounds.top(&scratch.hashed, n) {
                Some((most, count)) if most as f64 / length <= share => (most, count),
                _ => {
                    let (chars_times_count, count) = scratch.hashed.top(n, &mut scratch.counts);
                    over(
                        &format!("top_{n}_gram"),
                        chars_times_count as f64 / length,
                        share,
                    )?;
                    (chars_times_count, count)
                }
            };
            debug_assert!(chars_times_count as f64 / length <= share);
            if bound.is_none_or(|(m, _)| n < m) {
                bound = Some((n, count));
            }
        }
        Ok(())
    }

    /// The repeated n-grams' shares, each counted only where its bound
    /// does not keep it under its limit.
    fn check_repeated(&self, scratch: &mut Scratch, length: f64) -> Result<(), Failure> {
        let mut by_n: Vec<_> = self
            .dup_n_grams
            .iter()
            .filter(|g| g.1 > 0.0)
            .copied()
            .collect();
        by_n.sort_by_key(|g| g.0);
        let ns: Vec<usize> = by_n.iter().map(|g| g.0).collect();
        let most = match ns.len() {
            0 => return Ok(()),
            1..=MOST_NS => scratch.bounds.repeated(&scratch.hashed, &ns),
            _ => vec![usize::MAX; ns.len()],
        };
        // A text with no repeated n-gram has no repeated longer one either.
        let mut none_repeat = false;
        let mut may: Option<Vec<u32>> = None;
        for (NGramShare(n, share), most) in by_n.into_iter().zip(most) {
            none_repeat |= most == 0;
            if none_repeat || most as f64 / length <= share {
                continue;
            }
            let may =
                may.get_or_insert_with(|| scratch.hashed.may_repeat(ns[0], &mut scratch.counts));
            let repeated = scratch.hashed.repeated(n, may, &mut scratch.counts);
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

/// The n-grams' arrays, their table and their bounds' arrays.
#[derive(Default)]
struct Scratch {
    hashed: Hashed,
    counts: Counts,
    bounds: Bounds,
}

thread_local! {
    /// The scratch kept on a thread from one page to the next: a page's
    /// arrays are written over, not allocated and zeroed again.
    static SCRATCH: RefCell<Scratch> = RefCell::default();
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
    let mut out = Vec::new();
    if text.is_empty() || text.starts_with('\n') {
        out.push("");
    }
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', text.as_bytes()).chain([text.len()]) {
        if end > start {
            out.push(&text[start..end]);
        }
        start = end + 1;
    }
    if text.ends_with('\n') {
        out.push("");
    }
    out
}

/// Elements seen before, and their characters (datatrove's `find_duplicates`).
pub(crate) fn duplicates(elements: &[&str]) -> (usize, usize) {
    let mut seen = FxHashSet::with_capacity_and_hasher(elements.len(), Default::default());
    let (mut n, mut chars_) = (0, 0);
    for e in elements {
        if !seen.insert(*e) {
            n += 1;
            chars_ += chars(e);
        }
    }
    (n, chars_)
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
        let f = rule().check(text, &mut Words::new(text)).unwrap_err();
        assert_eq!(f.rule, "dup_line_frac");
        assert!((f.value - 0.5).abs() < 1e-9, "{f:?}");
        let prose = "Rust is a language for systems programming. It gives control over memory without a garbage \
            collector, and its compiler checks that references never outlive the data they point to.";
        assert!(rule().check(prose, &mut Words::new(prose)).is_ok());
    }

    #[test]
    fn an_n_longer_than_any_text_passes_its_rule() {
        let rule: GopherRepetition = toml::from_str(
            "dup_line_frac = 0.3\ndup_para_frac = 0.3\ndup_line_char_frac = 0.2\ndup_para_char_frac = 0.2\n\
             top_n_grams = [[2, 0.2], [1000000000000, 0.1]]\n\
             dup_n_grams = [[5, 0.15], [1000000000000, 0.01]]",
        )
        .unwrap();
        let text = "Rust is a language for systems programming, with control over memory and no collector.";
        assert!(rule.check(text, &mut Words::new(text)).is_ok());
        let text =
            "one two three four five six seven eight nine ten eleven twelve thirteen fourteen; \
            one two three four five six seven eight nine ten eleven twelve thirteen fourteen";
        let f = rule.check(text, &mut Words::new(text)).unwrap_err();
        assert_eq!(f.rule, "duplicated_5_n_grams", "{f:?}");
    }

    #[test]
    fn lines_are_split_as_pythons_re_split_on_runs_of_newlines() {
        // re.split("\n+", text): the pieces between runs, an empty one at
        // an end that is a newline (and for the empty text).
        fn by_runs(text: &str) -> Vec<&str> {
            let mut out: Vec<&str> = text.split('\n').filter(|l| !l.is_empty()).collect();
            if text.starts_with('\n') || text.is_empty() {
                out.insert(0, "");
            }
            if text.ends_with('\n') {
                out.push("");
            }
            out
        }
        for shape in 0u32..1 << 9 {
            for len in 0..=9 {
                let text: String = (0..len)
                    .map(|k| if shape >> k & 1 == 1 { '\n' } else { 'é' })
                    .collect();
                assert_eq!(split_runs(&text), by_runs(&text), "{text:?}");
            }
        }
        assert_eq!(split_runs("\n\na\n\nb\n"), ["", "a", "b", ""]);
    }
}
