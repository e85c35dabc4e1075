//! What an element's tag, role and class/id names suggest about its text.
//!
//! These are weights for the extractor, not rules: a `comment` class is
//! boilerplate on a news article and the content on a forum; the plateau
//! decides. The innermost hint wins, with one exception: inside an element
//! that is boilerplate by its tag or role (`footer`, `aside`, `nav`), a class
//! name (WordPress's `widget_text`, an author box's `entry-author-info`) does
//! not make text content again; only a tag, role or `itemprop` does. Names are split into tokens at every non-alphanumeric character
//! and at lower→upper case changes (`articleBody` → `article`, `body`).
//! Short words match whole tokens only (`ad` must not match `header`);
//! longer ones also match inside a token (`sitefooter`).

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::{Anchored, MatchKind};
use std::sync::LazyLock;

/// Hints found on one element.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Hints {
    /// Navigation, footers, share bars, cookie notices, ads, related links...
    pub boiler: bool,
    /// `article`, `main`, `itemprop=articleBody`, `class="post-content"`...
    pub good: bool,
    /// Text only screen readers get (`sr-only`, `visually-hidden`): not visible.
    pub invisible: bool,
    /// The hint comes from the tag, an ARIA role or `itemprop`, not from a
    /// class or id name.
    pub strong: bool,
    /// A picture's caption or credit by its class (`wp-caption-text`,
    /// `news-img-caption`, `credit`): what `figcaption` is by its tag.
    pub caption: bool,
    /// A class name's own reading, folded into `caption` by `hints_cached`
    /// (which always leaves it false): a caption class that names a picture
    /// too (`media-caption`) is a caption on any element, not only on one
    /// that holds a line of text.
    picture_caption: bool,
}

const BOILER_TAGS: &[&str] = &["nav", "footer", "aside", "header", "menu"];
const GOOD_TAGS: &[&str] = &["article", "main"];
const BOILER_ROLES: &[&str] = &[
    "navigation",
    "banner",
    "contentinfo",
    "complementary",
    "search",
    "menu",
    "menubar",
    "dialog",
    "alert",
    "toolbar",
];
const GOOD_ROLES: &[&str] = &["main", "article"];

