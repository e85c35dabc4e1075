//! The agent's sinks: asynchronous, acknowledged per message, spooled to disk
//! (`spool`) while a broker is down. (`scan`'s synchronous sinks are the core's
//! `output`.)
//!
//! Each sink is a component: a folder with its `config.rs` (the keys of its
//! `[[agent.sinks]]` entry, and the [`Component`] that builds it) and its
//! `sink.rs` (the [`Sink`] it builds). The components are listed once, in the
//! `components!` list below, which makes the modules, the variants of
//! [`SinkConfig`] and the arms of [`SinkConfig::build`]: a new sink is a new
//! folder and one line there (docs/architecture.md, "Adding a sink").

pub mod spool;

use futures::future::BoxFuture;
use serde::Deserialize;
use spool::{Spool, SpoolSettings, Spooled, SyncPolicy};
use std::future::Future;
use std::sync::Arc;

/// A destination for the agent's messages (verdicts and site flags).
///
/// `send` returning Ok is the sink's promise: the message is acknowledged by
/// its broker, written, or spooled to disk. The page behind it is
/// acknowledged only once every sink made that promise.
pub trait Sink: Send + Sync {
    /// One message: `key` orders messages where the destination can (Kafka:
    /// the site), `id` is the message's id (NATS de-duplicates on it).
    fn send<'a>(
        &'a self,
        key: &'a str,
        id: &'a str,
        payload: &'a [u8],
    ) -> BoxFuture<'a, anyhow::Result<()>>;

    /// The sink's publish-or-spool delivery, for a broker sink; None for one
    /// that writes directly.
    fn spooled(&self) -> Option<&Spooled> {
        None
    }

    /// True when the sink could not take another message of `bytes` (its
    /// spool is full): the agent then takes no pages (back-pressure instead
    /// of a refusal later).
    fn would_overflow(&self, bytes: u64) -> bool {
        self.spooled()
            .is_some_and(|d| d.spool.would_overflow(bytes))
    }

    /// What `/metrics` shows of a sink with a spool; None for one without.
    fn health(&self) -> Option<Health<'_>> {
        self.spooled().map(Spooled::health)
    }

    /// End of the run: what the sink holds reaches the disk.
    fn flush(&self) -> anyhow::Result<()> {
        Ok(())
    }
}

/// A spooling sink's gauges and counters, read at scrape time.
pub struct Health<'a> {
    pub name: &'a str,
    pub spool_depth: u64,
    pub failures: u64,
    /// Messages the broker recognised as already delivered (NATS).
    pub duplicates: Option<u64>,
}

/// What a sink's `[[agent.sinks]]` entry is: its keys, which build the sink.
pub trait Component {
    /// Builds the sink; a mistake names its key (`agent.sinks[2].path`).
    fn build(&self, at: &Place<'_>) -> impl Future<Output = anyhow::Result<Arc<dyn Sink>>> + Send;
}

/// Lists the sink components, `module => Variant` (the variant's snake-case
/// name is the entry's `kind`): the modules, the [`SinkConfig`] enum and its
/// `build` are made from the list, so that it is the one place a sink is named.
macro_rules! components {
    ($($(#[$doc:meta])* $module:ident => $variant:ident,)+) => {
        $(pub mod $module;)+

        /// One `[[agent.sinks]]` entry: `kind` names the component, the other
        /// keys are its own.
        #[derive(Debug, Clone, Deserialize)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        pub enum SinkConfig {
            $($(#[$doc])* $variant($module::Config),)+
        }

        impl SinkConfig {
            /// Builds the sink; a mistake names its key (`agent.sinks[2].path`).
            pub async fn build(&self, at: &Place<'_>) -> anyhow::Result<Arc<dyn Sink>> {
                match self {
                    $(SinkConfig::$variant(c) => c.build(at).await,)+
                }
            }
        }
    };
}

components! {
    /// JSON lines, rotated by size.
    jsonl => Jsonl,
    /// NATS JetStream: message id = verdict id, so the stream de-duplicates retries.
    nats => Nats,
    /// Kafka: key = site, one site's verdicts in one partition, in order.
    kafka => Kafka,
}

/// Where a sink is built: its place in `agent.sinks` (its key in errors, its
/// name in logs and metrics) and the agent's spool settings.
pub struct Place<'a> {
    pub index: usize,
    pub spool: &'a SpoolSettings,
    pub sync: SyncPolicy,
}

impl Place<'_> {
    /// `kind-index`: the sink's name in logs, metrics and its spool file.
    pub fn name(&self, kind: &str) -> String {
        format!("{kind}-{}", self.index)
    }

    /// The sink's own spool; a directory it cannot open fails at start-up,
    /// naming its key.
    pub fn open_spool(&self, name: &str) -> anyhow::Result<Spool> {
        let dir = &self.spool.dir;
        Spool::open(dir, name, self.spool.max_bytes, self.sync).map_err(|e| {
            anyhow::anyhow!(
                "configuration: key `agent.spool.dir`: {}: {e:#}",
                dir.display()
            )
        })
    }
}
