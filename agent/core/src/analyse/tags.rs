//! What a tag means for the text around it.

/// The role of an element for text extraction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagKind {
    /// Starts and ends a paragraph (`p`, `div`, `li`, headings, `td`, ...).
    Block,
    /// A line break: two in a row end a paragraph.
    Br,
    /// The document title.
    Title,
    /// Its content is never visible (`template`); `script`, `style`, `noscript`
    /// and friends are already raw text to the parser.
    Invisible,
    /// `noscript`: raw text to the parser, kept aside for pages that only
    /// show their text there.
    NoScript,
    /// Everything else: text flows through it (`span`, `a`, `b`, `em`, ...).
    Inline,
}

/// Classifies a lower-case tag name.
pub fn classify(name: &str) -> TagKind {
    match name {
        "p" | "div" | "li" | "ul" | "ol" | "dl" | "dt" | "dd" | "h1" | "h2" | "h3" | "h4"
        | "h5" | "h6" | "td" | "th" | "tr" | "table" | "thead" | "tbody" | "tfoot" | "caption"
        | "section" | "article" | "aside" | "header" | "footer" | "nav" | "main" | "blockquote"
        | "pre" | "figure" | "figcaption" | "form" | "fieldset" | "legend" | "address"
        | "details" | "summary" | "dialog" | "hr" | "center" | "menu" | "hgroup" | "body"
        | "html" | "head" | "option" | "select" | "textarea" | "button" | "label" | "iframe"
        | "frameset" | "frame" | "noframes" | "img" | "video" | "audio" | "canvas" | "svg"
        | "math" | "object" | "embed" | "map" | "input" => TagKind::Block,
        "br" => TagKind::Br,
        "title" => TagKind::Title,
        "template" => TagKind::Invisible,
        "noscript" => TagKind::NoScript,
        _ => TagKind::Inline,
    }
}

/// Form controls: their text is never content.
pub fn is_ui(name: &str) -> bool {
    matches!(
        name,
        "select" | "option" | "optgroup" | "button" | "textarea" | "datalist"
    )
}

/// The `IN_*` context flag an element gives the text inside it (0 for most).
pub fn context_flag(name: &str) -> u16 {
    use super::text::*;
    match name {
        "p" => IN_P,
        "pre" | "code" | "kbd" | "samp" => IN_CODE,
        "td" | "th" => IN_CELL,
        "blockquote" | "q" => IN_QUOTE,
        "form" | "label" | "fieldset" => IN_FORM,
        "figcaption" => IN_CAPTION,
        "time" | "address" => IN_META,
        "strong" | "b" | "em" | "i" => IN_EMPH,
        _ => 0,
    }
}

/// Heading level 1..=6, or 0.
pub fn heading_level(name: &str) -> u8 {
    match name {
        "h1" => 1,
        "h2" => 2,
        "h3" => 3,
        "h4" => 4,
        "h5" => 5,
        "h6" => 6,
        _ => 0,
    }
}

/// True when an inline `style` attribute hides the element
/// (`display: none` or `visibility: hidden`).
pub fn style_hides(style: &str) -> bool {
    style.split(';').any(|decl| {
        let Some((prop, value)) = decl.split_once(':') else {
            return false;
        };
        // The property first: the value is read only for the two that hide.
        let prop = prop.trim();
        let hides = if prop.eq_ignore_ascii_case("display") {
            "none"
        } else if prop.eq_ignore_ascii_case("visibility") {
            "hidden"
        } else {
            return false;
        };
        let value = value.trim().trim_end_matches("!important").trim();
        value.eq_ignore_ascii_case(hides)
    })
}

/// Elements that never have content (HTML's void elements).
pub fn is_void(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "input"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
            | "keygen"
            | "basefont"
            | "bgsound"
            | "frame"
            | "image"
    )
}

/// The content model that follows the start tag of an HTML element.
pub fn text_kind(name: &str) -> super::tokenizer::TextKind {
    use super::tokenizer::TextKind;
    match name {
        "title" | "textarea" => TextKind::RcData,
        "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => TextKind::RawText,
        "script" => TextKind::Script,
        "plaintext" => TextKind::PlainText,
        _ => TextKind::Data,
    }
}

/// The attributes with which a `font` start tag ends foreign content.
pub const FOREIGN_BREAKING_FONT: [&str; 3] = ["color", "face", "size"];

/// HTML elements whose start tag inside SVG or MathML ends the foreign
/// content (the WHATWG parser's list; `font` only with colour, face or size).
pub fn breaks_out_of_foreign(name: &str, attrs: &[super::tokenizer::Attr]) -> bool {
    match name {
        "b" | "big" | "blockquote" | "body" | "br" | "center" | "code" | "dd" | "div" | "dl"
        | "dt" | "em" | "embed" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "head" | "hr" | "i"
        | "img" | "li" | "listing" | "menu" | "meta" | "nobr" | "ol" | "p" | "pre" | "ruby"
        | "s" | "small" | "span" | "strong" | "strike" | "sub" | "sup" | "table" | "tt" | "u"
        | "ul" | "var" => true,
        "font" => attrs.iter().any(|a| {
            FOREIGN_BREAKING_FONT
                .iter()
                .any(|n| a.name.eq_ignore_ascii_case(n))
        }),
        _ => false,
    }
}

