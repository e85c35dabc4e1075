//! The tree the one HTML pass keeps while tokens stream by: the stack of
//! open elements with what each gives its text (hidden, link, hints, roles,
//! list and heading context), implied end tags, and the text builder.
//!
//! Two sources feed it the same calls: the purpose-built tokenizer
//! (`tokenizer.rs`, every page without a content-tag rule) and lol_html
//! (`selectors.rs`, pages whose site's rule is a CSS selector).

use super::elements::{self, Element};
use super::hints;
use super::outline::{self, Captured, Outline};
use super::tags::{self, TagKind};
use super::text::{self, Role};
use super::tokenizer::{self, StartTag, TextKind};
use super::Budget;
use std::borrow::Cow;

#[derive(Clone, Copy)]
pub(super) struct Open {
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
    /// The innermost hint is boilerplate by the tag or role (`footer`,
    /// `aside`, `nav`): a class name inside it does not make its text content.
    strong_boiler: bool,
    /// It is or lies inside an `article`, `main` or `section`, where a
    /// `header` is that part's header (headline, lead), not the page's banner.
    sectioned: bool,
    /// Where the nearest open elements of each implied-end-tag group are.
    marks: tags::Marks,
    /// The outline role its text gets (its own, or its parent's).
    role: Role,
    /// The innermost list around it: 0 none, 1 `ul`/`menu`, 2 `ol`.
    list: u8,
    /// Its captures in `Outline::captures` (`NO_CAPTURE`: none).
    link_capture: u32,
    byline_capture: u32,
    /// Its content is SVG or MathML (not at an HTML integration point).
    foreign: bool,
    /// In foreign content: the stack index of the `svg`/`math` that began it.
    foreign_root: u32,
    /// Its name's id and the stack index + 1 of the next open element of the
    /// same name below it (0: none), so that an end tag finds its element in
    /// O(1) (tokenizer only; lol_html pairs end tags itself).
    name_id: u32,
    below_same: u32,
    /// A hash of the element's path: its name and class and those of every
    /// element around it. Blocks that share it are repeats of one template
    /// (a list's items, a grid's cards, a menu's entries).
    path: u32,
}

pub(super) const NO_CAPTURE: u32 = u32::MAX;
/// Hidden text kept at most, in bytes: a page hiding megabytes gets its first.
const MAX_HIDDEN_TEXT: usize = 1 << 20;
const NO_NAME: u32 = u32::MAX;

/// The hint bits: only the innermost hinted element speaks for the text.
const HINT_BITS: u16 = text::IN_BOILER | text::IN_GOOD;

#[derive(Default)]
pub(super) struct State {
    pub(super) builder: text::TextBuilder,
    pub(super) stack: Vec<Open>,
    pub(super) hidden: u32,
    /// Open elements whose content is never text (`script`, `style`,
    /// `template`...): hidden text inside them is not kept in `hidden_text`.
    pub(super) invisible: u32,
    /// Text of hidden elements (`hidden`, `display: none`, `aria-hidden`,
    /// visually-hidden classes), a space between text nodes: not the page's
    /// visible text, but in its markup for any text pipeline to keep — where
    /// item sets look too (a quiz's collapsed answer, a hidden tab).
    pub(super) hidden_text: String,
    pub(super) link: u32,
    pub(super) content: u32,
    pub(super) in_title: bool,
    pub(super) title: Option<String>,
    pub(super) content_matched: bool,
    /// A text node in progress whose chunks contained `&`.
    pub(super) pending: String,
    pub(super) serial: u32,
    /// Raw HTML inside `<noscript>` elements.
    pub(super) noscript: String,
    pub(super) outline: Option<Box<Outline>>,
    /// The open `<script>` is JSON-LD; whether its first text is still to come.
    pub(super) json_ld: Option<bool>,
    /// The text of each JSON-LD script (`Analysis::json_ld`).
    pub(super) json_ld_texts: JsonLdTexts,
    /// `<meta>` entries that state the page's terms of use (`terms_meta`).
    pub(super) terms: Vec<(String, String)>,
    /// Names off the `elements` table seen (tokenizer only), with their ids;
    /// per id the stack index + 1 of its innermost open element (0: none).
    pub(super) names: rustc_hash::FxHashMap<Box<str>, u32>,
    pub(super) innermost: Vec<u32>,
    pub(super) budget: Option<Budget>,
    pub(super) name_hints: hints::NameCache,
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
    pub(super) fn push(&mut self, mut open: Open, hint: u16) {
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
        open.path = path_hash(self.stack.last().map_or(0, |o| o.path), open.path);
        open.marks = self
            .stack
            .last()
            .map_or_else(tags::Marks::default, |o| o.marks)
            .push(open.name, self.stack.len());
        self.hidden += open.hidden as u32;
        self.invisible += (open.kind == TagKind::Invisible) as u32;
        self.link += open.link as u32;
        self.stack.push(open);
    }

