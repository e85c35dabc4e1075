//! Gopher's quality rules (Rae et al., 2021, §A.1.1; datatrove's
//! `GopherQualityFilter`): word counts, mean word length, hash and
//! ellipsis symbols per word, bullet and ellipsis lines, words with a
//! letter, stop words.

use super::words::{self, chars};
use super::Failure;
use serde::Deserialize;

/// `[filters.gopher_quality]`; a limit of 0 turns its check off.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GopherQuality {
    pub min_doc_words: u32,
    pub max_doc_words: u32,
    pub min_avg_word_length: f64,
    pub max_avg_word_length: f64,
    pub max_symbol_word_ratio: f64,
    pub max_bullet_lines_ratio: f64,
    pub max_ellipsis_lines_ratio: f64,
    /// The least share of words with a letter (datatrove's name kept).
    pub max_non_alpha_words_ratio: f64,
    pub min_stop_words: u32,
    /// Gopher's eight English stop words; the match is case-sensitive.
    pub stop_words: Vec<String>,
}

impl GopherQuality {
    pub fn check(&self, text: &str, words: &[&str]) -> Result<(), Failure> {
        let fail = |rule, value: f64, limit: f64| Err(Failure::new(rule, value, limit));
        let n_words = words.len() as f64;
        let counts = self.count(text, words);
        let (kept, kept_chars) = (counts.kept, counts.kept_chars);
        let (min, max) = (self.min_doc_words, self.max_doc_words);
        if min > 0 && kept < min {
            return fail("gopher_short_doc", kept as f64, min as f64);
        }
        if max > 0 && kept > max {
            return fail("gopher_long_doc", kept as f64, max as f64);
        }
        if kept > 0 {
            let mean = kept_chars as f64 / kept as f64;
            if self.min_avg_word_length > 0.0 && mean < self.min_avg_word_length {
                return fail("gopher_below_avg_threshold", mean, self.min_avg_word_length);
            }
            if self.max_avg_word_length > 0.0 && mean > self.max_avg_word_length {
                return fail("gopher_above_avg_threshold", mean, self.max_avg_word_length);
            }
        }
        let symbols = self.max_symbol_word_ratio;
        let hashes = words::count(text, "#") as f64 / n_words;
        if symbols > 0.0 && hashes > symbols {
            return fail("gopher_too_many_hashes", hashes, symbols);
        }
        let ellipses = (words::count(text, "...") + words::count(text, "…")) as f64 / n_words;
        if symbols > 0.0 && ellipses > symbols {
            return fail("gopher_too_many_ellipsis", ellipses, symbols);
        }
        self.check_lines(text)?;
        let alpha = counts.alpha as f64 / n_words;
        if self.max_non_alpha_words_ratio > 0.0 && alpha < self.max_non_alpha_words_ratio {
            return fail(
                "gopher_below_alpha_threshold",
                alpha,
                self.max_non_alpha_words_ratio,
            );
        }
        if self.min_stop_words > 0 {
            let found = counts.stop_seen.iter().filter(|&&s| s).count();
            if (found as u32) < self.min_stop_words {
                return fail(
                    "gopher_enough_stop_words",
                    found as f64,
                    self.min_stop_words as f64,
                );
            }
        }
        Ok(())
    }

    /// What the rules count of the words, in one pass: an ASCII word (most)
    /// is read a byte at a time for all of it, one table read a byte;
    /// another by its characters. Stop words are looked for until enough
    /// are found (the count is a value only when it falls short).
    fn count(&self, text: &str, words: &[&str]) -> Counts {
        let longest = self.stop_words.iter().map(String::len).max().unwrap_or(0);
        let mut c = Counts {
            stop_seen: vec![false; self.stop_words.len()],
            ..Counts::default()
        };
        let mut stops_to_find = self.min_stop_words;
        for w in words {
            // Most words start with an ASCII letter: a word with a letter
            // and no symbol alone.
            if w.as_bytes().first().map(|&b| BYTE_CLASS[b as usize]) == Some(LETTER) {
                c.kept += 1;
                c.kept_chars += words::chars_of_word_in(text, w);
                c.alpha += 1;
                if stops_to_find > 0 && w.len() <= longest {
                    self.find_stop(w, &mut c, &mut stops_to_find);
                }
                continue;
            }
            let (mut any, mut all) = (0u8, SYMBOL);
            for &x in w.as_bytes() {
                let class = BYTE_CLASS[x as usize];
                any |= class;
                all &= class;
            }
            let (symbol, alpha, length) = if any & BEYOND_ASCII == 0 {
                (all & SYMBOL != 0, any & LETTER != 0, w.len())
            } else {
                let alpha = w.chars().any(words::is_alpha);
                (words::is_symbol(w), alpha, chars(w))
            };
            if !symbol {
                c.kept += 1;
                c.kept_chars += length;
            }
            c.alpha += usize::from(alpha);
            if stops_to_find > 0 && w.len() <= longest {
                self.find_stop(w, &mut c, &mut stops_to_find);
            }
        }
        c
    }

