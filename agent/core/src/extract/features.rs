//! What the learned scorer sees of each paragraph: one row of numbers per
//! block, from the one-pass analysis, in one linear pass.
//!
//! A row holds the block's own measurements (words, link words, the tag
//! context its text sits in, punctuation, position), the same few numbers for
//! its neighbours (content comes in runs, boilerplate too), the plateau's
//! choice (the unsupervised prior), and a few page-level numbers (a listing
//! page is made of short linked blocks; an article of long unlinked ones).
//! `NAMES` is the contract with `bench/train_extractor.py` and the model file:
//! a model trained on other features is refused at load.

use crate::analyse::{
    Analysis, IN_BOILER, IN_CAPTION, IN_CELL, IN_CODE, IN_CONTENT, IN_EMPH, IN_FORM, IN_GOOD,
    IN_H1, IN_HEADING, IN_ITEM, IN_LINK, IN_META, IN_P, IN_QUOTE, IN_UI,
};

/// The flags whose share of a block's words is a feature, with their names.
const FLAG_SHARES: [(u16, &str); 15] = [
    (IN_LINK, "link"),
    (IN_BOILER, "boiler"),
    (IN_GOOD, "good"),
    (IN_UI, "ui"),
    (IN_HEADING, "heading"),
    (IN_H1, "h1"),
    (IN_ITEM, "item"),
    (IN_P, "p"),
    (IN_CODE, "code"),
    (IN_CELL, "cell"),
    (IN_QUOTE, "quote"),
    (IN_FORM, "form"),
    (IN_CAPTION, "caption"),
    (IN_META, "meta"),
    (IN_EMPH, "emph"),
];

/// The block's own measurements after the flag shares, in row order.
const OWN_NAMES: [&str; 16] = [
    "words",
    "chars",
    "segments",
    "tags_before",
    "links_per_word",
    "punct_per_word",
    "sentence_ends",
    "ends_with_stop",
    "starts_upper",
    "digit_share",
    "upper_share",
    "word_length",
    "depth",
    "position",
    "words_before",
    "plateau",
];

/// Per-block measurements that neighbours also report.
const NEIGHBOUR: [&str; 6] = [
    "words",
    "link",
    "boiler",
    "heading",
    "plateau",
    "depth_delta",
];

/// Offsets of the neighbours whose measurements a row carries.
const OFFSETS: [isize; 6] = [-3, -2, -1, 1, 2, 3];

/// The ±5-block window and the block's run of same-depth blocks.
const WINDOW: [&str; 6] = [
    "win5_words",
    "win5_link",
    "win5_plateau",
    "win5_mean_words",
    "same_depth_run",
    "content_flag",
];

/// Page totals, the same in every row of a page.
const PAGE: [&str; 6] = [
    "page_words",
    "page_link",
    "page_good",
    "page_blocks",
    "page_plateau_share",
    "page_item",
];

/// The block's template: every block on the page whose first text sits at
/// the same element path (names and classes, see `Block::path`). A listing's
/// cards are one template of linked but wordy blocks; a menu's entries one of
/// short linked ones; an article's paragraphs one of long unlinked ones.
/// Then where the block sits against the first `h1` (the content follows
/// it), and whether its text is a copy: a menu drawn twice (desktop and
/// mobile), a product's name in the gallery and the cart bar, a forum post
/// quoted in full by the replies. A bag-of-words truth counts the content
/// once, so a second copy is boilerplate even when the first is not.
const TEMPLATE: [&str; 9] = [
    "tpl_blocks",
    "tpl_mean_words",
    "tpl_link",
    "tpl_plateau",
    "tpl_page_share",
    "tpl_spread",
    "h1_offset",
    "text_repeat",
    "text_copies",
];

/// What a row says about each enclosing region.
const REGION: [&str; 7] = [
    "words", "link", "boiler", "plateau", "blocks", "item", "heading",
];