    /// An explicit end tag closed the element `serial`, and with it every
    /// element opened after it. An element we closed implicitly already is
    /// not found, and its end tag only counts as a tag.
    pub(super) fn close(&mut self, serial: u32) {
        // Serials grow up the stack: a binary search, not a walk (an end tag of
        // an element closed implicitly is not there, and a walk would cost the
        // whole depth each time).
        let idx = self.stack.binary_search_by_key(&serial, |o| o.serial).ok();
        self.close_at(idx);
    }

    /// An end tag closes the element at `idx` (`None`: no element; the end tag
    /// only counts as a tag).
    fn close_at(&mut self, idx: Option<usize>) {
        self.builder.tag();
        let Some(idx) = idx else {
            return;
        };
        if self.stack[idx].kind == TagKind::Block {
            self.builder.block_break();
        }
        self.truncate(idx);
    }

    /// What any start tag does to the text around it, content or not: the
    /// elements it closes implicitly, the block, line or row it breaks, the
    /// title it starts. Inlined: `start` runs for every tag.
    #[inline(always)]
    fn tag_breaks(&mut self, el: &Element, in_foreign: bool) -> (TagKind, tags::Implicit) {
        let (kind, implicit) = (el.kind, el.implicit);
        self.builder.tag();
        // In SVG and MathML nothing closes implicitly.
        if kind == TagKind::Block && !in_foreign {
            self.close_implied_by(implicit, kind);
        }
        match kind {
            TagKind::Block => self.builder.block_break(),
            TagKind::Br => self.builder.br(),
            TagKind::Title if self.title.is_none() => self.in_title = true,
            _ => {}
        }
        if implicit == tags::Implicit::Tr {
            self.builder.row();
        }
        (kind, implicit)
    }

    /// The element's boilerplate hints from its name and attributes; `class`
    /// is the class attribute with its key.
    #[inline(always)]
    fn hints(
        &mut self,
        name: &str,
        el: &Element,
        sectioned: bool,
        attrs: &Attrs,
        class: Option<hints::Name>,
    ) -> hints::Hints {
        // HTML-AAM maps `header` to the banner role only outside sectioning
        // content and `main`; inside, it is an article's own header, which
        // says no more than a `div` does: no hint from the tag.
        let hint_tag = if sectioned && name == "header" {
            hints::TagHints::default()
        } else {
            el.hints
        };
        hints::hints_cached(
            hint_tag,
            class,
            attrs.id.as_deref().map(hints::Name::new),
            attrs.role.as_deref(),
            attrs.itemprop.as_deref(),
            &mut self.name_hints,
        )
    }

