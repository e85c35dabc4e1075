//! A tokenizer for text extraction: start tags with their attributes, end
//! tags, and text with the content model it is in — nothing else.
//!
//! Why not lol_html here: lol_html is a rewriter. For every element it
//! allocates the tag name, each attribute's name and value on request, a boxed
//! end-tag handler, and it runs its selector machine; on tag-dense pages that
//! is ~0.7 µs per element, and on ordinary pages the pass ran at 15–40 % of the
//! tokenizer's own speed (bench/HISTORY.md, "Three times the fastest peer").
//! Text extraction needs far less: the bytes between tags, where each tag
//! begins and ends, and a handful of attributes. This tokenizer borrows all of
//! it from the input (a tag name is copied only when it has upper-case
//! letters), finds delimiters with `memchr`, and allocates nothing per tag.
//! lol_html stays for pages whose site has a content-tag rule: that rule is a
//! CSS selector, and lol_html matches selectors as it streams.
//!
//! It follows the WHATWG tokenizer where the text it yields depends on it:
//! tags, attributes (quoted, unquoted, valueless), comments (including the
//! abrupt `<!-->`), bogus comments (`<!DOCTYPE>`, `<?xml>`, `</ x>`), CDATA
//! in foreign content, and the raw-text, RCDATA, script-data and PLAINTEXT
//! content models, with a script's escaped and double-escaped states (a
//! script that writes `<!--<script>…</script>` does not end there). Which
//! model follows a start tag is the tree's business (`<style>` inside `<svg>`
//! is not raw text), so the sink decides.
//!
//! Every step moves forward in the input: linear on every input.

use super::bytes::find_short;
use memchr::{memchr, memchr2, memmem};

/// What the text that follows a start tag is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    /// Ordinary text: character references, tags.
    Data,
    /// `title`, `textarea`: character references, no tags.
    RcData,
    /// `style`, `xmp`, `iframe`, `noembed`, `noframes`, `noscript`.
    RawText,
    /// `script`.
    Script,
    /// `plaintext`: the rest of the document.
    PlainText,
}

/// One attribute, as written: its name (any case) and its raw value
/// (character references not decoded).
#[derive(Debug, Clone, Copy)]
pub struct Attr<'a> {
    pub name: &'a str,
    pub value: &'a str,
}

/// A start tag. `name` is lower case.
#[derive(Debug)]
pub struct StartTag<'a, 'b> {
    pub name: &'b str,
    pub attrs: &'b [Attr<'a>],
    pub self_closing: bool,
}

/// Where the tokens go.
pub trait Sink {
    /// A start tag; returns the content model of the text that follows it.
    fn start_tag(&mut self, tag: &StartTag) -> TextKind;
    /// An end tag; `name` is lower case.
    fn end_tag(&mut self, name: &str);
    /// A run of text: whole, never split.
    fn text(&mut self, kind: TextKind, text: &str);
    /// Whether the current node is in foreign content (SVG, MathML), where
    /// `<![CDATA[` opens a CDATA section.
    fn foreign(&self) -> bool;
    /// Called every [`PROGRESS_BYTES`] of input; `false` stops the pass.
    fn progress(&mut self) -> bool;
}

/// How often the sink is asked whether to go on.
pub const PROGRESS_BYTES: usize = 64 << 10;

/// Attributes kept per tag: enough for every real element; a tag with a
/// million attributes is read in full but only its first ones are kept.
const MAX_ATTRS: usize = 512;

/// Tokenizes `html` into `sink`. Returns `false` when the sink stopped it.
pub fn tokenize(html: &str, sink: &mut impl Sink) -> bool {
    Tokenizer {
        html,
        b: html.as_bytes(),
        attrs: Vec::new(),
        lower: String::new(),
        next_progress: PROGRESS_BYTES,
    }
    .run(sink)
}

struct Tokenizer<'a> {
    html: &'a str,
    b: &'a [u8],
    /// Reused for every tag.
    attrs: Vec<Attr<'a>>,
    /// A tag name with upper-case letters, lowered.
    lower: String,
    next_progress: usize,
}

const fn is_space(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

/// Bytes that end an attribute's name (white space, `/`, `>`, `=`) and an
/// unquoted value (white space, `>`), one table lookup a byte instead of
/// up to eight comparisons: attribute names and values are most of a tag's
/// bytes.
const ENDS_NAME: u8 = 1;
const ENDS_UNQUOTED: u8 = 2;
static ENDS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        let space = is_space(b);
        if space || matches!(b, b'/' | b'>' | b'=') {
            t[c] |= ENDS_NAME;
        }
        if space || b == b'>' {
            t[c] |= ENDS_UNQUOTED;
        }
        c += 1;
    }
    t
};

