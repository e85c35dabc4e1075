//! The one HTML pass: everything later stages need, from a single parse.
//!
//! Parsers, by measurement (`NOTES.md`, and `cargo run --release -p crawlsieve-bench --example
//! parsers` on ../shared/data): lol_html with element and text handlers
//! ≈ 370 MB/s, html5ever's tokenizer ≈ 185 MB/s, an html5ever DOM ≈ 120 MB/s,
//! and this crate's own tokenizer (`tokenizer.rs`) several times lol_html:
//! it borrows tags, attributes and text from the page instead of allocating
//! them. Pages whose site has a content-tag rule (a CSS selector) go through
//! lol_html (`selectors.rs`), which matches selectors as it streams; both
//! feed the same tree state (`state.rs`): our own stack of open elements with
//! implied end tags, hints and roles, and the text builder.

mod bytes;
pub mod elements;
pub mod hints;
pub mod outline;
pub mod tags;
pub mod text;
pub mod tokenizer;

mod selectors;
mod state;

use lol_html::Selector;
use outline::Outline;
use state::State;
pub use text::{
    Block, Role, Segment, IN_BOILER, IN_CAPTION, IN_CELL, IN_CODE, IN_CONTENT, IN_EMPH, IN_FORM,
    IN_GOOD, IN_H1, IN_HEADING, IN_ITEM, IN_LINK, IN_META, IN_P, IN_QUOTE, IN_UI,
};

/// The result of the one HTML pass over a page.
#[derive(Debug, Default)]
pub struct Analysis {
    /// Visible text, whitespace collapsed, paragraphs separated by `\n`.
    pub text: String,
    /// Text of hidden elements, as written (up to 1 MiB; not in `words`):
    /// what item sets look at besides `text`.
    pub hidden_text: String,
    /// Runs of text between tags (the plateau's token sequence).
    pub segments: Vec<Segment>,
    /// Paragraphs.
    pub blocks: Vec<Block>,
    /// Tags after the last segment.
    pub trailing_tags: u32,
    /// Words of visible text on the whole page.
    pub words: u32,
    /// Tags on the whole page.
    pub tags: u32,
    /// `<a href>` elements on the whole page.
    pub links: u32,
    /// The first `<title>`, whitespace collapsed.
    pub title: Option<String>,
    /// Whether the site's content-tag rule matched (`None` when there is no rule).
    pub content_tag: Option<bool>,
    /// The text of each `<script type="application/ld+json">`: read on
    /// every page, as a product's description may be the content
    /// (`extract::declared`); the metadata reads it too.
    pub json_ld: Vec<String>,
    /// Metadata, links and bylines, when asked for (`analyse_outlined`).
    pub outline: Option<Box<Outline>>,
    /// `<meta>` entries that state the page's terms of use, `(name lower
    /// case, content)`: TDMRep's and those naming `noai` / `noimageai`
    /// (at most 16). Read on every page.
    pub terms: Vec<(String, String)>,
}

/// Why a page has no analysis; it then gets an `error` verdict.
#[derive(Debug, thiserror::Error)]
pub enum AnalyseError {
    /// The parser gave up (lol_html reports, e.g., memory limits). Rare.
    #[error("HTML parse failed: {0}")]
    Parse(String),
    /// The pass outran the page's time budget (`input.max_page_ms`).
    #[error("the HTML pass took longer than the page's budget of {0} ms (input.max_page_ms)")]
    TooSlow(u64),
}

/// `<noscript>` HTML shorter than this is never a page's text (tracking pixels, notices).
const NOSCRIPT_MIN_BYTES: usize = 2048;

/// Analyses `html` (already decoded to UTF-8). `content_rule`, when the page's
/// site has one, is the selector of the element that holds the content.
pub fn analyse(html: &str, content_rule: Option<&Selector>) -> Result<Analysis, AnalyseError> {
    analyse_with(html, content_rule, false, None, Parser::Tokenizer)
}

/// As `analyse`, keeping the page's outline too (metadata, links, bylines).
pub fn analyse_outlined(
    html: &str,
    content_rule: Option<&Selector>,
) -> Result<Analysis, AnalyseError> {
    analyse_with(html, content_rule, true, None, Parser::Tokenizer)
}

/// A page's time budget: the pass stops with `TooSlow` once past `deadline`.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub deadline: std::time::Instant,
    pub ms: u64,
}

impl Budget {
    /// `ms` from now; `None` for 0 (no budget).
    pub fn from_now(ms: u64) -> Option<Budget> {
        (ms > 0).then(|| Budget {
            deadline: std::time::Instant::now() + std::time::Duration::from_millis(ms),
            ms,
        })
    }
}

/// `analyse` or `analyse_outlined` within a time budget.
pub fn analyse_within(
    html: &str,
    content_rule: Option<&Selector>,
    outlined: bool,
    budget: Option<Budget>,
) -> Result<Analysis, AnalyseError> {
    analyse_with(html, content_rule, outlined, budget, Parser::Tokenizer)
}

