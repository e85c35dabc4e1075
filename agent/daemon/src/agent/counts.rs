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

use super::config::CountsSettings;
use crawlsieve_core::discovery::count::Counter;
use crawlsieve_core::fingerprints::chunks::Hash;
use crawlsieve_core::labels::protocol::{
    valid_agent_id, CountsReceipt, AGENT_HEADER, BATCH_HEADER,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
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
    /// Batches lost to a local error (a full disk while cutting).
    pub errors: AtomicU64,
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
    pub agent: String,
}

/// Where a batch is shipped, and as whom.
struct Hub {
    client: reqwest::Client,
    url: String,
    token: String,
    agent: String,
}

impl Counting {
    /// Checks the settings and starts counting; `hub_url` is `labels.hub.url`.
    pub fn start(
        s: &CountsSettings,
        hub_url: Option<&str>,
        min_chars: u32,
    ) -> anyhow::Result<Counting> {
        anyhow::ensure!(
            crate::hub::store::valid_name(&s.set),
            "agent.counts.set: `{}`: use 1-64 of a-z 0-9 - _ .",
            s.set
        );
        anyhow::ensure!(
            (1..=86_400).contains(&s.interval_seconds),
            "agent.counts.interval_seconds: {} is outside 1..=86400",
            s.interval_seconds
        );
        anyhow::ensure!(
            s.max_occurrences >= 1000,
            "agent.counts.max_occurrences: {} is under 1000",
            s.max_occurrences
        );
        anyhow::ensure!(s.memory_mb >= 1, "agent.counts.memory_mb: at least 1");
        let base = s.hub.as_deref().or(hub_url).ok_or_else(|| {
            anyhow::anyhow!(
                "agent.counts.hub: no hub to send counts to (set it, or labels.hub.url)"
            )
        })?;
        let token = match &s.token_file {
            Some(p) => crawlsieve_core::labels::keys::read_secret(p)?,
            None => std::env::var("CRAWLSIEVE_HUB_COUNT_TOKEN")
                .ok()
                .filter(|t| !t.trim().is_empty())
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "agent.counts.token_file: counts need the hub's count token (or CRAWLSIEVE_HUB_COUNT_TOKEN)"
                    )
                })?,
        };
        let outbox = s.dir.join("outbox");
        std::fs::create_dir_all(&outbox)
            .map_err(|e| anyhow::anyhow!("agent.counts.dir {}: {e}", s.dir.display()))?;
        let agent = agent_id(&s.dir, s.agent_id.as_deref())?;
        let stats = Arc::new(CountStats::default());
        let notify = Arc::new(Notify::new());
        let batcher = Batcher {
            counter: None,
            held: 0,
            spill: s.dir.join("spill"),
            memory: s.memory_mb << 20,
            max: s.max_occurrences,
            min_chars,
            next: next_batch(&s.dir)?,
            dir: s.dir.clone(),
            notify: notify.clone(),
            stats: stats.clone(),
        };
        let (tx, rx) = mpsc::channel(1024);
        let thread = std::thread::Builder::new()
            .name("counts".into())
            .spawn(move || batcher.run(rx))?;
        let _ = rustls::crypto::ring::default_provider().install_default();
        let hub = Hub {
            client: reqwest::Client::builder()
                .timeout(Duration::from_secs(120))
                .build()?,
            url: format!("{}/v1/counts/{}", base.trim_end_matches('/'), s.set),
            token,
            agent: agent.clone(),
        };
        tracing::info!(set = %s.set, %agent, hub = %base, "counting the pages judged for the hub");
        let shipper = tokio::spawn(ship(hub, outbox, notify.clone(), stats.clone()));
        let ticker = tokio::spawn({
            let tx = tx.clone();
            let every = Duration::from_secs(s.interval_seconds);
            async move {
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
        });
        Ok(Counting {
            tx,
            batcher: std::sync::Mutex::new(Some(thread)),
            shipper,
            ticker,
            notify,
            stats,
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
        let _ = self.tx.send(Msg::Stop).await;
        let thread = self.batcher.lock().expect("batcher").take();
        if let Some(t) = thread {
            let _ = tokio::task::spawn_blocking(move || t.join()).await;
        }
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

/// The counting thread: owns the counter, cuts batches.
struct Batcher {
    counter: Option<Counter>,
    held: u64,
    dir: PathBuf,
    spill: PathBuf,
    memory: usize,
    max: u64,
    min_chars: u32,
    next: u64,
    notify: Arc<Notify>,
    stats: Arc<CountStats>,
}

impl Batcher {
    fn run(mut self, mut rx: mpsc::Receiver<Msg>) {
        while let Some(msg) = rx.blocking_recv() {
            let stop = matches!(msg, Msg::Stop);
            let result = match msg {
                Msg::Page(site, hashes) => self.add(site, &hashes),
                Msg::Cut | Msg::Stop => self.cut(),
            };
            if let Err(e) = result {
                self.stats.errors.fetch_add(1, Ordering::Relaxed);
                tracing::error!(error = %e, "counts: a batch was lost");
                self.counter = None;
                self.held = 0;
            }
            if stop {
                return;
            }
        }
        // Every sender gone without a stop: keep what was counted.
        let _ = self.cut();
    }

    fn add(&mut self, site: u64, hashes: &[Hash]) -> anyhow::Result<()> {
        if self.counter.is_none() {
            self.counter = Some(Counter::new(&self.spill, self.memory)?);
        }
        let counter = self.counter.as_mut().expect("just made");
        for h in hashes {
            counter.add(*h, site)?;
        }
        self.held += hashes.len() as u64;
        self.stats
            .occurrences
            .fetch_add(hashes.len() as u64, Ordering::Relaxed);
        if self.held >= self.max {
            self.cut()?;
        }
        Ok(())
    }

    /// Writes the counter as batch `next`: synced and renamed into the
    /// outbox, its number recorded, before the shipper hears of it.
    fn cut(&mut self) -> anyhow::Result<()> {
        let Some(counter) = self.counter.take() else {
            return Ok(());
        };
        self.held = 0;
        let n = self.next;
        let outbox = self.dir.join("outbox");
        let tmp = outbox.join(format!("{n:012}.tmp"));
        counter.finish(&tmp, self.min_chars)?;
        std::fs::File::open(&tmp)?.sync_all()?;
        let path = outbox.join(format!("{n:012}.cscounts"));
        std::fs::rename(&tmp, &path)?;
        crawlsieve_core::durable::sync_dir(&path)?;
        self.next = n + 1;
        crawlsieve_core::durable::replace(
            &self.dir.join("next-batch"),
            self.next.to_string().as_bytes(),
            true,
        )?;
        self.stats.cut.fetch_add(1, Ordering::Relaxed);
        self.notify.notify_one();
        Ok(())
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
fn outbox_batches(outbox: &Path) -> anyhow::Result<Vec<(u64, PathBuf)>> {
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

enum Sent {
    Taken,
    Duplicate,
    /// The hub will never take it (malformed): kept aside, not retried.
    Refused(String),
}

/// Ships the outbox, oldest first, for as long as the agent runs; a failure
/// waits (1 s doubling to 60 s) and tries again from the same batch.
async fn ship(hub: Hub, outbox: PathBuf, notify: Arc<Notify>, stats: Arc<CountStats>) {
    let mut backoff = Duration::from_secs(1);
    loop {
        let batches = outbox_batches(&outbox).unwrap_or_default();
        stats.outbox.store(batches.len() as u64, Ordering::Relaxed);
        let mut failed = false;
        for (n, path) in batches {
            match send(&hub, n, &path).await {
                Ok(sent) => {
                    let counter = match &sent {
                        Sent::Taken => &stats.shipped,
                        Sent::Duplicate => &stats.duplicates,
                        Sent::Refused(why) => {
                            tracing::error!(batch = n, %why, "the hub refused a batch of counts; kept in rejected/");
                            &stats.rejected
                        }
                    };
                    if let Sent::Refused(_) = sent {
                        let aside = outbox.with_file_name("rejected");
                        let _ = std::fs::create_dir_all(&aside);
                        let _ = std::fs::rename(
                            &path,
                            aside.join(path.file_name().unwrap_or_default()),
                        );
                    } else {
                        let _ = std::fs::remove_file(&path);
                    }
                    counter.fetch_add(1, Ordering::Relaxed);
                    stats.outbox.fetch_sub(1, Ordering::Relaxed);
                    backoff = Duration::from_secs(1);
                }
                Err(e) => {
                    stats.send_failures.fetch_add(1, Ordering::Relaxed);
                    tracing::warn!(batch = n, error = %e, retry_in = ?backoff, "counts not shipped yet");
                    failed = true;
                    break;
                }
            }
        }
        if failed {
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(60));
        } else {
            let _ = tokio::time::timeout(Duration::from_secs(30), notify.notified()).await;
        }
    }
}

async fn send(hub: &Hub, batch: u64, path: &Path) -> anyhow::Result<Sent> {
    let body = tokio::fs::read(path).await?;
    let resp = hub
        .client
        .post(&hub.url)
        .bearer_auth(&hub.token)
        .header(AGENT_HEADER, &hub.agent)
        .header(BATCH_HEADER, batch.to_string())
        .body(body)
        .send()
        .await?;
    let status = resp.status();
    let text = resp.text().await.unwrap_or_default();
    match status.as_u16() {
        200 | 201 => {
            let receipt: CountsReceipt = serde_json::from_str(&text)
                .map_err(|e| anyhow::anyhow!("the hub's answer: {e}"))?;
            Ok(if receipt.duplicate {
                Sent::Duplicate
            } else {
                Sent::Taken
            })
        }
        400 | 413 => Ok(Sent::Refused(format!("{status}: {}", text.trim()))),
        _ => anyhow::bail!("POST {}: {status}: {}", hub.url, text.trim()),
    }
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