/// Whole-token boilerplate words.
const BOILER_TOKENS: &[&str] = &[
    "nav",
    "navbar",
    "menu",
    "menus",
    "ad",
    "ads",
    "adv",
    "advert",
    "adverts",
    "banner",
    "tags",
    "share",
    "social",
    "related",
    "cookie",
    "cookies",
    "footer",
    "header",
    "sidebar",
    "breadcrumb",
    "breadcrumbs",
    "promo",
    "sponsor",
    "sponsored",
    "newsletter",
    "subscribe",
    "signup",
    "popup",
    "modal",
    "comment",
    "comments",
    "pagination",
    "pager",
    "toolbar",
    "skip",
    "masthead",
    "topbar",
    "copyright",
    "disclaimer",
    "byline",
    "author",
    "meta",
    "dateline",
    "consent",
    "gdpr",
    "recommended",
    "recirculation",
    "outbrain",
    "taboola",
    "rail",
    "aside",
    "login",
    "account",
    "cart",
    "search",
    "filter",
    "filters",
    "sort",
    "cta",
];
/// Boilerplate words also matched inside a token (long enough to be unambiguous).
const BOILER_SUBSTRINGS: &[&str] = &[
    "navigation",
    "navbar",
    "sidebar",
    "footer",
    "breadcrumb",
    "cookie",
    "newsletter",
    "subscribe",
    "pagination",
    "advert",
    "sponsor",
    "social",
    "sharing",
    "related",
    "recommend",
    "masthead",
    "comment",
    "promo",
];
/// Whole-token content words.
const GOOD_TOKENS: &[&str] = &[
    "content",
    "article",
    "post",
    "entry",
    "story",
    "body",
    "text",
    "main",
    "prose",
    "markdown",
    "richtext",
    "rte",
    "blog",
    "maincontent",
    "articlebody",
    "postbody",
    "entrycontent",
    "storybody",
    "description",
    "answer",
    "question",
    "topic",
    "message",
    "review",
];
/// Caption and credit words, whole tokens (`wp-caption-text`,
/// `news-img-caption`, `credit`; not `wp-featherlight-captions` on a body).
const CAPTION_TOKENS: &[&str] = &[
    "caption",
    "credit",
    "credits",
    "fotocredit",
    "photocredit",
    "imagecredit",
];
/// Caption words count on elements that hold a line of text, not on the
/// containers a caption class also names (ZDF's `item-caption` holds a
/// video's whole description), unless the same class name says it is a
/// picture's (`media-caption`, `responsive-img-caption`, `post-image-credits`).
const CAPTION_TAGS: &[&str] = &["p", "span", "small", "em", "i", "cite", "figcaption"];
/// Words that make a caption class a picture's, whole tokens.
const PICTURE_TOKENS: &[&str] = &[
    "img", "image", "media", "photo", "foto", "bild", "picture", "pic",
];
/// Whole class words that hide text from everyone but screen readers.
const INVISIBLE_WORDS: &[&str] = &[
    "sr-only",
    "visually-hidden",
    "visuallyhidden",
    "screen-reader-text",
    "screenreader",
    "a11y-hidden",
    "offscreen",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pattern {
    BoilerToken,
    BoilerSubstring,
    GoodToken,
    Invisible,
    CaptionToken,
    PictureToken,
}

/// All class/id patterns in one automaton: one pass over an element's
/// class and id finds every word, whatever the number of class names
/// (utility-class CSS puts dozens on each element).
///
/// Walked byte by byte through the DFA's own transitions (`Automaton`)
/// rather than by `find_overlapping_iter`: a name is a few dozen bytes with
/// a match or two, and the iterator's set-up and resumption around each
/// match cost more than the walk itself (a third of the names a page uses
/// are new to it, and each is walked once).
struct Matcher {
    dfa: DFA,
    start: StateID,
    kinds: Vec<Pattern>,
}

static MATCHER: LazyLock<Matcher> = LazyLock::new(|| {
    let mut patterns = Vec::new();
    let mut kinds = Vec::new();
    for (list, kind) in [
        (BOILER_TOKENS, Pattern::BoilerToken),
        (BOILER_SUBSTRINGS, Pattern::BoilerSubstring),
        (GOOD_TOKENS, Pattern::GoodToken),
        (INVISIBLE_WORDS, Pattern::Invisible),
        (CAPTION_TOKENS, Pattern::CaptionToken),
        (PICTURE_TOKENS, Pattern::PictureToken),
    ] {
        for p in list {
            patterns.push(*p);
            kinds.push(kind);
        }
    }
    // Matched on the name as written: no lower-cased copy of each new name
    // (the patterns are lower-case ASCII, and ASCII case folding keeps every
    // byte where it is, so the matches are the same). No prefilter: the walk
    // below visits every byte anyway, and with one a return to the start
    // state would be a special state to stop at.
    let dfa = DFA::builder()
        .match_kind(MatchKind::Standard)
        .ascii_case_insensitive(true)
        .prefilter(false)
        .build(&patterns)
        .expect("static patterns build");
    let start = dfa
        .start_state(Anchored::No)
        .expect("an unanchored start state");
    Matcher { dfa, start, kinds }
});

impl Matcher {
    /// Every occurrence of every pattern in `name`, overlapping ones too, by
    /// ascending end (at one end, in the DFA's order), as `(start, end,
    /// kind)` — what `find_overlapping_iter` reports.
    #[inline]
    fn each(&self, name: &[u8], mut found: impl FnMut(usize, usize, Pattern)) {
        let mut sid = self.start;
        for (at, &b) in name.iter().enumerate() {
            sid = self.dfa.next_state(Anchored::No, sid, b);
            // Without a prefilter the only special states of an unanchored
            // standard DFA are its match states (it has no dead end).
            if self.dfa.is_special(sid) && self.dfa.is_match(sid) {
                for i in 0..self.dfa.match_len(sid) {
                    let p = self.dfa.match_pattern(sid, i);
                    let end = at + 1;
                    found(end - self.dfa.pattern_len(p), end, self.kinds[p.as_usize()]);
                }
            }
        }
    }
}

/// Hints of an element from its (lower-case) tag name and attributes.
///
/// Semantic signals (the tag, an ARIA role, `itemprop`) outrank class and id
/// names; a class/id that says both "content" and "boilerplate" (WordPress
/// writes `post` and `tag-news` on one `<article>`) says neither.
pub fn hints(
    tag: &str,
    class: Option<&str>,
    id: Option<&str>,
    role: Option<&str>,
    itemprop: Option<&str>,
) -> Hints {
    hints_cached(
        tag_hints(tag),
        class.map(Name::new),
        id.map(Name::new),
        role,
        itemprop,
        &mut NameCache(Default::default()),
    )
}

/// What class and id names say, remembered per page: pages repeat the same
/// class strings on hundreds of elements, and matching them was ~8 % of the
/// pipeline. Bounded: past `NAME_CACHE_MAX` distinct names it starts over.
///
/// Keyed by a 64-bit hash of the name, not the name: no copy of each new
/// name, no comparison of long utility-class strings on every hit. Two names
/// of one page sharing a hash (about 4096² / 2⁶⁵ ≈ 5·10⁻¹³ for a full cache)
/// would share their hints; a page can give itself any hints by its class
/// names anyway.
pub struct NameCache(rustc_hash::FxHashMap<u64, Hints>);

impl Default for NameCache {
    /// Room for a typical page's names at once: growing from empty rehashed
    /// the table seven or eight times a page.
    fn default() -> Self {
        NameCache(rustc_hash::FxHashMap::with_capacity_and_hasher(
            NAME_CACHE_START,
            Default::default(),
        ))
    }
}

const NAME_CACHE_START: usize = 256;

const NAME_CACHE_MAX: usize = 4096;

/// A class or id value with its key in `NameCache`, made once: the tree's
/// path hash reads the class's key too (`analyse::state`).
#[derive(Debug, Clone, Copy)]
pub struct Name<'a> {
    pub text: &'a str,
    pub key: u64,
}

