//! The pipeline: page in, verdict out. Pure CPU work, no I/O; `&self` only,
//! so one `Pipeline` serves many worker threads.
//!
//! Order of work (DSpin §V-B for the filters): decode → one HTML pass →
//! visible text → content tag → content (plateau) → word count → link
//! density → language → chunks → stop chunks → labeled-set match. A page
//! leaves at the first filter it fails, which keeps the cost of junk low.

use crate::analyse::{self, AnalyseError, Analysis};
use crate::discovery::count::shingle_record;
use crate::extract::metadata::Metadata;
use crate::extract::pagetype::{self, PageType};
use crate::extract::{self, Content};
use crate::filters;
use crate::fingerprints::chunks::{self, Chunks};
use crate::fingerprints::stopchunks::StopChunks;
use crate::input::decode::decode_page;
use crate::input::page::{Broken, Input, Page};
use crate::input::site;
use crate::labels::{LabeledSets, LabelsHandle};
use crate::language;
use crate::settings::{Settings, UnknownLanguage};
use crate::styles;
use crate::verdict::{Kind, Reason, Verdict};
use lol_html::Selector;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

/// A per-site content-tag rule, compiled.
struct CompiledRule {
    host: String,
    selector: Selector,
}

/// Everything needed to judge pages: settings, stop chunks, site rules, and
/// a handle to the current labeled sets (swapped while pages flow).
pub struct Pipeline {
    settings: Settings,
    stop: StopChunks,
    rules: Vec<CompiledRule>,
    labels: LabelsHandle,
    scorer: extract::Scorer,
    /// Where content ends (`rules/closing_headings.txt`).
    closing: extract::closing::Headings,
    page_types: pagetype::Model,
    /// Verdicts carry their occurrences (`count_occurrences`).
    count: bool,
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

/// What a labeled set built from a document holds.
#[derive(Debug, Clone, Default)]
pub struct Matchable {
    /// Chunks that are matched (not stop chunks, long enough), in page order.
    pub chunks: Vec<chunks::Hash>,
    /// The whole-content hash (`None` when there is no content).
    pub whole: Option<chunks::Hash>,
    /// Sampled word shingles (ascending, distinct).
    pub shingles: Vec<u64>,
    /// The content's SimHash (`None` without shingles).
    pub simhash: Option<u64>,
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

impl Pipeline {
    /// Builds a pipeline; the labeled sets named in `settings.labels.files` are loaded.
    pub fn new(settings: Settings) -> anyhow::Result<Self> {
        let public = settings.labels.public_key()?;
        let labels = LabeledSets::load(&settings.labels.files, public.as_ref())?;
        Self::with_labels(settings, LabelsHandle::new(labels))
    }

    /// Makes every verdict carry its page's matchable chunk hashes and
    /// shingle records (`Verdict::counted`), dropped pages' too: what
    /// `labels count` counts for the same page, for an agent that counts
    /// what it judges.
    pub fn count_occurrences(&mut self, on: bool) {
        self.count = on;
    }

