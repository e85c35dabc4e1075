//! `crawlsieve hub`: serve labeled sets to agents.

use super::ConfigArgs;
use crawlsieve_core::fingerprints::stopchunks::StopChunks;
use crawlsieve_core::labels::keys;
use crawlsieve_daemon::auth::Token;
use crawlsieve_daemon::hub::{self, blind::Discovery, HubConfig};
use crawlsieve_daemon::tls::TlsFiles;
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct HubArgs {
    /// Address to listen on (loopback by default; give --tls-cert and --tls-key
    /// before listening where remote agents reach it).
    #[arg(long, default_value = "127.0.0.1:7600")]
    listen: SocketAddr,
    /// Serve HTTPS: the certificate chain (PEM). Read again on SIGHUP and
    /// when the file changes.
    #[arg(long, requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// Serve HTTPS: the certificate's private key (PEM; others may not write it).
    #[arg(long, requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Directory holding every version of every set.
    #[arg(long)]
    store: PathBuf,
    /// The hub's private key file (see `crawlsieve labels keygen`).
    #[arg(long)]
    key: PathBuf,
    /// File holding the publish token (else CRAWLSIEVE_HUB_TOKEN).
    #[arg(long)]
    token_file: Option<PathBuf>,
    /// File holding a token agents must send to read (else CRAWLSIEVE_HUB_READ_TOKEN; unset: reads are open).
    #[arg(long)]
    read_token_file: Option<PathBuf>,
    /// Largest accepted upload, in MB.
    #[arg(long, default_value_t = 1024)]
    max_upload_mb: usize,
    /// Open connections at most (agents' long-polls hold one each); beyond, `503`.
    #[arg(long, default_value_t = 1024)]
    max_connections: usize,
    /// Open connections at most from one client address.
    #[arg(long, default_value_t = 64)]
    max_connections_per_client: usize,
    /// A blind set the hub discovers from agents' counts: NAME=THRESHOLD keeps
    /// the chunks and shingles seen more than THRESHOLD times (repeatable).
    #[arg(long = "blind", value_name = "NAME=THRESHOLD")]
    blind: Vec<String>,
    /// Merge the counts taken and publish every blind set that changed this
    /// often, in seconds (0: only on `POST /v1/sets/NAME/discover`).
    #[arg(long, default_value_t = 300)]
    discover_every: u64,
    /// Kafka brokers: blind sets are counted by a discoverer group
    /// (`crawlsieve discoverer`); the hub publishes from the keys it
    /// announces on `crawlsieve.discovered.NAME` and takes no counts itself.
    #[arg(long, value_name = "BROKERS")]
    discovered_from: Option<String>,
    /// One agent adds at most N to a key's count in a blind set (the hub
    /// keeps each agent's total): a key crosses the threshold only with
    /// more than THRESHOLD / N agents' evidence, so an agent sending
    /// fabricated counts cannot push ordinary text over it alone.
    #[arg(long, value_name = "N")]
    agent_cap: Option<u64>,
    /// A token per agent: lines `AGENT_ID TOKEN` (others may not write the
    /// file). An agent then sends counts with its own token under its own
    /// id only; the shared count token is not accepted.
    #[arg(long, value_name = "FILE")]
    agent_tokens_file: Option<PathBuf>,
    /// File holding the token agents send counts with (else
    /// CRAWLSIEVE_HUB_COUNT_TOKEN; unset: the publish token).
    #[arg(long)]
    count_token_file: Option<PathBuf>,
    /// Configuration whose stop chunks (`rules_dir`, `stopchunks`) discovery
    /// leaves out: the agents' own.
    #[command(flatten)]
    config: ConfigArgs,
}

/// `--blind NAME=THRESHOLD`, each checked.
fn blind_sets(flags: &[String]) -> anyhow::Result<std::collections::BTreeMap<String, u64>> {
    let mut sets = std::collections::BTreeMap::new();
    for flag in flags {
        let (name, threshold) = flag
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("--blind {flag}: expected NAME=THRESHOLD"))?;
        let threshold: u64 = threshold.trim().parse().map_err(|_| {
            anyhow::anyhow!("--blind {flag}: the threshold is a whole number of occurrences")
        })?;
        anyhow::ensure!(
            sets.insert(name.trim().to_string(), threshold).is_none(),
            "--blind {flag}: set `{name}` given twice"
        );
    }
    Ok(sets)
}