impl<'a> Name<'a> {
    pub fn new(text: &'a str) -> Self {
        Name {
            text,
            key: std::hash::BuildHasher::hash_one(&rustc_hash::FxBuildHasher, text),
        }
    }
}

impl NameCache {
    fn get(&mut self, name: Name) -> Hints {
        let key = name.key;
        if let Some(&h) = self.0.get(&key) {
            return h;
        }
        let h = name_hints(name.text);
        if self.0.len() >= NAME_CACHE_MAX {
            self.0.clear();
        }
        self.0.insert(key, h);
        h
    }
}

/// What a tag alone says of the text inside it: asked once per name
/// (`elements`), not once per element.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TagHints {
    /// `nav`, `footer`, `aside`, `header`, `menu`.
    pub boiler: bool,
    /// `article`, `main`.
    pub good: bool,
    /// Elements that hold a caption's line when their class names one.
    pub caption: bool,
}

/// The hints of a lower-case tag name.
pub fn tag_hints(tag: &str) -> TagHints {
    TagHints {
        boiler: BOILER_TAGS.contains(&tag),
        good: GOOD_TAGS.contains(&tag),
        caption: CAPTION_TAGS.contains(&tag),
    }
}

/// `hints`, with the tag's own hints read already and class and id names
/// looked up in `cache` first.
pub fn hints_cached(
    tag: TagHints,
    class: Option<Name>,
    id: Option<Name>,
    role: Option<&str>,
    itemprop: Option<&str>,
    cache: &mut NameCache,
) -> Hints {
    let mut strong_boiler = tag.boiler;
    let mut strong_good = tag.good;
    if let Some(role) = role {
        let role = role.trim();
        strong_boiler |= BOILER_ROLES.iter().any(|r| r.eq_ignore_ascii_case(role));
        strong_good |= GOOD_ROLES.iter().any(|r| r.eq_ignore_ascii_case(role));
    }
    if let Some(prop) = itemprop {
        let prop = prop.to_ascii_lowercase();
        strong_good |=
            prop.contains("articlebody") || prop == "text" || prop.contains("reviewbody");
    }
    let (mut boiler, mut good, mut invisible, mut caption) = (false, false, false, false);
    for name in [class, id].into_iter().flatten() {
        let h = cache.get(name);
        boiler |= h.boiler;
        good |= h.good;
        invisible |= h.invisible;
        caption |= h.picture_caption || (h.caption && tag.caption);
    }
    let (boiler, good) = if strong_good {
        (false, true)
    } else if strong_boiler {
        (true, false)
    } else if boiler && good {
        (false, false)
    } else {
        (boiler, good)
    };
    Hints {
        boiler,
        good,
        invisible,
        strong: strong_good || strong_boiler,
        caption,
        picture_caption: false,
    }
}

