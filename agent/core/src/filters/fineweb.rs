//! FineWeb's own rules (Penedo et al., 2024, §3.5; datatrove's
//! `FineWebQualityFilter`): lines ending in punctuation, short lines,
//! characters of repeated lines, and list-like pages (newlines per word).

use super::gopher_repetition::duplicates;
use super::words::{self, chars};
use super::Failure;
use serde::Deserialize;

/// `[filters.fineweb]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FineWeb {
    /// The least share of lines ending in terminal punctuation.
    pub line_punct_thr: f64,
    /// A page with no such line passes that rule.
    pub line_punct_exclude_zero: bool,
    /// The most share of lines of at most `short_line_length` characters.
    pub short_line_thr: f64,
    pub short_line_length: usize,
    /// The most share of characters in lines seen before.
    pub char_duplicates_ratio: f64,
    /// The most newlines per word.
    pub new_line_ratio: f64,
}

impl FineWeb {
    pub fn check(&self, text: &str, words: &mut super::Words<'_>) -> Result<(), Failure> {
        let fail = |rule, value: f64, limit: f64| Err(Failure::new(rule, value, limit));
        let lines: Vec<&str> = text
            .split('\n')
            .filter(|l| !words::strip(l).is_empty())
            .collect();
        if lines.is_empty() {
            return fail("empty", 0.0, 0.0);
        }
        let n = lines.len() as f64;
        let punct = lines.iter().filter(|l| words::ends_sentence(l)).count() as f64 / n;
        if punct < self.line_punct_thr && !(punct == 0.0 && self.line_punct_exclude_zero) {
            return fail("line_punct_ratio", punct, self.line_punct_thr);
        }
        let short = lines
            .iter()
            .filter(|l| chars(l) <= self.short_line_length)
            .count() as f64
            / n;
        if short > self.short_line_thr {
            return fail("short_line_ratio", short, self.short_line_thr);
        }
        let newlines = words::count(text, "\n");
        let length = chars(text) - newlines;
        let dup = duplicates(&lines).1 as f64 / length.max(1) as f64;
        if dup > self.char_duplicates_ratio {
            return fail("char_dup_ratio", dup, self.char_duplicates_ratio);
        }
        let newlines = newlines as f64;
        // The words outnumber the runs between spaces: a page whose runs
        // keep the ratio keeps it, and its words are not split.
        if newlines / words.at_least().max(1) as f64 <= self.new_line_ratio {
            return Ok(());
        }
        let newlines = newlines / words.all().len().max(1) as f64;
        if newlines > self.new_line_ratio {
            return fail("list_ratio", newlines, self.new_line_ratio);
        }
        Ok(())
    }
}