/// The first index from `at` whose byte has `class` in `ENDS`, or the end.
#[inline]
fn until(b: &[u8], mut at: usize, class: u8) -> usize {
    while at < b.len() && ENDS[b[at] as usize] & class == 0 {
        at += 1;
    }
    at
}

/// Where the tokenizer goes on after `</`.
enum After {
    /// At this byte.
    At(usize),
    /// Nowhere: EOF inside a tag (the tag and the rest are dropped).
    Eof,
    /// The `</` ends the page: it and the pending text are text.
    Text,
}

/// What a tag scan found.
struct TagEnd {
    /// Just past the `>`.
    end: usize,
    self_closing: bool,
}

impl<'a> Tokenizer<'a> {
    fn run(&mut self, sink: &mut impl Sink) -> bool {
        let len = self.b.len();
        let mut i = 0; // where the search for the next `<` starts
        let mut text = 0; // where the pending text starts
        while let Some(k) = memchr(b'<', &self.b[i..]) {
            let lt = i + k;
            if lt >= self.next_progress {
                self.next_progress = lt + PROGRESS_BYTES;
                if !sink.progress() {
                    return false;
                }
            }
            let next = self.b.get(lt + 1).copied().unwrap_or(0);
            if next.is_ascii_alphabetic() {
                let Some(at) = self.start_tag(sink, lt, text) else {
                    return true; // EOF inside a tag: the tag and the rest are dropped
                };
                i = at;
                text = i;
            } else if next == b'/' {
                match self.end_tag(sink, lt, text) {
                    After::At(at) => i = at,
                    After::Eof => return true,
                    After::Text => break, // `</` at the end is text
                }
                text = i;
            } else if next == b'!' {
                self.flush(sink, text, lt);
                i = self.markup_declaration(lt, sink.foreign());
                text = i;
            } else if next == b'?' {
                self.flush(sink, text, lt);
                i = self.to_gt(lt + 2);
                text = i;
            } else {
                i = lt + 1; // a `<` that opens nothing is text
            }
            if i >= len {
                break;
            }
        }
        self.flush(sink, text, len);
        true
    }

    /// A start tag at `lt` (its name from `lt + 1`), the text pending since
    /// `text` flushed before it; then, for an element whose content is raw
    /// text (script, style, textarea, plaintext), that text. Where reading
    /// goes on; None at EOF inside the tag. Inlined: it is the loop's body.
    #[inline(always)]
    fn start_tag(&mut self, sink: &mut impl Sink, lt: usize, text: usize) -> Option<usize> {
        let (name_end, upper) = self.name_end(lt + 1);
        let Some(tag) = self.attributes(name_end, true) else {
            self.flush(sink, text, lt);
            return None;
        };
        self.flush(sink, text, lt);
        let name = self.lowered(lt + 1, name_end, upper);
        let kind = sink.start_tag(&StartTag {
            name: if name {
                &self.lower
            } else {
                &self.html[lt + 1..name_end]
            },
            attrs: &self.attrs,
            self_closing: tag.self_closing,
        });
        let i = tag.end;
        if kind == TextKind::Data {
            return Some(i);
        }
        let raw_end = match kind {
            TextKind::PlainText => self.b.len(),
            TextKind::Script => self.script_end(i),
            _ => self.raw_end(i, lt + 1, name_end),
        };
        if raw_end > i {
            sink.text(kind, &self.html[i..raw_end]);
        }
        Some(raw_end)
    }

    /// What follows `</` at `lt`: an end tag, `</>` (nothing at all), a bogus
    /// comment up to the next `>`, or the end of the page. Inlined as `start_tag`.
    #[inline(always)]
    fn end_tag(&mut self, sink: &mut impl Sink, lt: usize, text: usize) -> After {
        let after = lt + 2;
        let c = self.b.get(after).copied().unwrap_or(0);
        if c.is_ascii_alphabetic() {
            let (name_end, upper) = self.name_end(after);
            let Some(tag) = self.attributes(name_end, false) else {
                self.flush(sink, text, lt);
                return After::Eof;
            };
            self.flush(sink, text, lt);
            let name = self.lowered(after, name_end, upper);
            sink.end_tag(if name {
                &self.lower
            } else {
                &self.html[after..name_end]
            });
            After::At(tag.end)
        } else if c == b'>' {
            self.flush(sink, text, lt);
            After::At(after + 1)
        } else if after >= self.b.len() {
            After::Text
        } else {
            self.flush(sink, text, lt);
            After::At(self.to_gt(after))
        }
    }

