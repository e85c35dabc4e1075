use super::Nats;
use crate::agent::sources::{Place, Source};
use serde::Deserialize;

/// `kind = "nats"`: pages published by the crawler to a NATS JetStream subject
/// (JSON envelopes), read with a durable pull consumer; each acked once its
/// verdict is delivered.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default = "default_url")]
    pub url: String,
    /// The stream holding the pages (created with `subject` when missing).
    pub stream: String,
    pub subject: String,
    #[serde(default = "default_consumer")]
    pub consumer: String,
    /// After this long with nothing received, the source asks the server
    /// whether pages are waiting; waiting and no progress one period later
    /// = a stalled consumer, started again.
    #[serde(default = "crate::agent::sources::default_stall_ms")]
    pub stall_after_ms: u64,
}

fn default_url() -> String {
    "nats://127.0.0.1:4222".into()
}

fn default_consumer() -> String {
    "crawlsieve".into()
}

impl Config {
    pub fn build(&self, at: &Place) -> anyhow::Result<Box<dyn Source>> {
        Ok(Box::new(Nats {
            url: self.url.clone(),
            stream: self.stream.clone(),
            subject: self.subject.clone(),
            consumer: self.consumer.clone(),
            stall_after: at.stall_after(self.stall_after_ms)?,
        }))
    }
}
