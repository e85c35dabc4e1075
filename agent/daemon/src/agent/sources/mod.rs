//! The agent's sources: pages posted to its listener (`http`), a NATS
//! JetStream subject, a Kafka topic, a directory of WARC files.
//!
//! Each source is a component: a folder with its `config.rs` (the keys of its
//! `[[agent.sources]]` entry, checked and built into the source) beside the
//! source itself. The components are listed once, in [`SourceConfig`].
//!
//! The queue-like ones (all but `http`, whose pages arrive on the agent's
//! listener) drive pages through `feed::drive`, and each runs under
//! `supervise`, so a source never stops for the lifetime of the agent: a run that fails (broker down at start, a stream that cannot
//! be set up), panics, ends, or is ended by its `watchdog` (a consumer that
//! went silent with pages waiting) is logged at once, counted in
//! `crawlsieve_source_restarts_total{source,why}`, and started again.

pub mod http;
pub mod kafka;
pub mod nats;
pub mod warc_dir;
pub mod watchdog;

pub use kafka::kafka;
pub use nats::nats;
pub use warc_dir::warc_dir;

use super::metrics::{RestartLabel, SourceLabel};
use super::Agent;
use crate::backoff::Backoff;
use crawlsieve_core::input::page::{Input, Origin};
use crawlsieve_core::input::sources::jsonl::page_from_json;
use futures::future::BoxFuture;
use prometheus_client::metrics::counter::Counter;
use serde::Deserialize;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// A source that pulls pages while the agent runs.
pub trait Source: Send + 'static {
    /// Takes pages until the agent stops (`run.stop`), restarting its own
    /// failed runs (`supervise`).
    fn run(self: Box<Self>, run: Run) -> BoxFuture<'static, ()>;
}

/// A kind of source, as `agent.trusted_sources` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    Http,
    Nats,
    Kafka,
    WarcDir,
}

impl SourceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Http => "http",
            SourceKind::Nats => "nats",
            SourceKind::Kafka => "kafka",
            SourceKind::WarcDir => "warc_dir",
        }
    }
}

/// One `[[agent.sources]]` entry: `kind` names the component, the other
/// keys are its own.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SourceConfig {
    Http(http::Config),
    Nats(nats::Config),
    Kafka(kafka::Config),
    WarcDir(warc_dir::Config),
}

impl SourceConfig {
    pub fn kind(&self) -> SourceKind {
        match self {
            SourceConfig::Http(_) => SourceKind::Http,
            SourceConfig::Nats(_) => SourceKind::Nats,
            SourceConfig::Kafka(_) => SourceKind::Kafka,
            SourceConfig::WarcDir(_) => SourceKind::WarcDir,
        }
    }

    /// What can be checked before anything starts (a directory that is not
    /// there fails at start-up, naming its key).
    pub fn check(&self, index: usize) -> anyhow::Result<()> {
        match self {
            SourceConfig::WarcDir(c) => c.check(index),
            _ => Ok(()),
        }
    }

    /// The source, its keys checked; None for `http` (its route is the
    /// listener's: `http::routes`).
    pub fn build(&self, at: &Place) -> anyhow::Result<Option<Box<dyn Source>>> {
        Ok(Some(match self {
            SourceConfig::Http(_) => return Ok(None),
            SourceConfig::Nats(c) => c.build(at)?,
            SourceConfig::Kafka(c) => c.build(at)?,
            SourceConfig::WarcDir(c) => c.build(at)?,
        }))
    }
}

/// Where a source is built: its place in `agent.sources` (its key in errors,
/// its name in logs and metrics) and what of the agent it depends on.
pub struct Place {
    pub index: usize,
    /// Neighborhoods are on: a partitioned source hands their state over.
    pub neighborhoods: bool,
}

