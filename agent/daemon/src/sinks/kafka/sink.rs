//! Verdicts to a Kafka topic. Key = site, so one site's verdicts stay in one
//! partition and in order; the producer is idempotent, so its own retries
//! make no duplicates. A send that is not acknowledged in time goes to the
//! sink's disk spool (replayed in order when the broker is back), as for NATS.
//! Kafka has no de-duplication by message id across producer sessions: a
//! verdict replayed after an ack was lost can appear twice; the verdict id
//! is in the message (header `id` and the JSON) for consumers to drop it.

use crate::sinks::spool::{fields, Spool, Spooled};
use crate::sinks::Sink;
use futures::future::BoxFuture;
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{FutureProducer, FutureRecord};
use std::sync::Arc;
use std::time::Duration;

pub struct KafkaSink {
    /// Publish-or-spool and in-order replay (shared with the NATS sink).
    pub delivery: Spooled,
    /// Replaced when it fails fatally (an idempotent producer whose state the
    /// broker lost, e.g. after a broker restart, must be recreated).
    producer: arc_swap::ArcSwap<FutureProducer>,
    brokers: String,
    idempotent: bool,
    topic: String,
    ack_timeout: Duration,
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
            delivery: Spooled::new(name, spool),
            producer: arc_swap::ArcSwap::from_pointee(producer),
            brokers: brokers.to_string(),
            idempotent,
            topic,
            ack_timeout,
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
        let mut entry = Vec::with_capacity(key.len() + id.len() + 2 + payload.len());
        entry.extend_from_slice(key.as_bytes());
        entry.push(b'\t');
        entry.extend_from_slice(id.as_bytes());
        entry.push(b'\t');
        entry.extend_from_slice(payload);
        self.delivery
            .send(&entry, self.produce(key, id, payload))
            .await
    }

    /// A fresh producer (new producer id), after a fatal error or repeated failures.
    fn renew_producer(&self) {
        use rdkafka::producer::Producer;
        if let Some((code, why)) = self.producer.load().client().fatal_error() {
            tracing::warn!(sink = %self.delivery.name, ?code, why, "producer failed fatally; recreating it");
        }
        match make_producer(&self.brokers, self.ack_timeout, self.idempotent) {
            Ok(p) => self.producer.store(Arc::new(p)),
            Err(e) => {
                tracing::warn!(sink = %self.delivery.name, error = %e, "could not recreate the producer")
            }
        }
    }

    /// Publishes the spool in order, forever; renews the producer every
    /// third consecutive failure.
    async fn replay(self: Arc<Self>) {
        let sink = self.clone();
        self.delivery
            .replay(
                move |entry| {
                    let sink = sink.clone();
                    async move {
                        let f = fields(&entry, 3);
                        let key = String::from_utf8_lossy(f[0]).to_string();
                        let id = String::from_utf8_lossy(f[1]).to_string();
                        sink.produce(&key, &id, f[2]).await
                    }
                },
                |failures| {
                    if failures % 3 == 0 {
                        self.renew_producer();
                    }
                },
            )
            .await
    }
}

impl Sink for KafkaSink {
    fn send<'a>(
        &'a self,
        key: &'a str,
        id: &'a str,
        payload: &'a [u8],
    ) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(KafkaSink::send(self, key, id, payload))
    }

    fn spooled(&self) -> Option<&Spooled> {
        Some(&self.delivery)
    }
}

fn make_producer(
    brokers: &str,
    ack_timeout: Duration,
    idempotent: bool,
) -> rdkafka::error::KafkaResult<FutureProducer> {
    crate::kafka::client(brokers)
        .map_err(|e| rdkafka::error::KafkaError::ClientCreation(e.to_string()))?
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
