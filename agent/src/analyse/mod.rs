//! The one HTML pass: everything later stages need, from a single parse.
//!
//! Parser choice, by measurement on 59 MB of real pages on this kind of machine
//! (see `NOTES.md`): lol_html with element and text handlers ≈ 370 MB/s,
//! html5ever's tokenizer ≈ 185 MB/s, an html5ever DOM ≈ 120 MB/s. lol_html is a
//! streaming tokenizer with just enough tree-builder logic to know when text is
//! script, style or raw text, and it matches CSS selectors as it streams — which
//! is what the per-site content-tag rule needs. Two of its properties shape this
//! module:
//! - end-tag handlers run only for explicitly closed elements, so we keep our
//!   own stack of open elements and truncate it when an end tag closes one
//!   (everything opened after it was closed implicitly);
//! - text chunks carry raw character references (`&amp;`), so a text node is
//!   buffered until it is complete and then decoded.

pub mod hints;
pub mod outline;
pub mod tags;
pub mod text;

use lol_html::html_content::{Element, TextChunk, TextType};
use lol_html::{DocumentContentHandlers, ElementContentHandlers, HtmlRewriter, Selector, Settings};
use outline::{Captured, Outline};
use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;
use tags::TagKind;
pub use text::{
    Block, Role, Segment, IN_BOILER, IN_CELL, IN_CODE, IN_CONTENT, IN_EMPH, IN_FIGURE, IN_FORM,
    IN_GOOD, IN_H1, IN_HEADING, IN_ITEM, IN_LINK, IN_META, IN_P, IN_QUOTE, IN_UI,
};

/// The result of the one HTML pass over a page.
#[derive(Debug, Default)]
pub struct Analysis {
    /// Visible text, whitespace collapsed, paragraphs separated by `\n`.
    pub text: String,
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
    /// Metadata, links and bylines, when asked for (`analyse_outlined`).
    pub outline: Option<Box<Outline>>,
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

/// The parser is fed this much at a time, and the page's budget checked in
/// between: the last line of defence against an input shape that is slow
/// (every path is meant to be linear; see bench/adversarial.rs).
const FEED_BYTES: usize = 64 << 10;

#[derive(Clone, Copy)]
struct Open {
    kind: TagKind,
    name: tags::Implicit,
    /// Identifies the element for its end-tag handler (indices are reused).
    serial: u32,
    hidden: bool,
    link: bool,
    content: bool,
    /// `IN_*` flags the text inside this element gets: the element's own
    /// (link, heading, item, form control) or'ed with its parent's, and the
    /// innermost hint (`IN_BOILER` or `IN_GOOD`) among it and its ancestors.
    /// Kept whole per element so the text handler reads one word, whatever
    /// the depth.
    flags: u16,
    /// Where the nearest open elements of each implied-end-tag group are.
    marks: tags::Marks,
    /// The outline role its text gets (its own, or its parent's).
    role: Role,
    /// The innermost list around it: 0 none, 1 `ul`/`menu`, 2 `ol`.
    list: u8,
    /// Its captures in `Outline::captures` (`NO_CAPTURE`: none).
    link_capture: u32,
    byline_capture: u32,
}

const NO_CAPTURE: u32 = u32::MAX;

/// The hint bits: only the innermost hinted element speaks for the text.
const HINT_BITS: u16 = text::IN_BOILER | text::IN_GOOD;

#[derive(Default)]
struct State {
    builder: text::TextBuilder,
    stack: Vec<Open>,
    hidden: u32,
    link: u32,
    content: u32,
    in_title: bool,
    title: Option<String>,
    content_matched: bool,
    /// A text node in progress whose chunks contained `&`.
    pending: String,
    serial: u32,
    /// Raw HTML inside `<noscript>` elements.
    noscript: String,
    outline: Option<Box<Outline>>,
    /// The open `<script>` is JSON-LD; whether its first text is still to come.
    json_ld: Option<bool>,
}

impl State {
    fn flags(&self) -> u16 {
        let inherited = self.stack.last().map_or(0, |o| o.flags);
        if self.content > 0 {
            inherited | text::IN_CONTENT
        } else {
            inherited
        }
    }