/// Enclosing regions: the longest run of blocks around this one that sit at
/// least `depth - level` deep — roughly its parent's, grandparent's... text.
const LEVELS: [u32; 3] = [0, 1, 3];

const SHARES: usize = FLAG_SHARES.len();
/// Where a row holds the block's own word count, as `ln(1 + words)`: the
/// model's expected-F1 cut weighs blocks by their words.
pub const WORDS: usize = SHARES;
const OWN: usize = SHARES + OWN_NAMES.len();

/// Number of features in a row.
pub const N: usize = OWN
    + NEIGHBOUR.len() * OFFSETS.len()
    + WINDOW.len()
    + PAGE.len()
    + REGION.len() * LEVELS.len()
    + TEMPLATE.len();

/// Feature names, in row order (the model file lists them; they must agree).
pub fn names() -> Vec<String> {
    let mut v: Vec<String> = FLAG_SHARES
        .iter()
        .map(|(_, s)| format!("share_{s}"))
        .collect();
    v.extend(OWN_NAMES.map(String::from));
    for o in OFFSETS {
        v.extend(NEIGHBOUR.map(|n| format!("n{o:+}_{n}")));
    }
    v.extend(WINDOW.map(String::from));
    v.extend(PAGE.map(String::from));
    for l in LEVELS {
        v.extend(REGION.map(|r| format!("up{l}_{r}")));
    }
    v.extend(TEMPLATE.map(String::from));
    debug_assert_eq!(v.len(), N);
    v
}

/// Raw per-block sums, before they become ratios.
#[derive(Default, Clone, Copy)]
struct Sums {
    words: u32,
    segments: u32,
    links: u32,
    tags_before: u32,
    flag_words: [u32; SHARES],
    any_content: bool,
}

/// Where each block sits among the page's blocks, for the model's second
/// stage (`extract::context`), which reads the first stage's probabilities
/// of a block's neighbours, template and regions: its word count, its
/// template (the blocks of its element path, numbered in order of first
/// appearance) and its regions (see `LEVELS`); and what kind of page the
/// blocks are on.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Layout {
    pub words: Vec<u32>,
    pub template: Vec<u32>,
    pub regions: Vec<[(usize, usize); LEVELS.len()]>,
    /// The page-type classifier's probability of each of `KINDS`
    /// (`extract::pagetype`). WCXB's annotators keep different things on
    /// different kinds of page — a product's "Notify me" line, a listing's
    /// card titles — so the second stage reads it.
    pub kind: Kind,
}

/// The kinds of page, in the order of `Kind` (WCXB's seven types).
pub const KINDS: [&str; 7] = [
    "article",
    "collection",
    "documentation",
    "forum",
    "listing",
    "product",
    "service",
];

/// A probability per kind of page, in the order of `KINDS`.
pub type Kind = [f32; KINDS.len()];

/// The levels of `Layout::regions` (names of the second stage's features).
pub const REGION_LEVELS: [u32; LEVELS.len()] = LEVELS;

/// One row of `N` features per block of `analysis`. `plateau[b]` says whether
/// the plateau chose block `b`.
pub fn rows(analysis: &Analysis, plateau: &[bool]) -> Vec<[f32; N]> {
    rows_of(analysis, plateau, |_| true)
}

/// `rows` and the page's `Layout`.
pub fn rows_and_layout(analysis: &Analysis, plateau: &[bool]) -> (Vec<[f32; N]>, Layout) {
    page(analysis, plateau, |_| true)
}

/// The rows of the blocks `wanted` says, in block order. The page's sums
/// are made over every block (a row reads its neighbours and regions), but
/// a block's own text is read only for its row.
pub fn rows_of(
    analysis: &Analysis,
    plateau: &[bool],
    wanted: impl Fn(usize) -> bool,
) -> Vec<[f32; N]> {
    page(analysis, plateau, wanted).0
}

