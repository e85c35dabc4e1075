//! What the pass asks of an element's name, answered once a tag.
//!
//! A start tag used to be matched against a dozen lists of names (its kind,
//! whether it is void, the content model that follows, its heading level,
//! role, list, context flag, whether it is a form control, the hints of its
//! tag, whether it ends foreign content), and every start and end tag looked
//! its name up by string in a map of the page's names. Pages have a tag
//! every 120 bytes or so, and those comparisons and string hashes were a
//! tenth of the pass (bench/HISTORY.md, session 36).
//!
//! Every name those lists hold is a row of the table here. A name is packed
//! into a `u128` (a name of more than 16 bytes is in no list), hashed once,
//! and the answers are read from its row. A name outside the table gets what
//! every list gives a name it does not hold. The rows are computed from the
//! lists themselves (`tags`, `hints`) when the table is built, so the two
//! cannot disagree; the row's index is the name's id for the tree's
//! innermost-open-element index.

use super::hints;
use super::tags::{self, Implicit, TagKind};
use super::tokenizer::{self, TextKind};
use super::Role;
use std::sync::LazyLock;

/// The answers for one lower-case element name.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Element {
    /// The row's index, a name id below [`rows`]; [`UNKNOWN`] off the table.
    pub id: u32,
    pub kind: TagKind,
    pub implicit: Implicit,
    /// HTML's void elements: never content.
    pub void: bool,
    /// The content model after an HTML start tag.
    pub text_kind: TextKind,
    /// 1..=6 for `h1`..`h6`, else 0.
    pub heading: u8,
    pub role: Role,
    /// The list kind the element starts (`tags::list`).
    pub list: u8,
    /// The `IN_*` flag the element gives its text (`tags::context_flag`).
    pub context: u16,
    /// A form control (`tags::is_ui`).
    pub ui: bool,
    /// Whether its start tag ends foreign content.
    pub breaks_foreign: Breaks,
    /// An SVG or MathML element whose content is HTML again.
    pub integration_point: bool,
    /// What the tag alone says of the text inside (`hints::tag_hints`).
    pub hints: hints::TagHints,
}

/// Whether a start tag inside SVG or MathML ends the foreign content
/// (`tags::breaks_out_of_foreign`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Breaks {
    Never,
    Always,
    /// As its attributes say (`font`: with a colour, face or size).
    ByAttributes,
}

impl Breaks {
    /// What the list answers for `name`, with no attributes and with every
    /// attribute it may ask about.
    fn of(name: &str) -> Breaks {
        let asked = tags::FOREIGN_BREAKING_FONT.map(|name| tokenizer::Attr { name, value: "" });
        match (
            tags::breaks_out_of_foreign(name, &[]),
            tags::breaks_out_of_foreign(name, &asked),
        ) {
            (true, _) => Breaks::Always,
            (false, true) => Breaks::ByAttributes,
            (false, false) => Breaks::Never,
        }
    }

    /// Whether a start tag with `attrs` ends foreign content.
    #[inline]
    pub fn given(self, name: &str, attrs: &[tokenizer::Attr]) -> bool {
        match self {
            Breaks::Never => false,
            Breaks::Always => true,
            Breaks::ByAttributes => tags::breaks_out_of_foreign(name, attrs),
        }
    }
}

/// The id of a name off the table.
pub const UNKNOWN: u32 = u32::MAX;