    fn flush(&self, sink: &mut impl Sink, from: usize, to: usize) {
        if to > from {
            sink.text(TextKind::Data, &self.html[from..to]);
        }
    }

    /// The end of a tag name starting at `at`, and whether it has
    /// upper-case letters (read in the same walk: most names have none).
    fn name_end(&self, mut at: usize) -> (usize, bool) {
        let mut upper = false;
        while let Some(&c) = self.b.get(at) {
            if is_space(c) || c == b'/' || c == b'>' {
                break;
            }
            upper |= c.is_ascii_uppercase();
            at += 1;
        }
        (at, upper)
    }

    /// Lowers `from..to` into `self.lower` when it has upper-case letters
    /// (`upper`); returns whether it did.
    fn lowered(&mut self, from: usize, to: usize, upper: bool) -> bool {
        if !upper {
            return false;
        }
        let name = &self.html[from..to];
        self.lower.clear();
        self.lower.push_str(name);
        self.lower.make_ascii_lowercase();
        true
    }

    /// Reads attributes from `at` to the tag's `>`; keeps them when `keep`.
    /// `None`: the input ended inside the tag.
    fn attributes(&mut self, mut at: usize, keep: bool) -> Option<TagEnd> {
        let b = self.b;
        self.attrs.clear();
        loop {
            while at < b.len() && is_space(b[at]) {
                at += 1;
            }
            let c = *b.get(at)?;
            if c == b'>' {
                return Some(TagEnd {
                    end: at + 1,
                    self_closing: false,
                });
            }
            if c == b'/' {
                if b.get(at + 1) == Some(&b'>') {
                    return Some(TagEnd {
                        end: at + 2,
                        self_closing: true,
                    });
                }
                at += 1;
                continue;
            }
            // A name: its first character may be `=`.
            let name_start = at;
            at = until(b, at + 1, ENDS_NAME);
            let name_end = at;
            while at < b.len() && is_space(b[at]) {
                at += 1;
            }
            let mut value = (at, at);
            if b.get(at) == Some(&b'=') {
                at += 1;
                while at < b.len() && is_space(b[at]) {
                    at += 1;
                }
                match *b.get(at)? {
                    q @ (b'"' | b'\'') => {
                        // Most values are a few bytes: searched by word, not memchr.
                        let close = find_short(q, &b[at + 1..])?;
                        value = (at + 1, at + 1 + close);
                        at += close + 2;
                    }
                    b'>' => {}
                    _ => {
                        let start = at;
                        at = until(b, at, ENDS_UNQUOTED);
                        value = (start, at);
                    }
                }
            }
            if keep && self.attrs.len() < MAX_ATTRS {
                self.attrs.push(Attr {
                    name: &self.html[name_start..name_end],
                    value: &self.html[value.0..value.1],
                });
            }
        }
    }

    /// Just past the next `>` from `at` (or the end): a bogus comment.
    fn to_gt(&self, at: usize) -> usize {
        memchr(b'>', &self.b[at.min(self.b.len())..]).map_or(self.b.len(), |k| at + k + 1)
    }

    /// After `<!` at `lt`: a comment, a CDATA section (ignored: its text is
    /// never a page's), or a bogus comment such as a DOCTYPE.
    fn markup_declaration(&self, lt: usize, foreign: bool) -> usize {
        let rest = &self.b[lt + 2..];
        if rest.starts_with(b"--") {
            let body = lt + 4;
            // `<!-->` and `<!--->` end at once.
            if self.b.get(body) == Some(&b'>') {
                return body + 1;
            }
            if self.b[body..].starts_with(b"->") {
                return body + 2;
            }
            return comment_end(&self.b[body..]).map_or(self.b.len(), |k| body + k);
        }
        if foreign && rest.starts_with(b"[CDATA[") {
            let body = lt + 9;
            return memmem::find(&self.b[body..], b"]]>").map_or(self.b.len(), |k| body + k + 3);
        }
        self.to_gt(lt + 2)
    }

