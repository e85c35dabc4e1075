//! What kind of page it is — article, forum, product, listing, collection,
//! documentation or service (WCXB's seven types) — with a confidence.
//!
//! Gradient-boosted trees over page-level features: how the page's words are
//! spread over links, list items, cells, code, headings and forms; what its
//! JSON-LD and Open Graph types say; words in its URL path; prices and reply
//! cues in its text. Trained by `bench/train_pagetype.py` (scikit-learn at
//! training time only), shipped as `rules/pagetype.json`, applied here with
//! one tree walk per type and iteration and a softmax: microseconds, once a
//! page. Trees replaced a logistic regression (format 1, still read) as
//! 3.8 points more accurate in cross-validation.

use super::features::{Kind, KINDS};
use super::metadata::Metadata;
use super::trees::{check, Tree};
use super::Content;
use crate::analyse::{
    Analysis, Role, IN_CELL, IN_CODE, IN_FORM, IN_HEADING, IN_ITEM, IN_LINK, IN_META, IN_P,
    IN_QUOTE, IN_UI,
};
use serde::Deserialize;

/// The shipped model.
const SHIPPED: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../rules/pagetype.json"
));

/// Feature names, in row order (the model file names them; a mismatch is a load error).
pub const NAMES: &[&str] = &[
    "log_words",
    "log_content_words",
    "content_share",
    "log_links",
    "link_share",
    "log_blocks",
    "log_tags_per_word",
    "item_share",
    "cell_share",
    "code_share",
    "heading_share",
    "form_share",
    "ui_share",
    "quote_share",
    "p_share",
    "meta_share",
    "log_headings",
    "log_items",
    "log_cells",
    "log_pre",
    "log_paragraphs",
    "mean_paragraph_words",
    "content_item_share",
    "content_link_share",
    "ld_article",
    "ld_product",
    "ld_forum",
    "ld_list",
    "ld_faq",
    "ld_tech",
    "ld_service",
    "og_article",
    "og_product",
    "url_product",
    "url_collection",
    "url_forum",
    "url_docs",
    "url_article",
    "url_service",
    "url_date",
    "url_depth",
    "url_query",
    "url_root",
    "log_prices",
    "cart",
    "log_reply_cues",
    "has_date",
    "has_author",
];

/// A page type and the model's probability for it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PageType {
    #[serde(rename = "page_type")]
    pub name: String,
    #[serde(rename = "page_type_confidence")]
    pub confidence: f64,
}

/// A model file: format 2 holds gradient-boosted trees (what
/// `bench/train_pagetype.py` ships), format 1 a logistic regression (what it
/// shipped before; a `rules_dir` may still hold one).
#[derive(Debug, Deserialize)]
struct File {
    format: u32,
    features: Vec<String>,
    classes: Vec<String>,
    // Format 1: standardisation, one weight row and intercept per type.
    mean: Option<Vec<f32>>,
    scale: Option<Vec<f32>>,
    coef: Option<Vec<Vec<f32>>>,
    intercept: Option<Vec<f32>>,
    // Format 2: a raw score per type before the trees, then per boosting
    // iteration one tree per type (scikit-learn's multiclass layout).
    bias: Option<Vec<f32>>,
    trees: Option<Vec<Vec<Tree>>>,
    /// The raw scores are divided by this before the softmax: boosted trees
    /// are overconfident, and the divisor that makes the out-of-fold
    /// probabilities honest is fitted at training.
    #[serde(default)]
    temperature: Option<f32>,
}

/// The page-type classifier: a raw score per type, then a softmax.
#[derive(Debug)]
pub struct Model {
    classes: Vec<String>,
    scores: Scores,
}

#[derive(Debug)]
enum Scores {
    Linear {
        mean: Vec<f32>,
        scale: Vec<f32>,
        coef: Vec<Vec<f32>>,
        intercept: Vec<f32>,
    },
    Trees {
        bias: Vec<f32>,
        trees: Vec<Vec<Tree>>,
        temperature: f32,
    },
}

