//! C4's rules (Raffel et al., 2020, §2.2; datatrove's `C4QualityFilter`).
//! Most of them remove lines, not pages: a line without terminal
//! punctuation, with fewer than three words, with a word over 1,000
//! characters, naming javascript or a cookie or terms policy. A page goes
//! for "lorem ipsum" or a curly bracket in a line it keeps, or for fewer
//! than five sentences in what is left. Wikipedia-style citations (`[1]`,
//! `[edit]`) are removed from the lines.

use super::words;
use super::Failure;
use memchr::memmem::Finder;
use serde::Deserialize;
use std::sync::OnceLock;

/// `[filters.c4]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct C4 {
    pub remove_citations: bool,
    pub filter_no_terminal_punct: bool,
    /// A page with fewer sentences left goes (0: off).
    pub min_num_sentences: u32,
    /// A line with fewer words goes (0: off).
    pub min_words_per_line: u32,
    /// A line with a longer word goes (0: off).
    pub max_word_length: usize,
    pub filter_lorem_ipsum: bool,
    pub filter_javascript: bool,
    pub filter_curly_bracket: bool,
    pub filter_policy: bool,
}

const POLICY: [&str; 6] = [
    "terms of use",
    "privacy policy",
    "cookie policy",
    "uses cookies",
    "use of cookies",
    "use cookies",
];

/// The phrases C4 looks for in a line, each a searcher made once (a
/// `str::contains` sets one up at every call, and a kept line is searched
/// for eight phrases).
struct Phrases {
    lorem_ipsum: Finder<'static>,
    javascript: Finder<'static>,
    policy: Vec<Finder<'static>>,
}

fn phrases() -> &'static Phrases {
    static PHRASES: OnceLock<Phrases> = OnceLock::new();
    PHRASES.get_or_init(|| Phrases {
        lorem_ipsum: Finder::new("lorem ipsum"),
        javascript: Finder::new("javascript"),
        policy: POLICY.iter().map(Finder::new).collect(),
    })
}

impl C4 {
    /// The text with C4's lines removed, or why the page goes.
    pub fn check(&self, text: &str) -> Result<Kept, Failure> {
        let mut kept = Kept::default();
        let mut sentences = 0u32;
        let phrases = phrases();
        for line in words::splitlines(text) {
            let line = words::strip(line);
            let stripped = line;
            // A word is no longer than its line's bytes: most lines need no
            // count of their longest.
            let max = self.max_word_length;
            if max > 0 && line.len() > max && words::split_counts(line).1 > max {
                kept.removed += 1;
                continue;
            }
            let line = if self.remove_citations {
                remove_citations(line)
            } else {
                line.into()
            };
            let ends = [".", "?", "!", "\"", "'"].iter().any(|e| line.ends_with(e));
            if self.filter_no_terminal_punct && (!ends || line.ends_with("...")) {
                kept.removed += 1;
                continue;
            }
            if !words::at_least_words(stripped, self.min_words_per_line as usize) {
                kept.removed += 1;
                continue;
            }
            let lower = line.to_lowercase();
            let has = |phrase: &Finder| phrase.find(lower.as_bytes()).is_some();
            if self.filter_lorem_ipsum && has(&phrases.lorem_ipsum) {
                return Err(Failure::new("lorem_ipsum", 1.0, 0.0));
            }
            if self.filter_javascript && has(&phrases.javascript) {
                kept.removed += 1;
                continue;
            }
            if self.filter_curly_bracket && line.contains('{') {
                return Err(Failure::new("curly_bracket", 1.0, 0.0));
            }
            if self.filter_policy && phrases.policy.iter().any(has) {
                kept.removed += 1;
                continue;
            }
            // Only whether the page reaches the minimum matters (and, where
            // it does not, the count): the words of the lines after it are
            // not split to count their sentences.
            if sentences < self.min_num_sentences {
                sentences += words::sentences(&line) as u32;
            }
            if !kept.text.is_empty() {
                kept.text.push('\n');
            }
            kept.text.push_str(&line);
        }
        if self.min_num_sentences > 0 && sentences < self.min_num_sentences {
            return Err(Failure::new(
                "too_few_sentences",
                sentences as f64,
                self.min_num_sentences as f64,
            ));
        }
        kept.text = words::strip(&kept.text).to_string();
        Ok(kept)
    }
}

/// What C4 keeps of a page: its text, and how many lines it removed.
#[derive(Debug, Default)]
pub struct Kept {
    pub text: String,
    pub removed: u32,
}

/// `\[\d*]|\[edit]|\[citation needed]` removed, left to right.
fn remove_citations(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains('[') {
        return line.into();
    }
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find('[') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let skip = if after[digits..].starts_with(']') {
            Some(digits + 1)
        } else if after.starts_with("edit]") {
            Some(5)
        } else if after.starts_with("citation needed]") {
            Some(16)
        } else {
            None
        };
        match skip {
            Some(n) => rest = &after[n..],
            None => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn citations_go_and_other_brackets_stay() {
        assert_eq!(
            remove_citations("A fact.[1] More[edit] [x] [citation needed]."),
            "A fact. More [x] ."
        );
    }
}