/// The words one class or id value holds.
///
/// Within one class name a boilerplate word outranks a content word: a
/// compound names a part of its first word's component (`author-box--content`,
/// `comment-content`, `teaser__excerpt`), while two class names on one element
/// (`post tag-news`) still cancel each other out in `hints_cached`. Not
/// `header`: an `article-header` holds the headline and the lead paragraph.
fn name_hints(name: &str) -> Hints {
    let mut h = Hints::default();
    let original = name.as_bytes();
    // Matches come by ascending end; the cursor counts whitespace-separated
    // class names up to each match's last byte, once over the whole value.
    let (mut cursor, mut word, mut in_space) = (0usize, 0usize, false);
    let (mut current, mut boiler, mut header, mut good) = (0usize, false, false, false);
    let (mut caption, mut picture) = (false, false);
    let flush = |h: &mut Hints, boiler: bool, header: bool, good: bool| {
        h.boiler |= boiler || header;
        h.good |= good && !boiler;
    };
    MATCHER.each(original, |start, end, kind| {
        while cursor < end {
            let space = original[cursor].is_ascii_whitespace();
            if in_space && !space {
                word += 1;
            }
            in_space = space;
            cursor += 1;
        }
        if word != current {
            flush(&mut h, boiler, header, good);
            h.picture_caption |= caption && picture;
            (current, boiler, header, good) = (word, false, false, false);
            (caption, picture) = (false, false);
        }
        match kind {
            Pattern::BoilerSubstring => boiler = true,
            Pattern::BoilerToken if is_token(original, start, end) => {
                if original[start..end].eq_ignore_ascii_case(b"header") {
                    header = true
                } else {
                    boiler = true
                }
            }
            Pattern::GoodToken if is_token(original, start, end) => good = true,
            Pattern::Invisible if is_word(original, start, end) => h.invisible = true,
            Pattern::CaptionToken if is_token(original, start, end) => {
                (h.caption, caption) = (true, true)
            }
            Pattern::PictureToken if is_token(original, start, end) => picture = true,
            _ => {}
        }
    });
    flush(&mut h, boiler, header, good);
    h.picture_caption |= caption && picture;
    h
}

/// Whether `s[start..end]` is a whole token: bounded by a non-alphanumeric
/// character, the string's ends, or a lower→upper case change (`articleBody`).
fn is_token(s: &[u8], start: usize, end: usize) -> bool {
    let boundary = |i: usize| {
        if i == 0 || i == s.len() {
            return true;
        }
        let (before, after) = (s[i - 1], s[i]);
        !before.is_ascii_alphanumeric()
            || !after.is_ascii_alphanumeric()
            || (after.is_ascii_uppercase()
                && (before.is_ascii_lowercase() || before.is_ascii_digit()))
    };
    boundary(start) && boundary(end)
}

