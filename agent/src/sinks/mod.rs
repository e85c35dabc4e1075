//! Sinks: where verdicts go. The only thing they see is the `Verdict`.
//!
//! `Sink` is the synchronous form `scan` writes to (JSONL); the agent's sinks
//! (`rotating`, `nats`) are asynchronous, acknowledge per message and spool
//! to disk (`spool`) when a broker is down.

pub mod jsonl;
pub mod kafka;
pub mod nats;
pub mod rotating;
pub mod spool;
pub mod warc_metadata;

use crate::verdict::SiteFlag;
use crate::verdict::Verdict;

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
