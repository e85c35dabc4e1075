//! Verdicts to a Kafka topic. Key = site, so one site's verdicts stay in one
//! partition and in order; the producer is idempotent, so its own retries
//! make no duplicates. A send that is not acknowledged in time goes to the
//! sink's disk spool (replayed in order when the broker is back), as for NATS.
//! Kafka has no de-duplication by message id across producer sessions: a
//! verdict replayed after an ack was lost can appear twice; the verdict id
//! is in the message (header `id` and the JSON) for consumers to drop it.

use super::spool::Spool;
use rdkafka::config::ClientConfig;
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{FutureProducer, FutureRecord};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

pub struct KafkaSink {
    pub name: String,
    /// Replaced when it fails fatally (an idempotent producer whose state the
    /// broker lost, e.g. after a broker restart, must be recreated).
    producer: arc_swap::ArcSwap<FutureProducer>,
    brokers: String,
    idempotent: bool,
    topic: String,
    ack_timeout: Duration,
    pub spool: Spool,
    wake: Notify,
    pub failures: AtomicU64,
}

impl KafkaSink {
    pub fn start(
        name: String,
        brokers: &str,
        topic: String,
        ack_timeout: Duration,
        idempotent: bool,
        spool: Spool,
    ) -> anyhow::Result<Arc<Self>> {
        let producer = make_producer(brokers, ack_timeout, idempotent)
            .map_err(|e| anyhow::anyhow!("kafka sink {name}: {e}"))?;
        let sink = Arc::new(KafkaSink {
            name,
            producer: arc_swap::ArcSwap::from_pointee(producer),
            brokers: brokers.to_string(),
            idempotent,
            topic,
            ack_timeout,
            spool,
            wake: Notify::new(),
            failures: AtomicU64::new(0),
        });
        tokio::spawn(sink.clone().replay());
        Ok(sink)
    }

    async fn produce(&self, key: &str, id: &str, payload: &[u8]) -> anyhow::Result<()> {
        let record = FutureRecord::to(&self.topic)
            .key(key)
            .payload(payload)
            .headers(OwnedHeaders::new().insert(Header {
                key: "id",
                value: Some(id),
            }));
        self.producer
            .load()
            .send(record, self.ack_timeout)
            .await
            .map_err(|(e, _)| anyhow::anyhow!("{e}"))?;
        Ok(())
    }

    /// Sends one message (key = site): acknowledged, or spooled. An error
    /// means the spool is full.
    pub async fn send(&self, key: &str, id: &str, payload: &[u8]) -> anyhow::Result<()> {
        if self.spool.is_empty() {
            match self.produce(key, id, payload).await {
                Ok(()) => return Ok(()),
                Err(e) => {
                    self.failures.fetch_add(1, Ordering::Relaxed);
                    tracing::warn!(sink = %self.name, error = %e, "produce failed; spooling");
                }
            }
        }
        let mut entry = Vec::with_capacity(key.len() + id.len() + 2 + payload.len());
        entry.extend_from_slice(key.as_bytes());
        entry.push(b'\t');
        entry.extend_from_slice(id.as_bytes());
        entry.push(b'\t');
        entry.extend_from_slice(payload);
        self.spool.push(&entry)?;
        self.wake.notify_one();
        Ok(())
    }

    /// A fresh producer (new producer id), after a fatal error or repeated failures.
    fn renew_producer(&self) {
        use rdkafka::producer::Producer;
        if let Some((code, why)) = self.producer.load().client().fatal_error() {
            tracing::warn!(sink = %self.name, ?code, why, "producer failed fatally; recreating it");
        }
        match make_producer(&self.brokers, self.ack_timeout, self.idempotent) {
            Ok(p) => self.producer.store(Arc::new(p)),
            Err(e) => {
                tracing::warn!(sink = %self.name, error = %e, "could not recreate the producer")
            }
        }
    }

    async fn replay(self: Arc<Self>) {
        let mut backoff = Duration::from_millis(200);
        let mut failures = 0u32;
        loop {
            let Ok(next) = self.spool.peek() else {
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            };
            let Some((entry, consumed)) = next else {
                let _ = tokio::time::timeout(Duration::from_secs(1), self.wake.notified()).await;
                continue;
            };
            let mut parts = entry.splitn(3, |&b| b == b'\t');
            let key = String::from_utf8_lossy(parts.next().unwrap_or_default()).to_string();
            let id = String::from_utf8_lossy(parts.next().unwrap_or_default()).to_string();
            let payload = parts.next().unwrap_or_default().to_vec();
            match self.produce(&key, &id, &payload).await {
                Ok(()) => {
                    if let Err(e) = self.spool.commit(consumed) {
                        tracing::error!(sink = %self.name, error = %e, "spool commit failed");
                    }
                    backoff = Duration::from_millis(200);
                    failures = 0;
                }
                Err(e) => {
                    tracing::debug!(sink = %self.name, error = %e, "replay: broker still unavailable");
                    failures += 1;
                    if failures % 3 == 0 {
                        self.renew_producer();
                    }
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(5));
                }
            }
        }
    }
}

fn make_producer(
    brokers: &str,
    ack_timeout: Duration,
    idempotent: bool,
) -> rdkafka::error::KafkaResult<FutureProducer> {
    ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .set(
            "enable.idempotence",
            if idempotent { "true" } else { "false" },
        )
        .set("acks", "all")
        .set("linger.ms", "2")
        .set(
            "message.timeout.ms",
            ack_timeout.as_millis().max(1000).to_string(),
        )
        .create()
}
