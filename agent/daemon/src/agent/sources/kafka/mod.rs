//! Pages from a Kafka topic in a consumer group; with neighborhoods on, each
//! partition's neighborhood state moves with the partition (`handover`).

mod config;
pub mod handover;
mod pump;

pub use config::Config;

use super::watchdog::Backlog;
use super::{envelope, supervise, with_headers, Ended, Run};
use crawlsieve_core::input::page::{Input, Origin};
use crawlsieve_core::neighborhoods::shards::Place;
use handover::Handover;
pub use handover::HandoverConfig;
use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext, Rebalance, StreamConsumer};
use rdkafka::{ClientContext, Message, Offset, TopicPartitionList};
use std::sync::atomic::Ordering;
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
    /// Neighborhood state per partition, handed over on rebalance (with neighborhoods on).
    pub handover: Option<HandoverConfig>,
}

/// The consumer's callbacks: a rebalance hands partitions' state over.
pub struct SourceContext {
    handover: Option<Arc<Handover>>,
}

impl ClientContext for SourceContext {}

impl ConsumerContext for SourceContext {
    fn pre_rebalance(&self, consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        if let (Some(h), Rebalance::Revoke(tpl)) = (&self.handover, rebalance) {
            h.release(consumer, tpl);
        }
    }

    fn post_rebalance(&self, consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        if let (Some(h), Rebalance::Assign(tpl)) = (&self.handover, rebalance) {
            h.adopt(consumer, tpl);
        }
    }
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
/// the consumer leaves), so a restart re-reads at most about a second of pages;
/// with a handover, they are committed with each checkpoint instead.
pub async fn kafka(run: Run, kafka: Kafka) {
    supervise(run, move |run| kafka_once(run, kafka.clone())).await
}

impl super::Source for Kafka {
    fn run(self: Box<Self>, run: Run) -> futures::future::BoxFuture<'static, ()> {
        Box::pin(kafka(run, *self))
    }
}

async fn kafka_once(run: Run, cfg: Kafka) -> anyhow::Result<Ended> {
    let handover = match &cfg.handover {
        Some(h) => Some(Arc::new(
            Handover::start(run.agent.clone(), &cfg.brokers, &cfg.topic, h.clone()).await?,
        )),
        None => None,
    };
    let context = SourceContext {
        handover: handover.clone(),
    };
    let consumer = subscribe(&cfg, context, handover.is_none())?;
    let max = run.agent.max_page_bytes;
    let topic: Arc<str> = cfg.topic.as_str().into();
    // A few pages between the pump and the pipeline; the pipeline's window
    // holds the rest.
    let (tx, mut rx) = tokio::sync::mpsc::channel(8);
    let window = run.window;
    let pump = {
        let (consumer, handover, name) = (consumer.clone(), handover.clone(), run.name.clone());
        tokio::spawn(async move {
            let quiet = super::Quiet::new(&name);
            let convert = |m: &rdkafka::message::BorrowedMessage<'_>| {
                quiet.ok();
                let (input, place) = page_at(m, &topic, max);
                if let Some(h) = &handover {
                    h.received(&place);
                }
                (input, place)
            };
            // A partition whose state could not be restored ends the run (its
            // pages are neither counted nor committed); the next run restores it.
            let done = || h_failed(&handover);
            pump::pump(consumer, tx, window, convert, |e| quiet.failed(e), done).await
        })
    };
    let pages = futures::stream::poll_fn(move |cx| rx.poll_recv(cx));
    let checkpoints = handover
        .clone()
        .map(|h| tokio::spawn(checkpoint_every(h, consumer.clone())));
    let backlog = || {
        let (consumer, topic) = (consumer.clone(), cfg.topic.clone());
        async move { tokio::task::spawn_blocking(move || group_lag(&*consumer, &topic)).await? }
    };
    let stall_after = cfg.stall_after.max(MIN_STALL_AFTER);
    let ended = run
        .drive_watched(
            Box::pin(pages),
            stall_after,
            backlog,
            |place: Place| match &handover {
                Some(h) => h.acked(&place),
                // librdkafka's offset store commits `offset + 1` (the next to read) itself.
                None => {
                    if let Err(e) =
                        consumer.store_offset(&place.topic, place.partition, place.offset)
                    {
                        tracing::warn!(error = %e, "kafka source: offset store failed");
                    }
                }
            },
        )
        .await;
    leave(pump, checkpoints, &handover, &consumer, &cfg.topic).await?;
    Ok(ended)
}