    /// Where raw text starting at `from` ends: at `</name` followed by
    /// whitespace, `/` or `>` (any case), or at the end of the input.
    fn raw_end(&self, from: usize, name_start: usize, name_end: usize) -> usize {
        let name = &self.b[name_start..name_end];
        let mut at = from;
        let finder = memmem::Finder::new(b"</");
        while let Some(k) = finder.find(&self.b[at..]) {
            let lt = at + k;
            let n = lt + 2;
            let candidate = self.b.get(n..n + name.len());
            if candidate.is_some_and(|c| c.eq_ignore_ascii_case(name)) {
                match self.b.get(n + name.len()) {
                    None => return lt,
                    Some(&c) if is_space(c) || c == b'/' || c == b'>' => return lt,
                    _ => {}
                }
            }
            at = lt + 2;
        }
        self.b.len()
    }
}

impl Tokenizer<'_> {
    /// Whether `</name` or `<name` (`close`) at `lt` is followed by a
    /// character that ends a tag name.
    fn tag_at(&self, lt: usize, close: bool, name: &[u8]) -> bool {
        let n = lt + 1 + close as usize;
        self.b
            .get(n..n + name.len())
            .is_some_and(|c| c.eq_ignore_ascii_case(name))
            && self
                .b
                .get(n + name.len())
                .is_none_or(|&c| is_space(c) || c == b'/' || c == b'>')
    }

    /// Where a script starting at `from` ends. Inside `<!--` a `<script`
    /// opens a nested script whose `</script>` does not end the outer one
    /// (the tokenizer's script-data escaped and double-escaped states).
    fn script_end(&self, from: usize) -> usize {
        #[derive(PartialEq)]
        enum State {
            Plain,
            Escaped,
            DoubleEscaped,
        }
        let mut state = State::Plain;
        let mut at = from;
        while let Some(k) = memchr2(b'<', b'-', &self.b[at..]) {
            let p = at + k;
            at = p + 1;
            if self.b[p] == b'-' {
                if state != State::Plain && self.b[p..].starts_with(b"-->") {
                    state = State::Plain;
                    at = p + 3;
                }
                continue;
            }
            match state {
                State::Plain if self.b[p..].starts_with(b"<!--") => {
                    state = State::Escaped;
                    at = p + 4;
                }
                State::Plain | State::Escaped if self.tag_at(p, true, b"script") => return p,
                State::Escaped if self.tag_at(p, false, b"script") => state = State::DoubleEscaped,
                State::DoubleEscaped if self.tag_at(p, true, b"script") => state = State::Escaped,
                _ => {}
            }
        }
        self.b.len()
    }
}

