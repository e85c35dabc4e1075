//! The long-running agent: pages in from a crawler, the same `Pipeline` as
//! `scan`, verdicts out to every configured sink, at least once.
//!
//! A page is acknowledged (the HTTP request answered 200 with its verdict)
//! only after every sink accepted the verdict — published and acked by the
//! broker, or written to the sink's disk spool while the broker is down.
//! When the worker queue or a spool is full, the page is refused with 503 and
//! `Retry-After` (back-pressure) rather than dropped. SIGTERM/SIGINT stop new
//! pages, let the ones in flight finish, flush the sinks and save state.
//!
//! - `config`: the `[agent]` settings; `pool`: worker threads behind a
//!   bounded queue; `metrics`: `/metrics`; `listener`: the HTTP listener
//!   (`/healthz`, `/metrics`, and the `http` source's `POST /v1/pages`);
//!   `sources`: where pages come from, a component each.

pub mod config;
pub mod counts;
pub mod feed;
pub mod follow;
pub mod listener;
pub mod metrics;
pub mod pool;
mod run;
pub mod sources;

pub use run::run;

use crate::sinks::Sink;
use crawlsieve_core::neighborhoods::shards::Place;
use crawlsieve_core::neighborhoods::tracker::Tracker;
use crawlsieve_core::pipeline::Pipeline;
use crawlsieve_core::verdict::SiteFlag;
use crawlsieve_core::verdict::Verdict;
use metrics::{Metrics, ReasonLabel, SinkLabel, VerdictLabel};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// Everything a request handler needs.
pub struct Agent {
    pub pool: pool::Pool,
    /// Every configured sink (`agent.sinks`), in order.
    pub sinks: Vec<Arc<dyn Sink>>,
    pub metrics: Metrics,
    /// Held only for a page's bookkeeping, never across an await (the Kafka
    /// source's rebalance callbacks take it from synchronous code).
    pub tracker: Option<std::sync::Mutex<Tracker>>,
    pub pipeline: Arc<Pipeline>,
    pub max_page_bytes: usize,
    /// Counting the pages judged for the hub (`[agent.counts]`).
    pub counts: Option<counts::Counting>,
    /// The sources whose pages count in neighborhoods and counts
    /// (`agent.trusted_sources`, resolved).
    pub trusted: Vec<config::SourceKind>,
    /// The index of pages seen (`[dedup]`), when pages are looked up.
    /// Held for one page's look-up, never across an await.
    pub seen: Option<std::sync::Mutex<crawlsieve_core::dedup::Seen>>,
}

impl Agent {
    /// Looks the page up among the pages seen (when `dedup.check`): the
    /// first to get here of two agents' threads keeps.
    /// A shared index's look-up is a round trip to Redis: the runtime's
    /// other tasks move to another thread meanwhile.
    pub fn look_up(&self, v: &mut Verdict) {
        let Some(seen) = &self.seen else { return };
        let mut check = || seen.lock().unwrap_or_else(|p| p.into_inner()).check(v);
        let multi_thread = tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
        if multi_thread {
            tokio::task::block_in_place(check);
        } else {
            check();
        }
    }

    /// True when some spool cannot take another message: take no pages.
    pub fn spool_full(&self) -> bool {
        self.sinks.iter().any(|s| s.would_overflow(64 * 1024))
    }

    /// `key` orders messages where the broker can (Kafka: the site).
    async fn send_all(&self, key: &str, id: &str, payload: &[u8]) -> anyhow::Result<()> {
        for sink in &self.sinks {
            sink.send(key, id, payload).await?;
        }
        Ok(())
    }

    /// Whether pages from `kind` sources count in neighborhoods and counts.
    pub fn trusts(&self, kind: config::SourceKind) -> bool {
        self.trusted.contains(&kind)
    }