/// The end of a run, in the order that loses nothing: polling stops (no
/// rebalance callback runs after), checkpoints stop, every partition's state
/// goes to its topic with its offset committed, then the consumer leaves the
/// group (committing the stored offsets: pages delivered, never the fetch
/// position, which may be past pages that were not).
async fn leave(
    pump: tokio::task::JoinHandle<()>,
    checkpoints: Option<tokio::task::JoinHandle<()>>,
    handover: &Option<Arc<Handover>>,
    consumer: &Arc<StreamConsumer<SourceContext>>,
    topic: &str,
) -> anyhow::Result<()> {
    // No more polling: no rebalance callback runs from here on.
    pump.abort();
    let _ = pump.await;
    if let Some(c) = checkpoints {
        c.abort();
        let _ = c.await;
    }
    if let Some(h) = handover {
        // Every page taken is done: its state goes to the topic and its offset
        // is committed before the group hears that this member leaves.
        let (h, c) = (h.clone(), consumer.clone());
        let _ = tokio::task::spawn_blocking(move || h.release_all(&*c)).await;
        if h_failed(handover) {
            anyhow::bail!(
                "kafka source {}: a partition's neighborhood state could not be restored",
                topic
            );
        }
    }
    // Leaving the group commits the stored offsets (pages delivered) — never
    // the fetch position, which may be past pages that were not.
    consumer.unsubscribe();
    Ok(())
}

/// The group's consumer, subscribed to the pages' topic. Offsets are
/// stored only past delivered pages; the client commits them itself
/// (`auto_commit`) unless a handover commits them with its checkpoints.
fn subscribe(
    cfg: &Kafka,
    context: SourceContext,
    auto_commit: bool,
) -> anyhow::Result<Arc<StreamConsumer<SourceContext>>> {
    // With neighborhoods handed over, each partition carries state: only the
    // partitions that change owner should move when an agent joins or leaves.
    let mut config = match cfg.handover {
        Some(_) => crate::kafka::stateful_member(&cfg.brokers)?,
        None => crate::kafka::client(&cfg.brokers)?,
    };
    let consumer: Arc<StreamConsumer<SourceContext>> = Arc::new(
        config
            .set("group.id", &cfg.group)
            .set("enable.auto.commit", auto_commit.to_string())
            .set("auto.commit.interval.ms", "1000")
            .set("enable.auto.offset.store", "false")
            .set("auto.offset.reset", "earliest")
            .set(
                "session.timeout.ms",
                SESSION_TIMEOUT.as_millis().to_string(),
            )
            .create_with_context(context)
            .map_err(|e| anyhow::anyhow!("kafka source: {e}"))?,
    );
    consumer
        .subscribe(&[&cfg.topic])
        .map_err(|e| anyhow::anyhow!("kafka source {}: {e}", cfg.topic))?;
    Ok(consumer)
}

/// The periodic checkpoint of the partitions whose neighborhoods changed,
/// until aborted.
async fn checkpoint_every(h: Arc<Handover>, consumer: Arc<StreamConsumer<SourceContext>>) {
    let mut every = tokio::time::interval(h.config.every);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    every.tick().await;
    loop {
        every.tick().await;
        let (h, consumer) = (h.clone(), consumer.clone());
        let _ = tokio::task::spawn_blocking(move || h.checkpoint_changed(&*consumer)).await;
    }
}

/// A message as the pipeline takes it: the page envelope, and where it sits.
fn page_at(
    m: &rdkafka::message::BorrowedMessage<'_>,
    topic: &Arc<str>,
    max: usize,
) -> (Input, Place) {
    let origin = Origin::Ingest {
        id: format!("kafka:{}:{}:{}", m.topic(), m.partition(), m.offset()),
    };
    let input = envelope(m.payload().unwrap_or_default(), origin, max);
    let headers = m.headers().into_iter().flat_map(|h| {
        use rdkafka::message::Headers;
        h.iter().filter_map(|h| Some((h.key, h.value?)))
    });
    let input = with_headers(input, headers);
    let place = Place {
        topic: if **topic == *m.topic() {
            topic.clone()
        } else {
            m.topic().into()
        },
        partition: m.partition(),
        offset: m.offset(),
    };
    (input, place)
}

pub use crate::kafka::partition_ids;

fn h_failed(h: &Option<Arc<Handover>>) -> bool {
    h.as_ref().is_some_and(|h| h.failed.load(Ordering::Relaxed))
}

/// The lag on `topic` of `consumer`'s group (waiting) and the sum of its
/// committed offsets (position: it moves when any member of the group makes
/// progress). Any consumer configured with the group's id can ask, without
/// joining the group.
pub fn group_lag<C: ConsumerContext>(
    consumer: &impl Consumer<C>,
    topic: &str,
) -> anyhow::Result<Backlog> {
    let timeout = Duration::from_secs(5);
    let partitions = partition_ids(consumer, topic)?;
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
