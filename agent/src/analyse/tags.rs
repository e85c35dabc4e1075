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
        let value = value.trim().trim_end_matches("!important").trim();
        match prop.trim() {
            p if p.eq_ignore_ascii_case("display") => value.eq_ignore_ascii_case("none"),
            p if p.eq_ignore_ascii_case("visibility") => value.eq_ignore_ascii_case("hidden"),
            _ => false,
        }
    })
}

#[cfg(test)]
mod tests {
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

/// Given the open elements (bottom first), where the stack must be cut when a
/// block element `name` starts: a simplified form of the HTML tree builder's
/// "close a p element" and "generate implied end tags" steps.
pub fn implied_close<I>(open: I, name: Implicit, kind: TagKind) -> Option<usize>
where
    I: DoubleEndedIterator<Item = Implicit> + ExactSizeIterator,
{
    let target = match name {
        Implicit::Li | Implicit::DtDd | Implicit::Cell | Implicit::Tr | Implicit::Option => name,
        // Any other block start closes an open <p> that is the innermost block.
        _ if kind == TagKind::Block => Implicit::P,
        _ => return None,
    };
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