    /// Sends a verdict to every sink; Ok means every sink accepted it. `place`:
    /// where the page sits in a partitioned source (its neighborhoods are the
    /// partition's). `trusted`: its source may feed neighborhoods and counts
    /// (a site's flag rests on pages the crawler fetched, not on anything
    /// posted to the agent); an untrusted page gets its verdict and no more.
    pub async fn deliver(
        &self,
        v: &Verdict,
        place: Option<&Place>,
        trusted: bool,
    ) -> anyhow::Result<()> {
        let payload = serde_json::to_vec(v)?;
        self.send_all(v.site.as_deref().unwrap_or(""), &v.id, &payload)
            .await?;
        self.metrics
            .verdicts_out
            .get_or_create(&VerdictLabel {
                verdict: v.verdict.as_str().to_string(),
            })
            .inc();
        for r in &v.reasons {
            self.metrics
                .reasons
                .get_or_create(&ReasonLabel {
                    reason: r.as_str().to_string(),
                })
                .inc();
        }
        if !trusted {
            self.metrics.untrusted.inc();
            return Ok(());
        }
        if let Some(t) = &self.tracker {
            let flags = {
                let mut t = t.lock().unwrap_or_else(|p| p.into_inner());
                match place {
                    Some(place) => t.observe_at(v, place)?,
                    None => t.observe(v)?,
                }
            };
            for f in flags {
                self.deliver_flag(&f).await?;
            }
        }
        if let Some(c) = &self.counts {
            c.add(v.site.as_deref().unwrap_or(""), &v.counted).await;
        }
        Ok(())
    }

    async fn deliver_flag(&self, f: &SiteFlag) -> anyhow::Result<()> {
        let id = format!("site_flag:{}:{}:{}", f.neighborhood, f.state, f.pages);
        self.send_all(&f.neighborhood, &id, &serde_json::to_vec(f)?)
            .await?;
        self.metrics.site_flags.inc();
        Ok(())
    }

    /// Refreshes gauges read at scrape time.
    pub fn refresh_gauges(&self) {
        for health in self.sinks.iter().filter_map(|s| s.health()) {
            let label = SinkLabel {
                sink: health.name.to_string(),
            };
            self.metrics
                .spool_depth
                .get_or_create(&label)
                .set(health.spool_depth as i64);
            let counter = self.metrics.sink_failures.get_or_create(&label);
            counter.inc_by(health.failures.saturating_sub(counter.get()));
            if let Some(now) = health.duplicates {
                let counter = self.metrics.sink_duplicates.get_or_create(&label);
                counter.inc_by(now.saturating_sub(counter.get()));
            }
        }
        if let Some(c) = &self.counts {
            let s = &c.stats;
            let m = &self.metrics;
            m.counts_occurrences.inc_by(
                s.occurrences
                    .load(Ordering::Relaxed)
                    .saturating_sub(m.counts_occurrences.get()),
            );
            for (outcome, n) in [
                ("cut", &s.cut),
                ("shipped", &s.shipped),
                ("duplicate", &s.duplicates),
                ("rejected", &s.rejected),
                ("send_failure", &s.send_failures),
                ("lost", &s.errors),
            ] {
                let counter = m.counts_batches.get_or_create(&metrics::OutcomeLabel {
                    outcome: outcome.to_string(),
                });
                counter.inc_by(n.load(Ordering::Relaxed).saturating_sub(counter.get()));
            }
            m.counts_outbox.set(s.outbox.load(Ordering::Relaxed) as i64);
            m.counts_held.set(s.held.load(Ordering::Relaxed) as i64);
        }
        if let Some(t) = &self.tracker {
            let t = t.lock().unwrap_or_else(|p| p.into_inner());
            self.metrics
                .handover_partitions
                .set(t.shards().count() as i64);
            for (outcome, n) in [("replayed", t.replayed), ("unowned", t.unowned)] {
                let counter = self.metrics.handover.get_or_create(&metrics::OutcomeLabel {
                    outcome: outcome.to_string(),
                });
                counter.inc_by(n.saturating_sub(counter.get()));
            }
        }
        for set in self.pipeline.labels().load().sets() {
            self.metrics
                .labeled_set_version
                .get_or_create(&metrics::SetLabel {
                    set: set.name.clone(),
                })
                .set(set.number as i64);
        }
    }

    /// End of the run: site flags of the final sweep, state saved, files synced.
    async fn finish(&self) -> anyhow::Result<()> {
        if let Some(t) = &self.tracker {
            let flags = t.lock().unwrap_or_else(|p| p.into_inner()).finish()?;
            for f in flags {
                self.deliver_flag(&f).await?;
            }
        }
        for sink in &self.sinks {
            sink.flush()?;
        }
        if let Some(seen) = &self.seen {
            let mut seen = seen.lock().unwrap_or_else(|p| p.into_inner());
            seen.flush()?;
        }
        if let Some(c) = &self.counts {
            c.finish(Duration::from_secs(5)).await;
        }
        Ok(())
    }
}
