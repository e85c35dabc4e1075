//! The agent counts as it judges (seed 001 §3.6: detection in the crawler,
//! discovery at the centre): every page's matchable chunks and shingles, with
//! its site, go into a counter in bounded memory (spilling sorted runs like
//! `labels count`); every `interval_seconds` or `max_occurrences` the counter
//! is cut into a numbered batch — a count file in `dir/outbox/` — and shipped
//! to the hub (`POST /v1/counts/{set}`), which adds every agent's batches
//! before it applies the threshold.
//!
//! **Nothing counted twice, nothing lost that was cut.** A batch is durable
//! (synced, renamed, its number recorded) before it is shipped, and stays in
//! the outbox until the hub answers: an agent that was down, or a hub that
//! was, ships it later. The hub takes each `(agent, batch)` once, so a retry
//! after a lost answer adds nothing. A graceful stop cuts the batch in
//! progress; what a SIGKILL takes is the part of one interval not cut yet.
//! Pages a broker delivers twice (at least once) are counted twice, as they
//! are judged twice.

mod batcher;
pub mod kafka;
mod ship;

use super::config::CountsSettings;
use crate::auth::Token;
use crate::hub_client::HubClient;
use batcher::Batcher;
use crawlsieve_core::crawl::discovery::count::Counter;
use crawlsieve_core::fingerprints::chunks::Hash;
use crawlsieve_core::labels::protocol::valid_agent_id;
use crawlsieve_core::settings::HubFollowSettings;
use ship::{Destination, ToHub};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, Notify};

/// What counting did, for `/metrics`.
#[derive(Debug, Default)]
pub struct CountStats {
    pub occurrences: AtomicU64,
    /// Batches cut, shipped (taken by the hub), already at the hub
    /// (duplicate), and refused by it as malformed (kept in `dir/rejected/`).
    pub cut: AtomicU64,
    pub shipped: AtomicU64,
    pub duplicates: AtomicU64,
    pub rejected: AtomicU64,
    /// Sends that failed and will be retried.
    pub send_failures: AtomicU64,
    /// Batches waiting in the outbox.
    pub outbox: AtomicU64,
    /// Batches lost: only at a stop while the disk still fails.
    pub errors: AtomicU64,
    /// 1 while counting holds on a failing disk (pages wait).
    pub held: AtomicU64,
}

enum Msg {
    Page(u64, Vec<Hash>),
    Cut,
    Stop,
}

/// A running counter with its shipper.
pub struct Counting {
    tx: mpsc::Sender<Msg>,
    batcher: std::sync::Mutex<Option<std::thread::JoinHandle<()>>>,
    shipper: tokio::task::JoinHandle<()>,
    ticker: tokio::task::JoinHandle<()>,
    notify: Arc<Notify>,
    pub stats: Arc<CountStats>,
    stopping: Arc<AtomicBool>,
    pub agent: String,
}

impl Counting {
    /// Checks the settings and starts counting; `hub` is `labels.hub` (the
    /// counts' hub and its CA file by default).
    pub fn start(
        s: &CountsSettings,
        hub: Option<&HubFollowSettings>,
        min_chars: u32,
    ) -> anyhow::Result<Counting> {
        anyhow::ensure!(
            crawlsieve_core::labels::protocol::valid_name(&s.set),
            "agent.counts.set: `{}`: use 1-64 of a-z 0-9 - _ .",
            s.set
        );
        anyhow::ensure!(
            (1..=86_400).contains(&s.interval_seconds),
            "agent.counts.interval_seconds: {} is outside 1..=86400",
            s.interval_seconds
        );
        let max = max_occurrences(s)?;
        anyhow::ensure!(s.memory_mb >= 1, "agent.counts.memory_mb: at least 1");
        let outbox = s.dir.join("outbox");
        std::fs::create_dir_all(&outbox)
            .map_err(|e| anyhow::anyhow!("agent.counts.dir {}: {e}", s.dir.display()))?;
        let agent = agent_id(&s.dir, s.agent_id.as_deref())?;
        let to = destination(s, hub, &agent)?;
        let stats = Arc::new(CountStats::default());
        let notify = Arc::new(Notify::new());
        let stopping = Arc::new(AtomicBool::new(false));
        let batcher = Batcher {
            counter: None,
            held: 0,
            spill: s.dir.join("spill"),
            memory: s.memory_mb << 20,
            max,
            min_chars,
            next: next_batch(&s.dir)?,
            dir: s.dir.clone(),
            notify: notify.clone(),
            stats: stats.clone(),
            stopping: stopping.clone(),
        };
        let (tx, rx) = mpsc::channel(1024);
        let thread = std::thread::Builder::new()
            .name("counts".into())
            .spawn(move || batcher.run(rx))?;
        let shipper = tokio::spawn(ship::ship(to, outbox, notify.clone(), stats.clone()));
        let ticker = tokio::spawn(cut_every(
            tx.clone(),
            Duration::from_secs(s.interval_seconds),
        ));
        Ok(Counting {
            tx,
            batcher: std::sync::Mutex::new(Some(thread)),
            shipper,
            ticker,
            notify,
            stats,
            stopping,
            agent,
        })
    }

