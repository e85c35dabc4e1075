//! A disk spool: verdicts a broker could not take yet, kept in order until
//! it is back. Bounded by `max_bytes`; when full, the agent stops taking
//! pages rather than dropping anything.
//!
//! One append-only file of JSON lines and a small file with the committed
//! read offset. With [`SyncPolicy::Always`] an append reaches the disk
//! (`fsync`) before it counts — the page behind it is acknowledged only then —
//! so neither a crash of the agent nor of the machine loses a spooled verdict;
//! with [`SyncPolicy::Interval`] appends are synced at most that far apart
//! (a machine crash may lose that window; a process crash loses nothing, the
//! bytes are in the kernel's cache). A line cut short by a crash mid-append is
//! cut off at start-up. When the reader has caught up, both files are
//! truncated.
//!
//! The offset file is replaced by rename, never written in place, so a crash
//! leaves the old offset or the new one, never a torn number pointing into the
//! middle of a line. It is renamed after every delivered entry (exact across a
//! process crash) and made durable at most every [`OFFSET_SYNC`]: an older
//! offset after a machine crash only replays entries again (at-least-once;
//! NATS drops the repeats by message id). An fsync per replayed entry would
//! halve the replay rate for nothing.

use crate::backoff::Backoff;
use serde::Deserialize;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often a replayed offset is made durable.
pub const OFFSET_SYNC: Duration = Duration::from_millis(100);

/// When appended entries are forced to the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncPolicy {
    /// Before `push` returns.
    Always,
    /// At most this far apart (on a later push or [`Spool::sync_if_due`]).
    Interval(Duration),
}

pub struct Spool {
    data: PathBuf,
    offset_path: PathBuf,
    max_bytes: u64,
    sync: SyncPolicy,
    state: Mutex<State>,
}

struct State {
    file: File,
    /// Bytes written (file length).
    len: u64,
    /// Bytes consumed (committed).
    offset: u64,
    /// Entries waiting.
    entries: u64,
    /// Appended bytes not yet forced to the disk (interval policy).
    unsynced: bool,
    last_sync: Instant,
    offset_synced: Instant,
}

/// The spool is full: stop taking pages.
#[derive(Debug, thiserror::Error)]
#[error("spool {0} is full ({1} bytes); the broker has been unreachable too long")]
pub struct SpoolFull(String, u64);

impl Spool {
    /// Opens (or creates) the spool `name` in `dir`, resuming where it was.
    pub fn open(dir: &Path, name: &str, max_bytes: u64, sync: SyncPolicy) -> anyhow::Result<Self> {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("spool directory {}: {e}", dir.display()))?;
        let data = dir.join(format!("{name}.spool"));
        let offset_path = dir.join(format!("{name}.offset"));
        let file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(&data)
            .map_err(|e| anyhow::anyhow!("spool {}: {e}", data.display()))?;
        let len = complete_lines(&file, &data)?;
        let offset = std::fs::read_to_string(&offset_path)
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .unwrap_or(0)
            .min(len);
        let entries = count_lines(&data, offset)?;
        Ok(Spool {
            data,
            offset_path,
            max_bytes,
            sync,
            state: Mutex::new(State {
                file,
                len,
                offset,
                entries,
                unsynced: false,
                last_sync: Instant::now(),
                offset_synced: Instant::now(),
            }),
        })
    }

    /// Appends one entry (a line without its `\n`).
    pub fn push(&self, line: &[u8]) -> Result<(), anyhow::Error> {
        let mut st = self.state.lock().expect("spool lock");
        let size = line.len() as u64 + 1;
        if st.len - st.offset + size > self.max_bytes {
            return Err(SpoolFull(self.data.display().to_string(), self.max_bytes).into());
        }
        let mut buf = Vec::with_capacity(line.len() + 1);
        buf.extend_from_slice(line);
        buf.push(b'\n');
        st.file.write_all(&buf)?;
        st.len += size;
        st.entries += 1;
        st.unsynced = true;
        // `File::flush` is a no-op: only fsync puts the entry on the disk.
        match self.sync {
            SyncPolicy::Always => st.sync()?,
            SyncPolicy::Interval(every) if st.last_sync.elapsed() >= every => st.sync()?,
            SyncPolicy::Interval(_) => {}
        }
        Ok(())
    }

    /// Forces appended entries to the disk when the interval has passed (the
    /// replay loop calls it, so a quiet spool is not left unsynced).
    pub fn sync_if_due(&self) -> anyhow::Result<()> {
        let mut st = self.state.lock().expect("spool lock");
        if let SyncPolicy::Interval(every) = self.sync {
            if st.unsynced && st.last_sync.elapsed() >= every {
                st.sync()?;
            }
        }
        Ok(())
    }

    /// How long the replay loop may sleep without leaving entries unsynced too long.
    pub fn idle_wait(&self) -> Duration {
        match self.sync {
            SyncPolicy::Always => Duration::from_secs(1),
            SyncPolicy::Interval(every) => every.min(Duration::from_secs(1)),
        }
    }

    /// The oldest entry, if any (not consumed until `commit`).
    pub fn peek(&self) -> anyhow::Result<Option<(Vec<u8>, u64)>> {
        let st = self.state.lock().expect("spool lock");
        if st.offset >= st.len {
            return Ok(None);
        }
        let mut f = File::open(&self.data)?;
        f.seek(SeekFrom::Start(st.offset))?;
        let mut line = Vec::new();
        BufReader::new(f).read_until(b'\n', &mut line)?;
        let consumed = line.len() as u64;
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        Ok(Some((line, consumed)))
    }

    /// Marks the entry returned by `peek` as delivered.
    pub fn commit(&self, consumed: u64) -> anyhow::Result<()> {
        let mut st = self.state.lock().expect("spool lock");
        st.offset = (st.offset + consumed).min(st.len);
        st.entries = st.entries.saturating_sub(1);
        if st.offset == st.len {
            st.file.set_len(0)?;
            // Empty on the disk before the offset 0 is: never old entries under a new offset.
            st.sync()?;
            st.len = 0;
            st.offset = 0;
            st.entries = 0;
        }
        let durable = st.offset == 0 || st.offset_synced.elapsed() >= OFFSET_SYNC;
        crawlsieve_core::durable::replace(
            &self.offset_path,
            st.offset.to_string().as_bytes(),
            durable,
        )?;
        if durable {
            st.offset_synced = Instant::now();
        }
        Ok(())
    }

    /// Entries waiting.
    pub fn depth(&self) -> u64 {
        self.state.lock().expect("spool lock").entries
    }

    pub fn is_empty(&self) -> bool {
        self.depth() == 0
    }

    /// True when another entry of `size` bytes would not fit.
    pub fn would_overflow(&self, size: u64) -> bool {
        let st = self.state.lock().expect("spool lock");
        st.len - st.offset + size > self.max_bytes
    }
}

