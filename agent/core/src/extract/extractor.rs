//! The extractor: a page's one HTML pass and the choice of its main content,
//! with everything built once that the choice reads (the scorer's model,
//! the closing headings, the page-type classifier, the per-site content
//! tags). It serves the pipeline's judging, `crawlsieve extract` (text,
//! Markdown, the page's metadata and type) and the training rows of
//! `bench/train_extractor.py` and `bench/train_pagetype.py`.

use super::metadata::Metadata;
use super::pagetype::{self, PageType};
use super::{closing, features, markdown, Content, Scorer};
use crate::analyse::{self, AnalyseError, Analysis};
use crate::input::decode::{decode_page, Decoded};
use crate::input::page::Page;
use crate::input::site::{self, SiteRule};
use crate::language::LanguageSettings;
use lol_html::Selector;

/// A per-site content-tag rule, compiled.
struct CompiledRule {
    host: String,
    selector: Selector,
}

/// Everything a page's content choice reads, built once; `&self` only, so
/// one extractor serves many worker threads.
pub struct Extractor {
    scorer: Scorer,
    /// Where content ends (`rules/closing_headings.txt`).
    closing: closing::Headings,
    page_types: pagetype::Model,
    rules: Vec<CompiledRule>,
    /// The HTML pass's budget (`input.max_page_ms`; 0: none).
    max_page_ms: u64,
    /// How `document` detects the content's language.
    language: LanguageSettings,
}

/// The extracted content of a page, for `crawlsieve extract` and embedders.
#[derive(Debug, Clone)]
pub struct Extracted {
    pub title: Option<String>,
    /// Paragraphs separated by `\n`.
    pub content: String,
    pub words: u32,
}

/// Everything `crawlsieve extract --format markdown|json` gives: the content
/// as text and Markdown, the page's metadata, language and type.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Document {
    #[serde(flatten)]
    pub metadata: Metadata,
    /// ISO 639-3 code of the content's language, detected (`None`: unknown).
    pub language: Option<&'static str>,
    #[serde(flatten)]
    pub page_type: PageType,
    pub words: u32,
    /// Paragraphs separated by `\n`.
    pub text: String,
    /// The content as Markdown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub markdown: Option<String>,
}

/// A page's blocks as `extract --block-features` writes them: each block's
/// text and feature row, and its layout (template number, region bounds).
#[derive(Debug, Clone, serde::Serialize)]
pub struct BlockRows {
    pub blocks: Vec<(String, Vec<f32>)>,
    pub layout: Vec<Vec<usize>>,
    /// The page-type classifier's feature row (what `kind` is computed
    /// from: the training script fits its own, out of fold, on these).
    pub page_row: Vec<f32>,
    /// The page's kind as the shipped classifier gives it (`features::KINDS`).
    pub kind: Vec<f32>,
}

impl Extractor {
    /// Builds an extractor; a site rule's bad CSS selector is an error that
    /// names the rule.
    pub fn new(
        scorer: Scorer,
        closing: closing::Headings,
        page_types: pagetype::Model,
        site_rules: Vec<SiteRule>,
        max_page_ms: u64,
        language: LanguageSettings,
    ) -> anyhow::Result<Self> {
        let mut rules = Vec::new();
        for rule in site_rules {
            let selector: Selector = rule.content.parse().map_err(|e| {
                anyhow::anyhow!(
                    "site rule for `{}`: key `content`: bad CSS selector `{}`: {e}",
                    rule.host,
                    rule.content
                )
            })?;
            rules.push(CompiledRule {
                host: rule.host.trim_start_matches('.').to_ascii_lowercase(),
                selector,
            });
        }
        Ok(Extractor {
            scorer,
            closing,
            page_types,
            rules,
            max_page_ms,
            language,
        })
    }

    fn rule_for(&self, url: &str) -> Option<&Selector> {
        if self.rules.is_empty() {
            return None;
        }
        let host = site::host(url)?;
        self.rules
            .iter()
            .find(|r| host == r.host || host.ends_with(&format!(".{}", r.host)))
            .map(|r| &r.selector)
    }

    /// The one HTML pass, within the page's budget (decoding included);
    /// `decoded` sees the text first (the pipeline notes decode errors and
    /// takes the page's style fingerprint from it).
    pub fn read(
        &self,
        page: &Page,
        decoded: impl FnOnce(&Decoded),
    ) -> Result<Analysis, AnalyseError> {
        let budget = analyse::Budget::from_now(self.max_page_ms);
        let text = decode_page(page);
        decoded(&text);
        if page.text {
            return Ok(analyse::from_text(&text.text));
        }
        // The learned scorer's second stage reads the page's kind, which
        // reads its metadata: the pass keeps it when the model scores every
        // page. (It costs `pruned` a sixth of its speed for the few pages it
        // hands to the model; those are read again: `kind`.)
        let outlined = matches!(self.scorer, Scorer::Learned(_));
        analyse::analyse_within(&text.text, self.rule_for(&page.url), outlined, budget)
    }