    /// Counts one judged page's occurrences on `site` (waits when the
    /// counter is busy spilling: back-pressure, not loss).
    pub async fn add(&self, site: &str, hashes: &[Hash]) {
        if hashes.is_empty() {
            return;
        }
        let site = Counter::site_key(site);
        let _ = self.tx.send(Msg::Page(site, hashes.to_vec())).await;
    }

    /// Graceful stop: cuts the batch in progress and ships what it can
    /// within `grace`; the rest waits in the outbox for the next start.
    pub async fn finish(&self, grace: Duration) {
        self.ticker.abort();
        // The batcher may be holding on a failing disk: let the stop through after a last try.
        let stopping = self.stopping.clone();
        let grace_for_disk = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(5)).await;
            stopping.store(true, Ordering::Relaxed);
        });
        let _ = self.tx.send(Msg::Stop).await;
        let thread = self.batcher.lock().expect("batcher").take();
        if let Some(t) = thread {
            let _ = tokio::task::spawn_blocking(move || t.join()).await;
        }
        grace_for_disk.abort();
        self.notify.notify_one();
        let shipped = tokio::time::timeout(grace, async {
            while self.stats.outbox.load(Ordering::Relaxed) > 0
                || self.stats.cut.load(Ordering::Relaxed)
                    > self.stats.shipped.load(Ordering::Relaxed)
                        + self.stats.duplicates.load(Ordering::Relaxed)
                        + self.stats.rejected.load(Ordering::Relaxed)
            {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
        .await;
        if shipped.is_err() {
            tracing::warn!(
                waiting = self.stats.outbox.load(Ordering::Relaxed),
                "counts not all shipped at stop: they wait in the outbox for the next start"
            );
        }
        self.shipper.abort();
    }
}

/// What a destination answered for a batch.
enum Sent {
    Taken,
    Duplicate,
    /// Will never be taken (malformed, too large): kept aside, not retried.
    Refused(String),
}

/// `agent.counts.max_occurrences`, or its default for the destination.
fn max_occurrences(s: &CountsSettings) -> anyhow::Result<u64> {
    let max = match (s.max_occurrences, &s.kafka) {
        (Some(m), Some(_)) => {
            anyhow::ensure!(
                m <= kafka::MAX_OCCURRENCES,
                "agent.counts.max_occurrences: {m} is over {} with agent.counts.kafka \
                 (a batch's slices must fit a Kafka message)",
                kafka::MAX_OCCURRENCES
            );
            m
        }
        (Some(m), None) => m,
        (None, Some(_)) => kafka::MAX_OCCURRENCES,
        (None, None) => 2_000_000,
    };
    anyhow::ensure!(
        max >= 1000,
        "agent.counts.max_occurrences: {max} is under 1000"
    );
    Ok(max)
}

/// Kafka when `agent.counts.kafka` is set, else the hub (with its token).
fn destination(
    s: &CountsSettings,
    hub: Option<&HubFollowSettings>,
    agent: &str,
) -> anyhow::Result<Destination> {
    if let Some(brokers) = &s.kafka {
        anyhow::ensure!(
            s.hub.is_none() && s.token_file.is_none() && s.ca_file.is_none(),
            "agent.counts.kafka: counts go to Kafka or to a hub; drop agent.counts.hub, token_file and ca_file"
        );
        let signing = s
            .signing_key_file
            .as_deref()
            .map(|p| {
                crawlsieve_core::labels::keys::read_signing(p)
                    .map_err(|e| anyhow::anyhow!("agent.counts.signing_key_file: {e:#}"))
            })
            .transpose()?;
        if signing.is_none() {
            tracing::warn!(
                "agent.counts.kafka without agent.counts.signing_key_file: discoverers that check \
                 agents' keys will refuse these counts"
            );
        }
        tracing::info!(set = %s.set, %agent, %brokers, signed = signing.is_some(), "counting the pages judged for the discoverers");
        return Ok(Destination::Kafka(kafka::ToKafka::new(
            brokers, &s.set, agent, signing,
        )?));
    }
    anyhow::ensure!(
        s.signing_key_file.is_none(),
        "agent.counts.signing_key_file: only for agent.counts.kafka (a hub knows agents by their tokens)"
    );
    let base = s.hub.as_deref().or(hub.map(|h| h.url.as_str())).ok_or_else(|| {
        anyhow::anyhow!(
            "agent.counts.hub: no hub to send counts to (set it, labels.hub.url, or agent.counts.kafka)"
        )
    })?;
    let token = Token::from_file_or_env(s.token_file.as_deref(), "CRAWLSIEVE_HUB_COUNT_TOKEN")?
        .ok_or_else(|| {
            anyhow::anyhow!(
                "agent.counts.token_file: counts need the hub's count token (or CRAWLSIEVE_HUB_COUNT_TOKEN)"
            )
        })?;
    let ca_file = s
        .ca_file
        .as_deref()
        .or(hub.and_then(|h| h.ca_file.as_deref()));
    tracing::info!(set = %s.set, %agent, hub = %base, "counting the pages judged for the hub");
    Ok(Destination::Hub(ToHub {
        hub: HubClient::new(base, Some(token), ca_file, |b| {
            b.timeout(Duration::from_secs(120))
        })?,
        set: s.set.clone(),
        agent: agent.to_string(),
    }))
}

/// Asks for a cut every `every`.
async fn cut_every(tx: mpsc::Sender<Msg>, every: Duration) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await;
    loop {
        tick.tick().await;
        if tx.send(Msg::Cut).await.is_err() {
            return;
        }
    }
}