    /// A start tag: what it closes implicitly, then the element it opens.
    /// `in_foreign`: the element is SVG or MathML.
    /// `attrs` reads the element's attributes (for an element without
    /// content only when the outline wants a `<meta>` or `<link>`). Returns
    /// whether an element was pushed (one without content is not).
    pub(super) fn start<'a>(
        &mut self,
        name: &str,
        el: &Element,
        has_content: bool,
        in_foreign: bool,
        attrs: impl FnOnce(bool) -> Attrs<'a>,
    ) -> bool {
        let (kind, implicit) = self.tag_breaks(el, in_foreign);
        let outlined = self.outline.is_some();
        if !has_content {
            if name == "meta" {
                // Read on every page, outlined or not: the terms a page
                // states decide whether a training crawl may keep it.
                let attrs = attrs(true);
                self.terms_meta(&attrs);
                if outlined {
                    self.outline_void(name, attrs);
                }
            } else if outlined && name == "link" {
                self.outline_void(name, attrs(true));
            }
            return false;
        }
        let mut attrs = attrs(outlined);
        if name == "script" {
            self.json_ld = attrs.json_ld.then_some(true);
        }
        let (link_capture, byline_capture) = match attrs.more.take() {
            Some(more) => self.outline_element(name, &attrs, *more),
            None => (NO_CAPTURE, NO_CAPTURE),
        };
        let link = name == "a" && attrs.href;
        if link {
            self.builder.link();
        }
        let sectioned = matches!(name, "article" | "main" | "section")
            || self.stack.last().is_some_and(|o| o.sectioned);
        let class = attrs.class.as_deref().map(hints::Name::new);
        let hints = self.hints(name, el, sectioned, &attrs, class);
        let hidden = kind == TagKind::Invisible
            || hints.invisible
            || (attrs.hidden && !streamed_boundary(attrs.id.as_deref()))
            || (attrs.aria_hidden && name != "a");
        let in_strong_boiler = self.stack.last().is_some_and(|o| o.strong_boiler);
        let (flags, hint, strong_boiler) = element_flags(el, link, &hints, in_strong_boiler);
        // `class=""` is no class, as it was when the hash read the string.
        let class_key = class.filter(|c| !c.text.is_empty()).map(|c| c.key);
        let own_path = element_hash(name, el, class_key);
        self.serial += 1;
        self.push(
            Open {
                kind,
                name: implicit,
                serial: self.serial,
                hidden,
                link,
                content: false,
                flags,
                strong_boiler,
                sectioned,
                marks: tags::Marks::default(),
                role: el.role,
                list: el.list,
                link_capture,
                byline_capture,
                foreign: false,
                foreign_root: 0,
                name_id: NO_NAME,
                below_same: 0,
                path: own_path,
            },
            hint,
        );
        true
    }

    /// The text of one content model; `last` ends a text node.
    pub(super) fn on_text(&mut self, kind: TextKind, chunk: &str, last: bool) {
        match kind {
            TextKind::Data => self.data_text(chunk, last),
            TextKind::RcData if self.in_title => {
                self.title.get_or_insert_with(String::new).push_str(chunk);
            }
            TextKind::Script if self.json_ld.is_some() => {
                let first = self.json_ld == Some(true);
                self.json_ld = (!last).then_some(false);
                self.json_ld_texts.push(chunk, first);
            }
            TextKind::RawText
                if self
                    .stack
                    .last()
                    .is_some_and(|o| o.kind == TagKind::NoScript) =>
            {
                self.noscript.push_str(chunk);
                if last {
                    self.noscript.push('\n');
                }
            }
            _ => {}
        }
    }

    /// Whether the page's budget is spent.
    pub(super) fn over_budget(&self) -> bool {
        self.budget
            .is_some_and(|b| std::time::Instant::now() > b.deadline)
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
        // Innermost first: each restores what its push replaced.
        for open in self.stack[idx..].iter().rev() {
            if open.name_id != NO_NAME {
                self.innermost[open.name_id as usize] = open.below_same;
            }
        }
        for open in self.stack.drain(idx..) {
            self.hidden -= open.hidden as u32;
            self.invisible -= (open.kind == TagKind::Invisible) as u32;
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

    /// Keeps a `<meta>` that states the page's terms of use: TDMRep's
    /// `tdm-reservation` and `tdm-policy`, and any whose content names
    /// `noai` or `noimageai` (the robots meta, or a crawler's own, as
    /// `<meta name="CCBot">`); which names count is the filters' choice.
    fn terms_meta(&mut self, attrs: &Attrs) {
        const MAX_TERMS: usize = 16;
        let Some(m) = attrs.more.as_deref() else {
            return;
        };
        let (Some(name), Some(content)) = (m.name.as_deref(), m.content.as_deref()) else {
            return;
        };
        // Every <meta> of every page comes here: nothing is allocated for
        // the many that state no terms.
        let name = name.trim();
        let tdm = ["tdm-reservation", "tdm-policy"]
            .iter()
            .any(|t| name.eq_ignore_ascii_case(t));
        let names = |word: &[u8]| {
            content
                .as_bytes()
                .windows(word.len())
                .any(|w| w.eq_ignore_ascii_case(word))
        };
        if self.terms.len() < MAX_TERMS && (tdm || names(b"noai") || names(b"noimageai")) {
            let content: String = content.trim().chars().take(2048).collect();
            self.terms.push((name.to_ascii_lowercase(), content));
        }
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

    fn data_text(&mut self, chunk: &str, last: bool) {
        if self.hidden > 0 {
            self.pending.clear();
            if self.invisible == 0 && self.hidden_text.len() < MAX_HIDDEN_TEXT {
                // Entities are decoded once the page is read (`analyse`).
                self.hidden_text.push_str(chunk);
                if last {
                    self.hidden_text.push(' ');
                }
            }
            return;
        }
        let (role, path) = self
            .stack
            .last()
            .map_or((Role::Plain, 0), |o| (o.role, o.path));
        let depth = self.stack.len() as u32;
        if self.pending.is_empty() && !chunk.contains('&') {
            let flags = self.flags();
            self.builder.push_text(chunk, flags, (depth, path), role);
            return;
        }
        self.pending.push_str(chunk);
        if last {
            let pending = std::mem::take(&mut self.pending);
            let decoded = text::decode_entities(&pending);
            let flags = self.flags();
            self.builder.push_text(&decoded, flags, (depth, path), role);
            self.pending = pending;
            self.pending.clear();
        }
    }
}

/// The tokenizer's tokens into the tree. What the tokenizer cannot know is
/// decided here: which elements have content, which content model follows,
/// where foreign content (SVG, MathML) begins and ends, which open element an
/// end tag closes.
impl tokenizer::Sink for State {
    fn start_tag(&mut self, tag: &StartTag) -> TextKind {
        let name = tag.name;
        let el = elements::of(name);
        let mut in_foreign = self.stack.last().is_some_and(|o| o.foreign);
        if in_foreign && el.breaks_foreign.given(name, tag.attrs) {
            // The `svg`/`math` that began it ends, and all inside it; its
            // parent's content is HTML.
            let root = self.stack.last().map_or(0, |o| o.foreign_root);
            self.truncate(root as usize);
            in_foreign = false;
        }
        let root = self.stack.last().map_or(0, |o| o.foreign_root);
        let has_content = if in_foreign {
            !tag.self_closing
        } else {
            !el.void
        };
        let pushed = self.start(name, el, has_content, in_foreign, |outline| {
            Attrs::from_tokens(tag.attrs, outline)
        });
        if !pushed {
            return TextKind::Data;
        }
        let idx = self.stack.len() - 1;
        let id = self.name_id(name, el);
        let below = std::mem::replace(&mut self.innermost[id as usize], idx as u32 + 1);
        let Some(open) = self.stack.last_mut() else {
            return TextKind::Data;
        };
        open.name_id = id;
        open.below_same = below;
        if in_foreign {
            open.foreign = !el.integration_point;
            open.foreign_root = root;
            TextKind::Data
        } else {
            if matches!(name, "svg" | "math") {
                open.foreign = true;
                open.foreign_root = idx as u32;
            }
            el.text_kind
        }
    }

    fn end_tag(&mut self, name: &str) {
        let known = elements::of(name).id;
        let id = if known != elements::UNKNOWN {
            Some(known)
        } else {
            self.names.get(name).copied()
        };
        let idx = id
            .and_then(|id| self.innermost.get(id as usize).copied())
            .filter(|&i| i > 0)
            .map(|i| i as usize - 1);
        self.close_at(idx);
    }

    fn text(&mut self, kind: TextKind, text: &str) {
        self.on_text(kind, text, true);
    }

    fn foreign(&self) -> bool {
        self.stack.last().is_some_and(|o| o.foreign)
    }

    fn progress(&mut self) -> bool {
        !self.over_budget()
    }
}

impl State {
    /// An id per element name, for `innermost`: the table's row, or past
    /// the table's rows one per other name the page uses.
    fn name_id(&mut self, name: &str, el: &Element) -> u32 {
        if self.innermost.len() < elements::rows() {
            self.innermost.resize(elements::rows(), 0);
        }
        if el.id != elements::UNKNOWN {
            return el.id;
        }
        if let Some(&id) = self.names.get(name) {
            return id;
        }
        let id = self.innermost.len() as u32;
        self.names.insert(name.into(), id);
        self.innermost.push(0);
        id
    }

    /// lol_html's content-tag rule matched the element just opened.
    pub(super) fn mark_content(&mut self) {
        self.content_matched = true;
        if let Some(top) = self.stack.last_mut() {
            if !top.content {
                top.content = true;
                self.content += 1;
            }
        }
    }
}

/// An element's own share of its path hash: its name (the table's row, or
/// the name itself off the table) and its class attribute as written (the
/// key its hints were looked up by: the class string is hashed once).
fn element_hash(name: &str, el: &Element, class: Option<u64>) -> u32 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    if el.id != elements::UNKNOWN {
        h.write_u32(el.id);
    } else {
        h.write_u8(1);
        h.write(name.as_bytes());
    }
    h.write_u64(class.unwrap_or(0));
    h.finish() as u32
}

/// A path hash: the parent's, extended by one element's.
fn path_hash(parent: u32, own: u32) -> u32 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write_u64((parent as u64) << 32 | own as u64);
    h.finish() as u32
}

