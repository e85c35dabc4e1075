//! Streaming discovery on Kafka, for crawls past one hub: agents publish
//! their batches of counts dealt into key ranges (`slices`) to the count
//! topic, one partition per range; a consumer group of discoverers, each
//! owning some partitions, keeps exact running totals of its ranges
//! (`state::Partition`) and announces a key once, when its total crosses the
//! threshold, to the compacted `discovered` topic the hub publishes from.
//! No discovery re-reads a total: a batch costs its own records.
//!
//! **Nothing lost, nothing counted twice.** Announcements are acknowledged
//! before the state is checkpointed, the state (each part with the batches
//! it holds) before the offsets are committed. Whoever owns a partition next
//! — after a rebalance, or a discoverer killed without warning — restores
//! the parts and reads from the committed offset; a batch a part holds
//! already is skipped by that part, so every `(agent, batch)` is added once
//! and an agent's retried send adds nothing. A key announced twice (a crash
//! between announcement and checkpoint) is one key to the hub.
//!
//! **One agent's share, bounded.** Given each agent's public key
//! (`agent_keys`), a discoverer takes a slice only when the agent its key
//! names signed it; with `agent_cap`, no agent moves a key's total by more
//! than the cap (`running`). Together: one agent, or whoever holds write
//! access to the count topic, cannot push ordinary text over the threshold.

pub mod listen;
pub mod state;
pub mod stats;
mod topics;

use crawlsieve_core::crawl::discovery::slices::{self, Announcement, SliceKey, MAX_MESSAGE};
use ed25519_dalek::VerifyingKey;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer, ConsumerContext, Rebalance};
use rdkafka::message::Headers;
use rdkafka::producer::{BaseRecord, DefaultProducerContext, Producer, ThreadedProducer};
use rdkafka::{ClientContext, Message, Offset, TopicPartitionList};
use state::Partition;
use stats::Stats;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// `crawlsieve discoverer`'s settings.
#[derive(Debug, Clone)]
pub struct DiscovererConfig {
    pub brokers: String,
    /// The blind set (topics `crawlsieve.counts.SET`, `….state`, `crawlsieve.discovered.SET`).
    pub set: String,
    /// A key seen more than this many times is discovered (the hub's `--blind SET=N`).
    pub threshold: u64,
    /// Partitions of the count topic when the discoverer creates it.
    pub partitions: u32,
    /// Parts each partition's state is checkpointed in (fixed for a set).
    pub state_parts: u32,
    pub checkpoint_every: Duration,
    pub group: String,
    /// No agent adds more than this to a key's total (the hub's `--agent-cap`).
    pub agent_cap: Option<u64>,
    /// Each agent's public key: a slice is taken only when its agent signed it.
    pub agent_keys: Option<BTreeMap<String, VerifyingKey>>,
}

const TIMEOUT: Duration = Duration::from_secs(10);
/// A dead member holds its partitions this long before the group moves them.
const SESSION_TIMEOUT: Duration = Duration::from_secs(6);

/// One discoverer: the partitions it owns and the clients it writes with.
pub struct Discoverer {
    config: DiscovererConfig,
    count_topic: String,
    state_topic: String,
    discovered_topic: String,
    /// The count topic's partitions: fixed for a set's life.
    partitions: u32,
    producer: ThreadedProducer<DefaultProducerContext>,
    reader: BaseConsumer,
    owned: Mutex<HashMap<i32, Owned>>,
    pub stats: Stats,
    /// A partition's state could not be restored: stop rather than count it wrong.
    failed: AtomicBool,
}

/// An owned partition: its state and the next offset to commit.
struct Owned {
    state: Partition,
    /// One past the last slice read (`None`: none read since adopted).
    next: Option<i64>,
    /// `next` moved since the last commit.
    moved: bool,
}

struct Context(Arc<Discoverer>);

impl ClientContext for Context {
    fn stats(&self, statistics: rdkafka::Statistics) {
        self.0.stats.take_lag(&statistics, &self.0.count_topic);
    }
}

impl ConsumerContext for Context {
    fn pre_rebalance(&self, consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        if let Rebalance::Revoke(tpl) = rebalance {
            let revoked = self.0.mine(tpl);
            self.0.checkpoint(consumer, Some(&revoked));
            let mut owned = self.0.owned();
            for p in revoked {
                owned.remove(&p);
            }
        }
    }

    fn post_rebalance(&self, _: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        if let Rebalance::Assign(tpl) = rebalance {
            let mine = self.0.mine(tpl);
            if let Err(e) = self.0.adopt(&mine) {
                tracing::error!(error = %format!("{e:#}"), "partitions' state not restored; the discoverer stops");
                self.0.failed.store(true, Ordering::Relaxed);
            }
        }
    }
}

