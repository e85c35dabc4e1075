//! Output: where verdicts go, and what reads a stream of them back.
//!
//! - `Sink`, the synchronous destination `scan` writes to: `jsonl` (one
//!   verdict a line) and `warc_metadata` (WARC metadata records). The agent's
//!   asynchronous, acknowledged sinks are `crawlsieve-daemon`'s.
//! - Readers of verdict streams: `crawllog` (Heritrix-style log lines),
//!   `cdxj` (a CDXJ index). (The HTML report, which judges neighborhoods,
//!   styles and quilts again, is the crate's `report`.)

use serde::Deserialize;
pub mod cdxj;
pub mod crawllog;
pub mod jsonl;
pub mod warc_metadata;

use crate::verdict::SiteFlag;
use crate::verdict::Verdict;

/// `[output]`: where `scan` writes verdicts, and what they include.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSettings {
    /// Where verdicts go: a file path, or `-` for stdout (the default).
    #[serde(default)]
    pub path: Option<String>,
    /// Include the extracted content in every verdict.
    #[serde(default)]
    pub content: bool,
    /// Include the page's hidden-style fingerprint (`style_fp`, README
    /// "Style clusters") in every verdict. Off by default: it costs more
    /// than 5 % of throughput.
    #[serde(default)]
    pub style_fp: bool,
}

/// A destination for verdicts.
pub trait Sink: Send {
    /// Accepts one verdict; an error stops the run (nothing is dropped silently).
    fn send(&mut self, verdict: &Verdict) -> anyhow::Result<()>;
    /// Accepts a site flag (a neighborhood became bad or recovered).
    fn send_flag(&mut self, flag: &SiteFlag) -> anyhow::Result<()>;
    /// Makes everything sent so far durable / visible.
    fn flush(&mut self) -> anyhow::Result<()>;
}

/// Verdicts to several sinks, in order; the first error stops the run.
pub struct Tee(pub Vec<Box<dyn Sink>>);

impl Sink for Tee {
    fn send(&mut self, v: &Verdict) -> anyhow::Result<()> {
        self.0.iter_mut().try_for_each(|s| s.send(v))
    }
    fn send_flag(&mut self, f: &SiteFlag) -> anyhow::Result<()> {
        self.0.iter_mut().try_for_each(|s| s.send_flag(f))
    }
    fn flush(&mut self) -> anyhow::Result<()> {
        self.0.iter_mut().try_for_each(|s| s.flush())
    }
}
