//! The verdict: one per page, the only thing sinks see. Schema in docs/verdicts.md.
//! The parts a verdict carries (`parts.rs`), a verdict stream read back
//! (`record.rs`) and the site flag, the other output record (`site_flag.rs`),
//! each in its own file.

mod parts;
mod record;
mod site_flag;

pub use parts::{DuplicateOf, ItemMatch, OptOut, RuleFailure, Signal, SignalSource, UrlListed};
pub use record::{OptOutRecord, OriginRecord, VerdictRecord};
pub use site_flag::SiteFlag;

use crate::input::page::Origin;
use serde::{Deserialize, Serialize};

/// What the agent says about a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Substantive text, not copied from a labeled set.
    Keep,
    /// Failed a filter; `reasons` says which.
    Drop,
    /// Substantive text, copied (partly or wholly) from a labeled set.
    Flag,
    /// Could not be judged; `error` says why.
    Error,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Keep, Kind::Drop, Kind::Flag, Kind::Error];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Keep => "keep",
            Kind::Drop => "drop",
            Kind::Flag => "flag",
            Kind::Error => "error",
        }
    }
}

/// Why: the filter that dropped a page, why it was flagged, or a note.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    // Filters, in the order they run: the URL, what the page says about
    // its use, then DSpin's (§V-B).
    /// The page's URL is on a block list (`url_listed` names the list and
    /// the entry), or its words are banned (`filters.urls`).
    UrlBlocked,
    /// The page states that it is not to be used for AI training
    /// (`opt_out` lists the signals), and `filters.opt_out.drop` names one.
    OptOut,
    NoVisibleText,
    NoContentTag,
    TooShort,
    LinkDense,
    Language,
    // The corpus rule sets (`filters.rules`), in FineWeb's order; `rule_failed` says which rule.
    GopherRepetition,
    GopherQuality,
    C4,
    Fineweb,
    // Flags: the copy rules (on a dropped page they follow the drop reason as notes).
    LabeledChunks,
    LabeledShingles,
    LabeledText,
    NearDuplicate,
    WholeContent,
    /// A spun copy: the page's immutables match a labeled page's (DSpin).
    Spun,
    /// The page contains items of an item set (benchmark questions, short
    /// texts; `items` names them). Not a copy rule: a page quoting a
    /// benchmark item is contaminated, its site no copier for it.
    LabeledItem,
    // Notes that do not decide the verdict.
    Truncated,
    LanguageUnknown,
    DecodeErrors,
    /// The page is on the origin site of a labeled set it matched: the
    /// original, not a copy (`origin_of` names the sets).
    LabeledOrigin,
    /// The sets carry immutables, but the page's language has no mutables
    /// dictionary (or is unknown): spun copies of it are not looked for.
    SpunUnchecked,
    /// A WARC revisit record: its verdict is that of the capture it repeats
    /// (`revisit_of`), judged earlier in the run or read from a verdict file.
    Revisit,
    /// A revisit record whose capture's verdict is not known (not in this
    /// run, nor in the verdict files given): an `error`, naming the capture.
    RevisitUnresolved,
    /// The page's content was seen before (`duplicate_of` names the first
    /// page with it): a note, or the drop reason with `dedup.action = "drop"`.
    Duplicate,
    /// The index of pages seen failed: the page was not looked up.
    DuplicateUnchecked,
    // Errors.
    BrokenInput,
    BinaryBody,
    ParseError,
    /// The page outran its time budget (`input.max_page_ms`).
    TooSlow,
    InternalError,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::UrlBlocked => "url_blocked",
            Reason::OptOut => "opt_out",
            Reason::NoVisibleText => "no_visible_text",
            Reason::NoContentTag => "no_content_tag",
            Reason::TooShort => "too_short",
            Reason::LinkDense => "link_dense",
            Reason::Language => "language",
            Reason::GopherRepetition => "gopher_repetition",
            Reason::GopherQuality => "gopher_quality",
            Reason::C4 => "c4",
            Reason::Fineweb => "fineweb",
            Reason::LabeledChunks => "labeled_chunks",
            Reason::LabeledShingles => "labeled_shingles",
            Reason::LabeledText => "labeled_text",
            Reason::NearDuplicate => "near_duplicate",
            Reason::WholeContent => "whole_content",
            Reason::Spun => "spun",
            Reason::LabeledItem => "labeled_item",
            Reason::Truncated => "truncated",
            Reason::LanguageUnknown => "language_unknown",
            Reason::DecodeErrors => "decode_errors",
            Reason::LabeledOrigin => "labeled_origin",
            Reason::SpunUnchecked => "spun_unchecked",
            Reason::Revisit => "revisit",
            Reason::RevisitUnresolved => "revisit_unresolved",
            Reason::Duplicate => "duplicate",
            Reason::DuplicateUnchecked => "duplicate_unchecked",
            Reason::BrokenInput => "broken_input",
            Reason::BinaryBody => "binary_body",
            Reason::ParseError => "parse_error",
            Reason::TooSlow => "too_slow",
            Reason::InternalError => "internal_error",
        }
    }
}