/// Every name a list in `tags` or `hints` holds, and the rest of HTML's,
/// SVG's and MathML's common elements (a row is cheaper than a miss: a
/// miss's id is a string hash in the page's own map).
const NAMES: &[&str] = &[
    "a",
    "abbr",
    "address",
    "annotation-xml",
    "area",
    "article",
    "aside",
    "audio",
    "b",
    "base",
    "basefont",
    "bdi",
    "bdo",
    "bgsound",
    "big",
    "blockquote",
    "body",
    "br",
    "button",
    "canvas",
    "caption",
    "center",
    "circle",
    "cite",
    "clippath",
    "code",
    "col",
    "colgroup",
    "data",
    "datalist",
    "dd",
    "defs",
    "del",
    "desc",
    "details",
    "dfn",
    "dialog",
    "div",
    "dl",
    "dt",
    "ellipse",
    "em",
    "embed",
    "fieldset",
    "figcaption",
    "figure",
    "font",
    "footer",
    "foreignobject",
    "form",
    "frame",
    "frameset",
    "g",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hgroup",
    "hr",
    "html",
    "i",
    "iframe",
    "image",
    "img",
    "input",
    "ins",
    "kbd",
    "keygen",
    "label",
    "legend",
    "li",
    "line",
    "lineargradient",
    "link",
    "listing",
    "main",
    "map",
    "mark",
    "math",
    "menu",
    "meta",
    "meter",
    "mi",
    "mn",
    "mo",
    "ms",
    "mtext",
    "nav",
    "nobr",
    "noembed",
    "noframes",
    "noscript",
    "object",
    "ol",
    "optgroup",
    "option",
    "output",
    "p",
    "param",
    "path",
    "picture",
    "plaintext",
    "polygon",
    "polyline",
    "pre",
    "progress",
    "q",
    "rect",
    "rp",
    "rt",
    "ruby",
    "s",
    "samp",
    "script",
    "search",
    "section",
    "select",
    "slot",
    "small",
    "source",
    "span",
    "stop",
    "strike",
    "strong",
    "style",
    "sub",
    "summary",
    "sup",
    "svg",
    "symbol",
    "table",
    "tbody",
    "td",
    "template",
    "text",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "time",
    "title",
    "tr",
    "track",
    "tt",
    "u",
    "ul",
    "use",
    "var",
    "video",
    "wbr",
    "xmp",
];

/// Slots of the open-addressed index: a power of two, at most a third full.
const SLOTS: usize = 512;

struct Table {
    /// Per slot: a row's index + 1, 0 empty.
    slots: [u16; SLOTS],
    /// Per row: its packed name and its name's length.
    keys: Vec<(u128, usize)>,
    rows: Vec<Element>,
    /// What a name off the table gets.
    unknown: Element,
}

static TABLE: LazyLock<Table> = LazyLock::new(|| {
    let mut t = Table {
        slots: [0; SLOTS],
        keys: Vec::with_capacity(NAMES.len()),
        rows: Vec::with_capacity(NAMES.len()),
        unknown: answers("", UNKNOWN),
    };
    for name in NAMES {
        let key = pack(name.as_bytes()).expect("table names are at most 16 bytes");
        let mut slot = slot_of(key);
        while t.slots[slot] != 0 {
            slot = (slot + 1) % SLOTS;
        }
        t.slots[slot] = t.rows.len() as u16 + 1;
        t.keys.push((key, name.len()));
        t.rows.push(answers(name, t.rows.len() as u32));
    }
    t
});

/// The lists' answers for `name`.
fn answers(name: &str, id: u32) -> Element {
    let heading = tags::heading_level(name);
    Element {
        id,
        kind: tags::classify(name),
        implicit: tags::implicit(name),
        void: tags::is_void(name),
        text_kind: tags::text_kind(name),
        heading,
        role: tags::role(name, heading),
        list: tags::list(name),
        context: tags::context_flag(name),
        ui: tags::is_ui(name),
        breaks_foreign: Breaks::of(name),
        integration_point: tags::integration_point(name),
        hints: hints::tag_hints(name),
    }
}

