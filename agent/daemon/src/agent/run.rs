//! The agent's wiring: each part built by a small function of its own from
//! the settings — the pipeline and what follows it (the hub's sets, the
//! counts), the outputs, the queue sources, the HTTP server — then run until
//! shutdown, and stopped in the order that loses nothing: sources first,
//! then the server, then the sinks flushed.

use super::config::{AgentSettings, SourceKind};
use super::listener::{self, Doors};
use super::{counts, pool, sources, Agent};
use crate::sinks::{Place, Sink};
use crawlsieve_core::neighborhoods::tracker::Tracker;
use crawlsieve_core::pipeline::Pipeline;
use crawlsieve_core::settings::Settings;
use metrics::Metrics;
use std::sync::Arc;
use tokio::sync::watch;
use tokio::task::JoinSet;

use super::metrics;

/// Runs the agent until `shutdown` resolves. `bound` gets the listening address.
pub async fn run(
    settings: Settings,
    agent_settings: AgentSettings,
    bound: impl FnOnce(std::net::SocketAddr),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let workers = workers(&settings);
    let max_page_bytes = settings.input.max_page_bytes;
    let tracker = Tracker::from_settings(&settings.neighborhoods)?.map(std::sync::Mutex::new);
    let (pipeline, counts, _follower) = judging(settings, &agent_settings).await?;
    let sinks = sinks(&agent_settings).await?;
    let doors = Doors::from_settings(&agent_settings)?;
    let trusted = agent_settings.trusted(doors.ingest.is_some());
    let http_source = agent_settings
        .sources
        .iter()
        .any(|s| s.kind() == SourceKind::Http);
    if http_source
        && !trusted.contains(&SourceKind::Http)
        && (tracker.is_some() || counts.is_some())
    {
        tracing::warn!(
            "pages posted to /v1/pages feed no neighborhood and no count: give ingest a token \
             (agent.ingest_token_file) or list it in agent.trusted_sources"
        );
    }
    let seen =
        crawlsieve_core::dedup::Seen::open(&pipeline.settings().dedup)?.map(std::sync::Mutex::new);
    let agent = Arc::new(Agent {
        pool: pool::Pool::new(pipeline.clone(), workers, agent_settings.queue)?,
        sinks,
        metrics: Metrics::new(),
        tracker,
        pipeline,
        max_page_bytes,
        counts,
        trusted,
        seen,
    });
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut queue_sources = queue_sources(&agent, &agent_settings, &stop_rx)?;
    let server = http_server(&agent, &agent_settings, doors, stop_rx, workers, bound).await?;
    shutdown.await;
    let _ = stop_tx.send(true);
    // Sources stop taking pages and finish those in flight; so do HTTP requests.
    // (Each source restarts its own runs; see `sources::supervise`.)
    while queue_sources.join_next().await.is_some() {}
    server.await??;
    // Every accepted page has its verdict in the sinks.
    agent.finish().await?;
    tracing::info!(
        pages_in = agent.metrics.pages_in.get(),
        site_flags = agent.metrics.site_flags.get(),
        "agent stopped: every page taken has its verdict delivered or spooled"
    );
    Ok(())
}

/// Pipeline threads: `workers`, or one per core.
fn workers(settings: &Settings) -> usize {
    if settings.workers > 0 {
        settings.workers
    } else {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    }
}

/// The pipeline, the counting of what it judges for the hub, and the
/// follower that swaps the hub's new set versions into it (kept alive by
/// the caller for as long as the agent runs).
async fn judging(
    settings: Settings,
    agent_settings: &AgentSettings,
) -> anyhow::Result<(
    Arc<Pipeline>,
    Option<counts::Counting>,
    Option<super::follow::Follower>,
)> {
    let hub = settings.labels.hub.clone();
    let public = settings.labels.public_key()?;
    let min_chars = settings.chunks.min_chars;
    let mut pipeline = Pipeline::new(settings)?;
    let counts = match &agent_settings.counts {
        Some(c) => {
            pipeline.count_occurrences(true);
            Some(counts::Counting::start(c, hub.as_ref(), min_chars)?)
        }
        None => None,
    };
    let pipeline = Arc::new(pipeline);
    let follower = match (hub, public) {
        (Some(hub), Some(public)) => {
            let labels = pipeline.labels().clone();
            Some(
                tokio::task::spawn_blocking(move || super::follow::start(&hub, public, labels))
                    .await??,
            )
        }
        _ => None,
    };
    Ok((pipeline, counts, follower))
}

/// Every configured sink, each broker's with a spool of its own.
async fn sinks(agent_settings: &AgentSettings) -> anyhow::Result<Vec<Arc<dyn Sink>>> {
    let sync = agent_settings.spool.policy()?;
    let mut sinks = Vec::new();
    for (index, sink) in agent_settings.sinks.iter().enumerate() {
        let at = Place {
            index,
            spool: &agent_settings.spool,
            sync,
        };
        sinks.push(sink.build(&at).await?);
    }
    Ok(sinks)
}

/// The sources that pull pages (all but `http`, whose pages arrive on the
/// listener), each on a task of its own until `stop` turns true.
fn queue_sources(
    agent: &Arc<Agent>,
    agent_settings: &AgentSettings,
    stop: &watch::Receiver<bool>,
) -> anyhow::Result<JoinSet<()>> {
    let window = agent_settings.queue.max(1);
    let mut tasks = JoinSet::new();
    for (index, config) in agent_settings.sources.iter().enumerate() {
        let at = sources::Place {
            index,
            neighborhoods: agent.tracker.is_some(),
        };
        let Some(source) = config.build(&at)? else {
            continue;
        };
        let kind = config.kind();
        let name = format!("{}-{index}", kind.as_str());
        tasks.spawn(source.run(sources::run_for(agent, name, kind, window, stop.clone())));
    }
    Ok(tasks)
}

/// The HTTP server (`/v1/pages` with an `http` source, `/metrics`,
/// `/healthz`), listening before this returns, until `stop` turns true.
async fn http_server(
    agent: &Arc<Agent>,
    agent_settings: &AgentSettings,
    doors: Doors,
    mut stop: watch::Receiver<bool>,
    workers: usize,
    bound: impl FnOnce(std::net::SocketAddr),
) -> anyhow::Result<tokio::task::JoinHandle<std::io::Result<()>>> {
    for (key, n) in [
        ("agent.max_connections", agent_settings.max_connections),
        (
            "agent.max_connections_per_client",
            agent_settings.max_connections_per_client,
        ),
    ] {
        anyhow::ensure!(n > 0, "{key}: must be at least 1");
    }
    let http_source = agent_settings
        .sources
        .iter()
        .any(|s| s.kind() == SourceKind::Http);
    let cert = doors.tls.clone();
    let app = listener::router(agent.clone(), http_source, doors);
    let listener = tokio::net::TcpListener::bind(&agent_settings.listen)
        .await
        .map_err(|e| anyhow::anyhow!("agent.listen {}: {e}", agent_settings.listen))?;
    let addr = listener.local_addr()?;
    tracing::info!(%addr, workers, tls = cert.is_some(), "agent listening");
    bound(addr);
    let limits = crate::http::Limits {
        max_connections: agent_settings.max_connections,
        max_per_client: agent_settings.max_connections_per_client,
    };
    Ok(tokio::spawn(crate::http::serve(
        listener,
        app,
        limits,
        cert,
        async move {
            let _ = stop.wait_for(|s| *s).await;
        },
    )))
}
