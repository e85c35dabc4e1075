//! Where an article ends: the heading that opens what follows it.
//!
//! After the text of an article, most sites put sections of their own —
//! related links, comments, share bars, newsletter boxes, the author's box,
//! a tag list — often inside the same container as the article, without a
//! class that says so. Their heading says so in words: "Related posts",
//! "3 Comments", "Lesen Sie auch", "À lire aussi". The chosen content is cut
//! at the first such heading that follows a fair share of it (a heading near
//! the top is more likely a teaser box inside the article, or a page that is
//! a comment thread). The phrases are data (`rules/closing_headings.txt`).

use crate::analyse::{Analysis, Segment};
use std::collections::HashSet;
use std::sync::LazyLock;

/// The shipped phrases (a `rules_dir` may hold its own file).
pub const SHIPPED: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../rules/closing_headings.txt"
));

/// A heading is short: a block of more words is text, whatever it begins with.
const MAX_WORDS: u32 = 8;
/// The content before a closing heading: at least this many words...
const MIN_BEFORE: u32 = 30;
/// ... and this share of the content's words.
const MIN_SHARE: f32 = 0.25;

/// The closing headings, normalised as a block's text is.
#[derive(Debug, Clone, Default)]
pub struct Headings(HashSet<String>);

static SHIPPED_HEADINGS: LazyLock<Headings> =
    LazyLock::new(|| Headings::parse(SHIPPED).expect("the shipped closing_headings.txt parses"));

impl Headings {
    /// One phrase per line; `#` starts a comment line. An empty file turns
    /// the cut off. A line without a letter is an error (it could never match).
    pub fn parse(text: &str) -> anyhow::Result<Headings> {
        let mut set = HashSet::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let phrase = normalise(line);
            anyhow::ensure!(
                !phrase.is_empty(),
                "line {}: `{line}` has no letters, so no heading can match it",
                n + 1
            );
            set.insert(phrase);
        }
        Ok(Headings(set))
    }

    pub fn shipped() -> &'static Headings {
        &SHIPPED_HEADINGS
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Lower case, letters only, single spaces: "3 Comments:" → "comments".
fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        if crate::letters::is_alphabetic(c) {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with(' ') {
            // Spaces, counts, parentheses, colons, arrows: not part of the
            // phrase, but they separate words ("Kommentare(3)").
            out.push(' ');
        }
    }
    while out.ends_with(' ') {
        out.pop();
    }
    out
}

impl Headings {
    /// Whether `text` (a short block) is a heading that opens a closing section.
    pub fn is_closing(&self, text: &str) -> bool {
        if self.0.is_empty() {
            return false;
        }
        let norm = normalise(text);
        if norm.is_empty() {
            return false;
        }
        if self.0.contains(&norm) {
            return true;
        }
        // "More from The Guardian", "Mehr zum Thema Klimaschutz": a phrase
        // of two words or more may begin the heading.
        norm.match_indices(' ')
            .skip(1)
            .any(|(at, _)| self.0.contains(&norm[..at]))
    }
}

/// A block this long, mostly not link text, is prose: the article goes on
/// after a teaser box ("Lesen Sie auch", three links, then the next
/// paragraph of the story).
const PROSE_WORDS: u32 = 25;
const PROSE_MAX_LINK_SHARE: f32 = 0.3;

/// Leaves out of `chosen` (segment indices, in order) each closing section
/// that follows a fair share of the content: its heading and the blocks
/// after it up to the next paragraph of prose (or the end). One pass.
pub fn cut(headings: &Headings, analysis: &Analysis, chosen: &mut Vec<usize>) {
    if headings.is_empty() {
        return;
    }
    let segments: &[Segment] = &analysis.segments;
    let total: u32 = chosen.iter().map(|&i| segments[i].words).sum();
    let mut before = 0u32;
    let mut skipping = false;
    super::blocks::retain(segments, chosen, |b| {
        if skipping && b.words >= PROSE_WORDS && b.link_share() < PROSE_MAX_LINK_SHARE {
            skipping = false;
        }
        if !skipping
            && (1..=MAX_WORDS).contains(&b.words)
            && before >= MIN_BEFORE
            && before as f32 >= MIN_SHARE * total as f32
        {
            let text = analysis.slice(segments[b.first].start, segments[b.last].end);
            skipping = headings.is_closing(text);
        }
        if !skipping {
            before += b.words;
        }
        !skipping
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_are_recognised_through_counts_and_punctuation() {
        for h in [
            "Related posts",
            "3 Comments",
            "Kommentare (12)",
            "Lesen Sie auch:",
            "À LIRE AUSSI",
            "Das könnte Sie auch interessieren!",
            "More from our newsroom",
            "Share this:",
            "» Ähnliche Beiträge",
        ] {
            assert!(Headings::shipped().is_closing(h), "{h}");
        }
        for h in [
            "Related work",
            "Comments on the draft law",
            "Sharing economy",
            "The results",
            "",
            "123",
        ] {
            assert!(!Headings::shipped().is_closing(h), "{h}");
        }
    }

    fn content(html: &str) -> Vec<String> {
        let a = crate::analyse::analyse(html, None).unwrap();
        crate::extract::content_with(&a, &crate::extract::Weights::default())
            .paragraphs(&a)
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn a_teaser_box_is_skipped_and_the_closing_sections_cut() {
        let p = |n: u32| {
            format!(
                "<p>Paragraph {n} of the story goes on with enough words to be prose, \
                 and it tells the reader what happened in the town on that day.</p>"
            )
        };
        let teaser = "<h3>Lesen Sie auch</h3><p><a href=/a>Another story</a></p>\
                      <p><a href=/b>A third story</a></p>";
        let closing = "<h3>3 Comments</h3><p>Great piece, thanks.</p><p>I disagree.</p>\
                       <h3>Related posts</h3><p><a href=/c>More</a></p>";
        let html = format!(
            "<html><body><article>{}{}{teaser}{}{}{closing}</article></body></html>",
            p(1),
            p(2),
            p(3),
            p(4)
        );
        let got = content(&html);
        assert_eq!(got.len(), 4, "{got:?}");
        assert!(got.iter().all(|t| t.starts_with("Paragraph")), "{got:?}");
    }

    #[test]
    fn a_closing_heading_near_the_top_stays() {
        // A page that is mostly what follows the heading (a comment thread):
        // nothing is cut before a fair share of the content.
        let html = "<html><body><article><p>Short intro.</p><h2>Comments</h2>\
                    <p>The first comment is a long one with many words that someone wrote about the post above.</p>\
                    <p>The second comment is also long enough, with words that someone else wrote in reply.</p>\
                    </article></body></html>";
        let got = content(html);
        assert!(got.iter().any(|t| t == "Comments"), "{got:?}");
    }
}
