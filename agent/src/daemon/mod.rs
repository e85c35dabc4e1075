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
//!   bounded queue; `metrics`: `/metrics`; `ingest`: `POST /v1/pages`.

pub mod config;
pub mod counts;
pub mod feed;
pub mod ingest;
pub mod metrics;
pub mod pool;
pub mod sources;

use crate::neighborhoods::shards::Place;
use crate::neighborhoods::tracker::Tracker;
use crate::pipeline::Pipeline;
use crate::sinks::kafka::KafkaSink;
use crate::sinks::nats::NatsSink;
use crate::sinks::rotating::RotatingJsonl;
use crate::sinks::spool::Spool;
use crate::verdict::SiteFlag;
use crate::verdict::Verdict;
use config::{AgentSettings, SinkConfig, SourceConfig};
use metrics::{Metrics, ReasonLabel, SinkLabel, VerdictLabel};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// One configured destination.
pub enum Output {
    Jsonl(RotatingJsonl),
    Nats(Arc<NatsSink>),
    Kafka(Arc<KafkaSink>),
}

/// Everything a request handler needs.
pub struct Agent {
    pub pool: pool::Pool,
    pub outputs: Vec<Output>,
    pub metrics: Metrics,
    /// Held only for a page's bookkeeping, never across an await (the Kafka
    /// source's rebalance callbacks take it from synchronous code).
    pub tracker: Option<std::sync::Mutex<Tracker>>,
    pub pipeline: Arc<Pipeline>,
    pub max_page_bytes: usize,
    /// Counting the pages judged for the hub (`[agent.counts]`).
    pub counts: Option<counts::Counting>,
}

impl Agent {
    /// True when some spool cannot take another message: take no pages.
    pub fn spool_full(&self) -> bool {
        self.outputs.iter().any(|o| match o {
            Output::Nats(n) => n.delivery.spool.would_overflow(64 * 1024),
            Output::Kafka(k) => k.delivery.spool.would_overflow(64 * 1024),
            Output::Jsonl(_) => false,
        })
    }

    /// `key` orders messages where the broker can (Kafka: the site).
    async fn send_all(&self, key: &str, id: &str, payload: &[u8]) -> anyhow::Result<()> {
        for o in &self.outputs {
            match o {
                Output::Jsonl(j) => j.send(payload)?,
                Output::Nats(n) => n.send(id, payload).await?,
                Output::Kafka(k) => k.send(key, id, payload).await?,
            }
        }
        Ok(())
    }