/// The attributes the analysis reads, in one pass over the element's
/// attributes. Borrowed from the page when the tokenizer gives them and they
/// hold no character reference.
#[derive(Default)]
pub(super) struct Attrs<'a> {
    class: Option<Cow<'a, str>>,
    id: Option<Cow<'a, str>>,
    role: Option<Cow<'a, str>>,
    itemprop: Option<Cow<'a, str>>,
    href: bool,
    /// `type` names JSON-LD (`application/ld+json`): read on every page, as
    /// the content may come from it (`extract::declared`).
    json_ld: bool,
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
}

impl<'a> Attrs<'a> {
    pub(super) fn new(outline: bool) -> Self {
        Attrs {
            more: outline.then(Box::default),
            ..Default::default()
        }
    }

    /// One attribute: `name` lower case, `raw` its value as written, read on
    /// demand. Values are decoded (`&amp;` → `&`) as a browser does, here and
    /// only here. The first of two same-named attributes wins, as in a browser.
    pub(super) fn take(&mut self, name: &[u8], raw: impl Fn() -> Cow<'a, str>) {
        let value = || decoded(raw());
        let mut ignored = None;
        if let Some(m) = self.more.as_deref_mut() {
            let slot = match name {
                b"href" => &mut m.href,
                b"rel" => &mut m.rel,
                b"content" => &mut m.content,
                b"datetime" => &mut m.datetime,
                b"name" => &mut m.name,
                b"property" => &mut m.property,
                b"lang" => &mut m.lang,
                _ => &mut ignored,
            };
            if slot.is_none() {
                *slot = Some(value().into_owned());
            }
        }
        let slot = match name {
            b"class" => &mut self.class,
            b"id" => &mut self.id,
            b"role" => &mut self.role,
            b"itemprop" => &mut self.itemprop,
            b"href" => {
                self.href = true;
                return;
            }
            b"hidden" => {
                self.hidden = true;
                return;
            }
            b"type" => {
                self.json_ld = value().contains("ld+json");
                return;
            }
            b"style" => {
                self.hidden |= tags::style_hides(&value());
                return;
            }
            b"aria-hidden" => {
                self.aria_hidden = value().trim().eq_ignore_ascii_case("true");
                return;
            }
            _ => return,
        };
        if slot.is_none() {
            *slot = Some(value());
        }
    }