/// The end of a comment body (just past `-->` or `--!>`), if it has one.
fn comment_end(body: &[u8]) -> Option<usize> {
    let mut at = 0;
    while let Some(k) = memchr2(b'-', b'!', &body[at..]) {
        let p = at + k;
        if body[p] == b'-' && body[p..].starts_with(b"-->") {
            return Some(p + 3);
        }
        if body[p] == b'!' && p >= 2 && body[p - 2..].starts_with(b"--!>") {
            return Some(p + 2);
        }
        at = p + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Log {
        out: Vec<String>,
        raw: Vec<&'static str>,
    }

    impl Sink for Log {
        fn start_tag(&mut self, tag: &StartTag) -> TextKind {
            let attrs: Vec<String> = tag
                .attrs
                .iter()
                .map(|a| format!("{}={}", a.name, a.value))
                .collect();
            self.out.push(format!(
                "<{}{}{}>",
                tag.name,
                attrs.iter().map(|a| format!(" {a}")).collect::<String>(),
                if tag.self_closing { "/" } else { "" }
            ));
            match tag.name {
                "script" => TextKind::Script,
                "style" | "noscript" => TextKind::RawText,
                "title" | "textarea" => TextKind::RcData,
                "plaintext" => TextKind::PlainText,
                _ => TextKind::Data,
            }
        }
        fn end_tag(&mut self, name: &str) {
            self.out.push(format!("</{name}>"));
        }
        fn text(&mut self, kind: TextKind, text: &str) {
            self.out.push(match kind {
                TextKind::Data => text.to_string(),
                k => format!("{k:?}[{text}]"),
            });
        }
        fn foreign(&self) -> bool {
            !self.raw.is_empty()
        }
        fn progress(&mut self) -> bool {
            true
        }
    }

    fn tokens(html: &str) -> Vec<String> {
        let mut log = Log::default();
        assert!(tokenize(html, &mut log));
        log.out
    }

    #[test]
    fn tags_attributes_and_text() {
        assert_eq!(
            tokens(r#"a<P Class="x y" id=z hidden data-q='it"s'>b &amp; c</p >d<br/>"#),
            vec![
                "a",
                r#"<p Class=x y id=z hidden= data-q=it"s>"#,
                "b &amp; c",
                "</p>",
                "d",
                "<br/>"
            ]
        );
        assert_eq!(tokens("<a href=/x>y</A>"), vec!["<a href=/x>", "y", "</a>"]);
        assert_eq!(tokens("<a =b c = d>"), vec!["<a =b= c=d>"]);
    }

    #[test]
    fn what_is_not_a_tag_is_text_or_nothing() {
        assert_eq!(tokens("1 < 2 <3 a<>b"), vec!["1 < 2 <3 a<>b"]);
        assert_eq!(tokens("a</>b"), vec!["a", "b"]);
        assert_eq!(
            tokens("a<!DOCTYPE html>b<?xml x?>c</ x>d"),
            vec!["a", "b", "c", "d"]
        );
        assert_eq!(
            tokens("a<!-- <p>x</p> -->b<!-->c<!--->d"),
            vec!["a", "b", "c", "d"]
        );
        assert_eq!(tokens("a<!-- x --!>b"), vec!["a", "b"]);
        assert_eq!(tokens("a<!-- never closed <p>x"), vec!["a"]);
        assert_eq!(tokens("a<p class='never"), vec!["a"]);
        assert_eq!(tokens("a</"), vec!["a</"]);
    }

    #[test]
    fn raw_text_ends_only_at_its_own_end_tag() {
        assert_eq!(
            tokens("<script>if (a</b) x='</scripty>';</SCRIPT >t"),
            vec![
                "<script>",
                "Script[if (a</b) x='</scripty>';]",
                "</script>",
                "t"
            ]
        );
        assert_eq!(
            tokens("<title>A &amp; <b>B</b></title><style>p{}</style><textarea></textarea>"),
            vec![
                "<title>",
                "RcData[A &amp; <b>B</b>]",
                "</title>",
                "<style>",
                "RawText[p{}]",
                "</style>",
                "<textarea>",
                "</textarea>"
            ]
        );
        assert_eq!(
            tokens("<script><!-- document.write('<script>x</script>'); --></script>t"),
            vec![
                "<script>",
                "Script[<!-- document.write('<script>x</script>'); -->]",
                "</script>",
                "t"
            ]
        );
        assert_eq!(
            tokens("<script><!-- x </script>t"),
            vec!["<script>", "Script[<!-- x ]", "</script>", "t"]
        );
        assert_eq!(
            tokens("<style>never closed"),
            vec!["<style>", "RawText[never closed]"]
        );
        assert_eq!(
            tokens("<plaintext></plaintext><p>"),
            vec!["<plaintext>", "PlainText[</plaintext><p>]"]
        );
    }

    #[test]
    fn cdata_only_in_foreign_content() {
        let mut log = Log {
            raw: vec!["svg"],
            ..Default::default()
        };
        tokenize("a<![CDATA[x>y]]>b", &mut log);
        assert_eq!(log.out, vec!["a", "b"]);
        assert_eq!(tokens("a<![CDATA[x>y]]>b"), vec!["a", "y]]>b"]);
    }

    #[test]
    fn linear_on_adversarial_shapes() {
        // Each shape at 1 MB and 4 MB: 4x the bytes, about 4x the time.
        let shapes: [fn(usize) -> String; 7] = [
            |n| "<div>".repeat(n / 5),
            |n| format!("<a {}>", "x=1 ".repeat(n / 4)),
            |n| format!("<script>{}</script>", "</scrip".repeat(n / 7)),
            |n| format!("<script><!--{}</script>", "<script>-->".repeat(n / 11)),
            |n| format!("<!--{}-->", "-!-".repeat(n / 3)),
            |n| "<<<<".repeat(n / 4),
            |n| "</a ".repeat(n / 4),
        ];
        for shape in shapes {
            let time = |n| {
                let html = shape(n);
                let t = std::time::Instant::now();
                let mut log = Log::default();
                tokenize(&html, &mut log);
                t.elapsed().as_secs_f64()
            };
            let (small, large) = (time(1 << 20), time(4 << 20));
            assert!(large < 16.0 * small + 0.05, "{small} -> {large}");
        }
    }
}
