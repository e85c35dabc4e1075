//! A verdict stream read back, leniently: what `report`, `annotate-log` and
//! the crawl's analyses need of each line.

use super::{contribution, ItemMatch, Reason};

/// A line of a verdict stream read back (by `report` and `annotate-log`):
/// the fields they need, leniently (unknown fields are ignored, so streams
/// written by older or newer versions still read).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct VerdictRecord {
    /// `site_flag` for site-flag events; absent on verdicts.
    #[serde(rename = "type", default)]
    pub line_type: Option<String>,
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub site: Option<String>,
    /// When the page was fetched (what `dedup` keeps the earliest of).
    #[serde(default)]
    pub fetched_at: Option<String>,
    #[serde(default)]
    pub verdict: Option<String>,
    #[serde(default)]
    pub reasons: Vec<String>,
    #[serde(default)]
    pub lang: Option<String>,
    #[serde(default)]
    pub contains: Option<f64>,
    #[serde(default)]
    pub whole_match: bool,
    #[serde(default)]
    pub shingle_contains: Option<f64>,
    #[serde(default)]
    pub words: Option<u32>,
    #[serde(default)]
    pub labels_version: Option<String>,
    #[serde(default)]
    pub origin: Option<OriginRecord>,
    /// With `output.content` (what `quilts` reads).
    #[serde(default)]
    pub content: Option<String>,
    /// With `output.style_fp` (what `styles` reads).
    #[serde(default)]
    pub style_fp: Option<String>,
    /// Items of item sets the page contains (what the report's contamination reads).
    #[serde(default)]
    pub items: Vec<ItemMatch>,
    #[serde(default)]
    pub items_found: u32,
    /// Why an `error` verdict's page could not be judged.
    #[serde(default)]
    pub error: Option<String>,
    /// The page's opt-out signals (what the report counts per site).
    #[serde(default)]
    pub opt_out: Vec<OptOutRecord>,
}

/// An opt-out signal read back, by name (a newer version's signals read too).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct OptOutRecord {
    pub signal: String,
    #[serde(default)]
    pub from: String,
}

/// Where a verdict's page came from, read back (the fields `cdx` joins on).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct OriginRecord {
    pub kind: String,
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub offset: Option<u64>,
}

impl VerdictRecord {
    /// A verdict (not a site flag or another event).
    pub fn is_verdict(&self) -> bool {
        self.line_type.is_none() && self.verdict.is_some()
    }

    /// What the page adds to its neighborhoods ([`contribution`]).
    pub fn contribution(&self) -> Option<f64> {
        let copied = self.whole_match
            || self
                .reasons
                .iter()
                .any(|r| Reason::COPY.iter().any(|c| c.as_str() == r));
        contribution(copied, self.contains, self.shingle_contains)
    }
}