/// A page-type model file this build cannot use.
#[derive(Debug, thiserror::Error)]
pub enum PageTypeError {
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("page-type model trained on other features")]
    Features,
    #[error("page-type model: table sizes do not match")]
    Sizes,
    #[error("page-type model format 1 needs mean, scale, coef, intercept")]
    Linear,
    #[error("page-type model format 2 needs bias and trees")]
    Trees,
    #[error("page-type model: tree {0}: {1}")]
    Tree(usize, &'static str),
    #[error("page-type model: temperature must be a positive number")]
    Temperature,
    #[error("page-type model format {0} (this build reads 1 and 2)")]
    Format(u32),
}

impl Model {
    /// The model shipped in `rules/pagetype.json`.
    pub fn shipped() -> Model {
        Model::parse(SHIPPED).expect("the shipped page-type model is valid (a test checks it)")
    }

    /// Parses and checks a model file.
    pub fn parse(json: &str) -> Result<Model, PageTypeError> {
        let f: File = serde_json::from_str(json)?;
        if f.features != NAMES {
            return Err(PageTypeError::Features);
        }
        let (n, k) = (NAMES.len(), f.classes.len());
        let sizes = || PageTypeError::Sizes;
        if k == 0 {
            return Err(sizes());
        }
        let scores = match f.format {
            1 => {
                let (Some(mean), Some(scale), Some(coef), Some(intercept)) =
                    (f.mean, f.scale, f.coef, f.intercept)
                else {
                    return Err(PageTypeError::Linear);
                };
                let ok = mean.len() == n
                    && scale.len() == n
                    && coef.len() == k
                    && intercept.len() == k
                    && coef.iter().all(|r| r.len() == n);
                if !ok {
                    return Err(sizes());
                }
                Scores::Linear {
                    mean,
                    scale,
                    coef,
                    intercept,
                }
            }
            2 => {
                let (Some(bias), Some(trees)) = (f.bias, f.trees) else {
                    return Err(PageTypeError::Trees);
                };
                if bias.len() != k || trees.iter().any(|per_type| per_type.len() != k) {
                    return Err(sizes());
                }
                for (i, t) in trees.iter().flatten().enumerate() {
                    check(t, n, MAX_DEPTH).map_err(|why| PageTypeError::Tree(i, why))?;
                }
                let temperature = f.temperature.unwrap_or(1.0);
                if !(temperature.is_finite() && temperature > 0.0) {
                    return Err(PageTypeError::Temperature);
                }
                Scores::Trees {
                    bias,
                    trees,
                    temperature,
                }
            }
            other => return Err(PageTypeError::Format(other)),
        };
        Ok(Model {
            classes: f.classes,
            scores,
        })
    }

    /// Each type's raw score (log-odds up to a constant).
    fn logits(&self, row: &[f32]) -> Vec<f32> {
        match &self.scores {
            Scores::Linear {
                mean,
                scale,
                coef,
                intercept,
            } => coef
                .iter()
                .zip(intercept)
                .map(|(w, b)| {
                    let z: f32 = row
                        .iter()
                        .zip(mean)
                        .zip(scale)
                        .zip(w)
                        .map(|(((x, m), s), w)| (x - m) / s * w)
                        .sum();
                    z + b
                })
                .collect(),
            Scores::Trees {
                bias,
                trees,
                temperature,
            } => {
                let mut z = bias.clone();
                for per_type in trees {
                    for (z, t) in z.iter_mut().zip(per_type) {
                        *z += t.walk(row);
                    }
                }
                z.iter_mut().for_each(|z| *z /= temperature);
                z
            }
        }
    }

    /// Each type's probability, in the model's order of `classes`.
    fn probabilities(&self, row: &[f32]) -> Vec<f32> {
        let logits = self.logits(row);
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let exp: Vec<f32> = logits.iter().map(|z| (z - max).exp()).collect();
        let total: f32 = exp.iter().sum();
        exp.iter().map(|e| e / total).collect()
    }

    /// Each of `features::KINDS`' probability, what the block scorer's
    /// second stage reads. A type the model does not know (a `rules_dir`
    /// model trained on other types) has probability 0.
    pub fn kind(&self, row: &[f32]) -> Kind {
        let mut kind = Kind::default();
        for (class, p) in self.classes.iter().zip(self.probabilities(row)) {
            if let Some(k) = KINDS.iter().position(|k| k == class) {
                kind[k] = p;
            }
        }
        kind
    }