    /// Builds a pipeline that judges against the sets behind `labels`
    /// (whoever holds the handle can swap them while pages flow).
    pub fn with_labels(settings: Settings, labels: LabelsHandle) -> anyhow::Result<Self> {
        let stop = StopChunks::from_list(&settings.stopchunk_list()?, settings.stopchunks.fp_rate)
            .map_err(|e| anyhow::anyhow!("stop chunks: {e}"))?;
        let mut rules = Vec::new();
        for rule in settings.site_rules()? {
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
        Ok(Pipeline {
            count: false,
            scorer: settings.scorer()?,
            closing: settings.closing_headings()?,
            page_types: settings.page_types()?,
            settings,
            stop,
            rules,
            labels,
        })
    }

    /// The settings this pipeline was built with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The handle to the labeled sets pages are judged against.
    pub fn labels(&self) -> &LabelsHandle {
        &self.labels
    }

    /// Judges one input: a page, or a broken record (which becomes an `error` verdict).
    pub fn process_input(&self, input: &Input) -> Verdict {
        self.process_input_with(input, &self.labels.load())
    }

    /// `process_input` against a snapshot of the labeled sets the caller took.
    /// A scan takes it when it hands the page out, in input order, so verdicts
    /// written in input order never go back to an older version however the
    /// workers are scheduled.
    pub fn process_input_with(&self, input: &Input, labels: &LabeledSets) -> Verdict {
        match input {
            Input::Page(page) => self.process_with(page, labels),
            Input::Broken(broken) => self.broken(broken, labels),
        }
    }

    /// Judges one page. Never panics: an internal failure becomes an `error` verdict.
    pub fn process(&self, page: &Page) -> Verdict {
        // One snapshot for the whole page: a swap mid-page cannot mix versions.
        self.process_with(page, &self.labels.load())
    }

    /// `process` against a snapshot of the labeled sets.
    pub fn process_with(&self, page: &Page, labels: &LabeledSets) -> Verdict {
        let started = Instant::now();
        let id = match page.origin.record_id() {
            Some(id) => id.to_string(),
            None => site::page_id(&page.url, &page.body),
        };
        let mut v = Verdict::new(id, page.url.to_string(), page.origin.clone());
        v.site = site::registered_domain(&page.url);
        v.status = page.status;
        v.fetched_at = page.fetched_at.as_ref().map(|s| s.to_string());
        v.bytes = page.body.len() as u64;
        v.labels_version = labels.version().map(str::to_string);
        if page.truncated {
            v.reasons.push(Reason::Truncated);
        }
        let judged = catch_unwind(AssertUnwindSafe(|| {
            let mut v = v.clone();
            self.judge(page, labels, &mut v);
            v
        }));
        let mut v = match judged {
            Ok(judged) => judged,
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                v.fail(
                    Reason::InternalError,
                    format!("internal error (a bug; please report): {what}"),
                );
                v
            }
        };
        v.elapsed_us = started.elapsed().as_micros() as u64;
        v
    }