fn page(
    analysis: &Analysis,
    plateau: &[bool],
    wanted: impl Fn(usize) -> bool,
) -> (Vec<[f32; N]>, Layout) {
    let sums = block_sums(analysis);
    let blocks = &analysis.blocks;
    let total_words: u32 = sums.iter().map(|s| s.words).sum();
    let templates = templates(analysis, &sums, plateau, total_words);
    let around = Around {
        page: page_view(&sums, plateau, total_words),
        view: neighbour_views(analysis, &sums, plateau),
        run: depth_runs(analysis),
        window: window_sums(&sums, plateau),
        region: region_sums(&sums, plateau),
        bounds: regions(blocks),
        templates,
        total_words,
    };
    let mut out = Vec::new();
    let mut words_before = 0u32;
    for (b, s) in sums.iter().enumerate() {
        if wanted(b) {
            out.push(around.row(analysis, &sums, plateau, b, words_before));
        }
        words_before += s.words;
    }
    let layout = Layout {
        words: sums.iter().map(|s| s.words).collect(),
        template: around.templates.number,
        regions: around.bounds,
        kind: Kind::default(),
    };
    (out, layout)
}

/// Each block's sums over its segments: words, links, the words under each
/// flag of `FLAG_SHARES`.
fn block_sums(analysis: &Analysis) -> Vec<Sums> {
    let mut sums = vec![Sums::default(); analysis.blocks.len()];
    for seg in &analysis.segments {
        let Some(s) = sums.get_mut(seg.block as usize) else {
            continue;
        };
        if s.segments == 0 {
            s.tags_before = seg.tags_before;
        }
        s.segments += 1;
        s.words += seg.words;
        s.links += seg.links_before;
        s.any_content |= seg.flags & IN_CONTENT != 0;
        for (k, &(f, _)) in FLAG_SHARES.iter().enumerate() {
            if seg.flags & f != 0 {
                s.flag_words[k] += seg.words.max(1);
            }
        }
    }
    sums
}

/// The share of a block's words under flag `k` of `FLAG_SHARES`.
fn share(s: &Sums, k: usize) -> f32 {
    s.flag_words[k] as f32 / s.words.max(1) as f32
}

/// The `PAGE` features: the same for every block of the page.
fn page_view(sums: &[Sums], plateau: &[bool], total_words: u32) -> [f32; 6] {
    let nb = sums.len();
    let of_page = |k: usize| {
        sums.iter().map(|s| s.flag_words[k]).sum::<u32>() as f32 / total_words.max(1) as f32
    };
    let plateau_words: u32 = (0..nb).filter(|&b| plateau[b]).map(|b| sums[b].words).sum();
    [
        ln(total_words as f32),
        of_page(0),
        of_page(2),
        ln(nb as f32),
        plateau_words as f32 / total_words.max(1) as f32,
        of_page(6),
    ]
}

/// The neighbour view of every block, computed once (what `OFFSETS` copy).
fn neighbour_views(analysis: &Analysis, sums: &[Sums], plateau: &[bool]) -> Vec<[f32; 6]> {
    let blocks = &analysis.blocks;
    (0..sums.len())
        .map(|b| {
            let s = &sums[b];
            let prev_depth = if b > 0 { blocks[b - 1].depth } else { 0 };
            [
                ln(s.words as f32),
                share(s, 0),
                share(s, 1),
                share(s, 4),
                plateau[b] as u8 as f32,
                (blocks[b].depth as f32 - prev_depth as f32).clamp(-8.0, 8.0),
            ]
        })
        .collect()
}

/// Per block, the length of its run of consecutive blocks at one depth
/// (siblings, roughly: list items, a container's paragraphs).
fn depth_runs(analysis: &Analysis) -> Vec<u32> {
    let blocks = &analysis.blocks;
    let nb = blocks.len();
    let mut run = vec![0u32; nb];
    let mut start = 0;
    for b in 1..=nb {
        if b == nb || blocks[b].depth != blocks[start].depth {
            run[start..b]
                .iter_mut()
                .for_each(|r| *r = (b - start) as u32);
            start = b;
        }
    }
    run
}