    #[inline]
    fn find_stop(&self, w: &str, c: &mut Counts, to_find: &mut u32) {
        if let Some(i) = self.stop_words.iter().position(|s| s == w) {
            if !c.stop_seen[i] {
                c.stop_seen[i] = true;
                *to_find -= 1;
            }
        }
    }

    /// Lines that start with a bullet, lines that end with an ellipsis.
    fn check_lines(&self, text: &str) -> Result<(), Failure> {
        let (mut lines, mut bullets, mut ellipses) = (0usize, 0usize, 0usize);
        for line in words::splitlines(text) {
            lines += 1;
            let start = line.trim_start_matches(words::is_space);
            bullets += (start.starts_with('•') || start.starts_with('-')) as usize;
            let end = line.trim_end_matches(words::is_space);
            ellipses += (end.ends_with("...") || end.ends_with('…')) as usize;
        }
        let lines = lines.max(1) as f64;
        let (b, e) = (bullets as f64 / lines, ellipses as f64 / lines);
        if self.max_bullet_lines_ratio > 0.0 && b > self.max_bullet_lines_ratio {
            return Err(Failure::new(
                "gopher_too_many_bullets",
                b,
                self.max_bullet_lines_ratio,
            ));
        }
        if self.max_ellipsis_lines_ratio > 0.0 && e > self.max_ellipsis_lines_ratio {
            return Err(Failure::new(
                "gopher_too_many_end_ellipsis",
                e,
                self.max_ellipsis_lines_ratio,
            ));
        }
        Ok(())
    }
}

/// What an ASCII byte is to [`GopherQuality::count`]: a symbol (datatrove's
/// symbols), a letter; and a byte beyond ASCII.
const SYMBOL: u8 = 1;
const LETTER: u8 = 2;
const BEYOND_ASCII: u8 = 4;
const BYTE_CLASS: [u8; 256] = {
    let mut t = [BEYOND_ASCII; 256];
    let mut b = 0;
    while b < 128 {
        t[b] = if words::ASCII_SYMBOLS >> b & 1 == 1 {
            SYMBOL
        } else if (b as u8).is_ascii_alphabetic() {
            LETTER
        } else {
            0
        };
        b += 1;
    }
    t
};

/// The words' counts the rules are computed from.
#[derive(Default)]
struct Counts {
    /// Words that are not symbols alone, and their characters.
    kept: u32,
    kept_chars: usize,
    /// Words with a letter.
    alpha: usize,
    /// Which stop words occur.
    stop_seen: Vec<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> GopherQuality {
        let mut s = crate::Settings::defaults().filters;
        s.gopher_quality.min_stop_words = 8;
        s.gopher_quality
    }

    /// `count` as datatrove reads each word, character by character.
    fn counted_by_characters(r: &GopherQuality, words: &[&str]) -> (u32, usize, usize, usize) {
        let kept: Vec<&&str> = words.iter().filter(|w| !words::is_symbol(w)).collect();
        let stops = r
            .stop_words
            .iter()
            .filter(|s| words.contains(&s.as_str()))
            .count();
        (
            kept.len() as u32,
            kept.iter().map(|w| chars(w)).sum(),
            words
                .iter()
                .filter(|w| w.chars().any(words::is_alpha))
                .count(),
            stops,
        )
    }

    #[test]
    fn the_counts_are_the_characters_counts_whatever_a_word_starts_with() {
        let r = rule();
        let pieces = [
            "the", "a", "naïve", "Zoë", "x…", "...", "'", "''", "#", "é", "日本", "1990", "a.",
            "-", "and", "of", "that", "to", "be", "have", "with", "Ⓐ", "ß", "z\u{301}", "",
        ];
        let mut next = crate::fingerprints::xorshift(7);
        for len in 0..200 {
            let chosen: Vec<&str> = (0..len)
                .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                .collect();
            let text = chosen.join(" ");
            let words = words::test_words(&text, &chosen, len % 2 == 0);
            let c = r.count(&text, &words);
            let seen = c.stop_seen.iter().filter(|&&s| s).count();
            assert_eq!(
                (c.kept, c.kept_chars, c.alpha, seen),
                counted_by_characters(&r, &words),
                "{words:?}"
            );
        }
    }
}
