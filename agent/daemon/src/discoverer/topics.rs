//! The discoverers' topics: created when missing, with the layout streaming
//! discovery needs, and a partition's state parts read back.

use super::{DiscovererConfig, TIMEOUT};
use crawlsieve_core::crawl::discovery::slices::MAX_MESSAGE;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::{Message, Offset, TopicPartitionList};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A consumer in no group, for metadata and reading state parts.
pub fn reader(brokers: &str) -> anyhow::Result<BaseConsumer> {
    crate::kafka::client(brokers)?
        // librdkafka assigns partitions only in a consumer with a group id;
        // this one never subscribes or commits, so it never joins the group.
        .set("group.id", "crawlsieve-state-reader")
        .set("enable.auto.commit", "false")
        .set("fetch.message.max.bytes", (MAX_MESSAGE + 4096).to_string())
        .set("fetch.max.bytes", (MAX_MESSAGE + 4096).to_string())
        .set(
            "receive.message.max.bytes",
            (MAX_MESSAGE + 8192).to_string(),
        )
        .set("fetch.wait.max.ms", "10")
        .create()
        .map_err(|e| anyhow::anyhow!("discoverer: {e}"))
}

fn partitions(reader: &BaseConsumer, topic: &str) -> anyhow::Result<u32> {
    Ok(crate::kafka::partition_ids(reader, topic)?.len() as u32)
}

/// Makes the count, state and discovered topics when missing; returns the
/// count topic's partitions (the state topic must have as many).
pub async fn ensure(
    reader: &BaseConsumer,
    config: &DiscovererConfig,
    count: &str,
    state: &str,
    discovered: &str,
) -> anyhow::Result<u32> {
    let mut have = partitions(reader, count)?;
    if have == 0 {
        create(&config.brokers, count, config.partitions, false).await?;
        have = config.partitions;
    } else if have != config.partitions {
        tracing::info!(
            topic = count,
            partitions = have,
            "the count topic exists: its partition count is kept"
        );
    }
    match partitions(reader, state)? {
        0 => create(&config.brokers, state, have, true).await?,
        n if n == have => {}
        n => anyhow::bail!(
            "topic {state} has {n} partitions, {count} has {have}: they must match \
             (a count topic's partitions are fixed for its set)"
        ),
    }
    if partitions(reader, discovered)? == 0 {
        create(&config.brokers, discovered, 1, true).await?;
    }
    Ok(have)
}

async fn create(brokers: &str, topic: &str, partitions: u32, compact: bool) -> anyhow::Result<()> {
    let admin: AdminClient<rdkafka::client::DefaultClientContext> =
        crate::kafka::client(brokers)?.create()?;
    let max = (MAX_MESSAGE + 4096).to_string();
    let mut new = NewTopic::new(topic, partitions as i32, TopicReplication::Fixed(-1))
        .set("max.message.bytes", &max);
    if compact {
        new = new.set("cleanup.policy", "compact");
    }
    let results = admin
        .create_topics([&new], &AdminOptions::new().request_timeout(Some(TIMEOUT)))
        .await?;
    for r in results {
        match r {
            Ok(_) => tracing::info!(topic, partitions, compact, "created a topic"),
            Err((_, rdkafka::types::RDKafkaErrorCode::TopicAlreadyExists)) => {}
            Err((t, e)) => anyhow::bail!("creating topic {t}: {e}"),
        }
    }
    Ok(())
}

/// A partition's last value of each key.
pub type Latest = HashMap<Vec<u8>, Vec<u8>>;

const QUIET: Duration = Duration::from_millis(500);

/// Per partition, the last message of each key (what compaction keeps), read
/// from each partition's start in one assignment.
pub fn last_by_key(
    reader: &BaseConsumer,
    topic: &str,
    wanted: &[i32],
) -> anyhow::Result<HashMap<i32, Latest>> {
    let mut end: HashMap<i32, i64> = HashMap::new();
    let mut tpl = TopicPartitionList::new();
    for &p in wanted {
        let (low, high) = reader.fetch_watermarks(topic, p, TIMEOUT)?;
        if high > low {
            end.insert(p, high);
            tpl.add_partition_offset(topic, p, Offset::Offset(low))?;
        }
    }
    let mut out: HashMap<i32, Latest> = HashMap::new();
    if end.is_empty() {
        return Ok(out);
    }
    reader.assign(&tpl)?;
    // Read until every partition's high watermark; a quiet spell of
    // TIMEOUT with none arriving is a broker that cannot answer. Then on
    // until QUIET passes with nothing more: a broker may put its high
    // watermark inside the last record batches (tansu 0.6 does, and answers
    // a fetch with one batch), and the old owner wrote its last state before
    // the partition was released, so nothing more is coming.
    let mut heard = Instant::now();
    let mut left: HashMap<i32, i64> = end.clone();
    let mut keep = |m: &rdkafka::message::BorrowedMessage<'_>| {
        let key = m.key().unwrap_or_default().to_vec();
        let latest = out.entry(m.partition()).or_default();
        match m.payload() {
            Some(payload) => latest.insert(key, payload.to_vec()),
            // A tombstone: the key's value is gone.
            None => latest.remove(&key),
        };
    };
    while !left.is_empty() {
        anyhow::ensure!(
            heard.elapsed() < TIMEOUT,
            "{topic}: state not read back within {TIMEOUT:?} of quiet"
        );
        match reader.poll(Duration::from_millis(200)) {
            Some(Ok(m)) => {
                heard = Instant::now();
                keep(&m);
                if m.offset() + 1 >= end[&m.partition()] {
                    left.remove(&m.partition());
                }
            }
            Some(Err(e)) => return Err(e.into()),
            None => {}
        }
    }
    while let Some(m) = reader.poll(QUIET) {
        keep(&m?);
    }
    reader.unassign()?;
    Ok(out)
}