    /// Opens an element whose own flags are `open.flags` and whose own hint
    /// is `hint` (0 for none).
    fn push(&mut self, mut open: Open, hint: u16) {
        let parent = self.stack.last().map_or(0, |o| o.flags);
        let hint = if hint != 0 { hint } else { parent & HINT_BITS };
        open.flags |= (parent & !HINT_BITS) | hint;
        if let Some(p) = self.stack.last() {
            if open.role == Role::Plain {
                open.role = p.role;
            }
            if open.list == 0 {
                open.list = p.list;
            }
        }
        if open.role == Role::Item && open.list == 2 {
            open.role = Role::Ordered;
        }
        open.marks = self
            .stack
            .last()
            .map_or_else(tags::Marks::default, |o| o.marks)
            .push(open.name, self.stack.len());
        self.hidden += open.hidden as u32;
        self.link += open.link as u32;
        self.stack.push(open);
    }

    /// An explicit end tag closed the element `serial`, and with it every
    /// element opened after it. An element we closed implicitly already is
    /// not found, and its end tag only counts as a tag.
    fn close(&mut self, serial: u32) {
        self.builder.tag();
        // Serials grow up the stack: a binary search, not a walk (an end tag of
        // an element closed implicitly is not there, and a walk would cost the
        // whole depth each time).
        let Ok(idx) = self.stack.binary_search_by_key(&serial, |o| o.serial) else {
            return;
        };
        if self.stack[idx].kind == TagKind::Block {
            self.builder.block_break();
        }
        self.truncate(idx);
    }

    /// The HTML parser's implied end tags for the common cases: a `<p>` ends
    /// at the next block, an `<li>` at the next `<li>` of its list, and so on.
    fn close_implied_by(&mut self, name: tags::Implicit, kind: TagKind) {
        let Some(top) = self.stack.last() else {
            return;
        };
        let Some(idx) = tags::implied_close_marked(&top.marks, name, kind) else {
            return;
        };
        self.truncate(idx);
    }

    fn truncate(&mut self, idx: usize) {
        let at = self.builder.text.len() as u32;
        for open in self.stack.drain(idx..) {
            self.hidden -= open.hidden as u32;
            self.link -= open.link as u32;
            self.content -= open.content as u32;
            if let Some(outline) = self.outline.as_deref_mut() {
                for c in [open.link_capture, open.byline_capture] {
                    if c != NO_CAPTURE {
                        outline.end_capture(c, at);
                    }
                }
            }
        }
        self.in_title = false;
    }

    /// The outline's share of a `<meta>` or `<link>`.
    fn outline_void(&mut self, name: &str, attrs: Attrs) {
        let (Some(o), Some(m)) = (self.outline.as_deref_mut(), attrs.more) else {
            return;
        };
        let m = *m;
        if name == "meta" {
            if let Some(content) = m.content {
                let key = m.name.or(m.property).map(|k| k.to_ascii_lowercase());
                let key = key.or(attrs
                    .itemprop
                    .map(|p| format!("itemprop:{}", p.to_ascii_lowercase())));
                if let Some(key) = key {
                    o.meta(&key, content);
                }
            }
        } else if o.canonical.is_none()
            && m.rel.as_deref().is_some_and(|r| {
                r.split_ascii_whitespace()
                    .any(|t| t.eq_ignore_ascii_case("canonical"))
            })
        {
            o.canonical = m.href;
        }
    }

