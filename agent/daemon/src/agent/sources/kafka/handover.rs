//! Neighborhood state that follows its partition from agent to agent.
//!
//! N agents in one consumer group share a page topic keyed by site: each site
//! lives in one partition, each partition on one agent at a time, so each
//! agent holds the neighborhoods of its partitions (`neighborhoods::shards`).
//! When the group rebalances (an agent joins, leaves or dies), a partition's
//! state must go where the partition goes — neither lost nor counted twice.
//!
//! **How.** Each partition's state is checkpointed, as one message, to the
//! same-numbered partition of a compacted state topic: every `every` seconds
//! for the partitions that changed, and when the partition is revoked. The
//! partition's offsets are committed *after* its checkpoint is acknowledged,
//! and only up to pages the checkpoint holds, so the committed offset never
//! passes the state: whoever takes the partition next restores the last
//! checkpoint, reads from the committed offset, and adds to the state only
//! the pages the checkpoint does not cover. This holds for an agent killed
//! without warning too (its pages since the last checkpoint are read and
//! judged again, and counted once), and makes dropping a partition's
//! in-memory state always safe: it is rebuilt from the topic.
//!
//! One `turn` lock orders checkpoints and rebalances, so a partition that
//! was released is never checkpointed again by its old owner.

use crate::agent::metrics::OutcomeLabel;
use crate::agent::Agent;
use crawlsieve_core::neighborhoods::shards::{Coverage, Place, Shard, ShardKey};
use crawlsieve_core::neighborhoods::tracker::Tracker;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer, ConsumerContext};
use rdkafka::producer::{BaseRecord, DefaultProducerContext, Producer, ThreadedProducer};
use rdkafka::{Message, Offset, TopicPartitionList};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// `[[agent.sources]] kind = "kafka"` with neighborhoods on.
#[derive(Debug, Clone)]
pub struct HandoverConfig {
    pub state_topic: String,
    pub every: Duration,
}

/// A checkpoint is one message; a partition's state past this does not hand over.
const MAX_MESSAGE: usize = 16 * 1024 * 1024;
const TIMEOUT: Duration = Duration::from_secs(10);

pub struct Handover {
    agent: Arc<Agent>,
    topic: Arc<str>,
    pub config: HandoverConfig,
    producer: ThreadedProducer<DefaultProducerContext>,
    /// Reads a partition's last checkpoint (assigned by hand, in no group).
    reader: BaseConsumer,
    /// Per owned partition, the next offset to commit: every page below it is
    /// delivered, so in the state.
    acked: Mutex<HashMap<i32, i64>>,
    /// Per owned partition, the offset the consumer should hand out next:
    /// one above it means the offsets between hold no page (`received`).
    next: Mutex<HashMap<i32, i64>>,
    turn: Mutex<()>,
    /// A partition's state could not be restored: the run must start again
    /// (its pages were neither counted nor committed).
    pub failed: AtomicBool,
}

/// Which partitions a checkpoint writes.
enum Which<'a> {
    /// Those changed since their last checkpoint; all stay owned.
    Changed,
    /// These, given up (revoked, or the run ends).
    Release(&'a [i32]),
}

impl Handover {
    /// Connects and makes sure the state topic exists (created compacted, with
    /// the page topic's partition count, when missing).
    pub async fn start(
        agent: Arc<Agent>,
        brokers: &str,
        topic: &str,
        config: HandoverConfig,
    ) -> anyhow::Result<Handover> {
        let err = |e: rdkafka::error::KafkaError| {
            anyhow::anyhow!(
                "kafka source: neighborhoods topic {}: {e}",
                config.state_topic
            )
        };
        let producer: ThreadedProducer<DefaultProducerContext> = crate::kafka::client(brokers)?
            .set("message.max.bytes", MAX_MESSAGE.to_string())
            .set("acks", "all")
            .create()
            .map_err(err)?;
        let reader = new_reader(brokers).map_err(err)?;
        let h = Handover {
            agent,
            topic: topic.into(),
            config,
            producer,
            reader,
            acked: Mutex::new(HashMap::new()),
            next: Mutex::new(HashMap::new()),
            turn: Mutex::new(()),
            failed: AtomicBool::new(false),
        };
        h.ensure_state_topic(brokers).await?;
        // State of this topic held from an earlier run (a consumer that ended
        // without revoking) may be behind its checkpoint: drop it, the next
        // assignment restores it.
        {
            let mut t = h.tracker();
            let stale: Vec<ShardKey> = t
                .shards()
                .map(|(k, _)| k.clone())
                .filter(|k| k.0 == h.topic)
                .collect();
            for k in &stale {
                t.release(k);
            }
        }
        Ok(h)
    }