impl State {
    fn sync(&mut self) -> std::io::Result<()> {
        self.file.sync_data()?;
        self.unsynced = false;
        self.last_sync = Instant::now();
        Ok(())
    }
}

impl Drop for Spool {
    /// A clean stop leaves every entry on the disk, whatever the policy.
    fn drop(&mut self) {
        if let Ok(mut st) = self.state.lock() {
            if st.unsynced {
                let _ = st.sync();
            }
        }
    }
}

/// The length of the spool up to its last complete line: a line cut short by
/// a crash mid-append is truncated away (it was never acknowledged).
fn complete_lines(file: &File, path: &Path) -> anyhow::Result<u64> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(0);
    }
    let mut f = File::open(path)?;
    // Walk back from the end to the last newline, a block at a time.
    let mut end = len;
    let mut block = vec![0u8; 64 * 1024];
    while end > 0 {
        let start = end.saturating_sub(block.len() as u64);
        let n = (end - start) as usize;
        f.seek(SeekFrom::Start(start))?;
        std::io::Read::read_exact(&mut f, &mut block[..n])?;
        if let Some(i) = block[..n].iter().rposition(|&b| b == b'\n') {
            let complete = start + i as u64 + 1;
            if complete < len {
                tracing::warn!(spool = %path.display(), cut = len - complete, "spool: a line cut short by a crash is dropped");
                file.set_len(complete)?;
            }
            return Ok(complete);
        }
        end = start;
    }
    tracing::warn!(spool = %path.display(), cut = len, "spool: a line cut short by a crash is dropped");
    file.set_len(0)?;
    Ok(0)
}

fn count_lines(path: &Path, from: u64) -> anyhow::Result<u64> {
    let mut f = File::open(path)?;
    f.seek(SeekFrom::Start(from))?;
    let mut n = 0;
    for line in BufReader::new(f).split(b'\n') {
        line?;
        n += 1;
    }
    Ok(n)
}

/// `[agent.spool]`: where the broker sinks spool, how much, how safely.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpoolSettings {
    #[serde(default = "default_spool_dir")]
    pub dir: PathBuf,
    /// Bytes of verdicts a sink may hold while its broker is down; when full, no pages are taken.
    #[serde(default = "default_spool_bytes")]
    pub max_bytes: u64,
    /// When a spooled verdict reaches the disk: `always` (before its page is
    /// acknowledged: nothing acknowledged is lost to a power cut) or `interval`
    /// (every `sync_interval_ms`: faster on slow disks; a machine crash may
    /// lose that much).
    #[serde(default)]
    pub sync: SpoolSync,
    #[serde(default)]
    pub sync_interval_ms: Option<u64>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpoolSync {
    #[default]
    Always,
    Interval,
}