    /// The outline's share of an element with content: `lang`, JSON-LD,
    /// `itemprop` values, `<time>`, and the link and byline captures it opens.
    fn outline_element(&mut self, name: &str, attrs: &Attrs, m: MoreAttrs) -> (u32, u32) {
        let at = self.builder.text.len() as u32;
        let Some(o) = self.outline.as_deref_mut() else {
            return (NO_CAPTURE, NO_CAPTURE);
        };
        match name {
            "html" => o.lang = o.lang.take().or(m.lang),
            "script" => {
                let json_ld = m.kind.as_deref().is_some_and(|t| t.contains("ld+json"));
                self.json_ld = json_ld.then_some(true);
            }
            "time" => {
                if let Some(dt) = m.datetime.clone() {
                    o.time(dt);
                }
            }
            _ => {}
        }
        if let Some(prop) = attrs.itemprop.as_deref() {
            if let Some(v) = m.content.or(m.datetime) {
                o.meta(&format!("itemprop:{prop}"), v);
            }
        }
        let mut link = NO_CAPTURE;
        if name == "a" {
            if let Some(href) = m.href {
                link = o.capture(at, Captured::Link(href)).unwrap_or(NO_CAPTURE);
            }
        }
        let byline = attrs
            .itemprop
            .as_deref()
            .is_some_and(|p| p.eq_ignore_ascii_case("author"))
            || m.rel
                .as_deref()
                .is_some_and(|r| r.eq_ignore_ascii_case("author"))
            || attrs.class.as_deref().is_some_and(outline::names_byline)
            || attrs.id.as_deref().is_some_and(outline::names_byline);
        let byline = if byline {
            o.capture(at, Captured::Byline).unwrap_or(NO_CAPTURE)
        } else {
            NO_CAPTURE
        };
        (link, byline)
    }