    fn tracker(&self) -> MutexGuard<'_, Tracker> {
        self.agent
            .tracker
            .as_ref()
            .expect("a handover exists only with neighborhoods on")
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    fn count(&self, outcome: &str, n: u64) {
        self.agent
            .metrics
            .handover
            .get_or_create(&OutcomeLabel {
                outcome: outcome.into(),
            })
            .inc_by(n);
    }

    fn partitions(&self, topic: &str) -> anyhow::Result<Option<usize>> {
        let n = super::partition_ids(&self.reader, topic)?.len();
        Ok((n > 0).then_some(n))
    }

    async fn ensure_state_topic(&self, brokers: &str) -> anyhow::Result<()> {
        let state = self.config.state_topic.clone();
        let pages = self.partitions(&self.topic)?.ok_or_else(|| {
            anyhow::anyhow!("kafka source: topic {} does not exist (yet)", self.topic)
        })?;
        match self.partitions(&state)? {
            Some(n) if n >= pages => return Ok(()),
            Some(n) => anyhow::bail!(
                "kafka source: neighborhoods topic {state} has {n} partitions, topic {} has {pages}: \
                 give the state topic at least as many",
                self.topic
            ),
            None => {}
        }
        use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
        let admin: AdminClient<rdkafka::client::DefaultClientContext> =
            crate::kafka::client(brokers)?.create()?;
        let max = MAX_MESSAGE.to_string();
        let new = NewTopic::new(&state, pages as i32, TopicReplication::Fixed(-1))
            .set("cleanup.policy", "compact")
            .set("max.message.bytes", &max);
        let results = admin
            .create_topics([&new], &AdminOptions::new().request_timeout(Some(TIMEOUT)))
            .await?;
        for r in results {
            match r {
                Ok(_) => {
                    tracing::info!(topic = %state, partitions = pages, "created the neighborhoods topic")
                }
                Err((_, rdkafka::types::RDKafkaErrorCode::TopicAlreadyExists)) => {}
                Err((t, e)) => anyhow::bail!("kafka source: creating topic {t}: {e}"),
            }
        }
        Ok(())
    }

    /// The partitions of this source's topic in `tpl`.
    fn mine(&self, tpl: &TopicPartitionList) -> Vec<i32> {
        tpl.elements()
            .iter()
            .filter(|e| e.topic() == &*self.topic)
            .map(|e| e.partition())
            .collect()
    }

    /// The consumer handed out the message at `place` (in offset order, per
    /// partition): offsets it stepped over since the last one hold no page
    /// it will read (compacted or expired records, transaction markers, a
    /// fetch that started past the committed offset), and are covered, so
    /// that commits can pass them.
    pub fn received(&self, place: &Place) {
        let gap = {
            let mut next = self.next.lock().unwrap_or_else(|p| p.into_inner());
            let Some(next) = next.get_mut(&place.partition) else {
                return;
            };
            let gap = (*next < place.offset).then_some(*next);
            *next = (*next).max(place.offset + 1);
            gap
        };
        if let Some(from) = gap {
            if let Some(s) = self
                .tracker()
                .shard_mut(&(self.topic.clone(), place.partition))
            {
                s.coverage.skip(from, place.offset);
            }
            let n = (place.offset - from) as u64;
            self.count("skipped", n);
            tracing::debug!(topic = %self.topic, partition = place.partition, from, to = place.offset,
                "offsets without a page to read: covered");
        }
    }

    /// A page of partition `place` is delivered (pages of a partition are
    /// acknowledged in offset order).
    pub fn acked(&self, place: &Place) {
        let mut acked = self.acked.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(next) = acked.get_mut(&place.partition) {
            *next = (*next).max(place.offset + 1);
        }
    }