    /// The main content of a page the pass has read.
    pub fn content(&self, analysis: &Analysis, page: &Page) -> Content {
        if page.text {
            // Extracted already: all of it is the content.
            return Content {
                paragraphs: analysis.blocks.iter().map(|b| (b.start, b.end)).collect(),
                words: analysis.words,
                ..Default::default()
            };
        }
        let kind = || self.kind(analysis, page);
        super::content(analysis, &self.scorer, &self.closing, &kind)
    }

    /// Extraction only: the pass and the content.
    pub fn extract(&self, page: &Page) -> Result<Extracted, AnalyseError> {
        let analysis = self.read(page, |_| {})?;
        let content = self.content(&analysis, page);
        Ok(Extracted {
            title: analysis.title.clone(),
            content: content.text(&analysis),
            words: content.words,
        })
    }

    /// What kind of page it is, as the learned scorer's second stage reads
    /// it: the page-type classifier on the plateau's content (what
    /// `bench/train_pagetype.py` learns from) and the page's metadata. A
    /// page whose pass kept no metadata (`auto` and `pruned` keep none: a few
    /// pages in a hundred go to the model) is read again, with it.
    fn kind(&self, analysis: &Analysis, page: &Page) -> features::Kind {
        let again;
        let analysis = match analysis.outline {
            Some(_) => analysis,
            None => match self.outlined_analysis(page) {
                Ok(a) => {
                    again = a;
                    &again
                }
                Err(_) => return Default::default(),
            },
        };
        let metadata = super::metadata::metadata(analysis, &page.url);
        self.page_types
            .kind(&self.kind_row(analysis, &metadata, &page.url))
    }

    /// The page-type classifier's row as the kind reads it: on the
    /// plateau's content, whatever the scorer.
    fn kind_row(&self, analysis: &Analysis, metadata: &Metadata, url: &str) -> Vec<f32> {
        let none = || features::Kind::default();
        let plateau = super::content(analysis, &Scorer::Plateau, &self.closing, &none);
        pagetype::features(analysis, &plateau, metadata, url)
    }

    /// The content with its structure and the page's metadata, language and
    /// type (one HTML pass that also keeps the page's outline). `markdown`:
    /// render the content as Markdown too.
    pub fn document(&self, page: &Page, markdown: bool) -> Result<Document, AnalyseError> {
        let (analysis, content, metadata) = self.outlined(page)?;
        let row = pagetype::features(&analysis, &content, &metadata, &page.url);
        let page_type = self.page_types.classify(&row);
        let text = content.text(&analysis);
        let language = self.language.detect(&text).code;
        Ok(Document {
            metadata,
            language,
            page_type,
            words: content.words,
            markdown: markdown.then(|| markdown::markdown(&analysis, &content, &page.url)),
            text,
        })
    }

    /// The page-level feature row the page-type model reads (what
    /// `bench/train_pagetype.py` learns from).
    pub fn page_row(&self, page: &Page) -> Result<Vec<f32>, AnalyseError> {
        let (analysis, content, metadata) = self.outlined(page)?;
        Ok(pagetype::features(
            &analysis, &content, &metadata, &page.url,
        ))
    }

    /// The HTML pass with the page's outline, the content and the metadata.
    fn outlined(&self, page: &Page) -> Result<(Analysis, Content, Metadata), AnalyseError> {
        let analysis = self.outlined_analysis(page)?;
        let content = self.content(&analysis, page);
        let metadata = super::metadata::metadata(&analysis, &page.url);
        Ok((analysis, content, metadata))
    }

    /// The HTML pass with the page's outline.
    fn outlined_analysis(&self, page: &Page) -> Result<Analysis, AnalyseError> {
        let budget = analyse::Budget::from_now(self.max_page_ms);
        let decoded = decode_page(page);
        analyse::analyse_within(&decoded.text, self.rule_for(&page.url), true, budget)
    }

    /// Every block of a page with its feature row, and per block where it
    /// sits for the second stage: its template's number, then its regions'
    /// bounds `[lo, hi)` level by level (`extract --block-features`, what the
    /// learned scorer is trained on); and the page's kind with the row it
    /// comes from.
    pub fn block_rows(&self, page: &Page) -> Result<BlockRows, AnalyseError> {
        let analysis = self.outlined_analysis(page)?;
        let (rows, layout) = super::block_rows(&analysis);
        let metadata = super::metadata::metadata(&analysis, &page.url);
        let page_row = self.kind_row(&analysis, &metadata, &page.url);
        let kind = self.page_types.kind(&page_row).to_vec();
        let blocks = analysis
            .blocks
            .iter()
            .zip(rows)
            .map(|(b, r)| (analysis.slice(b.start, b.end).to_string(), r.to_vec()))
            .collect();
        let layout = (layout.template.iter().zip(&layout.regions))
            .map(|(&t, regions)| {
                let mut v = vec![t as usize];
                v.extend(regions.iter().flat_map(|&(lo, hi)| [lo, hi]));
                v
            })
            .collect();
        Ok(BlockRows {
            blocks,
            layout,
            page_row,
            kind,
        })
    }
}