/// Prefix sums for the ±5 window: words, link words, plateau blocks.
fn window_sums(sums: &[Sums], plateau: &[bool]) -> Vec<[f32; 3]> {
    let mut pre = vec![[0f32; 3]; sums.len() + 1];
    for (b, s) in sums.iter().enumerate() {
        pre[b + 1] = [
            pre[b][0] + s.words as f32,
            pre[b][1] + s.flag_words[0] as f32,
            pre[b][2] + plateau[b] as u8 as f32,
        ];
    }
    pre
}

/// Prefix sums for the regions: words, link, boiler, plateau words, item
/// words, heading blocks.
fn region_sums(sums: &[Sums], plateau: &[bool]) -> Vec<[f32; 6]> {
    let mut pre = vec![[0f32; 6]; sums.len() + 1];
    for (b, s) in sums.iter().enumerate() {
        pre[b + 1] = pre[b];
        let add = [
            s.words as f32,
            s.flag_words[0] as f32,
            s.flag_words[1] as f32,
            if plateau[b] { s.words as f32 } else { 0.0 },
            s.flag_words[6] as f32,
            (s.flag_words[4] > 0) as u8 as f32,
        ];
        for (acc, v) in pre[b + 1].iter_mut().zip(add) {
            *acc += v;
        }
    }
    pre
}

/// What a block's row reads besides the block itself, computed once a page.
struct Around {
    page: [f32; 6],
    view: Vec<[f32; 6]>,
    run: Vec<u32>,
    window: Vec<[f32; 3]>,
    region: Vec<[f32; 6]>,
    bounds: Vec<[(usize, usize); LEVELS.len()]>,
    templates: Templates,
    total_words: u32,
}