    /// Partitions assigned: restore each one's last checkpoint. This runs in
    /// the rebalance callback, which must stay short (a slow one kept the
    /// group rebalancing on tansu): it reads all the checkpoints in one
    /// fetch, and a broker that cannot answer fails the run, not the group.
    pub fn adopt<C: ConsumerContext>(&self, consumer: &BaseConsumer<C>, tpl: &TopicPartitionList) {
        let _turn = self.turn.lock().unwrap_or_else(|p| p.into_inner());
        let mine = self.mine(tpl);
        if mine.is_empty() {
            return;
        }
        let started = Instant::now();
        let committed = match consumer.committed_offsets(tpl.clone(), TIMEOUT) {
            Ok(c) => c,
            Err(e) => return self.restore_failed(&format!("committed offsets: {e}")),
        };
        let mut checkpoints = match last_messages(&self.reader, &self.config.state_topic, &mine) {
            Ok(c) => c,
            Err(e) => return self.restore_failed(&format!("{e:#}")),
        };
        let settings = self.tracker().settings().clone();
        for p in mine {
            let start = match committed.find_partition(&self.topic, p).map(|e| e.offset()) {
                Some(Offset::Offset(o)) => o,
                _ => match self.reader.fetch_watermarks(&self.topic, p, TIMEOUT) {
                    Ok((low, _)) => low,
                    Err(e) => return self.restore_failed(&format!("partition {p}: {e}")),
                },
            };
            let shard = match checkpoints.remove(&p) {
                None => Shard::new(settings.clone(), Coverage::starting_at(start)),
                Some(bytes) => match self.restore(p, &bytes, start, &settings) {
                    Ok(s) => s,
                    Err(e) => return self.restore_failed(&format!("partition {p}: {e:#}")),
                },
            };
            tracing::info!(
                topic = %self.topic,
                partition = p,
                from = start,
                neighborhoods = shard.hoods.len(),
                pages = shard.hoods.pages,
                "adopted a partition's neighborhoods"
            );
            self.tracker().adopt((self.topic.clone(), p), shard);
            self.acked
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(p, start);
            self.next
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(p, start);
            self.count("adopted", 1);
        }
        tracing::debug!(took = ?started.elapsed(), "partitions adopted");
    }

    fn restore_failed(&self, why: &str) {
        tracing::error!(topic = %self.topic, error = why, "neighborhood state not restored; the source starts again");
        self.count("restore_failed", 1);
        self.failed.store(true, Ordering::Relaxed);
    }

    /// Partition `p`'s state from its last checkpoint, read from `start` on.
    fn restore(
        &self,
        p: i32,
        bytes: &[u8],
        start: i64,
        settings: &crawlsieve_core::settings::NeighborhoodSettings,
    ) -> anyhow::Result<Shard> {
        let (key, mut shard) = Shard::decode(bytes, settings.clone())?;
        anyhow::ensure!(
            key == (self.topic.clone(), p),
            "the checkpoint in {}[{p}] is of {}[{}]: one neighborhoods topic per page topic",
            self.config.state_topic,
            key.0,
            key.1
        );
        // Offsets committed past the checkpoint (a group that ran without
        // neighborhoods) are not read again: nothing below `start` will come.
        shard.coverage.advance_to(start);
        Ok(shard)
    }

    /// Partitions revoked: checkpoint them, commit, give them up.
    pub fn release<C: ConsumerContext>(
        &self,
        consumer: &impl Consumer<C>,
        tpl: &TopicPartitionList,
    ) {
        let mine = self.mine(tpl);
        self.checkpoint(consumer, Which::Release(&mine));
    }

    /// Every partition held: checkpoint, commit, give up (the run ends).
    pub fn release_all<C: ConsumerContext>(&self, consumer: &impl Consumer<C>) {
        let all: Vec<i32> = self
            .acked
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .keys()
            .copied()
            .collect();
        self.checkpoint(consumer, Which::Release(&all));
    }

    /// The periodic checkpoint of the partitions that changed.
    pub fn checkpoint_changed<C: ConsumerContext>(&self, consumer: &impl Consumer<C>) {
        self.checkpoint(consumer, Which::Changed);
    }

    fn checkpoint<C: ConsumerContext>(&self, consumer: &impl Consumer<C>, which: Which) {
        let _turn = self.turn.lock().unwrap_or_else(|p| p.into_inner());
        // Offsets first, state second: what was acknowledged by now is in the
        // state taken after it.
        let acked = self.take_acked(&which);
        let snapshot = self.snapshot(&acked, &which);
        if snapshot.released > 0 {
            self.count("released", snapshot.released);
        }
        let written = self.write_states(snapshot.out);
        if !written.is_empty() && !self.saved(&written) {
            return;
        }
        self.commit(consumer, &written, snapshot.unchanged, &snapshot.upto);
    }

