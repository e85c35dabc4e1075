//! `crawlsieve discoverer`: one member of a blind set's discoverer group on
//! Kafka (streaming discovery past one hub; docs/discovery-at-scale.md).

use crawlsieve_daemon::auth::Token;
use crawlsieve_daemon::discoverer::{listen, Discoverer, DiscovererConfig};
use crawlsieve_daemon::tls::TlsFiles;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[derive(clap::Args)]
pub struct DiscovererArgs {
    /// Kafka bootstrap servers.
    #[arg(long, default_value = "127.0.0.1:9092")]
    brokers: String,
    /// The blind set: reads `crawlsieve.counts.SET`, announces to `crawlsieve.discovered.SET`.
    #[arg(long)]
    set: String,
    /// Keep the chunks and shingles seen more than this many times (the hub's `--blind SET=N`).
    #[arg(long)]
    threshold: u64,
    /// Partitions of the count topic when it is created here (one key range each; fixed for the set).
    #[arg(long, default_value_t = 8)]
    partitions: u32,
    /// Parts each partition's totals are checkpointed in (one message each, ≤ 16 MB ≈ 460 k keys; fixed for the set).
    #[arg(long, default_value_t = 16)]
    state_parts: u32,
    /// Checkpoint the partitions that changed this often, in seconds.
    #[arg(long, default_value_t = 10)]
    checkpoint_every: u64,
    /// The consumer group (default `crawlsieve-discoverers.SET`).
    #[arg(long)]
    group: Option<String>,
    /// No one agent adds more than N to a key's total (1 to the threshold; fixed for the set).
    #[arg(long, value_name = "N")]
    agent_cap: Option<u64>,
    /// `AGENT_ID PUBLIC_KEY` lines: take a slice only when its agent's key signed it.
    #[arg(long)]
    agent_keys_file: Option<std::path::PathBuf>,
    /// Serve `/metrics` and `/healthz` here (off by default; loopback unless you mean otherwise).
    #[arg(long)]
    listen: Option<std::net::SocketAddr>,
    /// `/metrics` needs this bearer token (else CRAWLSIEVE_METRICS_TOKEN, when set).
    #[arg(long, requires = "listen")]
    metrics_token_file: Option<PathBuf>,
    /// Serve HTTPS with this certificate chain (PEM; read again on SIGHUP or change).
    #[arg(long, requires_all = ["tls_key", "listen"])]
    tls_cert: Option<PathBuf>,
    /// …and this private key (PEM).
    #[arg(long, requires = "tls_cert")]
    tls_key: Option<PathBuf>,
}

pub fn run(a: DiscovererArgs) -> anyhow::Result<i32> {
    anyhow::ensure!(
        (1..=3600).contains(&a.checkpoint_every),
        "--checkpoint-every {}: 1 to 3600 seconds",
        a.checkpoint_every
    );
    let config = DiscovererConfig {
        group: a
            .group
            .unwrap_or_else(|| format!("crawlsieve-discoverers.{}", a.set)),
        brokers: a.brokers,
        set: a.set,
        threshold: a.threshold,
        partitions: a.partitions,
        state_parts: a.state_parts,
        checkpoint_every: Duration::from_secs(a.checkpoint_every),
        agent_cap: a.agent_cap,
        agent_keys: a
            .agent_keys_file
            .as_deref()
            .map(|p| crawlsieve_core::labels::keys::read_agent_keys(p, "--agent-keys-file"))
            .transpose()?,
    };
    let metrics_token = match &a.listen {
        Some(_) => {
            Token::from_file_or_env(a.metrics_token_file.as_deref(), "CRAWLSIEVE_METRICS_TOKEN")
                .map_err(|e| anyhow::anyhow!("--metrics-token-file: {e}"))?
        }
        None => None,
    };
    if let (Some(addr), None) = (&a.listen, &metrics_token) {
        if !addr.ip().is_loopback() {
            tracing::warn!("--listen {addr} beyond loopback with no metrics token: /metrics is open to whoever reaches it");
        }
    }
    let tls = TlsFiles::pair(a.tls_cert, a.tls_key, ("--tls-cert", "--tls-key"))?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let discoverer = rt.block_on(Discoverer::connect(config))?;
    let stop = Arc::new(AtomicBool::new(false));
    let (ended, ended_rx) = tokio::sync::oneshot::channel::<()>();
    if let Some(addr) = a.listen {
        rt.block_on(listen::serve(
            discoverer.clone(),
            addr,
            metrics_token,
            tls,
            async move {
                let _ = ended_rx.await;
            },
        ))?;
    }
    let result = rt.block_on(async {
        // The consumer loop is blocking (rebalance callbacks run inside its poll).
        let mut worker = tokio::task::spawn_blocking({
            let (d, stop) = (discoverer.clone(), stop.clone());
            move || d.run(&stop)
        });
        tokio::select! {
            ended = &mut worker => return ended,
            _ = crawlsieve_daemon::shutdown::signal() => stop.store(true, Ordering::Relaxed),
        }
        worker.await
    });
    let _ = ended.send(());
    result.map_err(|_| anyhow::anyhow!("the discoverer's thread panicked"))??;
    Ok(0)
}