    /// The most probable type.
    pub fn classify(&self, row: &[f32]) -> PageType {
        let (best, p) = self
            .probabilities(row)
            .into_iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap_or((0, 0.0));
        PageType {
            name: self.classes[best].clone(),
            confidence: (f64::from(p) * 1000.0).round() / 1000.0,
        }
    }
}

/// Trees are walked node by node (no complete layout), so depth costs only
/// time; this bounds it (scikit-learn's 15-leaf trees are at most 14 deep).
const MAX_DEPTH: u32 = 32;

/// `@type`s of JSON-LD and Open Graph types, one group per row entry
/// (`ld_article` .. `og_product`).
const TYPE_GROUPS: [&[&str]; 9] = [
    &[
        "article",
        "newsarticle",
        "blogposting",
        "report",
        "scholarlyarticle",
        "recipe",
        "review",
        "howto",
    ],
    &[
        "product",
        "offer",
        "aggregateoffer",
        "productgroup",
        "car",
        "vehicle",
    ],
    &[
        "discussionforumposting",
        "qapage",
        "question",
        "answer",
        "comment",
        "socialmediaposting",
    ],
    &[
        "itemlist",
        "collectionpage",
        "searchresultspage",
        "offercatalog",
    ],
    &["faqpage"],
    &[
        "techarticle",
        "apireference",
        "softwaresourcecode",
        "softwareapplication",
    ],
    &[
        "service",
        "localbusiness",
        "professionalservice",
        "organization",
        "corporation",
        "medicalbusiness",
        "legalservice",
        "financialservice",
        "homeandconstructionbusiness",
    ],
    &["article"],
    &["product", "og:product", "product.item"],
];

/// Words of the URL path, one group per row entry (`url_product` .. `url_service`).
const PATH_GROUPS: [&[&str]; 6] = [
    &[
        "product", "products", "p", "dp", "item", "shop", "buy", "sku",
    ],
    &[
        "collection",
        "collections",
        "category",
        "categories",
        "c",
        "tag",
        "tags",
        "search",
        "browse",
        "catalog",
        "list",
    ],
    &[
        "forum",
        "forums",
        "thread",
        "threads",
        "t",
        "topic",
        "topics",
        "questions",
        "community",
        "discussion",
        "discussions",
        "r",
        "comments",
        "showthread",
    ],
    &[
        "docs",
        "doc",
        "documentation",
        "api",
        "reference",
        "manual",
        "guide",
        "guides",
        "learn",
        "wiki",
        "help",
        "support",
        "kb",
    ],
    &[
        "blog", "news", "article", "articles", "post", "posts", "story", "stories",
    ],
    &[
        "service",
        "services",
        "solutions",
        "pricing",
        "about",
        "contact",
        "features",
    ],
];

/// Words that forum pages repeat (`log_reply_cues`).
const REPLY_CUES: &[&str] = &[
    "reply", "replies", "posted", "joined", "quote", "posts:", "member",
];

/// The feature row of a page; see `NAMES`.
pub fn features(analysis: &Analysis, content: &Content, meta: &Metadata, url: &str) -> Vec<f32> {
    let mut row = Vec::with_capacity(NAMES.len());
    structure(analysis, content, &mut row);
    row.extend(
        TYPE_GROUPS
            .iter()
            .map(|g| meta.types.iter().any(|t| g.contains(&t.as_str())) as u8 as f32),
    );
    url_features(url, &mut row);
    text_cues(&analysis.text, &mut row);
    row.push(meta.date.is_some() as u8 as f32);
    row.push(meta.author.is_some() as u8 as f32);
    row
}

fn ln(x: f32) -> f32 {
    (1.0 + x).ln()
}

