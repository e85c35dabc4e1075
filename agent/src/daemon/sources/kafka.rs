//! Pages from a Kafka topic in a consumer group.

use super::watchdog::Backlog;
use super::{envelope, supervise, Ended, Run};
use crate::page::Origin;
use futures::StreamExt;
use rdkafka::consumer::{Consumer, StreamConsumer};
use rdkafka::{Message, Offset, TopicPartitionList};
use std::sync::Arc;
use std::time::Duration;

/// Where a Kafka source reads.
#[derive(Debug, Clone)]
pub struct Kafka {
    pub brokers: String,
    pub topic: String,
    pub group: String,
    /// Idle time after which the watchdog asks the brokers for the group's lag
    /// (at least `MIN_STALL_AFTER`).
    pub stall_after: Duration,
}

/// The consumer's group session timeout. A member that died without leaving
/// (a SIGKILLed agent) holds its partitions until the group coordinator has
/// not heard from it for this long; a new member waits for that rebalance.
const SESSION_TIMEOUT: Duration = Duration::from_secs(6);

/// The watchdog must not take that legitimate wait for a stall: its idle
/// period (twice this) outlasts the session timeout and the rebalance after it.
const MIN_STALL_AFTER: Duration = Duration::from_secs(6);

/// Pages from `kafka.topic` until the agent stops. Offsets are stored only
/// past delivered pages and committed by the client (every second, and when
/// the consumer leaves), so a restart re-reads at most about a second of pages.
pub async fn kafka(run: Run, kafka: Kafka) {
    supervise(run, move |run| kafka_once(run, kafka.clone())).await
}

async fn kafka_once(run: Run, cfg: Kafka) -> anyhow::Result<Ended> {
    let consumer: Arc<StreamConsumer> = Arc::new(
        rdkafka::ClientConfig::new()
            .set("bootstrap.servers", &cfg.brokers)
            .set("group.id", &cfg.group)
            .set("enable.auto.commit", "true")
            .set("auto.commit.interval.ms", "1000")
            .set("enable.auto.offset.store", "false")
            .set("auto.offset.reset", "earliest")
            .set(
                "session.timeout.ms",
                SESSION_TIMEOUT.as_millis().to_string(),
            )
            .create()
            .map_err(|e| anyhow::anyhow!("kafka source: {e}"))?,
    );
    consumer
        .subscribe(&[&cfg.topic])
        .map_err(|e| anyhow::anyhow!("kafka source {}: {e}", cfg.topic))?;
    let max = run.agent.max_page_bytes;
    let quiet = &super::Quiet::new(&run.name);
    let pages = consumer.stream().filter_map(move |m| async move {
        match m {
            Ok(m) => {
                quiet.ok();
                let origin = Origin::Ingest {
                    id: format!("kafka:{}:{}:{}", m.topic(), m.partition(), m.offset()),
                };
                let input = envelope(m.payload().unwrap_or_default(), origin, max);
                Some((input, (m.topic().to_string(), m.partition(), m.offset())))
            }
            Err(e) => {
                quiet.failed(&e);
                None
            }
        }
    });
    let backlog = || {
        let (consumer, topic) = (consumer.clone(), cfg.topic.clone());
        async move { tokio::task::spawn_blocking(move || group_lag(&consumer, &topic)).await? }
    };
    let stall_after = cfg.stall_after.max(MIN_STALL_AFTER);
    let ended = run
        .drive_watched(
            Box::pin(pages),
            stall_after,
            backlog,
            |(topic, partition, offset)| {
                // librdkafka's offset store commits `offset + 1` (the next to read) itself.
                if let Err(e) = consumer.store_offset(&topic, partition, offset) {
                    tracing::warn!(error = %e, "kafka source: offset store failed");
                }
            },
        )
        .await;
    // Leaving the group commits the stored offsets (pages delivered) — never
    // the fetch position, which may be past pages that were not.
    consumer.unsubscribe();
    Ok(ended)
}

/// The group's lag on `topic` (waiting) and the sum of its committed offsets
/// (position: it moves when any member of the group makes progress).
fn group_lag(consumer: &StreamConsumer, topic: &str) -> anyhow::Result<Backlog> {
    let timeout = Duration::from_secs(5);
    let metadata = consumer.fetch_metadata(Some(topic), timeout)?;
    let partitions: Vec<i32> = metadata
        .topics()
        .iter()
        .filter(|t| t.name() == topic)
        .flat_map(|t| t.partitions().iter().map(|p| p.id()))
        .collect();
    let mut list = TopicPartitionList::new();
    for &p in &partitions {
        list.add_partition(topic, p);
    }
    let committed = consumer.committed_offsets(list, timeout)?;
    let mut backlog = Backlog {
        waiting: 0,
        position: 0,
    };
    for p in partitions {
        let (low, high) = consumer.fetch_watermarks(topic, p, timeout)?;
        let at = match committed.find_partition(topic, p).map(|e| e.offset()) {
            Some(Offset::Offset(o)) => o.max(low),
            _ => low,
        };
        backlog.waiting += (high - at).max(0) as u64;
        backlog.position += at.max(0) as u64;
    }
    Ok(backlog)
}
