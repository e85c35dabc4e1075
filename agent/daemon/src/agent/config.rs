//! `[agent]`: what the long-running agent takes pages from and sends verdicts to.

pub use super::sources::{SourceConfig, SourceKind};
use crate::sinks::spool::SpoolSettings;
pub use crate::sinks::SinkConfig;
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSettings {
    /// HTTP listener: `POST /v1/pages` (with an `http` source), `/metrics`, `/healthz`.
    #[serde(default = "default_listen")]
    pub listen: String,
    #[serde(default)]
    pub sources: Vec<SourceConfig>,
    #[serde(default)]
    pub sinks: Vec<SinkConfig>,
    /// Pages waiting for a worker; beyond it, sources are pushed back.
    #[serde(default = "default_queue")]
    pub queue: usize,
    #[serde(default)]
    pub spool: SpoolSettings,
    /// Open HTTP connections at most; beyond, `503` at once.
    #[serde(default = "default_connections")]
    pub max_connections: usize,
    /// Open HTTP connections at most from one client address.
    #[serde(default = "default_connections")]
    pub max_connections_per_client: usize,
    /// Count the chunks and shingles of the pages judged and send them to the
    /// hub, which discovers a blind set from every agent's counts.
    #[serde(default)]
    pub counts: Option<CountsSettings>,
    /// A file holding the bearer token `POST /v1/pages` requires (else
    /// `CRAWLSIEVE_INGEST_TOKEN`; neither: ingest is open to whoever reaches
    /// the listener, and its pages feed no neighborhood and no count).
    #[serde(default)]
    pub ingest_token_file: Option<PathBuf>,
    /// A file holding the bearer token `/metrics` requires (else
    /// `CRAWLSIEVE_METRICS_TOKEN`; neither: open, like `/healthz` always is).
    #[serde(default)]
    pub metrics_token_file: Option<PathBuf>,
    /// Serve HTTPS on `listen` with this certificate and key.
    #[serde(default)]
    pub tls: Option<TlsSettings>,
    /// Which sources' pages count in neighborhoods (site flags) and in the
    /// counts sent for blind sets: `http`, `nats`, `kafka`, `warc_dir`.
    /// Default: every source but an `http` one without an ingest token, so
    /// that whoever can post to the agent cannot flag a site or move a count.
    #[serde(default)]
    pub trusted_sources: Option<Vec<SourceKind>>,
}

/// `[agent.tls]`: the HTTPS certificate and key (PEM), read again on `SIGHUP`
/// and when either file changes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlsSettings {
    pub cert_file: PathBuf,
    pub key_file: PathBuf,
}

impl AgentSettings {
    /// The `[agent]` section of the same layered configuration the core's
    /// settings come from (shipped defaults, `rules_dir`, the file, the
    /// environment, `--set`): a mistake in it names the key at start-up.
    pub fn load(
        config_file: Option<&Path>,
        overrides: &[(&str, config::Value)],
    ) -> anyhow::Result<Self> {
        let merged = crawlsieve_core::Settings::layers(config_file, overrides)?;
        if let Err(config::ConfigError::NotFound(_)) = merged.get::<config::Value>("agent") {
            anyhow::bail!(
                "configuration: `crawlsieve agent` needs an [agent] section with sources and sinks"
            );
        }
        let layers = crawlsieve_core::settings_keys::Layers {
            config_file,
            overrides,
        };
        let agent: AgentSettings = crawlsieve_core::settings_keys::read(&merged, "agent", &layers)
            .map_err(|message| anyhow::anyhow!("configuration: {message}"))?;
        anyhow::ensure!(
            !agent.sinks.is_empty(),
            "configuration: key `agent.sinks`: declare at least one sink"
        );
        anyhow::ensure!(
            !agent.sources.is_empty(),
            "configuration: key `agent.sources`: declare at least one source"
        );
        agent.check_paths()?;
        for kind in agent.trusted_sources.iter().flatten() {
            anyhow::ensure!(
                agent.sources.iter().any(|s| s.kind() == *kind),
                "configuration: key `agent.trusted_sources`: `{}` is not among agent.sources",
                kind.as_str()
            );
        }
        Ok(agent)
    }
}

impl AgentSettings {
    /// The directories sources read from exist: a typo in one fails at
    /// start-up, not as a source retrying forever.
    fn check_paths(&self) -> anyhow::Result<()> {
        for (i, source) in self.sources.iter().enumerate() {
            source.check(i)?;
        }
        Ok(())
    }

    /// The sources whose pages may feed neighborhoods and counts: the
    /// configured `trusted_sources`, else every declared source but an
    /// `http` one whose ingest has no token.
    pub fn trusted(&self, ingest_authenticated: bool) -> Vec<SourceKind> {
        if let Some(listed) = &self.trusted_sources {
            if listed.contains(&SourceKind::Http) && !ingest_authenticated {
                tracing::warn!(
                    "agent.trusted_sources lists `http` but ingest has no token: \
                     whoever reaches agent.listen can flag sites and move counts"
                );
            }
            return listed.clone();
        }
        let mut kinds: Vec<SourceKind> = self.sources.iter().map(SourceConfig::kind).collect();
        kinds.retain(|k| *k != SourceKind::Http || ingest_authenticated);
        kinds.dedup();
        kinds
    }
}

/// `[agent.counts]`: what the agent counts for the hub, and how it ships it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountsSettings {
    /// The blind set these counts feed (the hub's `--blind NAME=…`).
    pub set: String,
    /// The hub's base URL (default: `labels.hub.url`).
    #[serde(default)]
    pub hub: Option<String>,
    /// Kafka bootstrap servers: publish the batches to the count topic
    /// `crawlsieve.counts.SET` for a discoverer group, not to the hub.
    #[serde(default)]
    pub kafka: Option<String>,
    /// With `kafka`: this agent's private key (`crawlsieve labels keygen`),
    /// which signs every slice, so that a discoverer given the public key
    /// takes this agent's counts as its own (`--agent-keys-file`).
    #[serde(default)]
    pub signing_key_file: Option<PathBuf>,
    /// A file holding the count token (else `CRAWLSIEVE_HUB_COUNT_TOKEN`).
    #[serde(default)]
    pub token_file: Option<PathBuf>,
    /// With an https:// hub: trust only the certificates in this PEM file
    /// (default: `labels.hub.ca_file`, else the system's roots).
    #[serde(default)]
    pub ca_file: Option<PathBuf>,
    /// Batches waiting for the hub, the spill of the counter, the agent id.
    #[serde(default = "default_counts_dir")]
    pub dir: PathBuf,
    /// This agent's name at the hub (default: made once and kept in `dir`).
    #[serde(default)]
    pub agent_id: Option<String>,
    /// A batch is cut at least this often, in seconds (when it holds anything).
    #[serde(default = "default_counts_interval")]
    pub interval_seconds: u64,
    /// …and whenever it holds this many occurrences (default 2,000,000 to
    /// a hub; 400,000 to Kafka, at most, so that a slice fits a message).
    #[serde(default)]
    pub max_occurrences: Option<u64>,
    /// Occurrences held in memory before a sorted run is spilled, in MB.
    #[serde(default = "default_counts_memory")]
    pub memory_mb: usize,
}

fn default_counts_dir() -> PathBuf {
    PathBuf::from("crawlsieve-counts")
}
fn default_counts_interval() -> u64 {
    300
}
fn default_counts_memory() -> usize {
    64
}

fn default_connections() -> usize {
    1024
}

fn default_listen() -> String {
    "127.0.0.1:7700".into()
}

fn default_queue() -> usize {
    64
}