    /// Sends a verdict to every sink; Ok means every sink accepted it. `place`:
    /// where the page sits in a partitioned source (its neighborhoods are the
    /// partition's).
    pub async fn deliver(&self, v: &Verdict, place: Option<&Place>) -> anyhow::Result<()> {
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
        for o in &self.outputs {
            let (delivery, duplicates) = match o {
                Output::Nats(n) => (&n.delivery, Some(&n.duplicates)),
                Output::Kafka(k) => (&k.delivery, None),
                Output::Jsonl(_) => continue,
            };
            let label = SinkLabel {
                sink: delivery.name.clone(),
            };
            self.metrics
                .spool_depth
                .get_or_create(&label)
                .set(delivery.spool.depth() as i64);
            let counter = self.metrics.sink_failures.get_or_create(&label);
            let now = delivery.failures.load(Ordering::Relaxed);
            counter.inc_by(now.saturating_sub(counter.get()));
            if let Some(d) = duplicates {
                let counter = self.metrics.sink_duplicates.get_or_create(&label);
                let now = d.load(Ordering::Relaxed);
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
        for o in &self.outputs {
            if let Output::Jsonl(j) = o {
                j.flush()?;
            }
        }
        if let Some(c) = &self.counts {
            c.finish(Duration::from_secs(5)).await;
        }
        Ok(())
    }
}

/// Runs the agent until `shutdown` resolves. `bound` gets the listening address.
pub async fn run(
    settings: crate::settings::Settings,
    bound: impl FnOnce(std::net::SocketAddr),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let agent_settings: AgentSettings = settings.agent.clone().ok_or_else(|| {
        anyhow::anyhow!(
            "configuration: `crawlsieve agent` needs an [agent] section with sources and sinks"
        )
    })?;
    anyhow::ensure!(
        !agent_settings.sinks.is_empty(),
        "configuration: key `agent.sinks`: declare at least one sink"
    );
    anyhow::ensure!(
        !agent_settings.sources.is_empty(),
        "configuration: key `agent.sources`: declare at least one source"
    );
    let workers = if settings.workers > 0 {
        settings.workers
    } else {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    };
    let max_page_bytes = settings.input.max_page_bytes;
    let tracker = Tracker::from_settings(&settings.neighborhoods)?.map(std::sync::Mutex::new);
    let hub = settings.labels.hub.clone();
    let public = settings.labels.public_key()?;
    let min_chars = settings.chunks.min_chars;
    let mut pipeline = Pipeline::new(settings)?;
    let counts = match &agent_settings.counts {
        Some(c) => {
            pipeline.count_occurrences(true);
            let hub_url = hub.as_ref().map(|h| h.url.as_str());
            Some(counts::Counting::start(c, hub_url, min_chars)?)
        }
        None => None,
    };
    let pipeline = Arc::new(pipeline);
    let _follower = match (hub, public) {
        (Some(hub), Some(public)) => {
            let labels = pipeline.labels().clone();
            Some(
                tokio::task::spawn_blocking(move || {
                    crate::labels::follow::start(&hub, public, labels)
                })
                .await??,
            )
        }
        _ => None,
    };

    let sync = agent_settings.spool.policy()?;
    for (key, n) in [
        ("agent.max_connections", agent_settings.max_connections),
        (
            "agent.max_connections_per_client",
            agent_settings.max_connections_per_client,
        ),
    ] {
        anyhow::ensure!(n > 0, "{key}: must be at least 1");
    }
    let mut outputs = Vec::new();
    for (i, sink) in agent_settings.sinks.iter().enumerate() {
        outputs.push(match sink {
            SinkConfig::Jsonl { path, rotate_bytes } => {
                Output::Jsonl(RotatingJsonl::open(path.clone(), *rotate_bytes)?)
            }
            SinkConfig::Nats {
                url,
                stream,
                subject,
                ack_timeout_ms,
                duplicate_window_seconds,
            } => {
                let name = format!("nats-{i}");
                let spool = Spool::open(
                    &agent_settings.spool.dir,
                    &name,
                    agent_settings.spool.max_bytes,
                    sync,
                )?;
                Output::Nats(
                    NatsSink::start(
                        name,
                        url,
                        stream.clone(),
                        subject.clone(),
                        Duration::from_millis(*ack_timeout_ms),
                        Duration::from_secs(*duplicate_window_seconds),
                        spool,
                    )
                    .await?,
                )
            }
            SinkConfig::Kafka {
                brokers,
                topic,
                ack_timeout_ms,
                idempotent,
            } => {
                let name = format!("kafka-{i}");
                let spool = Spool::open(
                    &agent_settings.spool.dir,
                    &name,
                    agent_settings.spool.max_bytes,
                    sync,
                )?;
                Output::Kafka(KafkaSink::start(
                    name,
                    brokers,
                    topic.clone(),
                    Duration::from_millis(*ack_timeout_ms),
                    *idempotent,
                    spool,
                )?)
            }
        });
    }
    let agent = Arc::new(Agent {
        pool: pool::Pool::new(pipeline.clone(), workers, agent_settings.queue)?,
        outputs,
        metrics: Metrics::new(),
        tracker,
        pipeline,
        max_page_bytes,
        counts,
    });
    let http_source = agent_settings
        .sources
        .iter()
        .any(|s| matches!(s, SourceConfig::Http {}));
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let window = agent_settings.queue.max(1);
    let mut queue_sources = tokio::task::JoinSet::new();
    for (i, source) in agent_settings.sources.iter().enumerate() {
        let name = |kind: &str| format!("{kind}-{i}");
        let stall = |ms: u64| -> anyhow::Result<Duration> {
            anyhow::ensure!(
                (100..=3_600_000).contains(&ms),
                "agent.sources[{i}].stall_after_ms: {ms} is outside 100..=3600000"
            );
            Ok(Duration::from_millis(ms))
        };
        let run = |kind: &str| sources::run_for(&agent, name(kind), window, stop_rx.clone());
        match source.clone() {
            SourceConfig::Http {} => {}
            SourceConfig::Nats {
                url,
                stream,
                subject,
                consumer,
                stall_after_ms,
            } => {
                let nats = sources::nats::Nats {
                    url,
                    stream,
                    subject,
                    consumer,
                    stall_after: stall(stall_after_ms)?,
                };
                queue_sources.spawn(sources::nats(run("nats"), nats));
            }
            SourceConfig::Kafka {
                brokers,
                topic,
                group,
                stall_after_ms,
                neighborhoods_topic,
                checkpoint_seconds,
            } => {
                anyhow::ensure!(
                    (1..=3600).contains(&checkpoint_seconds),
                    "agent.sources[{i}].checkpoint_seconds: {checkpoint_seconds} is outside 1..=3600"
                );
                let handover = agent
                    .tracker
                    .is_some()
                    .then(|| sources::kafka::HandoverConfig {
                        state_topic: neighborhoods_topic
                            .unwrap_or_else(|| format!("{topic}.crawlsieve-neighborhoods")),
                        every: Duration::from_secs(checkpoint_seconds),
                    });
                let kafka = sources::kafka::Kafka {
                    brokers,
                    topic,
                    group,
                    stall_after: stall(stall_after_ms)?,
                    handover,
                };
                queue_sources.spawn(sources::kafka(run("kafka"), kafka));
            }
            SourceConfig::WarcDir {
                path,
                checkpoint,
                poll_seconds,
            } => {
                let warc_dir = sources::warc_dir::WarcDir {
                    dir: path,
                    checkpoint,
                    poll: Duration::from_secs(poll_seconds.max(1)),
                };
                queue_sources.spawn(sources::warc_dir(run("warc_dir"), warc_dir));
            }
        }
    }
    let app = ingest::router(agent.clone(), http_source);
    let listener = tokio::net::TcpListener::bind(&agent_settings.listen)
        .await
        .map_err(|e| anyhow::anyhow!("agent.listen {}: {e}", agent_settings.listen))?;
    let addr = listener.local_addr()?;
    tracing::info!(%addr, workers, "agent listening");
    bound(addr);
    let mut http_stop = stop_rx.clone();
    let limits = crate::http::Limits {
        max_connections: agent_settings.max_connections,
        max_per_client: agent_settings.max_connections_per_client,
    };
    let server = tokio::spawn(crate::http::serve(listener, app, limits, async move {
        let _ = http_stop.wait_for(|s| *s).await;
    }));
    shutdown.await;
    let _ = stop_tx.send(true);
    // Sources stop taking pages and finish those in flight; so do HTTP requests.
    // (Each source restarts its own runs; see `sources::supervise`.)
    while queue_sources.join_next().await.is_some() {}
    server.await??;
    // Every accepted page has its verdict in the sinks.
    agent.finish().await?;
    tracing::info!("agent stopped");
    Ok(())
}