/// Which parser runs the pass.
#[doc(hidden)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Parser {
    /// The tokenizer, unless the page has a content-tag rule (the default).
    Tokenizer,
    /// lol_html always: to compare the two (`examples/parsers.rs`).
    LolHtml,
}

/// `analyse_outlined` with the parser chosen: for comparing the two.
#[doc(hidden)]
pub fn analyse_by(html: &str, parser: Parser) -> Result<Analysis, AnalyseError> {
    analyse_with(html, None, true, None, parser)
}

fn analyse_with(
    html: &str,
    content_rule: Option<&Selector>,
    outlined: bool,
    budget: Option<Budget>,
    parser: Parser,
) -> Result<Analysis, AnalyseError> {
    let mut st = State {
        builder: text::TextBuilder::with_capacity(html.len() / 4),
        outline: outlined.then(Box::default),
        budget,
        ..Default::default()
    };
    if content_rule.is_some() || parser == Parser::LolHtml {
        st = selectors::pass(html, content_rule, st)?;
    } else if !tokenizer::tokenize(html, &mut st) {
        return Err(AnalyseError::TooSlow(budget.map_or(0, |b| b.ms)));
    }
    let trailing_tags = st.builder.finish();
    let mut outline = st.outline.take();
    if let Some(o) = outline.as_deref_mut() {
        o.finish(st.builder.text.len() as u32);
    }
    let title = st.title.map(|t| text::clean(&t)).filter(|t| !t.is_empty());
    let noscript = std::mem::take(&mut st.noscript);
    let json_ld = std::mem::take(&mut st.json_ld_texts.texts);
    let terms = std::mem::take(&mut st.terms);
    // Decoded whole: a text node's chunks may split an entity.
    let hidden_text = text::decode_entities(&std::mem::take(&mut st.hidden_text)).into_owned();
    let b = st.builder;
    // Some sites (Discourse forums, for one) serve their text to clients
    // without JavaScript only inside <noscript>: when it holds much more text
    // than the rest of the page, it is the page.
    if noscript.len() >= NOSCRIPT_MIN_BYTES && noscript.len() > b.text.len() {
        let mut inner = analyse_with(&noscript, content_rule, outlined, budget, parser)?;
        if inner.words > 2 * b.words + 50 {
            // The head's metadata is the outer page's; links and bylines the inner's.
            if let (Some(outer), Some(inner)) =
                (outline.as_deref_mut(), inner.outline.as_deref_mut())
            {
                outer.captures = std::mem::take(&mut inner.captures);
                outer.times.append(&mut inner.times);
            }
            // The outer page's text is still in its markup: hidden text, for
            // item sets to find there.
            let mut all = std::mem::take(&mut inner.hidden_text);
            for t in [&b.text, &hidden_text] {
                all.push('\n');
                all.push_str(t);
            }
            return Ok(Analysis {
                title,
                json_ld,
                outline,
                terms,
                hidden_text: all,
                ..inner
            });
        }
    }
    Ok(Analysis {
        text: b.text,
        hidden_text,
        segments: b.segments,
        blocks: b.blocks,
        trailing_tags,
        words: b.words,
        tags: b.tags,
        links: b.links,
        title,
        content_tag: content_rule.map(|_| st.content_matched),
        json_ld,
        outline,
        terms,
    })
}

/// The analysis of extracted text (a text input): each line that is not
/// blank a paragraph, whitespace collapsed as the HTML pass collapses it.
pub fn from_text(text: &str) -> Analysis {
    let mut b = text::TextBuilder::with_capacity(text.len());
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        b.push_text(line, text::IN_P, (1, 0), text::Role::Plain);
        b.block_break();
    }
    let trailing_tags = b.finish();
    Analysis {
        text: b.text,
        segments: b.segments,
        blocks: b.blocks,
        trailing_tags,
        words: b.words,
        tags: b.tags,
        links: b.links,
        ..Default::default()
    }
}