/// The agent's name at the hub: the configured one, else one made at the
/// first start (host name and a random part) and kept in `dir/agent-id`, so
/// that a restarted agent goes on with the same batch numbers.
fn agent_id(dir: &Path, configured: Option<&str>) -> anyhow::Result<String> {
    if let Some(id) = configured {
        anyhow::ensure!(
            valid_agent_id(id),
            "agent.counts.agent_id: `{id}`: use 1-64 of A-Z a-z 0-9 . _ -"
        );
        return Ok(id.to_string());
    }
    let path = dir.join("agent-id");
    if let Ok(text) = std::fs::read_to_string(&path) {
        let id = text.trim();
        anyhow::ensure!(
            valid_agent_id(id),
            "{}: `{id}` is not an agent id",
            path.display()
        );
        return Ok(id.to_string());
    }
    let host: String = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap_or_default()
        .trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .take(40)
        .collect();
    let mut seed = blake3::Hasher::new();
    seed.update(format!("{:?}", std::time::SystemTime::now()).as_bytes());
    seed.update(&std::process::id().to_le_bytes());
    seed.update(
        dir.canonicalize()
            .unwrap_or_default()
            .as_os_str()
            .as_encoded_bytes(),
    );
    let random = &seed.finalize().to_hex()[..12];
    let id = if host.is_empty() {
        format!("agent-{random}")
    } else {
        format!("{host}-{random}")
    };
    crawlsieve_core::durable::replace(&path, id.as_bytes(), true)?;
    Ok(id)
}

/// The next batch number: after the recorded one and after every batch in
/// the outbox (a crash between the rename and the record).
fn next_batch(dir: &Path) -> anyhow::Result<u64> {
    let recorded = std::fs::read_to_string(dir.join("next-batch"))
        .ok()
        .and_then(|t| t.trim().parse::<u64>().ok())
        .unwrap_or(1);
    let in_outbox = outbox_batches(&dir.join("outbox"))?
        .last()
        .map_or(0, |(n, _)| n + 1);
    Ok(recorded.max(in_outbox).max(1))
}

/// Batches in the outbox, in order; temporaries of an interrupted cut removed.
pub(super) fn outbox_batches(outbox: &Path) -> anyhow::Result<Vec<(u64, PathBuf)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(outbox)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(n) = name.strip_suffix(".cscounts").and_then(|n| n.parse().ok()) {
            out.push((n, path));
        } else if name.ends_with(".tmp") {
            let _ = std::fs::remove_file(&path);
        }
    }
    out.sort_unstable();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_numbers_go_on_after_a_crash_between_rename_and_record() {
        let dir = tempfile::tempdir().unwrap();
        let outbox = dir.path().join("outbox");
        std::fs::create_dir_all(&outbox).unwrap();
        assert_eq!(next_batch(dir.path()).unwrap(), 1);
        std::fs::write(dir.path().join("next-batch"), "7").unwrap();
        assert_eq!(next_batch(dir.path()).unwrap(), 7);
        std::fs::write(outbox.join("000000000009.cscounts"), b"").unwrap();
        std::fs::write(outbox.join("000000000010.tmp"), b"").unwrap();
        assert_eq!(next_batch(dir.path()).unwrap(), 10);
        assert!(!outbox.join("000000000010.tmp").exists());
    }

    #[test]
    fn an_agent_keeps_its_id() {
        let dir = tempfile::tempdir().unwrap();
        let id = agent_id(dir.path(), None).unwrap();
        assert!(valid_agent_id(&id), "{id}");
        assert_eq!(agent_id(dir.path(), None).unwrap(), id);
        assert_eq!(
            agent_id(dir.path(), Some("crawler-7")).unwrap(),
            "crawler-7"
        );
        assert!(agent_id(dir.path(), Some("a/b")).is_err());
    }
}