impl SpoolSettings {
    /// The sync policy, or why the two keys do not fit together.
    pub fn policy(&self) -> anyhow::Result<SyncPolicy> {
        match (self.sync, self.sync_interval_ms) {
            (SpoolSync::Always, None) => Ok(SyncPolicy::Always),
            (SpoolSync::Always, Some(_)) => anyhow::bail!(
                "agent.spool.sync_interval_ms: only used with agent.spool.sync = \"interval\""
            ),
            (SpoolSync::Interval, ms) => {
                let ms = ms.unwrap_or(100);
                if !(1..=60_000).contains(&ms) {
                    anyhow::bail!("agent.spool.sync_interval_ms: {ms} is not in 1..=60000");
                }
                Ok(SyncPolicy::Interval(std::time::Duration::from_millis(ms)))
            }
        }
    }
}

impl Default for SpoolSettings {
    fn default() -> Self {
        SpoolSettings {
            dir: default_spool_dir(),
            max_bytes: default_spool_bytes(),
            sync: SpoolSync::Always,
            sync_interval_ms: None,
        }
    }
}

fn default_spool_dir() -> PathBuf {
    PathBuf::from("crawlsieve-spool")
}

fn default_spool_bytes() -> u64 {
    1 << 30
}

/// A broker sink's delivery: publish while the spool is empty, spool when
/// a publish fails (the verdict then counts as accepted), and replay the
/// spool in order — later verdicts queue behind it, so order is kept. The
/// NATS and Kafka sinks differ only in how they publish one entry.
pub struct Spooled {
    pub name: String,
    pub spool: Spool,
    wake: tokio::sync::Notify,
    /// Publishes that failed (their verdicts were spooled).
    pub failures: std::sync::atomic::AtomicU64,
}

impl Spooled {
    pub fn new(name: String, spool: Spool) -> Self {
        Spooled {
            name,
            spool,
            wake: tokio::sync::Notify::new(),
            failures: Default::default(),
        }
    }

    /// The gauges `/metrics` shows of this sink.
    pub fn health(&self) -> crate::sinks::Health<'_> {
        crate::sinks::Health {
            name: &self.name,
            spool_depth: self.spool.depth(),
            failures: self.failures.load(std::sync::atomic::Ordering::Relaxed),
            duplicates: None,
        }
    }

    /// Publishes `entry` (when nothing is waiting) or spools it. An error
    /// means the spool is full: the page must not be acknowledged.
    pub async fn send<F>(&self, entry: &[u8], publish: F) -> anyhow::Result<()>
    where
        F: std::future::Future<Output = anyhow::Result<()>>,
    {
        if self.spool.is_empty() {
            match publish.await {
                Ok(()) => return Ok(()),
                Err(e) => {
                    self.failures
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    tracing::warn!(sink = %self.name, error = %e, "publish failed; spooling");
                }
            }
        }
        self.spool.push(entry)?;
        self.wake.notify_one();
        Ok(())
    }

    /// Publishes the spool in order, forever, with backoff while the broker
    /// is away. `failed` hears the number of consecutive failures (a sink may
    /// renew its client).
    pub async fn replay<F, Fut>(&self, mut publish: F, mut failed: impl FnMut(u32))
    where
        F: FnMut(Vec<u8>) -> Fut,
        Fut: std::future::Future<Output = anyhow::Result<()>>,
    {
        let mut backoff = Backoff::new(Duration::from_millis(200), Duration::from_secs(5));
        let mut failures = 0u32;
        // Entries published since the spool last ran dry: an operator sees
        // an outage end in the log (its start is the "spooling" warning).
        let mut replayed = 0u64;
        loop {
            if let Err(e) = self.spool.sync_if_due() {
                tracing::error!(sink = %self.name, error = %e, "spool sync failed");
            }
            let (entry, consumed) = match self.spool.peek() {
                Ok(Some(next)) => next,
                Ok(None) => {
                    if replayed > 0 {
                        tracing::info!(sink = %self.name, replayed, "spool drained: every spooled verdict published");
                        replayed = 0;
                    }
                    let _ =
                        tokio::time::timeout(self.spool.idle_wait(), self.wake.notified()).await;
                    continue;
                }
                Err(e) => {
                    tracing::error!(sink = %self.name, error = %e, "spool unreadable");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            };
            match publish(entry).await {
                Ok(()) => {
                    if let Err(e) = self.spool.commit(consumed) {
                        tracing::error!(sink = %self.name, error = %e, "spool commit failed");
                    }
                    if replayed == 0 {
                        tracing::info!(sink = %self.name, "replaying the spool");
                    }
                    replayed += 1;
                    backoff.reset();
                    failures = 0;
                }
                Err(e) => {
                    tracing::debug!(sink = %self.name, error = %e, "replay: broker still unavailable");
                    failures += 1;
                    failed(failures);
                    backoff.sleep().await;
                }
            }
        }
    }
}