    /// The acknowledged offsets of the partitions `which` names (taken out
    /// of the running ones for a release).
    fn take_acked(&self, which: &Which) -> HashMap<i32, i64> {
        let mut acked = self.acked.lock().unwrap_or_else(|p| p.into_inner());
        match which {
            Which::Changed => acked.clone(),
            Which::Release(ps) => {
                let mut next = self.next.lock().unwrap_or_else(|p| p.into_inner());
                for p in ps.iter() {
                    next.remove(p);
                }
                ps.iter()
                    .filter_map(|p| Some((*p, acked.remove(p)?)))
                    .collect()
            }
        }
    }

    /// The states to write, copied under the tracker's lock and encoded
    /// outside it: pages keep flowing while a large state is written
    /// (encoding costs ~0.8 µs a neighborhood, a copy a fraction of that).
    fn snapshot(&self, acked: &HashMap<i32, i64>, which: &Which) -> Snapshot {
        let mut s = Snapshot::default();
        let mut t = self.tracker();
        for &p in acked.keys() {
            let key = (self.topic.clone(), p);
            if let Some(shard) = t.shard(&key) {
                s.upto.insert(p, shard.commit_below(acked[&p]));
            }
            let shard = match which {
                Which::Changed => match t.shard(&key) {
                    Some(shard) if shard.dirty() => Some(shard.clone()),
                    Some(_) => {
                        s.unchanged.push(p);
                        None
                    }
                    None => None,
                },
                Which::Release(_) => {
                    let taken = t.release(&key);
                    s.released += taken.is_some() as u64;
                    match taken {
                        Some(shard) if !shard.dirty() => {
                            s.unchanged.push(p);
                            None
                        }
                        shard => shard,
                    }
                }
            };
            if let Some(shard) = shard {
                s.out.push((p, shard.changes, shard));
            }
        }
        s
    }

    /// Each state to the state topic, in its partition; the partitions sent
    /// and the change counts they were sent at.
    fn write_states(&self, out: Vec<(i32, u64, Shard)>) -> Vec<(i32, u64)> {
        let mut written = Vec::new();
        for (p, changes, shard) in out {
            let sent = shard.encode(&(self.topic.clone(), p)).and_then(|b| {
                anyhow::ensure!(
                    b.len() <= MAX_MESSAGE,
                    "state of {} bytes is over the {MAX_MESSAGE}-byte message limit",
                    b.len()
                );
                let key = p.to_string();
                self.producer
                    .send(
                        BaseRecord::to(&self.config.state_topic)
                            .partition(p)
                            .key(&key)
                            .payload(&b),
                    )
                    .map_err(|(e, _)| anyhow::anyhow!("{e}"))
            });
            match sent {
                Ok(()) => written.push((p, changes)),
                Err(e) => {
                    self.count("checkpoint_failed", 1);
                    tracing::warn!(topic = %self.topic, partition = p, error = %e, "neighborhood checkpoint not written; offsets not committed");
                }
            }
        }

        written
    }

    /// Waits for the broker to acknowledge the states written; notes them
    /// saved. False when it did not (no offset may then be committed).
    fn saved(&self, written: &[(i32, u64)]) -> bool {
        if let Err(e) = self.producer.flush(TIMEOUT) {
            self.count("checkpoint_failed", written.len() as u64);
            tracing::warn!(topic = %self.topic, error = %e, "neighborhood checkpoints not acknowledged; offsets not committed");
            return false;
        }
        self.count("checkpoint", written.len() as u64);
        let mut t = self.tracker();
        for (p, changes) in written {
            if let Some(s) = t.shard_mut(&(self.topic.clone(), *p)) {
                s.saved = *changes;
            }
        }
        true
    }

