//! Choosing the main content from the one-pass analysis.
//!
//! The backbone is Finn's tag plateau (BTE, `plateau.rs`): the span of the
//! page where words are dense and tags sparse. Three known weaknesses of the
//! plain plateau are fixed here, in linear time over the text segments:
//!
//! - **Weights instead of counts.** A segment scores its words, discounted
//!   inside links, boosted under content hints (`article`, `main`,
//!   `post-content`...), and negative under boilerplate hints (navigation,
//!   footers, share bars... see `analyse::hints`) or in form controls; each
//!   tag between segments costs one. Hints are weights, never rules.
//! - **More than one block.** After the best span, the best spans to its left
//!   and right are found the same way, recursively; those scoring at least a
//!   fraction of the best are content too (a product page's description and
//!   its specification table, a forum's posts).
//! - **Boilerplate islands.** Inside the chosen spans, boilerplate-hinted
//!   text and form controls are left out, and so are short blocks made
//!   mostly of link text (a "related posts" list inside an article).

use serde::Deserialize;
pub mod blocks;
pub mod build;
pub mod closing;
pub mod context;
pub mod dates;
pub mod declared;
pub mod extractor;
pub mod features;
pub mod markdown;
pub mod metadata;
pub mod model;
pub mod pagetype;
pub mod plateau;
pub mod trees;

use crate::analyse::{
    Analysis, Segment, IN_BOILER, IN_CAPTION, IN_CONTENT, IN_GOOD, IN_H1, IN_LINK, IN_UI,
};
use model::Model;

/// `[extract]`: how the main content is chosen.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractSettings {
    pub scorer: ScorerKind,
    /// With `scorer = "auto"` or `"pruned"`: the share of a page's words under which the
    /// plateau's choice is handed to the learned scorer.
    pub learned_below: f64,
}

/// How the main content is chosen (see `extract`).
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ScorerKind {
    /// The learned block scorer of `extractor.json`.
    Learned,
    /// The weighted tag plateau alone (no model).
    Plateau,
    /// The plateau, and the learned scorer where the plateau keeps less
    /// than `extract.learned_below` of the page's words.
    Auto,
    /// As `Auto`, and elsewhere the plateau's choice pruned by the model:
    /// the blocks of it the model calls boilerplate are left out.
    Pruned,
}

impl ExtractSettings {
    pub(crate) fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            (0.0..=1.0).contains(&self.learned_below),
            "configuration: key `extract.learned_below`: must be in [0, 1] (a share of the page's words)"
        );
        Ok(())
    }
}

/// How the content is chosen (`extract.scorer`).
#[derive(Debug)]
pub enum Scorer {
    /// Blocks the learned model keeps.
    Learned(Box<Model>),
    /// The weighted plateau alone.
    Plateau,
    /// The weighted plateau, and the learned model on a page where the
    /// plateau keeps less than `below` of the page's words: a listing, a
    /// product grid or a forum, where one dense run of text is not the
    /// content. Articles, most of a crawl, pay nothing for the model. With
    /// `prune`, they pay for the model on the plateau's blocks, and the
    /// blocks of its choice the model calls boilerplate are left out.
    Auto {
        model: Box<Model>,
        below: f32,
        prune: bool,
    },
}

/// The page's main content: paragraphs as byte ranges into `Analysis::text`.
#[derive(Debug, Default, Clone)]
pub struct Content {
    pub paragraphs: Vec<(u32, u32)>,
    /// Words of the content.
    pub words: u32,
    /// `<a href>` elements inside the content.
    pub links: u32,
    /// A description the page declares and its visible text lacks
    /// (`declared`): the content's last paragraph.
    pub declared: Option<String>,
}

impl Content {
    /// The paragraphs' text.
    pub fn paragraphs<'a>(&'a self, analysis: &'a Analysis) -> impl Iterator<Item = &'a str> + 'a {
        self.paragraphs
            .iter()
            .map(|&(s, e)| analysis.slice(s, e))
            .chain(self.declared.as_deref())
    }

    /// The content as one text, paragraphs separated by `\n`.
    pub fn text(&self, analysis: &Analysis) -> String {
        let mut out = String::new();
        for (i, p) in self.paragraphs(analysis).enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(p);
        }
        out
    }
}

