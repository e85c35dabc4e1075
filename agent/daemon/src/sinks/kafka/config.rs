use super::KafkaSink;
use crate::sinks::{Component, Place, Sink};
use serde::Deserialize;
use std::sync::Arc;
use std::time::Duration;

/// `kind = "kafka"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub brokers: String,
    pub topic: String,
    #[serde(default = "default_ack_ms")]
    pub ack_timeout_ms: u64,
    /// Idempotent producer (no duplicates from its own retries). tansu 0.6
    /// loses idempotent producers' state when it restarts: set false there.
    #[serde(default = "default_true")]
    pub idempotent: bool,
}

fn default_ack_ms() -> u64 {
    2000
}

fn default_true() -> bool {
    true
}

impl Component for Config {
    async fn build(&self, at: &Place<'_>) -> anyhow::Result<Arc<dyn Sink>> {
        let name = at.name("kafka");
        let spool = at.open_spool(&name)?;
        let sink = KafkaSink::start(
            name,
            &self.brokers,
            self.topic.clone(),
            Duration::from_millis(self.ack_timeout_ms),
            self.idempotent,
            spool,
        )?;
        Ok(sink)
    }
}
