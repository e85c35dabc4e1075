//! What the one HTML pass keeps, on request, beyond the text: the page's
//! metadata as the page states it (`<meta>`, `<link rel=canonical>`,
//! `<time>`, `<html lang>`) and the text ranges of links and
//! bylines. `crawlsieve extract --format markdown|json` needs them; the
//! verdict pipeline does not, so it does not pay for the attribute copies.
//!
//! Everything here is bounded: a page cannot make the pass keep more than a
//! few hundred KB of it, whatever it sends.

use aho_corasick::AhoCorasick;
use std::sync::LazyLock;

/// `<meta>` entries kept at most.
const MAX_METAS: usize = 256;
/// Bytes of one `<meta>` value kept at most.
const MAX_VALUE: usize = 4096;
/// `<time datetime>` values kept at most.
const MAX_TIMES: usize = 32;
/// Link and byline ranges kept at most.
const MAX_CAPTURES: usize = 20_000;

/// Metadata and ranges of one page; see the module documentation.
#[derive(Debug, Default, Clone)]
pub struct Outline {
    /// `<html lang>`.
    pub lang: Option<String>,
    /// `<meta>` (and `itemprop` with `content`/`datetime`) entries: the key
    /// lower-cased (`name`, `property` or `itemprop:<name>`), the value.
    pub metas: Vec<(String, String)>,
    /// `<link rel=canonical href>`.
    pub canonical: Option<String>,
    /// `datetime` of `<time>` elements, in page order.
    pub times: Vec<String>,
    /// Text ranges of links and bylines.
    pub captures: Vec<Capture>,
}

/// A text range of `Analysis::text` that some element covered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    pub start: u32,
    pub end: u32,
    pub what: Captured,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Captured {
    /// `<a href>`: the target as written.
    Link(String),
    /// An element marked as the author: `itemprop=author`, `rel=author`, or a
    /// class or id naming an author or byline.
    Byline,
}

impl Outline {
    pub(crate) fn meta(&mut self, key: &str, value: String) {
        if self.metas.len() < MAX_METAS && !value.trim().is_empty() {
            self.metas
                .push((key.to_ascii_lowercase(), truncate(value, MAX_VALUE)));
        }
    }

    pub(crate) fn time(&mut self, value: String) {
        if self.times.len() < MAX_TIMES {
            self.times.push(truncate(value, 64));
        }
    }

    /// Starts capturing at text offset `at`; returns the capture's index.
    pub(crate) fn capture(&mut self, at: u32, what: Captured) -> Option<u32> {
        if self.captures.len() >= MAX_CAPTURES {
            return None;
        }
        self.captures.push(Capture {
            start: at,
            end: u32::MAX,
            what,
        });
        Some(self.captures.len() as u32 - 1)
    }

    /// Ends capture `idx` at text offset `at`.
    pub(crate) fn end_capture(&mut self, idx: u32, at: u32) {
        if let Some(c) = self.captures.get_mut(idx as usize) {
            c.end = at;
        }
    }

    /// Closes the captures still open when the page ended.
    pub(crate) fn finish(&mut self, at: u32) {
        for c in &mut self.captures {
            if c.end == u32::MAX {
                c.end = at;
            }
        }
    }

    /// Values of the `<meta>` entries with key `key` (lower case), in page order.
    pub fn metas<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.metas
            .iter()
            .filter(move |(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

fn truncate(mut s: String, max: usize) -> String {
    let cut = super::text::prefix(&s, max).len();
    s.truncate(cut);
    s
}

/// A class or id that names the author's element (`author`, `byline`,
/// `post-author`...), not a box about authors (`author-bio`, `about-author`).
/// Every element's class and id is asked, so no token is copied to be
/// lower-cased: the words are found ignoring ASCII case.
pub fn names_byline(value: &str) -> bool {
    value
        .split_ascii_whitespace()
        .any(|t| BYLINE.is_match(t) && !NOT_BYLINE.is_match(t))
}

static BYLINE: LazyLock<AhoCorasick> = LazyLock::new(|| words(&["author", "byline"]));
static NOT_BYLINE: LazyLock<AhoCorasick> = LazyLock::new(|| {
    words(&[
        "bio", "about", "avatar", "image", "img", "photo", "desc", "box", "social",
    ])
});

fn words(words: &[&str]) -> AhoCorasick {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(words)
        .expect("fixed patterns")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bylines_are_named_by_class() {
        assert!(names_byline("entry-meta post-author"));
        assert!(names_byline("byline"));
        assert!(!names_byline("author-bio"));
        assert!(!names_byline("content"));
        assert!(names_byline("Post-Author"));
        assert!(!names_byline("AuthorBio"));
    }

    #[test]
    fn values_are_bounded() {
        let mut o = Outline::default();
        for i in 0..1000 {
            o.meta("k", "é".repeat(5000) + &i.to_string());
        }
        assert_eq!(o.metas.len(), MAX_METAS);
        assert!(o.metas[0].1.len() <= MAX_VALUE);
    }
}
