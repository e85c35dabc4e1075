//! Input: what a page is when it comes in, and where pages come from.
//!
//! - `page`: one fetched page (`Page`) and its origin (`Input`, `Origin`);
//! - `decode`: body bytes to text (BOM, HTTP charset, `<meta>`, fallbacks);
//! - `site`: registered domains and ids;
//! - `sources`: the file sources — WARC, JSONL pages, HTML files and the
//!   directories that hold them. (The agent's network sources are in
//!   `crawlsieve-daemon`.)

pub mod decode;
pub mod page;
pub mod site;
pub mod sources;

use serde::Deserialize;

/// `[input]`: how much of a page is read, and which content types are pages.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputSettings {
    pub max_page_bytes: usize,
    /// The HTML pass of one page may take this long; beyond, `error` / `too_slow`. 0: no budget.
    pub max_page_ms: u64,
    pub html_content_types: Vec<String>,
    /// WARC `resource` records holding HTML are judged like responses.
    pub resource_records: bool,
    /// Captures a scan remembers for the revisit records that repeat them
    /// (about 200 bytes each); 0: none, every revisit unresolved.
    pub revisit_memory: usize,
    /// Verdict files of earlier runs whose captures revisits may repeat.
    pub revisit_verdicts: Vec<std::path::PathBuf>,
}

impl InputSettings {
    pub(crate) fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.max_page_bytes >= 1024,
            "configuration: key `input.max_page_bytes`: must be at least 1024"
        );
        Ok(())
    }
}