impl Around {
    /// Block `b`'s row: its shares and own features, its neighbours, the
    /// window around it, the page, its regions and its template.
    fn row(
        &self,
        analysis: &Analysis,
        sums: &[Sums],
        plateau: &[bool],
        b: usize,
        words_before: u32,
    ) -> [f32; N] {
        let nb = sums.len();
        let s = &sums[b];
        let block = &analysis.blocks[b];
        let text = analysis.slice(block.start, block.end);
        let t = text_stats(text);
        let mut row = [0f32; N];
        for (k, v) in row.iter_mut().take(SHARES).enumerate() {
            *v = share(s, k);
        }
        let w = s.words.max(1) as f32;
        let own = [
            ln(s.words as f32),
            ln(text.len() as f32),
            ln(s.segments as f32),
            ln(s.tags_before as f32),
            s.links as f32 / w,
            t.punct as f32 / w,
            ln(t.sentence_ends as f32),
            t.ends_with_stop as u8 as f32,
            t.starts_upper as u8 as f32,
            t.digits as f32 / t.chars.max(1) as f32,
            t.upper as f32 / t.letters.max(1) as f32,
            t.letters as f32 / w,
            block.depth as f32,
            b as f32 / nb as f32,
            words_before as f32 / self.total_words.max(1) as f32,
            plateau[b] as u8 as f32,
        ];
        row[SHARES..OWN].copy_from_slice(&own);
        let mut i = OWN;
        for o in OFFSETS {
            let j = b as isize + o;
            if j >= 0 && (j as usize) < nb {
                row[i..i + 6].copy_from_slice(&self.view[j as usize]);
            } else {
                row[i..i + 6].copy_from_slice(&[-1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
            }
            i += 6;
        }
        let pre = &self.window;
        let (lo, hi) = (b.saturating_sub(5), (b + 6).min(nb));
        let wwords = pre[hi][0] - pre[lo][0];
        row[i] = ln(wwords);
        row[i + 1] = (pre[hi][1] - pre[lo][1]) / wwords.max(1.0);
        row[i + 2] = (pre[hi][2] - pre[lo][2]) / (hi - lo) as f32;
        row[i + 3] = ln(wwords / (hi - lo) as f32);
        row[i + 4] = ln(self.run[b] as f32);
        row[i + 5] = s.any_content as u8 as f32;
        i += WINDOW.len();
        row[i..i + PAGE.len()].copy_from_slice(&self.page);
        i += PAGE.len();
        for &(lo, hi) in &self.bounds[b] {
            let d = |k: usize| self.region[hi][k] - self.region[lo][k];
            let words = d(0).max(1.0);
            let n = (hi - lo) as f32;
            let stats = [
                ln(d(0)),
                d(1) / words,
                d(2) / words,
                d(3) / words,
                ln(n),
                d(4) / words,
                d(5) / n,
            ];
            row[i..i + REGION.len()].copy_from_slice(&stats);
            i += REGION.len();
        }
        row[i..i + TEMPLATE.len()].copy_from_slice(&self.templates.row(b));
        row
    }
}

/// The blocks of each element path (a template), and which blocks repeat
/// an earlier block's text: what a block's `TEMPLATE` features read. Made
/// over every block in one pass; a row is made only for a block that gets
/// one (`row`), so `pruned` pays for the plateau's blocks alone.
struct Templates {
    /// Per template, in order of first appearance.
    groups: Vec<Group>,
    /// Per block, its template's number (`Layout::template`).
    number: Vec<u32>,
    /// Per block, the first block with its text.
    first: Vec<usize>,
    /// Per first block, the blocks with its text.
    copies: Vec<u32>,
    /// The first block with `h1` text.
    h1: Option<usize>,
    blocks: usize,
    total_words: u32,
}

#[derive(Default)]
struct Group {
    blocks: u32,
    words: u32,
    link: u32,
    plateau: u32,
    first: usize,
    last: usize,
}

/// Sums over the blocks of each path in one pass (a hash map keyed by
/// path), and the copies in another (keyed by the text itself, borrowed,
/// so each byte of text is hashed once).
fn templates(analysis: &Analysis, sums: &[Sums], plateau: &[bool], total_words: u32) -> Templates {
    let blocks = &analysis.blocks;
    let nb = blocks.len();
    let mut first_of: rustc_hash::FxHashMap<&str, usize> = Default::default();
    let mut first = Vec::with_capacity(nb);
    let mut copies = vec![0u32; nb];
    for (b, block) in blocks.iter().enumerate() {
        let text = analysis.slice(block.start, block.end).trim();
        let f = *first_of.entry(text).or_insert(b);
        first.push(f);
        copies[f] += 1;
    }
    let mut index_of: rustc_hash::FxHashMap<u32, u32> = Default::default();
    let mut groups: Vec<Group> = Vec::new();
    let mut number = Vec::with_capacity(nb);
    for (b, block) in blocks.iter().enumerate() {
        let s = &sums[b];
        let index = *index_of.entry(block.path).or_insert_with(|| {
            groups.push(Group {
                first: b,
                ..Default::default()
            });
            groups.len() as u32 - 1
        });
        number.push(index);
        let g = &mut groups[index as usize];
        g.blocks += 1;
        g.words += s.words;
        g.link += s.flag_words[0];
        g.plateau += if plateau[b] { s.words } else { 0 };
        g.last = b;
    }
    Templates {
        groups,
        number,
        first,
        copies,
        // Flag share 5 is `IN_H1`.
        h1: sums.iter().position(|s| s.flag_words[5] > 0),
        blocks: nb,
        total_words,
    }
}

impl Templates {
    /// Block `b`'s `TEMPLATE` features.
    fn row(&self, b: usize) -> [f32; TEMPLATE.len()] {
        let g = &self.groups[self.number[b] as usize];
        let span = self.blocks.max(1) as f32;
        let words = g.words.max(1) as f32;
        [
            ln(g.blocks as f32),
            ln(g.words as f32 / g.blocks as f32),
            g.link as f32 / words,
            g.plateau as f32 / words,
            g.words as f32 / self.total_words.max(1) as f32,
            (g.last - g.first) as f32 / span,
            self.h1.map_or(2.0, |h| (b as f32 - h as f32) / span),
            (self.first[b] != b) as u8 as f32,
            ln(self.copies[self.first[b]] as f32 - 1.0),
        ]
    }
}

/// For every block and level, the half-open range of blocks `[lo, hi)` of its
/// region (see `LEVELS`). The blocks shallower than each block to its left
/// form a stack of strictly increasing depth (the previous-smaller chain);
/// a binary search in it finds where a region ends: O(n log depth).
fn regions(blocks: &[crate::analyse::Block]) -> Vec<[(usize, usize); LEVELS.len()]> {
    let nb = blocks.len();
    let mut out = vec![[(0usize, nb); LEVELS.len()]; nb];
    let mut stack: Vec<usize> = Vec::new();
    for b in 0..nb {
        let d = blocks[b].depth;
        while stack.last().is_some_and(|&j| blocks[j].depth >= d) {
            stack.pop();
        }
        for (l, &level) in LEVELS.iter().enumerate() {
            let t = d.saturating_sub(level);
            // The last stacked block with depth < t bounds the region.
            let k = stack.partition_point(|&j| blocks[j].depth < t);
            out[b][l].0 = if k == 0 { 0 } else { stack[k - 1] + 1 };
        }
        stack.push(b);
    }
    stack.clear();
    for b in (0..nb).rev() {
        let d = blocks[b].depth;
        while stack.last().is_some_and(|&j| blocks[j].depth >= d) {
            stack.pop();
        }
        for (l, &level) in LEVELS.iter().enumerate() {
            let t = d.saturating_sub(level);
            let k = stack.partition_point(|&j| blocks[j].depth < t);
            out[b][l].1 = if k == 0 { nb } else { stack[k - 1] };
        }
        stack.push(b);
    }
    out
}

fn ln(x: f32) -> f32 {
    (1.0 + x.max(0.0)).ln()
}

#[derive(Default)]
struct TextStats {
    chars: u32,
    letters: u32,
    upper: u32,
    digits: u32,
    punct: u32,
    sentence_ends: u32,
    ends_with_stop: bool,
    starts_upper: bool,
}

fn text_stats(text: &str) -> TextStats {
    let mut t = TextStats::default();
    let mut first = true;
    let mut last = ' ';
    for c in text.chars() {
        t.chars += 1;
        if crate::letters::is_alphabetic(c) {
            t.letters += 1;
            if c.is_uppercase() {
                t.upper += 1;
            }
            if first {
                t.starts_upper = c.is_uppercase();
            }
            first = false;
        } else if c.is_ascii_digit() {
            t.digits += 1;
            first = false;
        } else if matches!(c, '.' | ',' | ';' | ':' | '!' | '?' | '。' | '、' | '，') {
            t.punct += 1;
            if matches!(c, '.' | '!' | '?' | '。') {
                t.sentence_ends += 1;
            }
        }
        if !c.is_whitespace() {
            last = c;
        }
    }
    t.ends_with_stop = matches!(last, '.' | '!' | '?' | '。' | ':' | '"' | '”' | ')');
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::{analyse, Block};

    #[test]
    fn the_items_of_one_template_share_a_path() {
        let card = |i: usize| {
            format!("<li class=card><a href=/p{i}>Product {i}</a><p>A short line about product {i}.</p></li>")
        };
        let cards: String = (0..5).map(card).collect();
        let html = format!(
            "<body><ul class=menu><li><a href=/a>Home</a></li><li><a href=/b>Shop</a></li></ul>\
             <h1>Bottles</h1><ul class=grid>{cards}</ul></body>"
        );
        let a = analyse(&html, None).unwrap();
        let path = |text: &str| {
            a.blocks
                .iter()
                .find(|b| a.slice(b.start, b.end) == text)
                .unwrap()
                .path
        };
        assert_eq!(path("Product 0"), path("Product 4"));
        assert_eq!(
            path("A short line about product 1."),
            path("A short line about product 3.")
        );
        assert_ne!(path("Product 0"), path("A short line about product 0."));
        assert_eq!(path("Home"), path("Shop"));
        assert_ne!(
            path("Home"),
            path("Product 0"),
            "another class, another template"
        );
        let plateau = vec![false; a.blocks.len()];
        let rows = rows(&a, &plateau);
        let names = names();
        let col = |n: &str| names.iter().position(|x| x == n).unwrap();
        let b = a
            .blocks
            .iter()
            .position(|b| a.slice(b.start, b.end) == "Product 2")
            .unwrap();
        assert_eq!(rows[b][col("tpl_blocks")], (1.0f32 + 5.0).ln());
        assert_eq!(rows[b][col("tpl_link")], 1.0);
        let h1 = a
            .blocks
            .iter()
            .position(|b| a.slice(b.start, b.end) == "Bottles")
            .unwrap();
        assert!(rows[h1 - 1][col("h1_offset")] < 0.0 && rows[b][col("h1_offset")] > 0.0);
    }

    #[test]
    fn a_second_copy_of_a_text_is_marked() {
        let html = "<body><ul class=desktop><li><a href=/a>Shop all bottles</a></li></ul>\
                    <p>The only paragraph of its kind.</p>\
                    <ul class=mobile><li><a href=/a>Shop all bottles</a></li></ul></body>";
        let a = analyse(html, None).unwrap();
        let rows = rows(&a, &vec![false; a.blocks.len()]);
        let names = names();
        let col = |n: &str| names.iter().position(|x| x == n).unwrap();
        let at = |text: &str| -> Vec<usize> {
            (0..a.blocks.len())
                .filter(|&b| a.slice(a.blocks[b].start, a.blocks[b].end) == text)
                .collect()
        };
        let (menu, para) = (
            at("Shop all bottles"),
            at("The only paragraph of its kind."),
        );
        assert_eq!(menu.len(), 2);
        let repeat: Vec<f32> = menu.iter().map(|&b| rows[b][col("text_repeat")]).collect();
        assert_eq!(repeat, [0.0, 1.0], "the first copy is not a repeat");
        for b in menu {
            assert_eq!(rows[b][col("text_copies")], 2f32.ln());
        }
        assert_eq!(rows[para[0]][col("text_repeat")], 0.0);
        assert_eq!(rows[para[0]][col("text_copies")], 0.0);
    }

    #[test]
    fn regions_match_the_quadratic_definition() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for n in 1..80 {
            let blocks: Vec<Block> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    Block {
                        start: 0,
                        end: 0,
                        depth: (x % 9) as u32,
                        role: Default::default(),
                        row: false,
                        path: 0,
                    }
                })
                .collect();
            let got = regions(&blocks);
            for b in 0..n {
                for (l, &level) in LEVELS.iter().enumerate() {
                    let t = blocks[b].depth.saturating_sub(level);
                    let mut lo = b;
                    while lo > 0 && blocks[lo - 1].depth >= t {
                        lo -= 1;
                    }
                    let mut hi = b + 1;
                    while hi < n && blocks[hi].depth >= t {
                        hi += 1;
                    }
                    assert_eq!(got[b][l], (lo, hi), "block {b} level {level}");
                }
            }
        }
    }

    #[test]
    fn one_row_per_block_named_as_the_model_expects() {
        let a = crate::analyse::analyse(
            "<body><nav><a href=/>Home</a></nav><p>One two three. Four five.</p><p>Six</p></body>",
            None,
        )
        .unwrap();
        let rows = rows(&a, &vec![true; a.blocks.len()]);
        assert_eq!(rows.len(), a.blocks.len());
        assert_eq!(names().len(), N);
        let words = names().iter().position(|n| n == "words").unwrap();
        assert!(rows[1][words] > rows[2][words]);
        assert!(rows.iter().flatten().all(|v| v.is_finite()));
    }
}