impl Discoverer {
    /// Connects, creates the topics that are missing, and checks the state
    /// topic fits the count topic.
    pub async fn connect(config: DiscovererConfig) -> anyhow::Result<Arc<Discoverer>> {
        anyhow::ensure!(
            crawlsieve_core::labels::protocol::valid_name(&config.set),
            "--set `{}`: use 1-64 of a-z 0-9 - _ .",
            config.set
        );
        anyhow::ensure!(
            (1..=1024).contains(&config.partitions),
            "--partitions {}: 1 to 1024",
            config.partitions
        );
        anyhow::ensure!(
            (1..=4096).contains(&config.state_parts),
            "--state-parts {}: 1 to 4096",
            config.state_parts
        );
        check_trust(&config)?;
        let (count_topic, state_topic, discovered_topic) = (
            slices::count_topic(&config.set),
            slices::state_topic(&config.set),
            slices::discovered_topic(&config.set),
        );
        let reader = topics::reader(&config.brokers)?;
        let partitions = topics::ensure(
            &reader,
            &config,
            &count_topic,
            &state_topic,
            &discovered_topic,
        )
        .await?;
        let producer = crate::kafka::producer(&config.brokers)?
            .set("message.max.bytes", (MAX_MESSAGE + 4096).to_string())
            .set("acks", "all")
            .set("linger.ms", "5")
            .create()
            .map_err(|e| anyhow::anyhow!("discoverer: {e}"))?;
        tracing::info!(set = %config.set, partitions, threshold = config.threshold, group = %config.group, "discoverer connected");
        Ok(Arc::new(Discoverer {
            config,
            count_topic,
            state_topic,
            discovered_topic,
            partitions,
            producer,
            reader,
            owned: Mutex::new(HashMap::new()),
            stats: Stats::default(),
            failed: AtomicBool::new(false),
        }))
    }

    fn owned(&self) -> MutexGuard<'_, HashMap<i32, Owned>> {
        self.owned.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn mine(&self, tpl: &TopicPartitionList) -> Vec<i32> {
        tpl.elements()
            .iter()
            .filter(|e| e.topic() == self.count_topic)
            .map(|e| e.partition())
            .collect()
    }

    /// Runs until `stop` is set (or a state cannot be restored): reads the
    /// count topic in the group, checkpoints every `checkpoint_every`, and
    /// at the end checkpoints every partition before leaving the group.
    pub fn run(self: &Arc<Self>, stop: &AtomicBool) -> anyhow::Result<()> {
        let consumer: BaseConsumer<Context> = crate::kafka::stateful_member(&self.config.brokers)?
            .set("group.id", &self.config.group)
            .set("enable.auto.commit", "false")
            .set("auto.offset.reset", "earliest")
            .set(
                "session.timeout.ms",
                SESSION_TIMEOUT.as_millis().to_string(),
            )
            .set("fetch.message.max.bytes", (MAX_MESSAGE + 4096).to_string())
            .set("fetch.max.bytes", (2 * MAX_MESSAGE).to_string())
            // An empty fetch comes back at once: a broker that answers a
            // fetch with one record batch a partition (tansu 0.6) is then not
            // waited on between slices.
            .set("fetch.wait.max.ms", "10")
            // A slice is megabytes: the prefetch queue (64 MB) holds about a
            // second of records, and librdkafka's default 1 s pause before
            // fetching again once it was full let it run dry every 1.3 s.
            // At 20 ms one discoverer took the stream 1.3–1.55× faster.
            .set("fetch.queue.backoff.ms", "20")
            // The lag `/metrics` exports comes from the client's statistics.
            .set("statistics.interval.ms", "5000")
            .set(
                "receive.message.max.bytes",
                (2 * MAX_MESSAGE + 4096).to_string(),
            )
            .create_with_context(Context(self.clone()))
            .map_err(|e| anyhow::anyhow!("discoverer: {e}"))?;
        consumer.subscribe(&[&self.count_topic])?;
        let mut last = Instant::now();
        // Slices taken since the topic last ran dry: "caught up" is logged once a burst.
        let mut busy = false;
        while !stop.load(Ordering::Relaxed) && !self.failed.load(Ordering::Relaxed) {
            match consumer.poll(Duration::from_millis(200)) {
                Some(Ok(m)) => {
                    self.take(&m);
                    busy = true;
                }
                None if busy => {
                    busy = false;
                    self.log("caught up");
                }
                Some(Err(e)) => {
                    tracing::warn!(error = %e, "discoverer: reading the count topic");
                    std::thread::sleep(Duration::from_millis(200));
                }
                None => {}
            }
            if last.elapsed() >= self.config.checkpoint_every {
                self.checkpoint(&consumer, None);
                last = Instant::now();
            }
        }
        let all: Vec<i32> = self.owned().keys().copied().collect();
        self.checkpoint(&consumer, Some(&all));
        consumer.unsubscribe();
        self.log("discoverer stopped");
        anyhow::ensure!(
            !self.failed.load(Ordering::Relaxed),
            "a partition's state could not be restored"
        );
        Ok(())
    }