/// SVG and MathML elements whose content is HTML again.
pub fn integration_point(name: &str) -> bool {
    matches!(
        name,
        "foreignobject" | "desc" | "title" | "mi" | "mo" | "mn" | "ms" | "mtext" | "annotation-xml"
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn marks_agree_with_the_walk_down_the_stack() {
        use super::*;
        let all: Vec<Implicit> = Implicit::MARKED
            .into_iter()
            .chain([Implicit::Other])
            .collect();
        let mut x = 0x9e37_79b9u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let depth = (x % 9) as usize;
            let mut stack = Vec::new();
            let mut marks = Marks::default();
            let mut y = x;
            for i in 0..depth {
                let n = all[(y % 8) as usize];
                y /= 8;
                stack.push(n);
                marks = marks.push(n, i);
            }
            let name = all[(y % 8) as usize];
            for kind in [TagKind::Block, TagKind::Inline] {
                assert_eq!(
                    implied_close_marked(&marks, name, kind),
                    implied_close(stack.iter().copied(), name, kind),
                    "{stack:?} {name:?} {kind:?}"
                );
            }
        }
    }

    use super::*;

    #[test]
    fn classification() {
        assert_eq!(classify("p"), TagKind::Block);
        assert_eq!(classify("span"), TagKind::Inline);
        assert_eq!(classify("br"), TagKind::Br);
        assert!(style_hides("color: red; DISPLAY : none"));
        assert!(style_hides("visibility:hidden !important"));
        assert!(!style_hides("display:block"));
    }
}

/// Elements whose end tag HTML lets an author leave out, and the elements that
/// bound how far such an implied end tag may reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Implicit {
    P,
    Li,
    DtDd,
    Cell,
    Tr,
    Option,
    /// Lists, tables, selects: an implied end tag does not cross them.
    Scope,
    Other,
}

/// Which `Implicit` group a lower-case tag name is in.
pub fn implicit(name: &str) -> Implicit {
    match name {
        "p" => Implicit::P,
        "li" => Implicit::Li,
        "dt" | "dd" => Implicit::DtDd,
        "td" | "th" => Implicit::Cell,
        "tr" => Implicit::Tr,
        "option" => Implicit::Option,
        "ul" | "ol" | "dl" | "table" | "select" | "button" => Implicit::Scope,
        _ => Implicit::Other,
    }
}

impl Implicit {
    /// The groups an implied end tag looks for or stops at, numbered for [`Marks`].
    const MARKED: [Implicit; 7] = [
        Implicit::P,
        Implicit::Li,
        Implicit::DtDd,
        Implicit::Cell,
        Implicit::Tr,
        Implicit::Option,
        Implicit::Scope,
    ];

    fn slot(self) -> Option<usize> {
        Self::MARKED.iter().position(|&m| m == self)
    }
}

/// For one open element: the stack index of the nearest element at or below
/// it in each marked group (−1: none). Each element's marks are its parent's
/// with its own slot set, so finding where an implied end tag cuts the stack
/// is O(1) — a walk down the stack made `<div>` nested n deep cost O(n²).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marks([i32; 7]);

impl Default for Marks {
    fn default() -> Self {
        Marks([-1; 7])
    }
}

impl Marks {
    /// The marks of an element of group `name` at stack index `idx` above `self`.
    pub fn push(mut self, name: Implicit, idx: usize) -> Marks {
        if let Some(slot) = name.slot() {
            self.0[slot] = idx as i32;
        }
        self
    }

    fn get(&self, name: Implicit) -> i32 {
        name.slot().map_or(-1, |s| self.0[s])
    }
}

/// What the start of `name` closes implicitly: an open element of its own
/// group (`li`, `dt`/`dd`, cells, rows, options), or — any other block start
/// — an open `<p>` that is the innermost block.
fn implied_target(name: Implicit, kind: TagKind) -> Option<Implicit> {
    match name {
        Implicit::Li | Implicit::DtDd | Implicit::Cell | Implicit::Tr | Implicit::Option => {
            Some(name)
        }
        _ if kind == TagKind::Block => Some(Implicit::P),
        _ => None,
    }
}

/// `implied_close` from the innermost open element's marks (`top`), in O(1).
pub fn implied_close_marked(top: &Marks, name: Implicit, kind: TagKind) -> Option<usize> {
    let target = implied_target(name, kind)?;
    let found = top.get(target);
    // For a <p>, any marked element above it stops the search; for the
    // others, only a scope does.
    let stop = if target == Implicit::P {
        top.0
            .iter()
            .copied()
            .filter(|&i| i != found)
            .max()
            .unwrap_or(-1)
    } else {
        top.get(Implicit::Scope)
    };
    (found >= 0 && found > stop).then_some(found as usize)
}

/// Given the open elements (bottom first), where the stack must be cut when a
/// block element `name` starts: a simplified form of the HTML tree builder's
/// "close a p element" and "generate implied end tags" steps. The reference
/// for [`implied_close_marked`] (a walk down the stack).
pub fn implied_close<I>(open: I, name: Implicit, kind: TagKind) -> Option<usize>
where
    I: DoubleEndedIterator<Item = Implicit> + ExactSizeIterator,
{
    let target = implied_target(name, kind)?;
    for (idx, o) in open.enumerate().rev() {
        if o == target {
            return Some(idx);
        }
        if o == Implicit::Scope || (target == Implicit::P && o != Implicit::Other) {
            return None;
        }
        // A row start also closes an open cell inside the same table.
        if target == Implicit::Tr && o == Implicit::Cell {
            continue;
        }
    }
    None
}

/// The outline role an element gives its text (`Plain`: its parent's).
pub fn role(name: &str, heading_level: u8) -> super::Role {
    use super::Role;
    match name {
        _ if heading_level > 0 => Role::Heading(heading_level),
        "li" => Role::Item,
        "td" => Role::Cell,
        "th" => Role::HeaderCell,
        "pre" => Role::Pre,
        "blockquote" => Role::Quote,
        _ => Role::Plain,
    }
}

/// The list kind an element starts: 1 unordered, 2 ordered, 0 none.
pub fn list(name: &str) -> u8 {
    match name {
        "ul" | "menu" => 1,
        "ol" => 2,
        _ => 0,
    }
}