/// How the page's words spread over contexts and roles, and the content's share.
fn structure(analysis: &Analysis, content: &Content, row: &mut Vec<f32>) {
    let words = analysis.words.max(1) as f32;
    let mut by_flag = [0u32; 16];
    for s in &analysis.segments {
        for (bit, slot) in by_flag.iter_mut().enumerate() {
            if s.flags & (1 << bit) != 0 {
                *slot += s.words;
            }
        }
    }
    let share = |flag: u16| by_flag[flag.trailing_zeros() as usize] as f32 / words;
    let count_role =
        |f: &dyn Fn(Role) -> bool| analysis.blocks.iter().filter(|b| f(b.role)).count() as f32;
    let paragraphs = content.paragraphs.len() as f32;
    let content_words = content.words as f32;
    let (content_items, content_links) = content_shares(analysis, content);
    row.extend([
        ln(words),
        ln(content_words),
        content_words / words,
        ln(analysis.links as f32),
        share(IN_LINK),
        ln(analysis.blocks.len() as f32),
        ln(analysis.tags as f32 / words),
    ]);
    row.extend(
        [
            IN_ITEM, IN_CELL, IN_CODE, IN_HEADING, IN_FORM, IN_UI, IN_QUOTE, IN_P, IN_META,
        ]
        .map(share),
    );
    row.extend([
        ln(count_role(&|r| matches!(r, Role::Heading(_)))),
        ln(count_role(&|r| matches!(r, Role::Item | Role::Ordered))),
        ln(count_role(&|r| matches!(r, Role::Cell | Role::HeaderCell))),
        ln(count_role(&|r| r == Role::Pre)),
        ln(paragraphs),
        if paragraphs > 0.0 {
            (content_words / paragraphs).min(500.0)
        } else {
            0.0
        },
        content_items,
        content_links,
    ]);
}

/// Words of the URL path, a date in it, its depth, a query, the site's root.
fn url_features(url: &str, row: &mut Vec<f32>) {
    let path = url_path(url);
    row.extend(PATH_GROUPS.iter().map(|words| {
        path.split(|c: char| !c.is_ascii_alphanumeric())
            .any(|seg| words.contains(&seg)) as u8 as f32
    }));
    row.extend([
        super::dates::in_url(url).is_some() as u8 as f32,
        path.split('/').filter(|s| !s.is_empty()).count() as f32,
        url.contains('?') as u8 as f32,
        (path.trim_matches('/').is_empty()) as u8 as f32,
    ]);
}

/// Prices, a shopping cart, forum cues, in the first 200 KB of the text.
fn text_cues(text: &str, row: &mut Vec<f32>) {
    let sample = crate::analyse::text::prefix(text, 200_000);
    // One pass, ignoring ASCII case, with no lower-cased copy of the text
    // (a copy of every page's text was a tenth of the learned scorer's
    // extra cost). The same counts as lower-casing first: no cue overlaps
    // itself, and no other letter lower-cases to one of theirs.
    let (mut cues, mut cart) = (0usize, false);
    for m in TEXT_CUES.find_overlapping_iter(sample) {
        if m.pattern().as_usize() < REPLY_CUES.len() {
            cues += 1;
        } else {
            cart = true;
        }
    }
    row.extend([
        ln(prices(sample) as f32),
        cart as u8 as f32,
        ln(cues as f32),
    ]);
}

/// `REPLY_CUES`, then a shop's cart buttons.
static TEXT_CUES: std::sync::LazyLock<aho_corasick::AhoCorasick> = std::sync::LazyLock::new(|| {
    let cart = ["add to cart", "add to bag"];
    aho_corasick::AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(REPLY_CUES.iter().chain(&cart))
        .expect("fixed patterns")
});

/// Of the content's words: the share in list items and cells, the share in links.
fn content_shares(analysis: &Analysis, content: &Content) -> (f32, f32) {
    let (mut total, mut items, mut links) = (0u32, 0u32, 0u32);
    let segs = &analysis.segments;
    for &(s, e) in &content.paragraphs {
        let first = segs.partition_point(|g| g.end <= s);
        for g in segs[first..].iter().take_while(|g| g.start < e) {
            total += g.words;
            if g.flags & IN_ITEM != 0 {
                items += g.words;
            }
            if g.flags & IN_LINK != 0 {
                links += g.words;
            }
        }
    }
    let t = total.max(1) as f32;
    (items as f32 / t, links as f32 / t)
}

