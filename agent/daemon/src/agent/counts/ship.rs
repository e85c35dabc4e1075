//! Shipping the outbox: oldest batch first, to the hub over HTTP or to the
//! count topic on Kafka; a batch leaves the outbox only once taken.

use super::kafka::ToKafka;
use super::{outbox_batches, CountStats, Sent};
use crate::backoff::Backoff;
use crate::hub_client::HubClient;
use crawlsieve_core::labels::protocol::CountsReceipt;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// Where batches go.
pub(super) enum Destination {
    Hub(ToHub),
    Kafka(ToKafka),
}

/// The hub (its client holds the count token), the set counted, and who
/// the agent is there.
pub(super) struct ToHub {
    pub hub: HubClient,
    pub set: String,
    pub agent: String,
}

impl Destination {
    async fn send(&self, batch: u64, path: &Path) -> anyhow::Result<Sent> {
        match self {
            Destination::Hub(h) => h.send(batch, path).await,
            Destination::Kafka(k) => k.send(batch, path).await,
        }
    }
}

/// Ships the outbox, oldest first, for as long as the agent runs; a failure
/// waits (1 s doubling to 60 s) and tries again from the same batch.
pub(super) async fn ship(
    to: Destination,
    outbox: PathBuf,
    notify: Arc<Notify>,
    stats: Arc<CountStats>,
) {
    let mut backoff = Backoff::new(Duration::from_secs(1), Duration::from_secs(60));
    loop {
        let batches = outbox_batches(&outbox).unwrap_or_default();
        stats.outbox.store(batches.len() as u64, Ordering::Relaxed);
        let mut failed = false;
        for (n, path) in batches {
            match to.send(n, &path).await {
                Ok(sent) => {
                    settle(&outbox, n, &path, sent, &stats);
                    backoff.reset();
                }
                Err(e) => {
                    stats.send_failures.fetch_add(1, Ordering::Relaxed);
                    tracing::warn!(batch = n, error = %format!("{e:#}"), retry_in = ?backoff.peek(), "counts not shipped yet");
                    failed = true;
                    break;
                }
            }
        }
        if failed {
            backoff.sleep().await;
        } else {
            let _ = tokio::time::timeout(Duration::from_secs(30), notify.notified()).await;
        }
    }
}

/// A batch answered for: out of the outbox (into `rejected/` when refused).
fn settle(outbox: &Path, n: u64, path: &Path, sent: Sent, stats: &CountStats) {
    let counter = match &sent {
        Sent::Taken => &stats.shipped,
        Sent::Duplicate => &stats.duplicates,
        Sent::Refused(why) => {
            tracing::error!(batch = n, %why, "a batch of counts was refused; kept in rejected/");
            &stats.rejected
        }
    };
    if let Sent::Refused(_) = sent {
        let aside = outbox.with_file_name("rejected");
        let _ = std::fs::create_dir_all(&aside);
        let _ = std::fs::rename(path, aside.join(path.file_name().unwrap_or_default()));
    } else {
        let _ = std::fs::remove_file(path);
    }
    counter.fetch_add(1, Ordering::Relaxed);
    stats.outbox.fetch_sub(1, Ordering::Relaxed);
}

impl ToHub {
    async fn send(&self, batch: u64, path: &Path) -> anyhow::Result<Sent> {
        let body = tokio::fs::read(path).await?;
        let (status, text) = self
            .hub
            .post_counts(&self.set, &self.agent, batch, body)
            .await?;
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
            _ => anyhow::bail!(
                "POST {}{}: {status}: {}",
                self.hub.base(),
                crawlsieve_core::labels::protocol::paths::counts(&self.set),
                text.trim()
            ),
        }
    }
}