/// `name`'s bytes, zero-padded, as one number; None past 16 bytes. Read as
/// two loads that may overlap (the overlapping bytes are the same bytes in
/// the same places, so OR-ing them is exact): a copy of a length known only
/// here would be a call, and a byte loop a dozen shifts of a `u128`.
#[inline]
fn pack(name: &[u8]) -> Option<u128> {
    let n = name.len();
    let u32_at = |at: usize| u32::from_le_bytes(name[at..at + 4].try_into().unwrap()) as u128;
    let u64_at = |at: usize| u64::from_le_bytes(name[at..at + 8].try_into().unwrap()) as u128;
    Some(match n {
        0 => 0,
        1..=3 => {
            let byte = |at: usize| (name[at] as u128) << (8 * at);
            byte(0) | byte(n / 2) | byte(n - 1)
        }
        4..=8 => u32_at(0) | (u32_at(n - 4) << (8 * (n - 4))),
        9..=16 => u64_at(0) | (u64_at(n - 8) << (8 * (n - 8))),
        _ => return None,
    })
}

#[inline]
fn slot_of(key: u128) -> usize {
    let folded = (key as u64) ^ ((key >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (folded.wrapping_mul(0xD6E8_FEB8_6659_FD93) >> (64 - SLOTS.trailing_zeros())) as usize
}

/// The answers for a lower-case element name.
#[inline]
pub fn of(name: &str) -> &'static Element {
    let t = &*TABLE;
    let Some(key) = pack(name.as_bytes()) else {
        return &t.unknown;
    };
    let mut slot = slot_of(key);
    loop {
        let row = t.slots[slot] as usize;
        if row == 0 {
            return &t.unknown;
        }
        // The length tells `p` from `p\0`, which pack alike.
        if t.keys[row - 1] == (key, name.len()) {
            return &t.rows[row - 1];
        }
        slot = (slot + 1) % SLOTS;
    }
}

/// How many names the table holds: the ids below this are its rows.
pub fn rows() -> usize {
    NAMES.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_pack_as_their_bytes() {
        for n in 0..=17usize {
            let name: Vec<u8> = (0..n as u8).map(|i| b'a' + i).collect();
            let mut padded = [0u8; 16];
            let expected = (n <= 16).then(|| {
                padded[..n].copy_from_slice(&name);
                u128::from_le_bytes(padded)
            });
            assert_eq!(pack(&name), expected, "{n}");
        }
    }

    #[test]
    fn every_name_reads_as_the_lists_read_it() {
        let odd = [
            "",
            "x",
            "p\0",
            "div-x",
            "customelement",
            "a-very-long-custom-element-name",
        ];
        for name in NAMES.iter().copied().chain(odd) {
            let el = of(name);
            let expected = answers(name, el.id);
            assert_eq!(*el, expected, "{name}");
            assert_eq!(el.id == UNKNOWN, !NAMES.contains(&name), "{name}");
            if el.id != UNKNOWN {
                assert_eq!(NAMES[el.id as usize], name);
            }
        }
        assert!(NAMES.len() * 3 <= SLOTS);
    }

    #[test]
    fn every_name_a_list_holds_is_on_the_table() {
        // The lists are `match` arms and arrays of string literals: every
        // literal that some list answers for differently from a name it does
        // not hold must be a row, or `of` would answer for it as for none.
        let none = answers("no-such-element", UNKNOWN);
        let sources = [include_str!("tags.rs"), include_str!("hints.rs")];
        let mut checked = 0;
        for source in sources {
            for literal in source.split('"').skip(1).step_by(2) {
                let name_like = !literal.is_empty()
                    && literal.len() <= 16
                    && literal
                        .bytes()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-');
                if name_like && answers(literal, UNKNOWN) != none {
                    assert!(
                        NAMES.contains(&literal),
                        "{literal} is in a list, not in NAMES"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 80, "{checked}");
    }

    #[test]
    fn a_name_off_the_table_is_what_every_list_says_of_none() {
        // Every name a list holds is on the table: off it, each list answers
        // as for a name it has never heard of.
        let none = answers("no-such-element", UNKNOWN);
        for name in ["x-y", "blink", "marquee", "custom-tag", "h7", "DIV"] {
            assert_eq!(*of(name), none, "{name}");
        }
    }
}
