use super::NatsSink;
use crate::sinks::{Component, Place, Sink};
use serde::Deserialize;
use std::sync::Arc;
use std::time::Duration;

/// `kind = "nats"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default = "default_url")]
    pub url: String,
    #[serde(default = "default_stream")]
    pub stream: String,
    #[serde(default = "default_subject")]
    pub subject: String,
    /// How long a publish waits for the stream's ack before the verdict is spooled.
    #[serde(default = "default_ack_ms")]
    pub ack_timeout_ms: u64,
    /// The stream's de-duplication window, when the agent creates the stream.
    #[serde(default = "default_dedup_s")]
    pub duplicate_window_seconds: u64,
}

fn default_url() -> String {
    "nats://127.0.0.1:4222".into()
}
fn default_stream() -> String {
    "CRAWLSIEVE".into()
}
fn default_subject() -> String {
    "crawlsieve.verdicts".into()
}
fn default_ack_ms() -> u64 {
    2000
}
fn default_dedup_s() -> u64 {
    600
}

impl Component for Config {
    async fn build(&self, at: &Place<'_>) -> anyhow::Result<Arc<dyn Sink>> {
        let name = at.name("nats");
        let spool = at.open_spool(&name)?;
        let sink = NatsSink::start(
            name,
            &self.url,
            self.stream.clone(),
            self.subject.clone(),
            Duration::from_millis(self.ack_timeout_ms),
            Duration::from_secs(self.duplicate_window_seconds),
            spool,
        )
        .await?;
        Ok(sink)
    }
}