    /// The attributes of a tokenizer's start tag.
    fn from_tokens(attrs: &[tokenizer::Attr<'a>], outline: bool) -> Self {
        let mut a = Attrs::new(outline);
        let mut buf = [0u8; 16];
        for attr in attrs {
            // Every name read is ASCII and shorter than 16 bytes.
            let raw = attr.name.as_bytes();
            if raw.len() > buf.len() {
                continue;
            }
            // Nearly every name is written in lower case already: read in
            // place, without a copy of a length known only here (a call).
            if !raw.iter().any(u8::is_ascii_uppercase) {
                a.take(raw, || Cow::Borrowed(attr.value));
                continue;
            }
            let lower = &mut buf[..raw.len()];
            lower.copy_from_slice(raw);
            lower.make_ascii_lowercase();
            a.take(lower, || Cow::Borrowed(attr.value));
        }
        a
    }
}

/// An attribute value with its character references decoded; borrowed when
/// it has none.
fn decoded(raw: Cow<'_, str>) -> Cow<'_, str> {
    match raw {
        Cow::Borrowed(s) => text::decode_entities(s),
        Cow::Owned(s) if s.contains('&') => Cow::Owned(text::decode_entities(&s).into_owned()),
        owned => owned,
    }
}

/// React's streaming server rendering sends each finished Suspense boundary
/// as `<div hidden id="S:n">` and a script that moves it into place: hidden
/// in the HTML, the page's text in the browser. `n` is the segment's number
/// in hexadecimal (React writes `id.toString(16)`): `S:c`, `S:2b` from the
/// eleventh segment on.
fn streamed_boundary(id: Option<&str>) -> bool {
    id.and_then(|id| id.strip_prefix("S:"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Bytes of JSON-LD kept at most (all scripts together): a page cannot make
/// the pass keep more, whatever it sends.
const MAX_JSON_LD: usize = 256 * 1024;

/// The text of the page's JSON-LD scripts, at most [`MAX_JSON_LD`] bytes.
#[derive(Default)]
pub(super) struct JsonLdTexts {
    pub(super) texts: Vec<String>,
    /// Bytes in `texts`, kept as they are added: summed again at every
    /// piece, a page of a hundred thousand one-byte scripts made the pass
    /// quadratic (it ran into the page's time budget).
    used: usize,
}

impl JsonLdTexts {
    /// Appends a piece of JSON-LD text; `first` starts a new script.
    fn push(&mut self, text: &str, first: bool) {
        if self.used + text.len() > MAX_JSON_LD {
            return;
        }
        self.used += text.len();
        match self.texts.last_mut() {
            Some(last) if !first => last.push_str(text),
            _ => self.texts.push(text.to_string()),
        }
    }
}

/// An element's own flags (link, UI, heading, item, context, caption), its
/// hint (content or boilerplate, by its names) and whether it is strong
/// boilerplate that a class name inside cannot make content.
#[inline]
fn element_flags(
    el: &Element,
    link: bool,
    hints: &hints::Hints,
    in_strong_boiler: bool,
) -> (u16, u16, bool) {
    let mut flags = 0;
    if link {
        flags |= text::IN_LINK;
    }
    let (hint, strong_boiler) = if hints.boiler {
        (text::IN_BOILER, hints.strong || in_strong_boiler)
    } else if hints.good && (hints.strong || !in_strong_boiler) {
        (text::IN_GOOD, false)
    } else {
        (0, in_strong_boiler)
    };
    if el.ui {
        flags |= text::IN_UI;
    }
    if el.heading > 0 {
        flags |= text::IN_HEADING;
    }
    if el.heading == 1 {
        flags |= text::IN_H1;
    }
    if matches!(
        el.implicit,
        tags::Implicit::Li | tags::Implicit::Cell | tags::Implicit::DtDd
    ) {
        flags |= text::IN_ITEM;
    }
    flags |= el.context;
    if hints.caption {
        flags |= text::IN_CAPTION;
    }
    (flags, hint, strong_boiler)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_ld_is_bounded() {
        let mut texts = JsonLdTexts::default();
        texts.push(&"x".repeat(MAX_JSON_LD - 2), true);
        texts.push("ab", false);
        texts.push("more", true);
        texts.push("c", false);
        assert_eq!(texts.texts.len(), 1);
        assert_eq!(texts.texts[0].len(), MAX_JSON_LD);
    }
}
