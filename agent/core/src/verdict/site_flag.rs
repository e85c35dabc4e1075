//! The site flag: a neighborhood became bad, or recovered.

/// A neighborhood became bad, or recovered: the other output record beside
/// verdicts (neighborhoods make it; sinks write it; the crawl log and the
/// report read it back).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct SiteFlag {
    /// Always `site_flag` (tells these lines from verdicts in a JSONL stream).
    #[serde(rename = "type")]
    pub kind: String,
    /// `host/path/` for a path prefix, the registered domain for a domain.
    pub neighborhood: String,
    /// `bad` or `recovered`.
    pub state: String,
    pub badness: f64,
    pub pages: u32,
    pub threshold: f64,
    /// RFC 3339, UTC.
    pub at: String,
}
