use super::{HandoverConfig, Kafka};
use crate::agent::sources::{Place, Source};
use serde::Deserialize;
use std::time::Duration;

/// `kind = "kafka"`: pages on a Kafka topic (JSON envelopes), read in a
/// consumer group; offsets are committed only past pages whose verdicts are
/// delivered.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub brokers: String,
    pub topic: String,
    #[serde(default = "default_group")]
    pub group: String,
    /// As for NATS, with the group's lag and committed offsets.
    #[serde(default = "crate::agent::sources::default_stall_ms")]
    pub stall_after_ms: u64,
    /// With neighborhoods on: the topic each partition's neighborhood state
    /// is checkpointed to and handed over through when partitions move
    /// between the agents of the group (default `<topic>.crawlsieve-neighborhoods`,
    /// created compacted with the page topic's partition count when missing).
    #[serde(default)]
    pub neighborhoods_topic: Option<String>,
    /// Seconds between checkpoints of the partitions' neighborhood state;
    /// offsets are committed with each one, so a crashed agent's pages since
    /// its last checkpoint are read again (judged again, counted once).
    #[serde(default = "default_checkpoint_seconds")]
    pub checkpoint_seconds: u64,
}

fn default_group() -> String {
    "crawlsieve".into()
}

fn default_checkpoint_seconds() -> u64 {
    5
}

impl Config {
    pub fn build(&self, at: &Place) -> anyhow::Result<Box<dyn Source>> {
        let checkpoint_seconds = self.checkpoint_seconds;
        anyhow::ensure!(
            (1..=3600).contains(&checkpoint_seconds),
            "agent.sources[{}].checkpoint_seconds: {checkpoint_seconds} is outside 1..=3600",
            at.index
        );
        let handover = at.neighborhoods.then(|| HandoverConfig {
            state_topic: self
                .neighborhoods_topic
                .clone()
                .unwrap_or_else(|| format!("{}.crawlsieve-neighborhoods", self.topic)),
            every: Duration::from_secs(checkpoint_seconds),
        });
        Ok(Box::new(Kafka {
            brokers: self.brokers.clone(),
            topic: self.topic.clone(),
            group: self.group.clone(),
            stall_after: at.stall_after(self.stall_after_ms)?,
            handover,
        }))
    }
}
