//! Verdicts to a NATS JetStream stream. The message id is the verdict id, so
//! the stream drops a retried message within its de-duplication window.
//!
//! A publish waits for the stream's ack. When it fails (broker down, ack
//! timeout), the verdict goes to the sink's disk spool and counts as
//! accepted; while the spool holds anything, new verdicts queue behind it,
//! and a replay task publishes them in order when the broker is back.

use crate::sinks::spool::{fields, Spool, Spooled};
use crate::sinks::{Health, Sink};
use async_nats::jetstream::{self, message::PublishMessage};
use bytes::Bytes;
use futures::future::BoxFuture;
use std::sync::Arc;
use std::time::Duration;

pub struct NatsSink {
    /// Publish-or-spool and in-order replay (shared with the Kafka sink).
    pub delivery: Spooled,
    js: jetstream::Context,
    subject: String,
    stream: String,
    duplicate_window: Duration,
    /// Messages the stream recognised as duplicates.
    pub duplicates: std::sync::atomic::AtomicU64,
}

impl NatsSink {
    /// Connects (retrying in the background when the broker is down at
    /// start), makes sure the stream exists when it can, and starts replay.
    pub async fn start(
        name: String,
        url: &str,
        stream: String,
        subject: String,
        ack_timeout: Duration,
        duplicate_window: Duration,
        spool: Spool,
    ) -> anyhow::Result<Arc<Self>> {
        let (options, url) = crate::nats::connect(url).await?;
        let client = options
            .retry_on_initial_connect()
            .connection_timeout(Duration::from_secs(2))
            .connect(&url)
            .await
            .map_err(|e| anyhow::anyhow!("nats sink {name}: {url}: {e}"))?;
        let mut js = jetstream::new(client);
        js.set_timeout(ack_timeout);
        let sink = Arc::new(NatsSink {
            delivery: Spooled::new(name, spool),
            js,
            subject,
            stream,
            duplicate_window,
            duplicates: Default::default(),
        });
        if let Err(e) = sink.ensure_stream().await {
            tracing::warn!(sink = %sink.delivery.name, error = %e, "stream not ready yet; verdicts are spooled until it is");
        }
        tokio::spawn(sink.clone().replay());
        Ok(sink)
    }

    async fn ensure_stream(&self) -> anyhow::Result<()> {
        let config = jetstream::stream::Config {
            name: self.stream.clone(),
            subjects: vec![self.subject.clone()],
            duplicate_window: self.duplicate_window,
            storage: jetstream::stream::StorageType::File,
            ..Default::default()
        };
        tokio::time::timeout(Duration::from_secs(3), self.js.get_or_create_stream(config))
            .await
            .map_err(|_| anyhow::anyhow!("timed out"))?
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(())
    }

    async fn publish(&self, id: &str, payload: Bytes) -> anyhow::Result<()> {
        let ack = self
            .js
            .send_publish(
                self.subject.clone(),
                PublishMessage::build().message_id(id).payload(payload),
            )
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        if ack.duplicate {
            self.duplicates
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(())
    }

    /// Sends one message: published and acked, or spooled. An error means
    /// the spool is full: the page must not be acknowledged.
    pub async fn send(&self, id: &str, payload: &[u8]) -> anyhow::Result<()> {
        let mut entry = Vec::with_capacity(id.len() + 1 + payload.len());
        entry.extend_from_slice(id.as_bytes());
        entry.push(b'\t');
        entry.extend_from_slice(payload);
        self.delivery
            .send(&entry, self.publish(id, Bytes::copy_from_slice(payload)))
            .await
    }

    /// Publishes the spool in order, forever.
    async fn replay(self: Arc<Self>) {
        let sink = self.clone();
        self.delivery
            .replay(
                move |entry| {
                    let sink = sink.clone();
                    async move {
                        let f = fields(&entry, 2);
                        let id = String::from_utf8_lossy(f[0]).to_string();
                        sink.ensure_stream().await?;
                        sink.publish(&id, Bytes::copy_from_slice(f[1])).await
                    }
                },
                |_| {},
            )
            .await
    }
}

impl Sink for NatsSink {
    fn send<'a>(
        &'a self,
        _key: &'a str,
        id: &'a str,
        payload: &'a [u8],
    ) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(NatsSink::send(self, id, payload))
    }

    fn spooled(&self) -> Option<&Spooled> {
        Some(&self.delivery)
    }

    /// As every spooling sink's, with the messages the stream recognised as duplicates.
    fn health(&self) -> Option<Health<'_>> {
        Some(Health {
            duplicates: Some(self.duplicates.load(std::sync::atomic::Ordering::Relaxed)),
            ..self.delivery.health()
        })
    }
}