    /// Takes one slice into its partition and announces what crossed.
    fn take(&self, m: &rdkafka::message::BorrowedMessage<'_>) {
        let (p, offset) = (m.partition(), m.offset());
        let mut owned = self.owned();
        let Some(o) = owned.get_mut(&p) else {
            return; // Not (or no longer) ours: its owner reads it.
        };
        o.next = Some(o.next.map_or(offset + 1, |n| n.max(offset + 1)));
        o.moved = true;
        let (key, payload) = (m.key().unwrap_or_default(), m.payload().unwrap_or_default());
        let taken = SliceKey::parse(key).and_then(|k| {
            self.check_signature(&k, key, payload, m)?;
            o.state.take(&k, payload)
        });
        let taken = match taken {
            Ok(t) => t,
            Err(e) => {
                self.stats.refused.inc();
                tracing::error!(partition = p, offset, error = %format!("{e:#}"), "a slice of counts refused");
                return;
            }
        };
        let min_chars = o.state.min_chars.unwrap_or(0);
        drop(owned);
        self.stats.slices.inc();
        if !taken.new {
            self.stats.duplicates.inc();
        }
        self.stats.records.inc_by(taken.records);
        for count in taken.crossed {
            let a = Announcement {
                count,
                min_chars,
                threshold: self.config.threshold,
            };
            self.send(&self.discovered_topic, None, &count.hash, &a.encode());
            self.stats.announced.inc();
        }
    }

    /// With agents' keys: the slice was signed by the key of the agent its
    /// key names.
    fn check_signature(
        &self,
        k: &SliceKey,
        key: &[u8],
        payload: &[u8],
        m: &rdkafka::message::BorrowedMessage<'_>,
    ) -> anyhow::Result<()> {
        let Some(keys) = &self.config.agent_keys else {
            return Ok(());
        };
        let checked = match keys.get(&k.agent) {
            None => Err(anyhow::anyhow!(
                "agent `{}` is not in --agent-keys-file",
                k.agent
            )),
            Some(public) => {
                let signature = m.headers().and_then(|h| {
                    h.iter()
                        .find(|h| h.key == slices::SIGNATURE_HEADER)
                        .and_then(|h| h.value)
                });
                slices::verify(public, key, payload, signature)
                    .map_err(|e| anyhow::anyhow!("agent `{}`: {e}", k.agent))
            }
        };
        if checked.is_err() {
            self.stats.unsigned.inc();
        }
        checked
    }

    /// Queues a message, waiting while the producer's queue is full.
    fn send(&self, topic: &str, partition: Option<i32>, key: &[u8], payload: &[u8]) {
        let mut record = BaseRecord::to(topic).key(key).payload(payload);
        if let Some(p) = partition {
            record = record.partition(p);
        }
        let mut record = record;
        loop {
            match self.producer.send(record) {
                Ok(()) => return,
                Err((e, back)) => {
                    tracing::debug!(error = %e, "discoverer: producer queue full");
                    record = back;
                    self.producer.poll(Duration::from_millis(50));
                }
            }
        }
    }

