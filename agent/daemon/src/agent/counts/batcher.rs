//! The counting thread: owns the counter, cuts numbered batches into the
//! outbox, and holds — rather than drops what it counted — while the disk
//! under `agent.counts.dir` fails.

use super::{CountStats, Msg};
use crawlsieve_core::crawl::discovery::count::Counter;
use crawlsieve_core::fingerprints::chunks::Hash;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, Notify};

/// The counting thread: owns the counter, cuts batches.
pub(super) struct Batcher {
    pub(super) counter: Option<Counter>,
    pub(super) held: u64,
    pub(super) dir: PathBuf,
    pub(super) spill: PathBuf,
    pub(super) memory: usize,
    pub(super) max: u64,
    pub(super) min_chars: u32,
    pub(super) next: u64,
    pub(super) notify: Arc<Notify>,
    pub(super) stats: Arc<CountStats>,
    /// Set by `Counting::finish`: a disk that keeps failing no longer holds the stop.
    pub(super) stopping: Arc<AtomicBool>,
}

impl Batcher {
    pub(super) fn run(mut self, mut rx: mpsc::Receiver<Msg>) {
        while let Some(msg) = rx.blocking_recv() {
            let stop = matches!(msg, Msg::Stop);
            match msg {
                Msg::Page(site, hashes) => self.add(site, &hashes),
                Msg::Cut | Msg::Stop => self.cut(),
            }
            if stop {
                return;
            }
        }
        // Every sender gone without a stop: keep what was counted.
        self.cut();
    }

    fn add(&mut self, site: u64, hashes: &[Hash]) {
        let stats = self.stats.clone();
        if self.counter.is_none() {
            let (spill, memory) = (self.spill.clone(), self.memory);
            let made = hold(&stats, &self.stopping, "making the spill directory", || {
                Counter::new(&spill, memory)
            });
            let Some(counter) = made else {
                return self.lose();
            };
            self.counter = Some(counter);
        }
        let counter = self.counter.as_mut().expect("just made");
        for h in hashes {
            // The occurrence is held whatever happens; only its spill can fail.
            if counter.add(*h, site).is_err()
                && hold(&stats, &self.stopping, "spilling counts", || {
                    counter.spill()
                })
                .is_none()
            {
                return self.lose();
            }
        }
        self.held += hashes.len() as u64;
        stats
            .occurrences
            .fetch_add(hashes.len() as u64, Ordering::Relaxed);
        if self.held >= self.max {
            self.cut();
        }
    }

    /// Cuts the counter into the next batch, waiting out a full disk.
    fn cut(&mut self) {
        if self.counter.is_none() {
            return;
        }
        let (stats, stopping) = (self.stats.clone(), self.stopping.clone());
        if hold(&stats, &stopping, "cutting a batch", || self.try_cut()).is_none() {
            self.lose();
        }
    }

    /// Writes the counter as batch `next`: synced and renamed into the
    /// outbox, its number recorded, before the shipper hears of it. The
    /// counter is let go only then, so a failure anywhere (a full disk)
    /// leaves everything to write again under the same number.
    fn try_cut(&mut self) -> anyhow::Result<()> {
        let Some(counter) = self.counter.as_mut() else {
            return Ok(());
        };
        let n = self.next;
        let outbox = self.dir.join("outbox");
        let tmp = outbox.join(format!("{n:012}.tmp"));
        let written = counter.write_to(&tmp, self.min_chars);
        let path = outbox.join(format!("{n:012}.cscounts"));
        let durable = written.and_then(|_| -> anyhow::Result<()> {
            std::fs::File::open(&tmp)?.sync_all()?;
            std::fs::rename(&tmp, &path)?;
            crawlsieve_core::durable::sync_dir(&path)?;
            crawlsieve_core::durable::replace(
                &self.dir.join("next-batch"),
                (n + 1).to_string().as_bytes(),
                true,
            )?;
            Ok(())
        });
        if let Err(e) = durable {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        self.counter = None;
        self.held = 0;
        self.next = n + 1;
        self.stats.cut.fetch_add(1, Ordering::Relaxed);
        self.notify.notify_one();
        Ok(())
    }

    /// Only at a stop with the disk still failing: what was counted since
    /// the last batch is gone (as a SIGKILL would take it), and said so.
    fn lose(&mut self) {
        self.stats.errors.fetch_add(1, Ordering::Relaxed);
        tracing::error!("counts: the agent stops with the disk still failing; the occurrences counted since the last batch are lost");
        self.counter = None;
        self.held = 0;
    }
}

/// Runs `op` until it succeeds. A failure (a full disk under
/// `agent.counts.dir`) holds the counting thread, so pages wait for it —
/// back-pressure, with a log line every 30 s and `crawlsieve_counts_held`
/// at 1 — instead of dropping what was counted. `None` only when the agent
/// stops meanwhile.
fn hold<T>(
    stats: &CountStats,
    stopping: &AtomicBool,
    what: &str,
    mut op: impl FnMut() -> anyhow::Result<T>,
) -> Option<T> {
    let mut said: Option<std::time::Instant> = None;
    loop {
        match op() {
            Ok(v) => {
                if said.is_some() {
                    stats.held.store(0, Ordering::Relaxed);
                    tracing::info!("counts: {what} went through; counting goes on");
                }
                return Some(v);
            }
            Err(e) => {
                if stopping.load(Ordering::Relaxed) {
                    return None;
                }
                if said.is_none_or(|t| t.elapsed() >= Duration::from_secs(30)) {
                    stats.held.store(1, Ordering::Relaxed);
                    tracing::error!(error = %format!("{e:#}"), "counts: {what} failed (is agent.counts.dir full?); counting holds, pages wait, nothing counted is dropped; retrying every second");
                    said = Some(std::time::Instant::now());
                }
                std::thread::sleep(Duration::from_secs(1));
            }
        }
    }
}