impl Place {
    /// `stall_after_ms`, checked.
    pub fn stall_after(&self, ms: u64) -> anyhow::Result<Duration> {
        anyhow::ensure!(
            (100..=3_600_000).contains(&ms),
            "agent.sources[{}].stall_after_ms: {ms} is outside 100..=3600000",
            self.index
        );
        Ok(Duration::from_millis(ms))
    }
}

pub(crate) fn default_stall_ms() -> u64 {
    30_000
}

/// What every run of a source gets.
#[derive(Clone)]
pub struct Run {
    pub agent: Arc<Agent>,
    /// `<kind>-<index in agent.sources>`, as in metrics and logs.
    pub name: String,
    /// Pages in flight at most.
    pub window: usize,
    pub stop: watch::Receiver<bool>,
    /// Pages this source took (`crawlsieve_source_pages_total`).
    pub taken: Counter,
    /// Its pages count in neighborhoods and counts (`agent.trusted_sources`).
    pub trusted: bool,
    /// Consecutive runs the watchdog ended without a page taken in between.
    /// Each doubles the next run's idle period (up to 16×): a consumer
    /// restarted too soon can keep its group from ever settling.
    pub stalls: Arc<std::sync::atomic::AtomicU32>,
}

impl Run {
    /// What `feed::drive` takes from the run.
    pub fn feed(&self) -> super::feed::Feed<'_> {
        super::feed::Feed {
            window: self.window,
            taken: &self.taken,
            trusted: self.trusted,
        }
    }

    pub fn stopping(&self) -> bool {
        *self.stop.borrow()
    }

    /// The watchdog's idle period for this run: `base`, doubled per
    /// consecutive stall without progress (at most 16×).
    pub fn stall_after(&self, base: Duration) -> Duration {
        let n = self
            .stalls
            .load(std::sync::atomic::Ordering::Relaxed)
            .min(4);
        base * (1 << n)
    }

    /// Resolves when the agent stops.
    pub fn stopped(&self) -> impl Future<Output = ()> + 'static {
        let mut rx = self.stop.clone();
        async move {
            let _ = rx.wait_for(|s| *s).await;
        }
    }
}

impl Run {
    /// Drives a consumer's `pages` under the watchdog (idle `stall_after`,
    /// doubled per consecutive stall; `backlog` asks the broker) until the
    /// agent stops, the stream closes or the watchdog ends it; `ack` as in
    /// `feed::drive`. Says which of the three it was.
    pub async fn drive_watched<A: super::feed::Token, Fut>(
        &self,
        pages: impl futures::Stream<Item = (Input, A)> + Unpin,
        stall_after: Duration,
        backlog: impl FnMut() -> Fut,
        ack: impl FnMut(A),
    ) -> Ended
    where
        Fut: Future<Output = anyhow::Result<watchdog::Backlog>>,
    {
        let watch = watchdog::Watch::default();
        let pages = watchdog::watched(
            pages,
            self.stall_after(stall_after),
            backlog,
            self.name.clone(),
            &watch,
        );
        super::feed::drive(
            &self.agent,
            self.feed(),
            Box::pin(pages),
            ack,
            self.stopped(),
        )
        .await;
        Ended::after(self, &watch)
    }
}

/// Why a run returned without an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The agent is stopping.
    Stopped,
    /// The consumer's message stream closed.
    StreamClosed,
    /// The watchdog ended a consumer that received nothing with pages waiting.
    Stalled,
}

impl Ended {
    /// Why a watched consumer's `drive` returned.
    pub fn after(run: &Run, watch: &watchdog::Watch) -> Ended {
        if run.stopping() {
            Ended::Stopped
        } else if watch.stalled() {
            Ended::Stalled
        } else {
            Ended::StreamClosed
        }
    }
}