fn secret(file: &Option<PathBuf>, env: &str) -> anyhow::Result<Option<Token>> {
    Token::from_file_or_env(file.as_deref(), env)
}

/// `--agent-tokens-file`: `AGENT_ID TOKEN` a line (`#` comments); errors
/// name the line, never a token.
fn agent_tokens(
    path: &std::path::Path,
) -> anyhow::Result<std::collections::BTreeMap<String, Token>> {
    keys::check_private_file(path, "--agent-tokens-file")?;
    Ok(keys::read_per_agent(path, "--agent-tokens-file", "TOKEN")?
        .into_iter()
        .map(|(agent, token)| (agent, Token::new(token)))
        .collect())
}

/// Which public key agents need: a hub that signs with a key no agent holds
/// fails at every agent, so it says which one at start-up.
fn log_public_key(key: &ed25519_dalek::SigningKey, key_file: &std::path::Path) {
    let public = key.verifying_key();
    let public_file = keys::public_path(key_file);
    tracing::info!(
        public_key = %hex::encode(public.as_bytes()),
        fingerprint = %keys::fingerprint(&public),
        public_key_file = %if public_file.exists() { public_file.display().to_string() } else { "none beside the key".into() },
        "sets are signed: agents verify them with this public key (labels.public_key_file)"
    );
}

pub fn run(a: HubArgs) -> anyhow::Result<i32> {
    for (flag, n) in [
        ("--max-upload-mb", a.max_upload_mb),
        ("--max-connections", a.max_connections),
        ("--max-connections-per-client", a.max_connections_per_client),
    ] {
        anyhow::ensure!(n > 0, "{flag}: must be at least 1");
    }
    let key = keys::read_signing(&a.key)?;
    log_public_key(&key, &a.key);
    let publish_token = secret(&a.token_file, "CRAWLSIEVE_HUB_TOKEN")?.ok_or_else(|| {
        anyhow::anyhow!("the hub needs a publish token: --token-file or CRAWLSIEVE_HUB_TOKEN")
    })?;
    let read_token = secret(&a.read_token_file, "CRAWLSIEVE_HUB_READ_TOKEN")?;
    let sets = blind_sets(&a.blind)?;
    anyhow::ensure!(
        a.discovered_from.is_none() || !sets.is_empty(),
        "--discovered-from: name the blind sets the discoverers count (--blind NAME=THRESHOLD)"
    );
    let stop = if sets.is_empty() {
        None
    } else {
        let settings = a.config.load(&[])?;
        let list = settings.stopchunk_list()?;
        Some(
            StopChunks::from_list(&list, settings.stopchunks.fp_rate)
                .map_err(|e| anyhow::anyhow!("stop chunks: {e}"))?,
        )
    };
    let discovery = Discovery {
        sets,
        count_token: secret(&a.count_token_file, "CRAWLSIEVE_HUB_COUNT_TOKEN")?,
        stop,
        every: (a.discover_every > 0).then(|| std::time::Duration::from_secs(a.discover_every)),
        kafka: a.discovered_from,
        agent_cap: a.agent_cap,
        agent_tokens: a
            .agent_tokens_file
            .as_deref()
            .map(agent_tokens)
            .transpose()?,
    };
    let config = HubConfig {
        listen: a.listen,
        store: a.store,
        key,
        publish_token,
        read_token,
        max_upload_bytes: a.max_upload_mb << 20,
        limits: crawlsieve_daemon::http::Limits {
            max_connections: a.max_connections,
            max_per_client: a.max_connections_per_client,
        },
        discovery,
        tls: TlsFiles::pair(a.tls_cert, a.tls_key, ("--tls-cert", "--tls-key"))?,
    };
    let scheme = if config.tls.is_some() {
        "https"
    } else {
        "http"
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(hub::serve(
        config,
        |addr| eprintln!("hub listening on {scheme}://{addr}"),
        crawlsieve_daemon::shutdown::signal(),
    ))?;
    Ok(0)
}