impl Reason {
    /// The copy rules: a page with one of these was found to copy labeled content.
    pub const COPY: [Reason; 6] = [
        Reason::WholeContent,
        Reason::LabeledChunks,
        Reason::LabeledShingles,
        Reason::LabeledText,
        Reason::NearDuplicate,
        Reason::Spun,
    ];

    pub fn is_copy(self) -> bool {
        Self::COPY.contains(&self)
    }
}

/// What a page adds to its neighborhoods' badness: 1 when a copy rule fired,
/// else the larger of its chunk and shingle containment; nothing when the
/// page had no content to match. One function for live verdicts and verdict
/// files read back, so both judge sites alike.
pub fn contribution(
    copied: bool,
    contains: Option<f64>,
    shingle_contains: Option<f64>,
) -> Option<f64> {
    if copied {
        return Some(1.0);
    }
    match (contains, shingle_contains) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// Matched chunks, shingles and immutable grams per label.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LabelCount {
    pub label: String,
    pub chunks: u32,
    pub shingles: u32,
    pub immutables: u32,
}

/// One page's verdict and the figures behind it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// Stable id: the WARC-Record-ID, else BLAKE3 of URL and body (40 hex digits).
    pub id: String,
    pub url: String,
    /// Registered domain (public-suffix aware), or the host for IPs and unknown suffixes.
    pub site: Option<String>,
    pub verdict: Kind,
    pub reasons: Vec<Reason>,
    pub origin: Origin,
    pub status: Option<u16>,
    pub fetched_at: Option<String>,
    pub title: Option<String>,
    /// Body bytes judged (after the size cap).
    pub bytes: u64,
    /// Visible words on the whole page.
    pub page_words: u32,
    /// Words of the extracted content.
    pub words: u32,
    /// `<a href>` inside the content.
    pub links: u32,
    /// links / words of the content.
    pub link_density: f64,
    /// ISO 639-3 code, or `unknown`; absent when the page was dropped before detection.
    pub lang: Option<String>,
    pub lang_confidence: Option<f64>,
    /// Paragraph chunks of the content.
    pub chunks: u32,
    pub stop_chunks: u32,
    /// Chunks shorter than `chunks.min_chars`: neither matched nor counted.
    pub short_chunks: u32,
    pub matched_chunks: u32,
    /// contains(L, f) = matched / (chunks − stop − short); absent when not computed.
    pub contains: Option<f64>,
    /// The whole-content hash is in a labeled set.
    pub whole_match: bool,
    /// Characters of the matched chunks: labeled text found, however much else the page holds.
    pub labeled_chars: u32,
    /// Sampled word shingles of the content (docs/algorithms.md, "Shingles and SimHash").
    pub shingles: u32,
    pub matched_shingles: u32,
    /// matched_shingles / shingles; absent when the page has no shingle.
    pub shingle_contains: Option<f64>,
    /// 64-bit SimHash of the content's shingles, 16 hex digits.
    pub simhash: Option<String>,
    /// Bits between the page's SimHash and the nearest labeled page's, when within
    /// `labels.near_duplicate_bits`.
    pub near_duplicate: Option<u32>,
    /// Sampled immutable 4-grams of the content (docs/algorithms.md,
    /// "Immutables"); 0 when the sets carry none or the language has no dictionary.
    pub immutables: u32,
    pub matched_immutables: u32,
    /// matched_immutables / immutables: the similarity `spun` judges; absent
    /// when the page has no immutable gram.
    pub spun_contains: Option<f64>,
    /// Of the page's five equal parts (its immutable grams in order), the
    /// share holding a match: a spin matches everywhere, a quote in one place.
    pub spun_spread: Option<f64>,
    /// Labels whose chunks matched, with counts.
    pub labels: Vec<LabelCount>,
    /// Versions of the labeled sets the page was judged against.
    pub labels_version: Option<String>,
    /// Labeled sets whose origin site the page is on and whose content it
    /// holds: the original, not a copy (`labeled_origin`); their matches are
    /// left out of every figure above.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub origin_of: Vec<String>,
    /// Items of item sets the page contains (`labeled_item`), the first
    /// `labels.items.listed` in set and item order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<ItemMatch>,
    /// Items found in all, listed or not.
    #[serde(skip_serializing_if = "is_zero")]
    pub items_found: u32,
    /// SHA-1 (hex) of the normalised content (docs/algorithms.md).
    pub content_sha1: Option<String>,
    /// Extracted content (only when `output.content` is on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Hidden-style fingerprint of the page's markup (only when
    /// `output.style_fp` is on): 128 `u32`, little-endian, URL-safe base64.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub style_fp: Option<String>,
    /// A revisit record's capture: the verdict is that capture's (reason
    /// `revisit`), or an error when it is not known (`revisit_unresolved`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revisit_of: Option<crate::input::page::RevisitOf>,
    /// The first page seen with this content (`dedup`; reason `duplicate`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<DuplicateOf>,
    /// The corpus rule a page failed (reasons `gopher_repetition`,
    /// `gopher_quality`, `c4`, `fineweb`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule_failed: Option<RuleFailure>,
    /// Lines of the content C4's rules removed (`filters.rules` with `c4`).
    #[serde(skip_serializing_if = "is_zero")]
    pub lines_removed: u32,
    /// What the page says about being used for AI training, wherever it
    /// says it (robots meta, `X-Robots-Tag`, TDMRep): recorded on every
    /// verdict that has any; a drop reason only when configured.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub opt_out: Vec<OptOut>,
    /// The list entry the page's URL matched (reason `url_blocked`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url_listed: Option<UrlListed>,
    /// Time spent judging the page, µs.
    pub elapsed_us: u64,
    pub error: Option<String>,
    /// The page's matchable chunk hashes and shingle records, for an agent
    /// that counts what it judges (`[agent.counts]`); never written out.
    #[serde(skip)]
    pub counted: Vec<crate::fingerprints::chunks::Hash>,
    /// The content's MinHash signature, for the index of pages seen
    /// (`dedup`), which takes it; never written out.
    #[serde(skip)]
    pub minhash: Option<Vec<u32>>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Verdict {
    /// An empty verdict of kind `keep` for a page, to be filled in.
    pub fn new(id: String, url: String, origin: Origin) -> Self {
        Verdict {
            id,
            url,
            site: None,
            verdict: Kind::Keep,
            reasons: Vec::new(),
            origin,
            status: None,
            fetched_at: None,
            title: None,
            bytes: 0,
            page_words: 0,
            words: 0,
            links: 0,
            link_density: 0.0,
            lang: None,
            lang_confidence: None,
            chunks: 0,
            stop_chunks: 0,
            short_chunks: 0,
            matched_chunks: 0,
            contains: None,
            whole_match: false,
            labeled_chars: 0,
            shingles: 0,
            matched_shingles: 0,
            shingle_contains: None,
            simhash: None,
            near_duplicate: None,
            immutables: 0,
            matched_immutables: 0,
            spun_contains: None,
            spun_spread: None,
            labels: Vec::new(),
            labels_version: None,
            origin_of: Vec::new(),
            items: Vec::new(),
            items_found: 0,
            content_sha1: None,
            content: None,
            counted: Vec::new(),
            minhash: None,
            style_fp: None,
            revisit_of: None,
            duplicate_of: None,
            rule_failed: None,
            lines_removed: 0,
            opt_out: Vec::new(),
            url_listed: None,
            elapsed_us: 0,
            error: None,
        }
    }

    /// Whether a copy rule fired (also on a dropped page, where they are notes).
    pub fn copied(&self) -> bool {
        self.reasons.iter().any(|r| r.is_copy())
    }

    /// Marks the verdict as an error.
    pub fn fail(&mut self, reason: Reason, error: impl Into<String>) {
        self.verdict = Kind::Error;
        self.reasons.push(reason);
        self.error = Some(error.into());
    }
}