    fn broken(&self, broken: &Broken, labels: &LabeledSets) -> Verdict {
        let url = broken.url.clone().unwrap_or_default();
        let id = match broken.origin.record_id() {
            Some(id) => id.to_string(),
            None => site::page_id(&url, format!("{:?}", broken.origin).as_bytes()),
        };
        let mut v = Verdict::new(id, url, broken.origin.clone());
        v.site = broken.url.as_deref().and_then(site::registered_domain);
        v.labels_version = labels.version().map(str::to_string);
        v.fail(Reason::BrokenInput, broken.reason.clone());
        v
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

    /// The one HTML pass and the content choice, shared by `process` and `extract`.
    fn analyse(
        &self,
        page: &Page,
        v: Option<&mut Verdict>,
    ) -> Result<(Analysis, Content), AnalyseError> {
        let analysis = self.analysis(page, v)?;
        let kind = || self.kind(&analysis, page);
        let content = extract::content(&analysis, &self.scorer, &self.closing, &kind);
        Ok((analysis, content))
    }

    /// What kind of page it is, as the learned scorer's second stage reads
    /// it: the page-type classifier on the plateau's content (what
    /// `bench/train_pagetype.py` learns from) and the page's metadata. A
    /// page whose pass kept no metadata (`auto` and `pruned` keep none: a few
    /// pages in a hundred go to the model) is read again, with it.
    fn kind(&self, analysis: &Analysis, page: &Page) -> extract::features::Kind {
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
        let metadata = extract::metadata::metadata(analysis, &page.url);
        self.page_types
            .kind(&self.kind_row(analysis, &metadata, &page.url))
    }

    /// The page-type classifier's row as the kind reads it: on the
    /// plateau's content, whatever the scorer.
    fn kind_row(&self, analysis: &Analysis, metadata: &Metadata, url: &str) -> Vec<f32> {
        let none = || extract::features::Kind::default();
        let plateau = extract::content(analysis, &extract::Scorer::Plateau, &self.closing, &none);
        pagetype::features(analysis, &plateau, metadata, url)
    }

    /// The one HTML pass alone.
    fn analysis(&self, page: &Page, v: Option<&mut Verdict>) -> Result<Analysis, AnalyseError> {
        let budget = analyse::Budget::from_now(self.settings.input.max_page_ms);
        let decoded = decode_page(page);
        if let Some(v) = v {
            if decoded.had_errors {
                v.reasons.push(Reason::DecodeErrors);
            }
            // Every page with a body gets one, dropped pages too: link farms
            // are dropped as link-dense, and their template is what finds them.
            if self.settings.output.style_fp {
                v.style_fp = Some(styles::fingerprint(decoded.text.as_bytes()).encode());
            }
        }
        // The learned scorer's second stage reads the page's kind, which
        // reads its metadata: the pass keeps it when the model scores every
        // page. (It costs `pruned` a sixth of its speed for the few pages it
        // hands to the model; those are read again: `kind`.)
        let outlined = matches!(self.scorer, extract::Scorer::Learned(_));
        analyse::analyse_within(&decoded.text, self.rule_for(&page.url), outlined, budget)
    }

    /// Extraction only: no filters, no matching.
    pub fn extract(&self, page: &Page) -> Result<Extracted, String> {
        let (analysis, content) = self.analyse(page, None).map_err(|e| e.to_string())?;
        Ok(Extracted {
            title: analysis.title.clone(),
            content: content.text(&analysis),
            words: content.words,
        })
    }

    /// The content with its structure and the page's metadata, language and
    /// type (one HTML pass that also keeps the page's outline). `markdown`:
    /// render the content as Markdown too.
    pub fn document(&self, page: &Page, markdown: bool) -> Result<Document, String> {
        let (analysis, content, metadata) = self.outlined(page)?;
        let row = pagetype::features(&analysis, &content, &metadata, &page.url);
        let page_type = self.page_types.classify(&row);
        let lang = &self.settings.language;
        let text = content.text(&analysis);
        let language = language::detect(&text, lang.sample_bytes, lang.thresholds()).code;
        Ok(Document {
            metadata,
            language,
            page_type,
            words: content.words,
            markdown: markdown.then(|| extract::markdown::markdown(&analysis, &content, &page.url)),
            text,
        })
    }

    /// The page-level feature row the page-type model reads (what
    /// `bench/train_pagetype.py` learns from).
    pub fn page_row(&self, page: &Page) -> Result<Vec<f32>, String> {
        let (analysis, content, metadata) = self.outlined(page)?;
        Ok(pagetype::features(
            &analysis, &content, &metadata, &page.url,
        ))
    }

    /// The HTML pass with the page's outline, the content and the metadata.
    fn outlined(&self, page: &Page) -> Result<(Analysis, Content, Metadata), String> {
        let analysis = self.outlined_analysis(page)?;
        let kind = || self.kind(&analysis, page);
        let content = extract::content(&analysis, &self.scorer, &self.closing, &kind);
        let metadata = extract::metadata::metadata(&analysis, &page.url);
        Ok((analysis, content, metadata))
    }

    /// The HTML pass with the page's outline.
    fn outlined_analysis(&self, page: &Page) -> Result<Analysis, String> {
        let budget = analyse::Budget::from_now(self.settings.input.max_page_ms);
        let decoded = decode_page(page);
        let analysis =
            analyse::analyse_within(&decoded.text, self.rule_for(&page.url), true, budget)
                .map_err(|e| e.to_string())?;
        Ok(analysis)
    }

    /// Every block of a page with its feature row, and per block where it
    /// sits for the second stage: its template's number, then its regions'
    /// bounds `[lo, hi)` level by level (`extract --block-features`, what the
    /// learned scorer is trained on); and the page's kind with the row it
    /// comes from.
    pub fn block_rows(&self, page: &Page) -> Result<BlockRows, String> {
        let analysis = self.outlined_analysis(page)?;
        let (rows, layout) = extract::block_rows(&analysis);
        let metadata = extract::metadata::metadata(&analysis, &page.url);
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

    /// The hashes of a page's chunks that would be matched (not stop chunks,
    /// at least `chunks.min_chars` long) and its whole-content hash: what a
    /// labeled set built from this page holds. Same extraction and
    /// normalisation as `process`.
    pub fn matchable_chunks(&self, page: &Page) -> Result<Matchable, String> {
        let (analysis, content) = self.analyse(page, None).map_err(|e| e.to_string())?;
        Ok(
            self.matchable(chunks::chunk(content.paragraphs(&analysis), |h| {
                self.stop.contains(h)
            })),
        )
    }

    /// As `matchable_chunks`, for plain text: paragraphs are separated by blank lines.
    pub fn matchable_text(&self, text: &str) -> Matchable {
        let paragraphs = text
            .split("\n\n")
            .flat_map(|p| p.split("\r\n\r\n"))
            .filter(|p| !p.trim().is_empty());
        self.matchable(chunks::chunk(paragraphs, |h| self.stop.contains(h)))
    }

    fn matchable(&self, found: Chunks) -> Matchable {
        let min_chars = self.settings.chunks.min_chars;
        Matchable {
            chunks: found
                .chunks
                .iter()
                .filter(|c| !c.stop && c.chars >= min_chars)
                .map(|c| c.hash)
                .collect(),
            whole: (!found.chunks.is_empty()).then_some(found.whole),
            shingles: found.shingles,
            simhash: found.simhash,
        }
    }

    /// Whether `hash` is a stop chunk.
    pub fn is_stop_chunk(&self, hash: &chunks::Hash) -> bool {
        self.stop.contains(hash)
    }

    fn judge(&self, page: &Page, labels: &LabeledSets, v: &mut Verdict) {
        let s = &self.settings;
        if crate::input::decode::looks_binary(&page.body) {
            return v.fail(Reason::BinaryBody, "body is binary, not text");
        }
        let (analysis, content) = match self.analyse(page, Some(v)) {
            Ok(done) => done,
            Err(e @ AnalyseError::TooSlow(_)) => return v.fail(Reason::TooSlow, e.to_string()),
            Err(e) => return v.fail(Reason::ParseError, e.to_string()),
        };
        v.title = analysis.title.clone();
        v.page_words = analysis.words;
        v.words = content.words;
        v.links = content.links;
        v.link_density = filters::link_density(&content);
        let drop = |v: &mut Verdict, reason: Reason| {
            v.verdict = Kind::Drop;
            v.reasons.insert(0, reason);
        };
        match filters::reject(&analysis, &content, &s.filters) {
            Some(Reason::NoVisibleText) => return drop(v, Reason::NoVisibleText),
            Some(reason) => {
                drop(v, reason);
                // A copier with short pages is still a copier: the content a
                // dropped page holds is matched, its copy rules follow the drop
                // reason as notes, and it counts in its neighborhoods.
                return self.match_content(labels, &content, &analysis, v);
            }
            None => {}
        }

        let sample = sample(&content, &analysis, s.language.sample_bytes);
        let lang = language::detect(&sample, s.language.sample_bytes, s.language.thresholds());
        v.lang = Some(lang.code.unwrap_or("unknown").to_string());
        v.lang_confidence = Some((lang.confidence * 1000.0).round() / 1000.0);
        let language_drop = match lang.code {
            None => {
                v.reasons.push(Reason::LanguageUnknown);
                s.language.unknown == UnknownLanguage::Drop
            }
            Some(code) => {
                !s.language.allow.is_empty() && !s.language.allow.iter().any(|a| a == code)
            }
        };
        if language_drop {
            drop(v, Reason::Language);
        }
        self.match_content(labels, &content, &analysis, v);
        if s.output.content && v.verdict != Kind::Drop {
            v.content = Some(content.text(&analysis));
        }
    }

    /// Chunks and shingles of the content, matched against the labeled sets.
    fn match_content(
        &self,
        labels: &LabeledSets,
        content: &Content,
        analysis: &Analysis,
        v: &mut Verdict,
    ) {
        // A dropped page is chunked only to be matched (or counted): with no
        // labeled set there is nothing to find, and junk pages should stay cheap.
        if content.words == 0
            || (v.verdict == Kind::Drop && labels.sets().is_empty() && !self.count)
        {
            return;
        }
        let chunks = chunks::chunk(content.paragraphs(analysis), |h| self.stop.contains(h));
        if self.count {
            let min_chars = self.settings.chunks.min_chars;
            v.counted = chunks
                .chunks
                .iter()
                .filter(|c| !c.stop && c.chars >= min_chars)
                .map(|c| c.hash)
                .chain(chunks.shingles.iter().map(|&s| shingle_record(s)))
                .collect();
        }
        let evidence =
            crate::copies::evidence::gather(labels, &chunks, self.settings.chunks.min_chars);
        crate::copies::evidence::decide(&evidence, &chunks, labels, &self.settings.labels, v);
    }
}

/// The first `max` bytes (about) of the content, for language detection.
fn sample(content: &Content, analysis: &Analysis, max: usize) -> String {
    let mut out = String::with_capacity(max + 256);
    for p in content.paragraphs(analysis) {
        if out.len() >= max {
            break;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(p);
    }
    out
}

#[cfg(test)]
mod tests;
