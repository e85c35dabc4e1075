//! Noticing a consumer that stopped receiving while its broker holds pages
//! for it.
//!
//! Broker clients can lose a pull request or a group assignment across a
//! broker restart and then wait forever, connected and silent (a known class
//! of bugs in JetStream pull consumers and Kafka group members). Heartbeats
//! do not catch it: the connection is fine. What does is comparing what the
//! source receives with what its broker says is waiting: when a source has
//! been polled for `after` and received nothing, it asks the broker for its
//! backlog; when pages are waiting and, one `after` later, the consumer's
//! position (for the whole group or durable consumer, so other agents' work
//! counts as progress) has not moved, the stream ends and the source starts a
//! fresh consumer. Pages in flight finish first; nothing is skipped, since
//! the broker redelivers from the last acknowledged position.

use futures::{Stream, StreamExt};
use std::future::Future;
use std::time::Duration;

/// What a broker says about a consumer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backlog {
    /// Pages on the broker not yet delivered to (or committed by) the consumer.
    pub waiting: u64,
    /// A position that moves whenever any member of the consumer makes progress.
    pub position: u64,
}

/// How a watched stream ended.
#[derive(Debug, Default)]
pub struct Watch {
    /// Set when the watchdog ended the stream.
    pub stalled: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Watch {
    pub fn stalled(&self) -> bool {
        self.stalled.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// `inner`, ended when it stalls (see the module comment). `backlog` errors
/// (broker down) are not a stall: the client is reconnecting.
pub fn watched<S, T, F, Fut>(
    inner: S,
    after: Duration,
    backlog: F,
    source: String,
    watch: &Watch,
) -> impl Stream<Item = T>
where
    S: Stream<Item = T> + Unpin,
    F: FnMut() -> Fut,
    Fut: Future<Output = anyhow::Result<Backlog>>,
{
    let stalled = watch.stalled.clone();
    futures::stream::unfold(
        (inner, backlog, None::<u64>),
        move |(mut inner, mut backlog, mut seen)| {
            let (stalled, source) = (stalled.clone(), source.clone());
            async move {
                loop {
                    match tokio::time::timeout(after, inner.next()).await {
                        Ok(Some(item)) => return Some((item, (inner, backlog, None))),
                        Ok(None) => return None,
                        Err(_idle) => match backlog().await {
                            Ok(b) if b.waiting == 0 => seen = None,
                            Ok(b) if seen == Some(b.position) => {
                                tracing::warn!(%source, waiting = b.waiting, idle = ?after * 2,
                                    "source stalled: pages are waiting on the broker but none arrive; restarting its consumer");
                                stalled.store(true, std::sync::atomic::Ordering::Relaxed);
                                return None;
                            }
                            Ok(b) => seen = Some(b.position),
                            Err(e) => {
                                tracing::debug!(%source, error = %e, "backlog unknown");
                                seen = None;
                            }
                        },
                    }
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    /// A stream that never yields, like a consumer that lost its pull request.
    fn silent() -> impl Stream<Item = u32> + Unpin {
        futures::stream::pending()
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_consumer_with_pages_waiting_is_ended() {
        let watch = Watch::default();
        let s = watched(
            silent(),
            Duration::from_secs(5),
            || async {
                Ok(Backlog {
                    waiting: 10,
                    position: 7,
                })
            },
            "t".into(),
            &watch,
        );
        let started = tokio::time::Instant::now();
        assert_eq!(Box::pin(s).next().await, None);
        assert_eq!(
            started.elapsed(),
            Duration::from_secs(10),
            "two idle periods"
        );
        assert!(watch.stalled.load(Ordering::Relaxed));
    }

    #[tokio::test(start_paused = true)]
    async fn an_idle_consumer_with_nothing_waiting_or_progress_elsewhere_is_kept() {
        for moving in [false, true] {
            let watch = Watch::default();
            let position = Arc::new(AtomicU64::new(0));
            let p = position.clone();
            let s = watched(
                silent(),
                Duration::from_secs(5),
                move || {
                    let p = p.clone();
                    async move {
                        Ok(Backlog {
                            // Nothing waiting, or another member of the group making progress.
                            waiting: if moving { 3 } else { 0 },
                            position: p.fetch_add(moving as u64, Ordering::Relaxed),
                        })
                    }
                },
                "t".into(),
                &watch,
            );
            let waited = tokio::time::timeout(Duration::from_secs(600), Box::pin(s).next()).await;
            assert!(
                waited.is_err(),
                "still waiting after 600 s (moving: {moving})"
            );
            assert!(!watch.stalled.load(Ordering::Relaxed));
            assert!(position.load(Ordering::Relaxed) > 0 || !moving);
        }
    }

    #[tokio::test(start_paused = true)]
    async fn items_pass_and_an_unknown_backlog_is_not_a_stall() {
        let watch = Watch::default();
        let items = futures::stream::iter([1u32, 2]).chain(silent());
        let s = watched(
            Box::pin(items),
            Duration::from_secs(5),
            || async { Err(anyhow::anyhow!("broker down")) },
            "t".into(),
            &watch,
        );
        let mut s = Box::pin(s);
        assert_eq!(s.next().await, Some(1));
        assert_eq!(s.next().await, Some(2));
        assert!(tokio::time::timeout(Duration::from_secs(600), s.next())
            .await
            .is_err());
    }
}