impl Analysis {
    /// The text of a byte range.
    pub fn slice(&self, start: u32, end: u32) -> &str {
        &self.text[start as usize..end as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paras(a: &Analysis) -> Vec<&str> {
        a.blocks.iter().map(|b| a.slice(b.start, b.end)).collect()
    }

    #[test]
    fn invisible_text_is_left_out() {
        let html = r#"<html><head><title> The  &amp; Title </title><style>p{}</style>
            <script>var x = "<p>no</p>";</script></head><body>
            <noscript>enable js</noscript><template><p>tpl</p></template>
            <!-- a comment --><p>Visible &amp; decoded&nbsp;text</p>
            <div hidden>secret</div><div style="display: none">also secret</div>
            <p>after</p></body></html>"#;
        let a = analyse(html, None).unwrap();
        assert_eq!(paras(&a), vec!["Visible & decoded text", "after"]);
        assert_eq!(a.title.as_deref(), Some("The & Title"));
    }

    #[test]
    fn implicitly_closed_elements_do_not_leak_hidden_state() {
        // The hidden <p> is closed implicitly by the next <p> (no end-tag
        // handler runs for it), and a hidden <li> by the next <li>.
        let html = "<div><p hidden>secret<p>shown one</div><ul><li hidden>secret<li>shown two</ul><p>shown three";
        let a = analyse(html, None).unwrap();
        assert_eq!(paras(&a), vec!["shown one", "shown two", "shown three"]);
    }

    #[test]
    fn attribute_names_are_read_in_any_case() {
        // Lower case is read in place, any upper-case letter through a
        // lowered copy: both hide, link and hint the same.
        for (hidden, style, href, class) in [
            ("hidden", "style", "href", "class"),
            ("HIDDEN", "Style", "HREF", "clASS"),
        ] {
            let html = format!(
                r#"<p {hidden}>secret</p><p {style}="display:none">also</p>
                <nav><p>menu <a {href}="/m">link</a></p></nav>
                <div {class}="sidebar"><p>side</p></div><p>shown</p>"#
            );
            let a = analyse(&html, None).unwrap();
            assert_eq!(paras(&a), vec!["menu link", "side", "shown"], "{html}");
            assert_eq!(a.links, 1, "{html}");
            let side = a
                .segments
                .iter()
                .find(|s| a.slice(s.start, s.end) == "side");
            assert!(side.is_some_and(|s| s.flags & IN_BOILER != 0), "{html}");
        }
    }

    #[test]
    fn links_and_tags_are_counted() {
        let html = r#"<p>one <a href="/x">two</a> three <a name="n">four</a></p>"#;
        let a = analyse(html, None).unwrap();
        assert_eq!(a.links, 1);
        assert_eq!(a.words, 4);
        assert_eq!(a.tags, 6);
        assert!(a
            .segments
            .iter()
            .any(|s| s.flags & IN_LINK != 0 && a.slice(s.start, s.end) == "two"));
    }

    #[test]
    fn content_rule_marks_text() {
        let sel: Selector = "div.article".parse().unwrap();
        let a = analyse(
            "<div>nav</div><div class=article><p>body text</p></div>",
            Some(&sel),
        )
        .unwrap();
        assert_eq!(a.content_tag, Some(true));
        let inside: Vec<_> = a
            .segments
            .iter()
            .filter(|s| s.flags & IN_CONTENT != 0)
            .map(|s| a.slice(s.start, s.end))
            .collect();
        assert_eq!(inside, vec!["body text"]);
        let a = analyse("<div>nav</div>", Some(&sel)).unwrap();
        assert_eq!(a.content_tag, Some(false));
    }

    #[test]
    fn react_streamed_boundaries_are_visible() {
        let a = analyse(
            r#"<body><div hidden id="S:0"><p>streamed text</p></div><div hidden id="x"><p>hidden text</p></div><div hidden id="S:">x</div><div hidden id="S:2b"><p>the 44th segment</p></div><div hidden id="S:g"><p>not hexadecimal</p></div></body>"#,
            None,
        )
        .unwrap();
        assert_eq!(paras(&a), vec!["streamed text", "the 44th segment"]);
    }

    #[test]
    fn garbage_does_not_panic() {
        for html in [
            "",
            "<",
            "<<<>>>&&&;",
            "\u{0}\u{FFFD}<p",
            "<a href",
            "</p></div></x>",
            "<svg><p>x</svg>text",
        ] {
            analyse(html, None).unwrap();
            analyse_outlined(html, None).unwrap();
        }
    }

    #[test]
    fn a_font_ends_foreign_content_only_with_a_colour_face_or_size() {
        // Inside SVG a `<script>` is an SVG element and its text is text;
        // once a `<font color>` has ended the SVG, it is HTML's script.
        let text = |html: &str| {
            let a = analyse(html, None).unwrap();
            a.slice(0, a.text.len() as u32).to_string()
        };
        for attr in ["color=red", "FACE=serif", "size=2"] {
            let html = format!("<p>a</p><svg><font {attr}><script>x</script>b c</font></svg>");
            assert_eq!(text(&html), "a\nb c", "{attr}");
        }
        for attr in ["", "class=red"] {
            let html = format!("<p>a</p><svg><font {attr}><script>x</script>b c</font></svg>");
            assert_eq!(text(&html), "a\nxb c", "{attr}");
        }
    }

    #[test]
    fn the_outline_stays_linear_and_bounded_on_nesting() {
        // 100,000 nested links and bylines: every capture closes in O(1), and
        // the outline keeps at most its cap.
        let n = 100_000;
        let html = format!(
            "{}text{}",
            r#"<a href="/x" class="author">"#.repeat(n),
            "</a>".repeat(n)
        );
        let started = std::time::Instant::now();
        let a = analyse_outlined(&html, None).unwrap();
        let o = a.outline.as_deref().unwrap();
        assert!(o.captures.len() <= 20_000);
        assert!(o.captures.iter().all(|c| c.end != u32::MAX));
        let meta = crate::extract::metadata::metadata(&a, "https://e.com/");
        assert_eq!(meta.author.as_deref(), Some("text"));
        assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    }
}