/// The weights of the extractor.
#[derive(Debug, Clone, Copy)]
pub struct Weights {
    /// A word inside a link counts this much.
    pub link: f32,
    /// A word under a content hint counts this much.
    pub good: f32,
    /// A word under a boilerplate hint counts minus this much.
    pub boiler: f32,
    /// A word in a form control counts minus this much.
    pub ui: f32,
    /// A tag between two segments costs this much.
    pub tag: f32,
    /// Further spans are content when they score at least this fraction of the best.
    pub keep_fraction: f32,
    /// ... and at least this much.
    pub keep_min: f32,
    /// Blocks whose link words are more than this fraction of their words...
    pub block_link_density: f32,
    /// ... and that have fewer words than this are left out.
    pub block_link_words: u32,
    /// Leave out `h1` text (the page title is not part of the content).
    pub drop_h1: bool,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            link: 0.25,
            good: 2.0,
            boiler: 0.5,
            ui: 1.0,
            tag: 1.0,
            keep_fraction: 0.15,
            keep_min: 5.0,
            block_link_density: 0.7,
            block_link_words: 30,
            drop_h1: false,
        }
    }
}

/// The content of a page: with a content-tag rule that matched, the text
/// inside the selected element(s); otherwise the blocks the scorer keeps.
/// A product description the page declares in JSON-LD and its visible text
/// lacks comes last (`declared`). `kind` says what kind of page it is,
/// when a learned second stage asks (see `PageKind`).
pub fn content(
    analysis: &Analysis,
    scorer: &Scorer,
    closing: &closing::Headings,
    kind: &PageKind,
) -> Content {
    let mut content = chosen(analysis, scorer, closing, kind);
    if let Some(d) = declared::product_description(&analysis.json_ld) {
        if declared::missing_from(&d, &content.text(analysis)) {
            content.words += d.split_whitespace().count() as u32;
            content.declared = Some(d);
        }
    }
    content
}

/// What kind of page it is, for the learned scorer's second stage: the
/// page-type classifier's probabilities. Asked only when the second stage
/// runs (a page `pruned` keeps the plateau's choice for needs none), since
/// it costs the page's metadata and a plateau choice of its own.
pub type PageKind<'a> = dyn Fn() -> features::Kind + 'a;

/// Blocks a page may have for the learned model to read them; a page with
/// more gets the plateau's choice. The model costs about 2.6 µs a block
/// (its features and two stages of trees), so a 2 MB page of 250,000
/// one-word paragraphs took 650 ms, 27 times a page of real paragraphs of
/// the same size. Real pages stay far under the bound: of 3,851 pages
/// (`../shared/data/extraction`, `warc` and the small throughput pages),
/// the median has 214 blocks, the largest 6,594.
const MODEL_MAX_BLOCKS: usize = 20_000;

/// The blocks `scorer` keeps.
fn chosen(
    analysis: &Analysis,
    scorer: &Scorer,
    closing: &closing::Headings,
    kind: &PageKind,
) -> Content {
    if analysis.segments.len() > MODEL_MAX_BLOCKS {
        return plateau_content(analysis, &Weights::default(), closing);
    }
    match scorer {
        Scorer::Plateau => plateau_content(analysis, &Weights::default(), closing),
        Scorer::Learned(_) if analysis.content_tag == Some(true) => content_tag(analysis),
        Scorer::Learned(model) => {
            let chosen = plateau_choice(analysis, &Weights::default());
            learned(analysis, &chosen, model, closing, kind)
        }
        Scorer::Auto { .. } if analysis.content_tag == Some(true) => content_tag(analysis),
        Scorer::Auto {
            model,
            below,
            prune,
        } => {
            let chosen = plateau_choice(analysis, &Weights::default());
            let mut cut = chosen.clone();
            closing::cut(closing, analysis, &mut cut);
            let words: u32 = cut.iter().map(|&i| analysis.segments[i].words).sum();
            if (words as f32) < below * analysis.words as f32 {
                learned(analysis, &chosen, model, closing, kind)
            } else if *prune {
                pruned(analysis, &chosen, cut, model)
            } else {
                collect(analysis, &cut)
            }
        }
    }
}

/// The weighted plateau alone, with explicit weights (no learned scorer).
/// The shipped closing headings.
pub fn content_with(analysis: &Analysis, w: &Weights) -> Content {
    plateau_content(analysis, w, closing::Headings::shipped())
}