/// Splits a spool entry into its `n` tab-separated fields (the last one may hold tabs).
pub fn fields(entry: &[u8], n: usize) -> Vec<&[u8]> {
    let mut parts: Vec<&[u8]> = entry.splitn(n, |&b| b == b'\t').collect();
    parts.resize(n, &[]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_bound_and_restart() {
        let dir = tempfile::tempdir().unwrap();
        let s = Spool::open(dir.path(), "nats", 20, SyncPolicy::Always).unwrap();
        s.push(b"one").unwrap();
        s.push(b"two").unwrap();
        assert!(s.push(b"a-long-entry").is_err(), "bounded");
        assert_eq!(s.depth(), 2);
        let (first, n) = s.peek().unwrap().unwrap();
        assert_eq!(first, b"one");
        s.commit(n).unwrap();
        drop(s);
        // A restart resumes after the committed entry.
        let s = Spool::open(dir.path(), "nats", 20, SyncPolicy::Always).unwrap();
        assert_eq!(s.depth(), 1);
        let (second, n) = s.peek().unwrap().unwrap();
        assert_eq!(second, b"two");
        s.commit(n).unwrap();
        assert!(s.is_empty());
        assert!(s.peek().unwrap().is_none());
        assert_eq!(
            std::fs::metadata(dir.path().join("nats.spool"))
                .unwrap()
                .len(),
            0
        );
    }

    #[test]
    fn a_line_cut_short_by_a_crash_is_dropped_at_start() {
        let dir = tempfile::tempdir().unwrap();
        let s = Spool::open(dir.path(), "k", 1 << 20, SyncPolicy::Always).unwrap();
        s.push(b"whole").unwrap();
        drop(s);
        // A crash mid-append leaves part of a line behind.
        let mut f = OpenOptions::new()
            .append(true)
            .open(dir.path().join("k.spool"))
            .unwrap();
        f.write_all(b"{\"half\":").unwrap();
        drop(f);
        let s = Spool::open(dir.path(), "k", 1 << 20, SyncPolicy::Always).unwrap();
        assert_eq!(s.depth(), 1);
        s.push(b"next").unwrap();
        let (first, n) = s.peek().unwrap().unwrap();
        assert_eq!(first, b"whole");
        s.commit(n).unwrap();
        assert_eq!(s.peek().unwrap().unwrap().0, b"next");
        // A torn offset file cannot happen (rename), and no temporary is left.
        assert!(!dir.path().join("k.offset.tmp").exists());
    }

    /// The cost of the sync policy (bench/HISTORY.md):
    /// `cargo test --release --lib spool_sync_cost -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn spool_sync_cost() {
        let entry = vec![b'v'; 1500]; // about one verdict
        for policy in [
            SyncPolicy::Always,
            SyncPolicy::Interval(Duration::from_millis(10)),
            SyncPolicy::Interval(Duration::from_millis(100)),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let s = Spool::open(dir.path(), "cost", 1 << 30, policy).unwrap();
            let n = 5_000;
            let t = Instant::now();
            for _ in 0..n {
                s.push(&entry).unwrap();
            }
            let push = n as f64 / t.elapsed().as_secs_f64();
            let t = Instant::now();
            while let Some((_, k)) = s.peek().unwrap() {
                s.commit(k).unwrap();
            }
            let replay = n as f64 / t.elapsed().as_secs_f64();
            eprintln!("{policy:?}: {push:.0} appends/s, {replay:.0} replayed entries/s");
        }
    }

    #[test]
    fn interval_policy_keeps_order_and_survives_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let policy = SyncPolicy::Interval(Duration::from_millis(50));
        let s = Spool::open(dir.path(), "i", 1 << 20, policy).unwrap();
        for i in 0..100 {
            s.push(format!("entry {i}").as_bytes()).unwrap();
        }
        std::thread::sleep(Duration::from_millis(60));
        s.sync_if_due().unwrap();
        assert!(!s.state.lock().unwrap().unsynced, "synced once due");
        let (first, n) = s.peek().unwrap().unwrap();
        assert_eq!(first, b"entry 0");
        s.commit(n).unwrap();
        drop(s);
        let s = Spool::open(dir.path(), "i", 1 << 20, policy).unwrap();
        assert_eq!(s.depth(), 99);
        assert_eq!(s.peek().unwrap().unwrap().0, b"entry 1");
    }
}
