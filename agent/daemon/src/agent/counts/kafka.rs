//! Batches to the count topic, for a discoverer group (`crate::discoverer`):
//! each batch dealt into one slice per partition (its key range), every
//! slice acknowledged before the batch leaves the outbox. A batch sent again
//! after a lost acknowledgement is taken once: each discoverer part takes an
//! `(agent, batch)` once. With a signing key, each slice carries its
//! signature (`slices::sign`) in a record header.

use super::Sent;
use crawlsieve_core::crawl::discovery::slices::{self, SliceKey, MAX_MESSAGE};
use ed25519_dalek::SigningKey;
use rdkafka::consumer::BaseConsumer;
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{FutureProducer, FutureRecord};
use std::path::Path;
use std::time::Duration;

/// A batch's largest size to Kafka: its slices then fit a message whatever
/// the partition count (36 bytes a distinct record).
pub const MAX_OCCURRENCES: u64 = 400_000;

pub(super) struct ToKafka {
    producer: FutureProducer,
    /// Asks the partition count (metadata) before each batch.
    metadata: std::sync::Arc<BaseConsumer>,
    topic: String,
    agent: String,
    /// Boxed: the key's expanded form is large, and most agents ship to a hub.
    signing: Option<Box<SigningKey>>,
}

impl ToKafka {
    pub fn new(
        brokers: &str,
        set: &str,
        agent: &str,
        signing: Option<SigningKey>,
    ) -> anyhow::Result<ToKafka> {
        let err = |e: rdkafka::error::KafkaError| anyhow::anyhow!("agent.counts.kafka: {e}");
        let producer: FutureProducer = crate::kafka::producer(brokers)?
            .set("message.max.bytes", (MAX_MESSAGE + 4096).to_string())
            .set("acks", "all")
            .set("message.timeout.ms", "30000")
            .create()
            .map_err(err)?;
        let metadata = std::sync::Arc::new(
            crate::kafka::client(brokers)?
                .set("group.id", "crawlsieve-counts-metadata")
                .create()
                .map_err(err)?,
        );
        Ok(ToKafka {
            producer,
            metadata,
            topic: slices::count_topic(set),
            agent: agent.to_string(),
            signing: signing.map(Box::new),
        })
    }

    pub async fn send(&self, batch: u64, path: &Path) -> anyhow::Result<Sent> {
        let bytes = tokio::fs::read(path).await?;
        let partitions = self.partitions().await?;
        let parts = match slices::split(&bytes, partitions) {
            Ok(p) => p,
            Err(e) => return Ok(Sent::Refused(format!("{e:#}"))),
        };
        if let Some(big) = parts.iter().map(Vec::len).find(|&n| n > MAX_MESSAGE) {
            return Ok(Sent::Refused(format!(
                "a slice of {big} bytes is over the {MAX_MESSAGE}-byte message limit \
                 (agent.counts.max_occurrences at most {MAX_OCCURRENCES})"
            )));
        }
        let key = SliceKey {
            agent: self.agent.clone(),
            batch,
            partitions,
        }
        .encode();
        let sends = parts.iter().enumerate().map(|(p, slice)| {
            let mut record = FutureRecord::to(&self.topic)
                .partition(p as i32)
                .key(&key)
                .payload(slice);
            if let Some(signing) = &self.signing {
                let signature = slices::sign(signing, key.as_bytes(), slice);
                record = record.headers(OwnedHeaders::new().insert(Header {
                    key: slices::SIGNATURE_HEADER,
                    value: Some(&signature[..]),
                }));
            }
            self.producer.send(record, Duration::from_secs(30))
        });
        for sent in futures::future::join_all(sends).await {
            sent.map_err(|(e, _)| anyhow::anyhow!("{}: {e}", self.topic))?;
        }
        Ok(Sent::Taken)
    }

    /// The count topic's partition count; an error when it does not exist
    /// yet (the batch waits in the outbox until a discoverer makes it).
    async fn partitions(&self) -> anyhow::Result<u32> {
        let (metadata, topic) = (self.metadata.clone(), self.topic.clone());
        let n = tokio::task::spawn_blocking(move || crate::kafka::partition_ids(&*metadata, &topic))
            .await??
            .len() as u32;
        anyhow::ensure!(
            n > 0,
            "topic {} does not exist yet (a discoverer creates it)",
            self.topic
        );
        Ok(n)
    }
}

/// Publishes count files as `agent`'s batches `first`, `first + 1`, … of set
/// `set` (`crawlsieve labels send-counts`: counts made offline, a backfill),
/// signed with `signing` when given. Each batch is acknowledged before the
/// next is sent; sending a batch again adds nothing.
pub async fn send_files(
    brokers: &str,
    set: &str,
    agent: &str,
    signing: Option<SigningKey>,
    first: u64,
    files: &[std::path::PathBuf],
) -> anyhow::Result<()> {
    anyhow::ensure!(
        crawlsieve_core::labels::protocol::valid_agent_id(agent),
        "--agent `{agent}`: use 1-64 of A-Z a-z 0-9 . _ -"
    );
    anyhow::ensure!(first >= 1, "--first-batch: batches are numbered from 1");
    let to = ToKafka::new(brokers, set, agent, signing)?;
    for (i, path) in files.iter().enumerate() {
        match to.send(first + i as u64, path).await? {
            Sent::Refused(why) => anyhow::bail!("{}: {why}", path.display()),
            Sent::Taken | Sent::Duplicate => {}
        }
    }
    Ok(())
}