fn plateau_content(analysis: &Analysis, w: &Weights, closing: &closing::Headings) -> Content {
    if analysis.content_tag == Some(true) {
        return content_tag(analysis);
    }
    let mut chosen = plateau_choice(analysis, w);
    closing::cut(closing, analysis, &mut chosen);
    collect(analysis, &chosen)
}

fn content_tag(analysis: &Analysis) -> Content {
    let segments = &analysis.segments;
    let chosen: Vec<usize> = (0..segments.len())
        .filter(|&i| segments[i].flags & IN_CONTENT != 0)
        .collect();
    collect(analysis, &chosen)
}

/// For each block, whether the weighted plateau chose any of its text.
fn plateau_blocks(analysis: &Analysis, chosen: &[usize]) -> Vec<bool> {
    let mut by_block = vec![false; analysis.blocks.len()];
    for &i in chosen {
        if let Some(b) = by_block.get_mut(analysis.segments[i].block as usize) {
            *b = true;
        }
    }
    by_block
}

/// The feature rows of a page's blocks and the page's layout (what
/// `bench/train_extractor.py` learns from).
pub fn block_rows(analysis: &Analysis) -> (Vec<[f32; features::N]>, features::Layout) {
    let chosen = plateau_choice(analysis, &Weights::default());
    features::rows_and_layout(analysis, &plateau_blocks(analysis, &chosen))
}

/// The blocks the model calls content; form controls inside them are left out.
fn learned(
    analysis: &Analysis,
    chosen: &[usize],
    model: &Model,
    closing: &closing::Headings,
    kind: &PageKind,
) -> Content {
    let (rows, mut layout) = features::rows_and_layout(analysis, &plateau_blocks(analysis, chosen));
    if model.stacked() {
        layout.kind = kind();
    }
    let keep = model.decide_all(&rows, &layout);
    let segments = &analysis.segments;
    let mut picked: Vec<usize> = (0..segments.len())
        .filter(|&i| {
            let s = &segments[i];
            s.flags & (IN_UI | IN_CAPTION) == 0
                && keep.get(s.block as usize).copied().unwrap_or(false)
        })
        .collect();
    closing::cut(closing, analysis, &mut picked);
    collect(analysis, &picked)
}

/// The plateau's segments `cut` (its choice `chosen` after the closing
/// headings) whose blocks the model keeps at its prune cut; the plateau's
/// choice unpruned where the model file has no prune cut.
fn pruned(analysis: &Analysis, chosen: &[usize], mut cut: Vec<usize>, model: &Model) -> Content {
    let among = plateau_blocks(analysis, chosen);
    let rows = features::rows_of(analysis, &among, |b| among[b]);
    if let Some(keep) = model.prune(&rows, &among) {
        let segments = &analysis.segments;
        cut.retain(|&i| {
            keep.get(segments[i].block as usize)
                .copied()
                .unwrap_or(false)
        });
    }
    collect(analysis, &cut)
}

/// The segments the weighted plateau chooses.
fn plateau_choice(analysis: &Analysis, w: &Weights) -> Vec<usize> {
    let segments = &analysis.segments;
    let score = |i: usize| segment_score(&segments[i], w);
    let cost = |i: usize| segments[i].tags_before as f32 * w.tag;
    let Some(best) = plateau::best_span(0, segments.len(), score, cost) else {
        return Vec::new();
    };
    let mut spans = vec![(best.0, best.1)];
    let threshold = (best.2 * w.keep_fraction).max(w.keep_min);
    let mut todo = vec![(0, best.0), (best.1 + 1, segments.len())];
    while let Some((lo, hi)) = todo.pop() {
        if lo >= hi {
            continue;
        }
        if let Some((a, b, s)) = plateau::best_span(lo, hi, score, cost) {
            if s >= threshold {
                spans.push((a, b));
                todo.push((lo, a));
                todo.push((b + 1, hi));
            }
        }
    }
    spans.sort_unstable();
    let mut chosen = Vec::new();
    let mut next_free = 0;
    for (mut a, mut b) in spans {
        // Paragraphs are atomic: a span that starts or ends inside one takes all of it.
        while a > next_free && segments[a - 1].block == segments[a].block {
            a -= 1;
        }
        while b + 1 < segments.len() && segments[b + 1].block == segments[b].block {
            b += 1;
        }
        a = a.max(next_free);
        next_free = b + 1;
        for (i, seg) in segments.iter().enumerate().take(b + 1).skip(a) {
            let f = seg.flags;
            if f & (IN_UI | IN_CAPTION) != 0 || is_boiler(f) || (w.drop_h1 && f & IN_H1 != 0) {
                continue;
            }
            chosen.push(i);
        }
    }
    drop_link_blocks(segments, &mut chosen, w);
    chosen
}