/// Whether `s[start..end]` is a whole whitespace-separated word.
fn is_word(s: &[u8], start: usize, end: usize) -> bool {
    (start == 0 || s[start - 1].is_ascii_whitespace())
        && (end == s.len() || s[end].is_ascii_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_patterns_are_lower_case_ascii() {
        // The automaton folds ASCII case instead of lower-casing each name:
        // the same matches only while every pattern is lower-case ASCII.
        for p in BOILER_TOKENS
            .iter()
            .chain(BOILER_SUBSTRINGS)
            .chain(GOOD_TOKENS)
            .chain(INVISIBLE_WORDS)
            .chain(BOILER_ROLES)
            .chain(GOOD_ROLES)
        {
            assert!(
                p.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()),
                "{p}"
            );
        }
        let h = hints(
            "div",
            Some("Site-NAVIGATION menuBar"),
            None,
            Some(" Navigation "),
            None,
        );
        assert!(h.boiler && !h.good, "{h:?}");
    }

    #[test]
    fn tokens_and_hints() {
        let word = b"articleBody-post_content__Main x";
        assert!(is_token(word, 0, 7) && is_token(word, 7, 11) && is_token(word, 12, 16));
        assert!(is_token(word, 26, 30) && !is_token(word, 0, 4));
        assert!(is_word(word, 31, 32) && !is_word(word, 0, 7));
        assert!(hints("div", Some("site-footer"), None, None, None).boiler);
        assert!(!hints("div", Some("header-image shadow"), None, None, None).good);
        assert!(
            !hints("div", Some("thread-read"), None, None, None).boiler,
            "`ad` inside a word is not an ad"
        );
        assert!(hints("div", Some("ad-slot"), None, None, None).boiler);
        assert!(hints("div", None, Some("articleBody"), None, None).good);
        assert!(hints("nav", None, None, None, None).boiler);
        assert!(hints("div", None, None, Some("Navigation"), None).boiler);
        assert!(hints("div", None, None, None, Some("articleBody")).good);
        assert!(hints("span", Some("sr-only"), None, None, None).invisible);
        // Semantic tags outrank classes; a class saying both says neither.
        let wp = hints(
            "article",
            Some("post-12 post type-post tag-news category-world"),
            None,
            None,
            None,
        );
        assert!(wp.good && !wp.boiler);
        assert!(hints("footer", Some("entry-content-footer"), None, None, None).boiler);
        // Within one class name the boilerplate word wins: a compound names
        // a part of a component; across class names they still cancel out.
        for name in ["post-comments", "author-box--content", "comment-content"] {
            let h = hints("div", Some(name), None, None, None);
            assert!(h.boiler && !h.good, "{name}");
        }
        let apart = hints("div", Some("entry-content author"), None, None, None);
        assert!(!apart.good && !apart.boiler);
        // An article's header holds its headline and lead: it says neither.
        let head = hints("div", Some("article-header"), None, None, None);
        assert!(!head.good && !head.boiler);
        assert!(hints("div", Some("site-header"), None, None, None).boiler);
        assert!(
            !hints(
                "div",
                Some("elementor-widget elementor-widget-text-editor"),
                None,
                None,
                None
            )
            .boiler
        );
    }

    #[test]
    fn the_walk_finds_what_the_iterator_finds() {
        // The reference: the same patterns, searched by the crate's own
        // overlapping iterator (how the names were read before the walk).
        let patterns: Vec<&str> = [
            BOILER_TOKENS,
            BOILER_SUBSTRINGS,
            GOOD_TOKENS,
            INVISIBLE_WORDS,
            CAPTION_TOKENS,
            PICTURE_TOKENS,
        ]
        .concat();
        let reference = aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(&patterns)
            .unwrap();
        // Names made of the patterns themselves, their pieces, separators,
        // case changes and bytes past ASCII, so that matches overlap, nest,
        // end together and straddle class names.
        let mut pieces: Vec<String> = patterns.iter().map(|p| p.to_string()).collect();
        pieces.extend(patterns.iter().map(|p| p[..p.len() / 2].to_string()));
        pieces.extend(
            patterns
                .iter()
                .map(|p| p[p.len() / 2..].to_ascii_uppercase()),
        );
        for sep in [" ", "-", "_", "__", "  ", "\t", "é", "1", "Ad", ""] {
            pieces.push(sep.to_string());
        }
        let mut next = crate::fingerprints::xorshift(0x2545_F491_4F6C_DD1D);
        let mut walked = Vec::new();
        for round in 0..30_000 {
            let n = 1 + next() % 8;
            let name: String = (0..n)
                .map(|_| pieces[(next() % pieces.len() as u64) as usize].as_str())
                .collect();
            walked.clear();
            MATCHER.each(name.as_bytes(), |start, end, kind| {
                walked.push((start, end, kind))
            });
            let expected: Vec<_> = reference
                .find_overlapping_iter(&name)
                .map(|m| (m.start(), m.end(), MATCHER.kinds[m.pattern().as_usize()]))
                .collect();
            assert!(walked == expected, "round {round}: {name:?}");
        }
    }

    #[test]
    fn captions_by_class() {
        let caption = |tag: &str, class: &str| hints(tag, Some(class), None, None, None).caption;
        // A line of text named a caption or a credit.
        assert!(caption("p", "wp-caption-text"));
        assert!(caption("p", "news-img-caption"));
        assert!(caption("p", "credit"));
        // A container named a caption holds more than a picture's line...
        assert!(!caption("div", "item-caption"));
        // ...unless the same name says it is a picture's.
        assert!(caption("div", "media-caption"));
        assert!(caption("div", "post-image-credits"));
        assert!(!caption("div", "media-body caption"));
        // Whole tokens only: a body's `wp-featherlight-captions` is a plugin's.
        assert!(!caption("body", "single wp-featherlight-captions"));
        assert!(!caption("span", "captions"));
    }
}