/// Prices: a currency sign next to a number.
fn prices(text: &str) -> usize {
    let b = text.as_bytes();
    let mut n = 0;
    for (i, ch) in text.char_indices() {
        if matches!(ch, '$' | '€' | '£' | '¥') {
            let after = b.get(i + ch.len_utf8()).is_some_and(u8::is_ascii_digit);
            let before = i >= 2 && b[i - 1] == b' ' && b[i - 2].is_ascii_digit();
            if after || before {
                n += 1;
            }
        }
    }
    n
}

fn url_path(url: &str) -> String {
    url::Url::parse(url)
        .map(|u| u.path().to_ascii_lowercase())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_model_loads() {
        let m = Model::shipped();
        assert_eq!(m.classes.len(), 7);
        assert!(Model::parse("{}").is_err());
    }

    /// A one-split tree on `feature`: right (x > 0.5) scores `right`.
    fn stump(feature: i32, right: f32) -> serde_json::Value {
        serde_json::json!({"feature": [feature, -1, -1], "threshold": [0.5, 0.0, 0.0],
                           "left": [1, 0, 0], "right": [2, 0, 0], "value": [0.0, 0.0, right]})
    }

    #[test]
    fn trees_and_the_older_regression_both_load_and_classify() {
        let n = NAMES.len();
        let trees = serde_json::json!({
            "format": 2, "features": NAMES, "classes": ["article", "product"],
            "bias": [0.1, 0.0], "temperature": 2.0,
            "trees": [[stump(0, 0.0), stump(0, 4.0)]],
        });
        let m = Model::parse(&trees.to_string()).unwrap();
        let mut row = vec![0.0; n];
        assert_eq!(m.classify(&row).name, "article");
        row[0] = 1.0;
        let t = m.classify(&row);
        // Softmax of (0.1 / 2, 4 / 2): the temperature softens the confidence.
        assert_eq!((t.name.as_str(), t.confidence), ("product", 0.875));
        let linear = serde_json::json!({
            "format": 1, "features": NAMES, "classes": ["article", "product"],
            "mean": vec![0.0; n], "scale": vec![1.0; n],
            "coef": [vec![0.0; n], vec![1.0; n]], "intercept": [0.0, 0.0],
        });
        assert_eq!(
            Model::parse(&linear.to_string())
                .unwrap()
                .classify(&row)
                .name,
            "product"
        );
    }

    #[test]
    fn malformed_trees_are_refused() {
        let with = |tree: serde_json::Value, temperature: f32| {
            serde_json::json!({"format": 2, "features": NAMES, "classes": ["a"], "bias": [0.0],
                               "temperature": temperature, "trees": [[tree]]})
            .to_string()
        };
        assert!(Model::parse(&with(stump(0, 1.0), 1.0)).is_ok());
        assert!(Model::parse(&with(stump(0, 1.0), 0.0)).is_err());
        assert!(Model::parse(&with(stump(NAMES.len() as i32, 1.0), 1.0)).is_err());
        let backwards = serde_json::json!({"feature": [0, -1, -1], "threshold": [0.5, 0.0, 0.0],
                                           "left": [0, 0, 0], "right": [2, 0, 0], "value": [0.0, 0.0, 0.0]});
        assert!(Model::parse(&with(backwards, 1.0)).is_err());
        // One tree per type and iteration: a missing one is a size mismatch.
        let short = serde_json::json!({"format": 2, "features": NAMES, "classes": ["a", "b"],
                                       "bias": [0.0, 0.0], "trees": [[stump(0, 1.0)]]});
        assert!(Model::parse(&short.to_string()).is_err());
    }

    #[test]
    fn features_have_their_names() {
        let a = crate::analyse::analyse_outlined("<p>Price $12.99</p>", None).unwrap();
        let c = Content::default();
        let row = features(&a, &c, &Metadata::default(), "https://e.com/products/x");
        assert_eq!(row.len(), NAMES.len());
        assert_eq!(
            row[NAMES.iter().position(|n| *n == "url_product").unwrap()],
            1.0
        );
        assert!(row.iter().all(|x| x.is_finite()));
    }
}