    /// Announcements acknowledged, then the changed partitions' states (or
    /// those of `release`, all of them), then their offsets committed.
    fn checkpoint<C: ConsumerContext>(&self, consumer: &BaseConsumer<C>, release: Option<&[i32]>) {
        if let Err(e) = self.producer.flush(TIMEOUT) {
            self.stats.checkpoint_failures.inc();
            tracing::warn!(error = %e, "announcements not acknowledged; no checkpoint, offsets not committed");
            return;
        }
        let mut tpl = TopicPartitionList::new();
        let mut owned = self.owned();
        for (p, o) in owned.iter_mut() {
            let wanted = release.map_or(o.moved, |r| r.contains(p));
            let Some(next) = o.next.filter(|_| wanted) else {
                continue;
            };
            if o.state.changed > 0 {
                if let Err(e) = self.write_state(*p, &o.state) {
                    self.stats.checkpoint_failures.inc();
                    tracing::error!(partition = p, error = %format!("{e:#}"), "state not checkpointed; offsets not committed");
                    continue;
                }
            }
            let _ = tpl.add_partition_offset(&self.count_topic, *p, Offset::Offset(next));
        }
        if let Err(e) = self.producer.flush(TIMEOUT) {
            self.stats.checkpoint_failures.inc();
            tracing::warn!(error = %e, "state not acknowledged; offsets not committed");
            return;
        }
        for e in tpl.elements() {
            if let Some(o) = owned.get_mut(&e.partition()) {
                o.state.changed = 0;
                o.moved = false;
            }
        }
        drop(owned);
        if tpl.count() > 0 {
            if let Err(e) = consumer.commit(&tpl, CommitMode::Sync) {
                // A partition that moved: its new owner reads from the last
                // commit that went through, and each part takes a batch once.
                tracing::debug!(error = %e, "offsets not committed");
            }
            self.stats.checkpoints.inc();
            self.log("checkpoint");
        }
    }

    fn write_state(&self, p: i32, state: &Partition) -> anyhow::Result<()> {
        for part in 0..state.parts() {
            let bytes = state.encode_part(part)?;
            anyhow::ensure!(
                bytes.len() <= MAX_MESSAGE,
                "a state part of {} bytes is over the {MAX_MESSAGE}-byte message limit: \
                 give the set more --state-parts (a new set) or the count topic more partitions",
                bytes.len()
            );
            let key = format!("{p}/{part}");
            self.send(&self.state_topic, Some(p), key.as_bytes(), &bytes);
        }
        Ok(())
    }

    /// Partitions assigned: each one's state from its parts' last messages.
    fn adopt(&self, mine: &[i32]) -> anyhow::Result<()> {
        if mine.is_empty() {
            return Ok(());
        }
        let started = Instant::now();
        let mut parts = topics::last_by_key(&self.reader, &self.state_topic, mine)?;
        for &p in mine {
            let messages = parts.remove(&p).unwrap_or_default();
            let state = Partition::restore(
                p as u32,
                self.partitions,
                self.config.state_parts,
                (self.config.threshold, self.config.agent_cap),
                messages.into_values(),
            )
            .map_err(|e| anyhow::anyhow!("partition {p}: {e:#}"))?;
            tracing::info!(
                partition = p,
                keys = state.keys(),
                "adopted a partition's totals"
            );
            self.owned().insert(
                p,
                Owned {
                    state,
                    next: None,
                    moved: false,
                },
            );
        }
        tracing::debug!(took = ?started.elapsed(), "partitions adopted");
        Ok(())
    }

    /// Sets the state's gauges from the partitions owned now; their numbers.
    pub fn refresh(&self) -> Vec<i32> {
        let owned = self.owned();
        let keys: u64 = owned.values().map(|o| o.state.keys()).sum();
        let bytes: usize = owned.values().map(|o| o.state.heap_bytes()).sum();
        self.stats.keys.set(keys as i64);
        self.stats.state_bytes.set(bytes as i64);
        self.stats.partitions.set(owned.len() as i64);
        let mut partitions: Vec<i32> = owned.keys().copied().collect();
        partitions.sort_unstable();
        partitions
    }

    fn log(&self, what: &str) {
        let partitions = self.refresh();
        let s = &self.stats;
        tracing::info!(
            ?partitions,
            keys = s.keys.get(),
            lag = s.lag.get(),
            slices = s.slices.get(),
            duplicates = s.duplicates.get(),
            refused = s.refused.get(),
            unsigned = s.unsigned.get(),
            records = s.records.get(),
            announced = s.announced.get(),
            checkpoint_failures = s.checkpoint_failures.get(),
            "{what}"
        );
    }
}

/// The cap fits the threshold, and the operator hears what is left open.
fn check_trust(config: &DiscovererConfig) -> anyhow::Result<()> {
    if let Some(cap) = config.agent_cap {
        anyhow::ensure!(
            (1..=config.threshold).contains(&cap),
            "--agent-cap {cap}: 1 to the threshold ({})",
            config.threshold
        );
    }
    match (&config.agent_cap, &config.agent_keys) {
        (None, _) => tracing::warn!(
            set = %config.set,
            "no --agent-cap: one agent, or anyone who can write to the count topic, can push \
             any key over the threshold"
        ),
        (Some(_), None) => tracing::warn!(
            set = %config.set,
            "--agent-cap without --agent-keys-file: agent ids on the count topic are self-declared, \
             so one writer can send under many ids"
        ),
        (Some(_), Some(_)) => {}
    }
    Ok(())
}