    /// Commits the partitions whose state is now on the topic, and those
    /// whose state had not changed since it was.
    fn commit<C: ConsumerContext>(
        &self,
        consumer: &impl Consumer<C>,
        written: &[(i32, u64)],
        unchanged: Vec<i32>,
        upto: &HashMap<i32, i64>,
    ) {
        let mut tpl = TopicPartitionList::new();
        for p in written.iter().map(|(p, _)| *p).chain(unchanged) {
            if let Err(e) = tpl.add_partition_offset(&self.topic, p, Offset::Offset(upto[&p])) {
                tracing::warn!(error = %e, "kafka source: offset not committed");
            }
        }
        if tpl.count() > 0 {
            if let Err(e) = consumer.commit(&tpl, CommitMode::Sync) {
                // A partition that moved meanwhile: its new owner reads from the
                // last commit that went through, and counts each page once.
                tracing::debug!(topic = %self.topic, error = %e, "offsets not committed");
            }
        }
    }
}

/// What a checkpoint takes from the tracker.
#[derive(Default)]
struct Snapshot {
    /// The states to write: partition, its change count, its state.
    out: Vec<(i32, u64, Shard)>,
    /// Partitions whose state on the topic is current already.
    unchanged: Vec<i32>,
    /// Per partition, the offset to commit (`Shard::commit_below`).
    upto: HashMap<i32, i64>,
    /// Partitions released from the tracker.
    released: u64,
}

/// A consumer in no group, for reading checkpoints (one message may be `MAX_MESSAGE`).
fn new_reader(brokers: &str) -> rdkafka::error::KafkaResult<BaseConsumer> {
    crate::kafka::client(brokers)
        .map_err(|e| rdkafka::error::KafkaError::ClientCreation(e.to_string()))?
        // librdkafka assigns partitions only in a consumer with a group id;
        // this one never subscribes or commits, so it never joins the group.
        .set("group.id", "crawlsieve-checkpoint-reader")
        .set("enable.auto.commit", "false")
        .set("fetch.message.max.bytes", MAX_MESSAGE.to_string())
        .set("fetch.max.bytes", MAX_MESSAGE.to_string())
        .set("fetch.wait.max.ms", "10")
        .set(
            "receive.message.max.bytes",
            (MAX_MESSAGE + 1024 * 1024).to_string(),
        )
        .create()
}

/// The last message of each of `topic`'s `partitions` that has one, in one
/// assignment (a fetch round trip, not one per partition).
fn last_messages(
    reader: &BaseConsumer,
    topic: &str,
    partitions: &[i32],
) -> anyhow::Result<HashMap<i32, Vec<u8>>> {
    let mut want: HashMap<i32, i64> = HashMap::new();
    let mut tpl = TopicPartitionList::new();
    for &p in partitions {
        let (low, high) = reader.fetch_watermarks(topic, p, TIMEOUT)?;
        if high > low {
            want.insert(p, high - 1);
            tpl.add_partition_offset(topic, p, Offset::Offset(high - 1))?;
        }
    }
    let mut out = HashMap::new();
    if want.is_empty() {
        return Ok(out);
    }
    reader.assign(&tpl)?;
    let deadline = Instant::now() + TIMEOUT;
    while out.len() < want.len() {
        let Some(left) = deadline.checked_duration_since(Instant::now()) else {
            break;
        };
        match reader.poll(left) {
            Some(Ok(m)) if want.get(&m.partition()) == Some(&m.offset()) => {
                out.insert(m.partition(), m.payload().unwrap_or_default().to_vec());
            }
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Err(e.into()),
            None => break,
        }
    }
    reader.unassign()?;
    anyhow::ensure!(
        out.len() == want.len(),
        "read {} of {} checkpoints from {topic} in {TIMEOUT:?}",
        out.len(),
        want.len()
    );
    Ok(out)
}

/// Every partition's last checkpoint on a neighborhoods topic: the state of a
/// scaled-out crawl, for `merge-neighborhoods --kafka`.
pub fn read_checkpoints(
    brokers: &str,
    state_topic: &str,
    settings: &crawlsieve_core::settings::NeighborhoodSettings,
) -> anyhow::Result<Vec<(ShardKey, Shard)>> {
    let reader = new_reader(brokers)?;
    let partitions = super::partition_ids(&reader, state_topic)?;
    anyhow::ensure!(!partitions.is_empty(), "topic {state_topic} does not exist");
    let mut out = Vec::new();
    for (p, bytes) in last_messages(&reader, state_topic, &partitions)? {
        out.push(
            Shard::decode(&bytes, settings.clone())
                .map_err(|e| anyhow::anyhow!("{state_topic}[{p}]: {e:#}"))?,
        );
    }
    Ok(out)
}