    fn text(&mut self, chunk: &str, last: bool) {
        if self.hidden > 0 {
            self.pending.clear();
            return;
        }
        let role = self.stack.last().map_or(Role::Plain, |o| o.role);
        if self.pending.is_empty() && !chunk.contains('&') {
            let flags = self.flags();
            self.builder
                .push_text(chunk, flags, self.stack.len() as u32, role);
            return;
        }
        self.pending.push_str(chunk);
        if last {
            let pending = std::mem::take(&mut self.pending);
            let decoded = html_escape::decode_html_entities(&pending);
            let flags = self.flags();
            self.builder
                .push_text(&decoded, flags, self.stack.len() as u32, role);
            self.pending = pending;
            self.pending.clear();
        }
    }
}

/// The attributes the analysis reads, in one pass over the element's
/// attributes (lol_html's `get_attribute` allocates on every call).
#[derive(Default)]
struct Attrs {
    class: Option<String>,
    id: Option<String>,
    role: Option<String>,
    itemprop: Option<String>,
    href: bool,
    /// `hidden`, or an inline style that hides the element.
    hidden: bool,
    aria_hidden: bool,
    /// Read only for the outline.
    more: Option<Box<MoreAttrs>>,
}

/// The attributes only the outline reads.
#[derive(Default)]
struct MoreAttrs {
    href: Option<String>,
    rel: Option<String>,
    content: Option<String>,
    datetime: Option<String>,
    name: Option<String>,
    property: Option<String>,
    lang: Option<String>,
    kind: Option<String>,
}

impl Attrs {
    fn read(el: &Element, outline: bool) -> Self {
        let mut a = Attrs::default();
        if outline {
            a.more = Some(Box::default());
        }
        for attr in el.attributes() {
            let name = attr.name();
            let mut ignored = None;
            if let Some(m) = a.more.as_deref_mut() {
                let slot = match name.as_str() {
                    "href" => &mut m.href,
                    "rel" => &mut m.rel,
                    "content" => &mut m.content,
                    "datetime" => &mut m.datetime,
                    "name" => &mut m.name,
                    "property" => &mut m.property,
                    "lang" => &mut m.lang,
                    "type" => &mut m.kind,
                    _ => &mut ignored,
                };
                if slot.is_none() {
                    *slot = Some(attr.value());
                }
            }
            match name.as_str() {
                "class" => a.class = Some(attr.value()),
                "id" => a.id = Some(attr.value()),
                "role" => a.role = Some(attr.value()),
                "itemprop" => a.itemprop = Some(attr.value()),
                "href" => a.href = true,
                "hidden" => a.hidden = true,
                "style" => a.hidden |= tags::style_hides(&attr.value()),
                "aria-hidden" => a.aria_hidden = attr.value().trim().eq_ignore_ascii_case("true"),
                _ => {}
            }
        }
        a
    }
}

/// React's streaming server rendering sends each finished Suspense boundary
/// as `<div hidden id="S:n">` and a script that moves it into place: hidden
/// in the HTML, the page's text in the browser.
fn streamed_boundary(id: Option<&str>) -> bool {
    id.and_then(|id| id.strip_prefix("S:"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// `<noscript>` HTML shorter than this is never a page's text (tracking pixels, notices).
const NOSCRIPT_MIN_BYTES: usize = 2048;

/// Analyses `html` (already decoded to UTF-8). `content_rule`, when the page's
/// site has one, is the selector of the element that holds the content.
pub fn analyse(html: &str, content_rule: Option<&Selector>) -> Result<Analysis, AnalyseError> {
    analyse_with(html, content_rule, false, None)
}

/// As `analyse`, keeping the page's outline too (metadata, links, bylines).
pub fn analyse_outlined(
    html: &str,
    content_rule: Option<&Selector>,
) -> Result<Analysis, AnalyseError> {
    analyse_with(html, content_rule, true, None)
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
    analyse_with(html, content_rule, outlined, budget)
}

fn analyse_with(
    html: &str,
    content_rule: Option<&Selector>,
    outlined: bool,
    budget: Option<Budget>,
) -> Result<Analysis, AnalyseError> {
    let state = Rc::new(RefCell::new(State {
        builder: text::TextBuilder::with_capacity(html.len() / 4),
        outline: outlined.then(Box::default),
        ..Default::default()
    }));
    {
        let all: Selector = "*".parse().expect("the universal selector parses");
        let on_element = {
            let state = state.clone();
            move |el: &mut Element| {
                let name = el.tag_name();
                let kind = tags::classify(&name);
                let implicit = tags::implicit(&name);
                let mut st = state.borrow_mut();
                st.builder.tag();
                if kind == TagKind::Block {
                    st.close_implied_by(implicit, kind);
                }
                match kind {
                    TagKind::Block => st.builder.block_break(),
                    TagKind::Br => st.builder.br(),
                    TagKind::Title if st.title.is_none() => st.in_title = true,
                    _ => {}
                }
                if name == "tr" {
                    st.builder.row();
                }
                let outlined = st.outline.is_some();
                if !el.can_have_content() {
                    if outlined && matches!(name.as_str(), "meta" | "link") {
                        st.outline_void(&name, Attrs::read(el, true));
                    }
                    return Ok(());
                }
                let mut attrs = Attrs::read(el, outlined);
                let (link_capture, byline_capture) = match attrs.more.take() {
                    Some(more) => st.outline_element(&name, &attrs, *more),
                    None => (NO_CAPTURE, NO_CAPTURE),
                };
                let link = name == "a" && attrs.href;
                if link {
                    st.builder.link();
                }
                let hints = hints::hints(
                    &name,
                    attrs.class.as_deref(),
                    attrs.id.as_deref(),
                    attrs.role.as_deref(),
                    attrs.itemprop.as_deref(),
                );
                let hidden = kind == TagKind::Invisible
                    || hints.invisible
                    || (attrs.hidden && !streamed_boundary(attrs.id.as_deref()))
                    || (attrs.aria_hidden && name != "a");
                let level = tags::heading_level(&name);
                let mut flags = 0;
                if link {
                    flags |= text::IN_LINK;
                }
                let hint = if hints.boiler {
                    text::IN_BOILER
                } else if hints.good {
                    text::IN_GOOD
                } else {
                    0
                };
                if tags::is_ui(&name) {
                    flags |= text::IN_UI;
                }
                if level > 0 {
                    flags |= text::IN_HEADING;
                }
                if level == 1 {
                    flags |= text::IN_H1;
                }
                if matches!(
                    implicit,
                    tags::Implicit::Li | tags::Implicit::Cell | tags::Implicit::DtDd
                ) {
                    flags |= text::IN_ITEM;
                }
                flags |= tags::context_flag(&name);
                st.serial += 1;
                let serial = st.serial;
                st.push(
                    Open {
                        kind,
                        name: implicit,
                        serial,
                        hidden,
                        link,
                        content: false,
                        flags,
                        marks: tags::Marks::default(),
                        role: tags::role(&name, level),
                        list: tags::list(&name),
                        link_capture,
                        byline_capture,
                    },
                    hint,
                );
                drop(st);
                let state = state.clone();
                el.on_end_tag(Box::new(move |_end| {
                    state.borrow_mut().close(serial);
                    Ok(())
                }))
            }
        };
        let on_text = {
            let state = state.clone();
            move |t: &mut TextChunk| {
                let mut st = state.borrow_mut();
                match t.text_type() {
                    TextType::Data => st.text(t.as_str(), t.last_in_text_node()),
                    TextType::RCData if st.in_title => {
                        let title = st.title.get_or_insert_with(String::new);
                        title.push_str(t.as_str());
                    }
                    TextType::ScriptData if st.json_ld.is_some() => {
                        let first = st.json_ld == Some(true);
                        st.json_ld = (!t.last_in_text_node()).then_some(false);
                        if let Some(o) = st.outline.as_deref_mut() {
                            o.json_ld_text(t.as_str(), first);
                        }
                    }
                    TextType::RawText
                        if st.stack.last().is_some_and(|o| o.kind == TagKind::NoScript) =>
                    {
                        st.noscript.push_str(t.as_str());
                        if t.last_in_text_node() {
                            st.noscript.push('\n');
                        }
                    }
                    _ => {}
                }
                Ok(())
            }
        };
        let mut settings = Settings::new()
            .with_strict(false)
            .append_element_content_handler((
                Cow::Owned(all),
                ElementContentHandlers::default().element(on_element),
            ))
            .append_document_content_handler(DocumentContentHandlers::default().text(on_text));
        if let Some(selector) = content_rule {
            let state = state.clone();
            settings = settings.append_element_content_handler((
                Cow::Borrowed(selector),
                ElementContentHandlers::default().element(move |el: &mut Element| {
                    let mut st = state.borrow_mut();
                    st.content_matched = true;
                    if el.can_have_content() {
                        if let Some(top) = st.stack.last_mut() {
                            if !top.content {
                                top.content = true;
                                st.content += 1;
                            }
                        }
                    }
                    Ok(())
                }),
            ));
        }
        let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
        for piece in html.as_bytes().chunks(FEED_BYTES) {
            rewriter
                .write(piece)
                .map_err(|e| AnalyseError::Parse(e.to_string()))?;
            if let Some(b) = budget {
                if std::time::Instant::now() > b.deadline {
                    return Err(AnalyseError::TooSlow(b.ms));
                }
            }
        }
        rewriter
            .end()
            .map_err(|e| AnalyseError::Parse(e.to_string()))?;
    }
    let mut st = std::mem::take(&mut *state.borrow_mut());
    let trailing_tags = st.builder.finish();
    let mut outline = st.outline.take();
    if let Some(o) = outline.as_deref_mut() {
        o.finish(st.builder.text.len() as u32);
    }
    let title = st.title.map(|t| text::clean(&t)).filter(|t| !t.is_empty());
    let noscript = std::mem::take(&mut st.noscript);
    let b = st.builder;
    // Some sites (Discourse forums, for one) serve their text to clients
    // without JavaScript only inside <noscript>: when it holds much more text
    // than the rest of the page, it is the page.
    if noscript.len() >= NOSCRIPT_MIN_BYTES && noscript.len() > b.text.len() {
        let mut inner = analyse_with(&noscript, content_rule, outlined, budget)?;
        if inner.words > 2 * b.words + 50 {
            // The head's metadata is the outer page's; links and bylines the inner's.
            if let (Some(outer), Some(inner)) =
                (outline.as_deref_mut(), inner.outline.as_deref_mut())
            {
                outer.captures = std::mem::take(&mut inner.captures);
                outer.times.append(&mut inner.times);
            }
            return Ok(Analysis {
                title,
                outline,
                ..inner
            });
        }
    }
    Ok(Analysis {
        text: b.text,
        segments: b.segments,
        blocks: b.blocks,
        trailing_tags,
        words: b.words,
        tags: b.tags,
        links: b.links,
        title,
        content_tag: content_rule.map(|_| st.content_matched),
        outline,
    })
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
            r#"<body><div hidden id="S:0"><p>streamed text</p></div><div hidden id="x"><p>hidden text</p></div><div hidden id="S:">x</div></body>"#,
            None,
        )
        .unwrap();
        assert_eq!(paras(&a), vec!["streamed text"]);
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
