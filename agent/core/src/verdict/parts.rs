//! What a verdict carries besides its figures: the rule a page failed, its
//! opt-out signals, the URL list entry, the page it duplicates, the items
//! it holds.

use serde::{Deserialize, Serialize};

/// A rule of a corpus rule set that a page failed (`filters.rules`): which,
/// the value the page had and the limit it crossed, in datatrove's names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleFailure {
    /// The rule set (`gopher_repetition`, `gopher_quality`, `c4`, `fineweb`).
    pub set: String,
    /// The rule, as datatrove names it (`dup_line_frac`, `gopher_short_doc`).
    pub rule: String,
    /// Rounded to four places.
    pub value: f64,
    pub limit: f64,
}

impl RuleFailure {
    /// A failure of `rule` (its set named by whoever runs the set).
    pub fn new(rule: &str, value: f64, limit: f64) -> RuleFailure {
        let round = |x: f64| (x * 10_000.0).round() / 10_000.0;
        RuleFailure {
            set: String::new(),
            rule: rule.to_string(),
            value: round(value),
            limit,
        }
    }
}

/// A signal a page carries about its use for AI training.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Signal {
    /// The robots directive `noai`: no use of the page's content for AI.
    Noai,
    /// The robots directive `noimageai`: no use of its images for AI.
    Noimageai,
    /// TDMRep's `tdm-reservation: 1`: text and data mining rights reserved.
    TdmReservation,
    /// TDMRep's `tdm-policy`: where the terms of a licence are (`value`).
    TdmPolicy,
}

impl Signal {
    pub const ALL: [Signal; 4] = [
        Signal::Noai,
        Signal::Noimageai,
        Signal::TdmReservation,
        Signal::TdmPolicy,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Signal::Noai => "noai",
            Signal::Noimageai => "noimageai",
            Signal::TdmReservation => "tdm_reservation",
            Signal::TdmPolicy => "tdm_policy",
        }
    }
}

/// Where a page said it: its markup or its response headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignalSource {
    Meta,
    Header,
}

/// One signal a page carries, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OptOut {
    pub signal: Signal,
    pub from: SignalSource,
    /// The policy's URL (`tdm_policy`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// The entry of a URL list that matched a page's URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UrlListed {
    /// The list's name: its directory's or file's name (`adult`), or
    /// `url_words` for the banned words of FineWeb's URL filter.
    pub list: String,
    /// What matched: a domain (`example.com`), a URL prefix
    /// (`example.com/path`), or the banned word.
    pub entry: String,
}

/// The first page seen with a page's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DuplicateOf {
    pub id: String,
    pub url: String,
    /// 1 for the same content; else the estimated Jaccard similarity of
    /// the two pages' shingles.
    pub similarity: f64,
    /// The same normalised content (its SHA-1), not only similar.
    pub exact: bool,
    /// The earlier crawl's index it was found in; absent: this crawl's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
}

/// An item a page contains: which set, task and item, and how much of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemMatch {
    pub set: String,
    pub task: String,
    pub id: String,
    /// Of the item's grams, the share found on the page in its order (the
    /// question alone of an item with a long answer is below 1).
    pub share: f64,
}