/// Runs `run` again and again until the agent stops. Backoff between runs
/// grows from 0.5 s to 30 s and starts over after a run that took pages.
pub async fn supervise<F, Fut>(run: Run, mut once: F)
where
    F: FnMut(Run) -> Fut,
    Fut: Future<Output = anyhow::Result<Ended>> + Send + 'static,
{
    let mut backoff = Backoff::new(Duration::from_millis(500), Duration::from_secs(30));
    while !run.stopping() {
        let before = run.taken.get();
        let why = match tokio::spawn(once(run.clone())).await {
            Ok(Ok(Ended::Stopped)) => break,
            Ok(Ok(Ended::Stalled)) => "stalled",
            Ok(Ok(Ended::StreamClosed)) => {
                tracing::warn!(source = %run.name, "message stream closed; starting again");
                "stream_closed"
            }
            Ok(Err(e)) => {
                tracing::warn!(source = %run.name, error = %e, retry_in = ?backoff.peek(), "source not ready");
                "failed"
            }
            Err(e) => {
                tracing::error!(source = %run.name, error = %e, retry_in = ?backoff.peek(), "source panicked");
                "panicked"
            }
        };
        run.agent
            .metrics
            .source_restarts
            .get_or_create(&RestartLabel {
                source: run.name.clone(),
                why: why.into(),
            })
            .inc();
        use std::sync::atomic::Ordering::Relaxed;
        if run.taken.get() > before {
            backoff.reset();
            run.stalls.store(0, Relaxed);
        } else if why == "stalled" {
            run.stalls.fetch_add(1, Relaxed);
        }
        let mut s = run.stop.clone();
        let _ = tokio::time::timeout(backoff.step(), s.wait_for(|s| *s)).await;
    }
}

/// A source's run context, with its page counter registered.
pub fn run_for(
    agent: &Arc<Agent>,
    name: String,
    kind: SourceKind,
    window: usize,
    stop: watch::Receiver<bool>,
) -> Run {
    let taken = agent
        .metrics
        .source_pages
        .get_or_create(&SourceLabel {
            source: name.clone(),
        })
        .clone();
    Run {
        agent: agent.clone(),
        name,
        window,
        stop,
        taken,
        trusted: agent.trusts(kind),
        stalls: Default::default(),
    }
}

/// Receive errors come in bursts while a broker is away (librdkafka reports
/// every connection attempt): the first of a burst is a warning, the rest
/// are debug lines, until a page arrives again.
pub struct Quiet<'a> {
    source: &'a str,
    failing: std::sync::atomic::AtomicBool,
    suppressed: std::sync::atomic::AtomicU64,
}

impl<'a> Quiet<'a> {
    pub fn new(source: &'a str) -> Self {
        Quiet {
            source,
            failing: false.into(),
            suppressed: 0.into(),
        }
    }

    pub fn failed(&self, e: &dyn std::fmt::Display) {
        use std::sync::atomic::Ordering::Relaxed;
        if self.failing.swap(true, Relaxed) {
            self.suppressed.fetch_add(1, Relaxed);
            tracing::debug!(source = self.source, error = %e, "receive failed");
        } else {
            tracing::warn!(source = self.source, error = %e, "receive failed (more are logged at debug until a page arrives)");
        }
    }

    pub fn ok(&self) {
        use std::sync::atomic::Ordering::Relaxed;
        if self.failing.swap(false, Relaxed) {
            let n = self.suppressed.swap(0, Relaxed);
            tracing::info!(source = self.source, errors = n + 1, "receiving again");
        }
    }
}

fn envelope(bytes: &[u8], origin: Origin, max_page_bytes: usize) -> Input {
    page_from_json(bytes, origin, max_page_bytes, "page envelope")
}

/// Adds a message's own headers (NATS message headers, Kafka record
/// headers) to its page: a crawler may send the page's response headers
/// there rather than in the envelope's `headers`. Those that state the
/// page's terms of use are kept (`Page::keep_header`).
fn with_headers<'a>(
    mut input: Input,
    headers: impl IntoIterator<Item = (&'a str, &'a [u8])>,
) -> Input {
    if let Input::Page(page) = &mut input {
        for (name, value) in headers {
            page.keep_header(name, &String::from_utf8_lossy(value));
        }
    }
    input
}