fn segment_score(seg: &Segment, w: &Weights) -> f32 {
    let words = seg.words as f32;
    let f = seg.flags;
    if f & IN_UI != 0 {
        return -words * w.ui;
    }
    if is_boiler(f) {
        return -words * w.boiler;
    }
    let mut s = if f & IN_LINK != 0 {
        words * w.link
    } else {
        words
    };
    if is_good(f) {
        s *= w.good;
    }
    s
}

/// The innermost hint decides: boilerplate inside an article is boilerplate,
/// an article inside a page-builder "widget" is content.
fn is_boiler(f: u16) -> bool {
    f & IN_BOILER != 0
}

fn is_good(f: u16) -> bool {
    f & IN_GOOD != 0
}

/// Leaves out short blocks made mostly of link text.
fn drop_link_blocks(segments: &[Segment], chosen: &mut Vec<usize>, w: &Weights) {
    blocks::retain(segments, chosen, |b| {
        !(b.words < w.block_link_words
            && b.link_words as f32 > w.block_link_density * b.words as f32)
    });
}

/// Groups the chosen segments (in order) into paragraphs (consecutive
/// chosen segments of one block).
fn collect(analysis: &Analysis, chosen: &[usize]) -> Content {
    let segments = &analysis.segments;
    let mut content = Content::default();
    let mut current: Option<(u32, u32, u32)> = None; // (block, start, end)
    let mut prev: Option<usize> = None;
    for &i in chosen {
        let seg = &segments[i];
        content.words += seg.words;
        // Links are counted at their first text: `links_before` of a segment
        // that follows another chosen one lies inside the content.
        content.links += if prev == Some(i.wrapping_sub(1)) {
            seg.links_before
        } else if seg.flags & IN_LINK != 0 {
            seg.links_before.min(1)
        } else {
            0
        };
        prev = Some(i);
        match &mut current {
            Some((block, _, end)) if *block == seg.block => *end = seg.end,
            _ => {
                if let Some((_, s, e)) = current.take() {
                    content.paragraphs.push((s, e));
                }
                current = Some((seg.block, seg.start, seg.end));
            }
        }
    }
    if let Some((_, s, e)) = current {
        content.paragraphs.push((s, e));
    }
    content
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::analyse;

    fn text(html: &str) -> Vec<String> {
        let a = analyse(html, None).unwrap();
        content_with(&a, &Weights::default())
            .paragraphs(&a)
            .map(str::to_string)
            .collect()
    }

    const P1: &str = "The first paragraph of the article has a good number of words in it, and they run on for a while.";
    const P2: &str = "The second paragraph keeps going for a while too, with more words that belong to the story itself.";

    #[test]
    fn article_between_navigation_and_footer() {
        let html = format!(
            r#"<html><body>
          <ul class=nav><li><a href=/>Home</a></li><li><a href=/a>About</a></li><li><a href=/b>Blog</a></li></ul>
          <div class=article><h1>A title</h1><h2>A section heading</h2>
          <p>{P1}</p><p>{P2} With <a href="/ref">one link</a>.</p></div>
          <div class=footer><a href=/t>Terms</a> | <a href=/p>Privacy</a> | <a href=/c>Contact</a></div>
          </body></html>"#
        );
        let a = analyse(&html, None).unwrap();
        let c = content_with(&a, &Weights::default());
        let paras: Vec<_> = c.paragraphs(&a).collect();
        assert_eq!(
            paras,
            vec![
                "A title",
                "A section heading",
                P1,
                &format!("{P2} With one link.")
            ]
        );
        assert_eq!(c.links, 1);
    }

    #[test]
    fn a_pictures_caption_is_left_out_a_table_in_a_figure_is_not() {
        let html = format!(
            "<body><article><p>{P1}</p>\
             <figure><img src=a.jpg><figcaption>The old bridge at dawn. Photo: Jane Doe/Agency</figcaption></figure>\
             <p>{P2}</p><figure class=wp-block-table><table><tr><td>River level on Monday</td>\
             <td>three metres</td></tr></table></figure></article></body>"
        );
        let got = text(&html).join(" | ");
        assert!(!got.contains("Photo"), "{got}");
        assert!(
            got.contains(P1) && got.contains(P2) && got.contains("three metres"),
            "{got}"
        );
    }

    #[test]
    fn an_articles_own_header_keeps_its_lead_the_pages_banner_does_not() {
        // A `header` is the page's banner only outside `article`, `main` and
        // `section` (HTML-AAM); inside, it holds the headline and the lead.
        let lead = "Ministers agreed on Tuesday to close the border crossings for two more weeks, \
                    as cases rose again in three of the four regions along the river.";
        let html = format!(
            "<body><header><p>Daily Courier, the town's paper since 1901, all the news that fits \
             and a little more besides, every morning</p></header>\
             <article><header><h1>Borders stay shut</h1><p class=lead>{lead}</p></header>\
             <p>{P1}</p><p>{P2}</p></article></body>"
        );
        let got = text(&html).join(" | ");
        assert!(got.contains(lead) && got.contains(P1), "{got}");
        assert!(!got.contains("Daily Courier"), "{got}");
    }

    #[test]
    fn a_caption_named_by_its_class_is_left_out() {
        // WordPress's `wp-caption` and news sites' credit lines: no
        // `figcaption`, only a class says what the line is.
        let html = format!(
            "<body><article><p>{P1}</p>\
             <div class=wp-caption><img src=a.jpg><p class=wp-caption-text>The harbour at noon.</p>\
             <p class=credit>Bild: Jahr Media</p></div>\
             <div class=media-caption><span>Photo: Agency/Someone Else</span></div>\
             <p>{P2}</p></article></body>"
        );
        let got = text(&html).join(" | ");
        assert!(
            !got.contains("harbour") && !got.contains("Jahr Media") && !got.contains("Agency"),
            "{got}"
        );
        assert!(got.contains(P1) && got.contains(P2), "{got}");
    }

    #[test]
    fn two_content_blocks_separated_by_boilerplate() {
        let para = |n: usize| {
            format!(
                "<p>{}</p>",
                (0..40)
                    .map(|i| format!("w{n}x{i}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        };
        let share: String = (0..12)
            .map(|i| format!("<li><a href=/s{i}>Share {i}</a></li>"))
            .collect();
        let html = format!(
            "<body><div class=post-content>{}{}</div><ul class=share-bar>{share}</ul><div class=post-content>{}{}</div></body>",
            para(1),
            para(2),
            para(3),
            para(4)
        );
        let got = text(&html);
        assert_eq!(got.len(), 4, "{got:?}");
        assert!(got.iter().all(|p| !p.contains("Share")));
    }

    #[test]
    fn a_text_widget_in_the_footer_stays_boilerplate() {
        // WordPress's `widget_text` says "text", a content word; inside a
        // `footer` it is still the footer. Only a tag or role (`article`,
        // `main`) makes text inside boilerplate content again.
        let para = |i: &str| {
            format!(
                "<p>Paragraph {i} of the report explains, in plain sentences, how the council \
                 measured the river's level every morning, why the readings changed after the \
                 storm, and what the engineers decided.</p>"
            )
        };
        let about = "<p>About us: the Example Gazette has covered the valley since 1921, with a \
             newsroom of twelve reporters and editors who write about the council, the schools, \
             the farms and the river, and who answer every letter our readers send.</p>";
        let html = format!(
            "<html><body><main><article><h1>The bridge report</h1>{}{}{}</article></main>\
             <footer><div class=\"widget widget_text\"><div class=textwidget>{about}</div></div>\
             </footer></body></html>",
            para("one"),
            para("two"),
            para("three")
        );
        let got = text(&html).join("\n");
        assert!(got.contains("Paragraph three"), "{got}");
        assert!(!got.contains("About us"), "{got}");
        // An article inside an `aside` is content all the same.
        let html = format!(
            "<html><body><aside><article>{}{}</article></aside><nav><a href=/>Home</a></nav>\
             </body></html>",
            para("one"),
            para("two")
        );
        assert!(text(&html).join("\n").contains("Paragraph two"));
    }

    #[test]
    fn the_learned_scorer_keeps_the_article_and_leaves_the_chrome() {
        let para = |i: usize| {
            format!(
                "<p>Paragraph {i} of the report explains, in plain sentences, how the council \
                 measured the river's level every morning, why the readings changed after the \
                 storm, and what the engineers decided to do about the old stone bridge.</p>"
            )
        };
        let menu: String = (0..15)
            .map(|i| format!("<li><a href=/s{i}>Section {i}</a></li>"))
            .collect();
        let related: String = (0..8)
            .map(|i| format!("<li><a href=/r{i}>Another story about topic {i}</a></li>"))
            .collect();
        let html = format!(
            "<html><body><header><ul class=menu>{menu}</ul></header><main><article>\
             <h1>The bridge report</h1>{}</article><aside><h3>Related</h3><ul>{related}</ul></aside>\
             </main><footer><p>Copyright 2026 The Example Gazette. All rights reserved.</p>\
             <a href=/privacy>Privacy</a> <a href=/terms>Terms</a></footer></body></html>",
            (0..6).map(para).collect::<String>()
        );
        let a = analyse(&html, None).unwrap();
        let text = scored(&a, crate::settings::ScorerKind::Learned, 0.0);
        for i in 0..6 {
            assert!(
                text.contains(&format!("Paragraph {i} of the report")),
                "{text}"
            );
        }
        for chrome in ["Section 3", "Another story", "Copyright", "Privacy"] {
            assert!(!text.contains(chrome), "{chrome} kept: {text}");
        }
        // "auto" hands a page to the model only where the plateau keeps
        // less than `learned_below` of its words: here it keeps most.
        use crate::settings::ScorerKind::{Auto, Plateau, Pruned};
        let plateau = scored(&a, Plateau, 0.0);
        assert!(plateau.split_whitespace().count() * 2 > a.words as usize);
        assert_eq!(scored(&a, Auto, 0.1), plateau);
        assert_eq!(scored(&a, Auto, 0.0), plateau);
        assert_eq!(scored(&a, Auto, 1.0), text);
        // "pruned" keeps what the plateau keeps, less what the model calls
        // boilerplate; where the plateau keeps little, the model alone.
        let pruned = scored(&a, Pruned, 0.1);
        for i in 0..6 {
            assert!(pruned.contains(&format!("Paragraph {i} of the report")));
        }
        let kept: Vec<&str> = plateau.lines().collect();
        assert!(pruned.lines().all(|l| kept.contains(&l)), "{pruned}");
        assert_eq!(scored(&a, Pruned, 1.0), text);
    }

    /// The content text `kind` chooses, with `extract.learned_below` at `below`.
    fn scored(a: &Analysis, kind: crate::settings::ScorerKind, below: f64) -> String {
        let mut settings = crate::settings::Settings::defaults();
        settings.extract.scorer = kind;
        settings.extract.learned_below = below;
        let scorer = build::scorer(&settings.extract, None).unwrap();
        content(a, &scorer, closing::Headings::shipped(), &|| {
            Default::default()
        })
        .text(a)
    }

    #[test]
    fn a_page_of_more_blocks_than_the_model_reads_gets_the_plateaus_choice() {
        use crate::settings::ScorerKind::{Auto, Learned, Plateau, Pruned};
        // One-word paragraphs: the plateau keeps too few of the words for
        // `pruned` and `auto`, which hand such a page to the model.
        let page = |blocks: usize| format!("<html><body>{}", "<p>word ".repeat(blocks));
        let over = analyse(&page(MODEL_MAX_BLOCKS + 1), None).unwrap();
        assert!(over.segments.len() > MODEL_MAX_BLOCKS);
        let plateau = scored(&over, Plateau, 0.1);
        for kind in [Pruned, Auto, Learned] {
            assert_eq!(scored(&over, kind, 0.1), plateau, "{kind:?}");
        }
        // Under the bound the model reads the same kind of page, and
        // chooses otherwise than the plateau.
        let under = analyse(&page(2_000), None).unwrap();
        assert!(under.segments.len() <= MODEL_MAX_BLOCKS);
        assert_ne!(scored(&under, Pruned, 0.1), scored(&under, Plateau, 0.1));
    }

    #[test]
    fn form_controls_are_never_content() {
        let countries: String = (0..200)
            .map(|i| format!("<option>Country number {i}</option>"))
            .collect();
        let html = format!("<body><p>{P1}</p><p>{P2}</p><select>{countries}</select></body>");
        let got = text(&html);
        assert_eq!(got, vec![P1, P2]);
    }
}
