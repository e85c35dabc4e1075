//! The pipeline: page in, verdict out. Pure CPU work, no I/O; `&self` only,
//! so one `Pipeline` serves many worker threads.
//!
//! Order of work (DSpin §V-B for the filters): decode → one HTML pass →
//! visible text → content tag → content (plateau) → word count → link
//! density → language → chunks → stop chunks → labeled-set match. A page
//! leaves at the first filter it fails, which keeps the cost of junk low.

use crate::analyse::{AnalyseError, Analysis};
use crate::extract::extractor::Extractor;
use crate::extract::Content;
use crate::filters;
use crate::fingerprints::chunks::shingle_record;
use crate::fingerprints::chunks::{self, Chunks};
use crate::fingerprints::immutables::{self, Dictionary};
use crate::fingerprints::shingles::Shingler;
use crate::fingerprints::stopchunks::StopChunks;
use crate::fingerprints::style;
use crate::fingerprints::wordgrams;
use crate::input::page::{Broken, Input, Page};
use crate::input::site;
use crate::labels::origin::Origins;
use crate::labels::{LabeledSets, LabelsHandle};
use crate::settings::{Settings, UnknownLanguage};
use crate::verdict::{Kind, Reason, Verdict};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

/// Everything needed to judge pages: settings, stop chunks, site rules, and
/// a handle to the current labeled sets (swapped while pages flow).
pub struct Pipeline {
    settings: Settings,
    stop: StopChunks,
    labels: LabelsHandle,
    extractor: Extractor,
    /// Origin sites added to sets by `labels.origins` (trusted mirrors,
    /// syndication partners), by set name.
    added_origins: Vec<(String, Origins)>,
    /// Verdicts carry their occurrences (`count_occurrences`).
    count: bool,
    /// The block and allow lists of `filters.urls`, loaded.
    urls: filters::urls::UrlRules,
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
    /// Sampled immutable grams (ascending, distinct; none when the
    /// content's language has no mutables dictionary).
    pub immutables: Vec<u64>,
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
        let added_origins = settings.labels.added_origins()?;
        Ok(Pipeline {
            count: false,
            urls: filters::urls::UrlRules::load(&settings.filters.urls)?,
            extractor: settings.extractor()?,
            added_origins,
            settings,
            stop,
            labels,
        })
    }

    /// The settings this pipeline was built with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The extractor pages' content is chosen with (`crawlsieve extract`
    /// and the training rows use it alone).
    pub fn extractor(&self) -> &Extractor {
        &self.extractor
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
            Input::Revisit(revisit) => self.revisit(revisit, labels),
        }
    }

    /// A revisit record on its own: unresolved until whoever saw the capture
    /// it repeats (`scan`'s writer, a verdict file) puts that verdict in
    /// (`crate::revisits`).
    fn revisit(&self, r: &crate::input::page::Revisit, labels: &LabeledSets) -> Verdict {
        let id = match r.origin.record_id() {
            Some(id) => id.to_string(),
            None => site::page_id(&r.url, format!("{:?}", r.origin).as_bytes()),
        };
        let mut v = Verdict::new(id, r.url.clone(), r.origin.clone());
        v.site = site::registered_domain(&r.url);
        v.status = r.status;
        v.fetched_at = r.fetched_at.clone();
        v.labels_version = labels.version().map(str::to_string);
        v.revisit_of = Some(r.of.clone());
        v.fail(
            Reason::RevisitUnresolved,
            crate::revisits::unresolved(&r.of),
        );
        v
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

    /// The one HTML pass and the content choice; the verdict notes decode
    /// errors and gets the page's style fingerprint.
    fn analyse(&self, page: &Page, v: &mut Verdict) -> Result<(Analysis, Content), AnalyseError> {
        let style_fp = self.settings.output.style_fp;
        let analysis = self.extractor.read(page, |decoded| {
            if decoded.had_errors {
                v.reasons.push(Reason::DecodeErrors);
            }
            // Every page with a body gets one, dropped pages too: link farms
            // are dropped as link-dense, and their template is what finds them.
            if style_fp {
                v.style_fp = Some(style::fingerprint(decoded.text.as_bytes()).encode());
            }
        })?;
        let content = self.extractor.content(&analysis, page);
        Ok((analysis, content))
    }

    /// The hashes of a page's chunks that would be matched (not stop chunks,
    /// at least `chunks.min_chars` long) and its whole-content hash: what a
    /// labeled set built from this page holds. Same extraction and
    /// normalisation as `process`.
    pub fn matchable_chunks(&self, page: &Page) -> Result<Matchable, AnalyseError> {
        let analysis = self.extractor.read(page, |_| {})?;
        let content = self.extractor.content(&analysis, page);
        let found = self.chunk(content.paragraphs(&analysis), &mut Shingler::default());
        let lang = self.detect(&sample(content.paragraphs(&analysis), self.sample_bytes()));
        Ok(self.matchable(found, lang))
    }

    /// As `matchable_chunks`, for plain text: paragraphs are separated by blank lines.
    pub fn matchable_text(&self, text: &str) -> Matchable {
        self.matchable_paragraphs(
            text.split("\n\n")
                .flat_map(|p| p.split("\r\n\r\n"))
                .filter(|p| !p.trim().is_empty()),
        )
    }

    /// As `matchable_chunks`, for content already extracted (a verdict's
    /// `content`: one paragraph a line).
    pub fn matchable_paragraphs<'a>(
        &self,
        paragraphs: impl Iterator<Item = &'a str> + Clone,
    ) -> Matchable {
        let found = self.chunk(paragraphs.clone(), &mut Shingler::default());
        let lang = self.detect(&sample(paragraphs, self.sample_bytes()));
        self.matchable(found, lang)
    }

    /// The content digest (hex) and MinHash of `hashes` values of content
    /// already extracted (a verdict's `content`, a paragraph a line), as a
    /// judged page gets them: what `crawlsieve dedup` reads verdicts with.
    pub fn content_signature<'a>(
        &self,
        paragraphs: impl Iterator<Item = &'a str>,
        hashes: usize,
    ) -> (Option<String>, Option<Vec<u32>>) {
        let mut shingler = Shingler::default();
        shingler.minhash(Some(hashes));
        let found = self.chunk(paragraphs, &mut shingler);
        let digest = (!found.chunks.is_empty()).then(|| chunks::to_hex(&found.whole));
        (digest, shingler.take_minhash())
    }

    /// `chunks::chunk_with`, most paragraphs' words read by the fast path.
    fn chunk<'a>(
        &self,
        paragraphs: impl Iterator<Item = &'a str>,
        shingler: &mut Shingler,
    ) -> Chunks {
        chunks::chunk_words(
            paragraphs,
            |h| self.stop.contains(h),
            shingler,
            |_, normalised, out| wordgrams::shingle_words(normalised, out),
        )
    }

    fn sample_bytes(&self) -> usize {
        self.settings.language.sample_bytes
    }

    /// The language of a content sample (ISO 639-3), `None` when unknown.
    fn detect(&self, sample: &str) -> Option<&'static str> {
        self.settings.language.detect(sample).code
    }

    fn matchable(&self, found: Chunks, lang: Option<&str>) -> Matchable {
        let min_chars = self.settings.chunks.min_chars;
        let immutables = dictionary_for(lang, &found.words)
            .map(|words| immutables::signature(&found.words, words))
            .unwrap_or_default();
        Matchable {
            immutables,
            chunks: found
                .chunks
                .iter()
                .filter(|c| c.matchable(min_chars))
                .map(|c| c.hash)
                .collect(),
            whole: (!found.chunks.is_empty()).then_some(found.whole),
            shingles: found.shingles,
            simhash: found.simhash,
        }
    }

    /// The sets (a bit each) whose origin site the page at `url` is on: the
    /// origins a set names, and those `labels.origins` adds.
    fn origin_mask(&self, labels: &LabeledSets, url: &str) -> u32 {
        let mut mask = 0;
        for (i, set) in labels.sets().iter().enumerate() {
            let added = || {
                self.added_origins
                    .iter()
                    .any(|(name, o)| *name == set.name && o.holds(url))
            };
            if set.origins.holds(url) || added() {
                mask |= 1 << i;
            }
        }
        mask
    }

    /// The page's immutable grams in page order, with its language's
    /// dictionary. A page dropped before language detection is detected
    /// here; one in a language without a dictionary gets none, and a note.
    fn page_immutables(
        &self,
        chunks: &Chunks,
        content: &Content,
        analysis: &Analysis,
        v: &mut Verdict,
    ) -> Vec<u64> {
        let lang = match v.lang.as_deref() {
            Some("unknown") => None,
            Some(code) => Some(code),
            None => self.detect(&sample(content.paragraphs(analysis), self.sample_bytes())),
        };
        match dictionary_for(lang, &chunks.words) {
            Some(words) => immutables::grams(&chunks.words, words),
            None => {
                v.reasons.push(Reason::SpunUnchecked);
                Vec::new()
            }
        }
    }

    /// Whether `hash` is a stop chunk.
    pub fn is_stop_chunk(&self, hash: &chunks::Hash) -> bool {
        self.stop.contains(hash)
    }

    fn judge(&self, page: &Page, labels: &LabeledSets, v: &mut Verdict) {
        items::with_scratch(|scratch| self.judge_in(page, labels, v, scratch));
    }

    fn judge_in(
        &self,
        page: &Page,
        labels: &LabeledSets,
        v: &mut Verdict,
        scratch: &mut items::Scratch,
    ) {
        let s = &self.settings;
        // FineWeb's first step, and the cheapest: no byte of the page is read.
        if let Some(listed) = self.urls.blocked(&page.url) {
            v.verdict = Kind::Drop;
            v.reasons.insert(0, Reason::UrlBlocked);
            v.url_listed = Some(listed);
            return;
        }
        if crate::input::decode::looks_binary(&page.body) {
            return v.fail(Reason::BinaryBody, "body is binary, not text");
        }
        let (analysis, content) = match self.analyse(page, v) {
            Ok(done) => done,
            Err(e @ AnalyseError::TooSlow(_)) => return v.fail(Reason::TooSlow, e.to_string()),
            Err(e) => return v.fail(Reason::ParseError, e.to_string()),
        };
        v.title = analysis.title.clone();
        v.page_words = analysis.words;
        v.words = content.words;
        v.links = content.links;
        v.link_density = filters::link_density(&content);
        // The first reason to drop a page leads; later ones follow it.
        let drop = |v: &mut Verdict, reason: Reason| {
            let at = usize::from(v.verdict == Kind::Drop).min(v.reasons.len());
            v.verdict = Kind::Drop;
            v.reasons.insert(at, reason);
        };
        v.opt_out = filters::opt_out::signals(&page.headers, &analysis.terms, &s.filters.opt_out);
        if s.filters.opt_out.drops(&v.opt_out) {
            drop(v, Reason::OptOut);
        }
        match filters::reject(&analysis, &content, &s.filters) {
            Some(Reason::NoVisibleText) => {
                drop(v, Reason::NoVisibleText);
                // Hidden text may still hold an item.
                return self.match_items(labels, &analysis, v, scratch);
            }
            Some(reason) => {
                drop(v, reason);
                // A copier with short pages is still a copier: the content a
                // dropped page holds is matched, its copy rules follow the drop
                // reason as notes, and it counts in its neighborhoods.
                self.match_content(labels, &content, &analysis, v, scratch);
                return self.match_items(labels, &analysis, v, scratch);
            }
            None => {}
        }

        let sample = sample(content.paragraphs(&analysis), s.language.sample_bytes);
        let lang = s.language.detect(&sample);
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
        let ruled = self.run_rules(page, &content, &analysis, v);
        self.match_content(labels, &content, &analysis, v, scratch);
        self.match_items(labels, &analysis, v, scratch);
        if s.output.content && v.verdict != Kind::Drop {
            v.content = Some(ruled.unwrap_or_else(|| content.text(&analysis)));
        }
    }

    /// The corpus rule sets (`filters.rules`) on a page that passed the
    /// filters and language: a failure drops it, naming the rule. Returns
    /// the text they leave (C4 removes lines) when they ran.
    fn run_rules(
        &self,
        page: &Page,
        content: &Content,
        analysis: &Analysis,
        v: &mut Verdict,
    ) -> Option<String> {
        let settings = &self.settings.filters;
        if settings.rules.is_empty() || v.verdict == Kind::Drop {
            return None;
        }
        // A text input is ruled on as given (its blank lines are paragraph
        // breaks to Gopher); a page on its content, a paragraph a line.
        let text = if page.text {
            String::from_utf8_lossy(&page.body).into_owned()
        } else {
            content.text(analysis)
        };
        let ruled = filters::rule(&text, settings);
        v.lines_removed = ruled.lines_removed;
        if let Some((reason, failure)) = ruled.failed {
            v.verdict = Kind::Drop;
            v.reasons.insert(0, reason);
            v.rule_failed = Some(failure);
        }
        Some(ruled.text.unwrap_or(text))
    }

    /// Chunks and shingles of the content, matched against the labeled sets.
    fn match_content(
        &self,
        labels: &LabeledSets,
        content: &Content,
        analysis: &Analysis,
        v: &mut Verdict,
        scratch: &mut items::Scratch,
    ) {
        // A dropped page is chunked only to be matched (or counted): with no
        // labeled set there is nothing to find, and junk pages should stay cheap.
        if content.words == 0 || (v.verdict == Kind::Drop && labels.is_empty() && !self.count) {
            return;
        }
        let carry = labels.carry_immutables();
        let mut shingler = Shingler::default();
        shingler.keep_words(carry);
        // A dropped page is neither looked up nor added among pages seen.
        if v.verdict != Kind::Drop {
            shingler.minhash(self.settings.dedup.hashes());
        }
        let chunks = chunks::chunk_words(
            content.paragraphs(analysis),
            |h| self.stop.contains(h),
            &mut shingler,
            items::content_words(scratch, labels, analysis, content),
        );
        v.minhash = shingler.take_minhash();
        if self.count {
            let min_chars = self.settings.chunks.min_chars;
            v.counted = chunks
                .chunks
                .iter()
                .filter(|c| c.matchable(min_chars))
                .map(|c| c.hash)
                .chain(chunks.shingles.iter().map(|&s| shingle_record(s)))
                .collect();
        }
        let origin = self.origin_mask(labels, &v.url);
        let immutables = if carry {
            self.page_immutables(&chunks, content, analysis, v)
        } else {
            Vec::new()
        };
        let evidence = crate::copies::evidence::gather(
            labels,
            &chunks,
            &immutables,
            self.settings.chunks.min_chars,
            origin,
        );
        crate::copies::evidence::decide(&evidence, &chunks, labels, &self.settings.labels, v);
    }
}

/// The mutables dictionary a page's immutables are taken with: its
/// language's. Word salad — what a spinner's every-word setting can make —
/// defeats language detection, so a page of unknown language is read with
/// the dictionary that knows most of its words.
fn dictionary_for(lang: Option<&str>, words: &[u64]) -> Option<&'static immutables::Language> {
    let dictionary = Dictionary::shipped();
    match lang {
        Some(code) => dictionary.language(code),
        None => dictionary.likeliest(words),
    }
}

/// The first `max` bytes (about) of the content, for language detection.
fn sample<'a>(paragraphs: impl Iterator<Item = &'a str>, max: usize) -> String {
    let mut out = String::with_capacity(max + 256);
    for p in paragraphs {
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

mod items;
#[cfg(test)]
mod tests;
