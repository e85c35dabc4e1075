//! The agent side of the hub: fetch every followed set at start, then follow
//! new versions by delta, verify, build off the hot path, swap atomically.
//!
//! Runs on its own thread with its own small async runtime, so the pipeline
//! threads never wait on the network. For each set it holds the current
//! file's bytes in memory (a delta applies to them, and the result is
//! verified and built once) and a copy in `cache_dir` (a restart starts from
//! it; a copy that could not be written costs the next start a full download,
//! not the next delta).
//! Whatever goes wrong — hub down, truncated download, bad signature, a delta
//! that does not produce what it claims — the current set stays in use, the
//! reason is logged and counted, and the follower retries with backoff
//! (a failed delta falls back to the full file).

use crate::auth::Token;
use crate::backoff::Backoff;
use crate::hub_client::HubClient;
use crawlsieve_core::labels::file::SetFile;
use crawlsieve_core::labels::protocol::{paths, SetInfo};
use crawlsieve_core::labels::{delta, LabeledSet, LabelsHandle};
use crawlsieve_core::settings::HubFollowSettings;
use ed25519_dalek::VerifyingKey;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the follower did, for logs and metrics.
#[derive(Debug, Default)]
pub struct FollowStats {
    /// New versions swapped in (including the first).
    pub updates: AtomicU64,
    /// Versions applied from a delta.
    pub deltas: AtomicU64,
    /// Downloads refused: bad signature, truncated, wrong set, bad delta.
    pub refused: AtomicU64,
    /// Requests that failed: hub unreachable, HTTP errors.
    pub fetch_errors: AtomicU64,
}

/// A running follower. Dropping it leaves the thread running for the
/// process's lifetime (it holds no resources a shutdown must flush).
pub struct Follower {
    pub stats: Arc<FollowStats>,
}

struct Ctx {
    hub: HubClient,
    public: VerifyingKey,
    cache: PathBuf,
    labels: LabelsHandle,
    stats: Arc<FollowStats>,
    wait: u64,
    /// Each set's installed file, the base its next delta applies to.
    installed: Mutex<HashMap<String, Arc<Vec<u8>>>>,
}

/// Starts following. Returns once every set has a verified version installed
/// (from the hub, or from the cache when the hub cannot be reached), or fails
/// after `start_timeout_seconds`.
pub fn start(
    settings: &HubFollowSettings,
    public: VerifyingKey,
    labels: LabelsHandle,
) -> anyhow::Result<Follower> {
    let token =
        Token::from_file_or_env(settings.token_file.as_deref(), "CRAWLSIEVE_HUB_READ_TOKEN")
            .map_err(|e| anyhow::anyhow!("labels.hub.token_file: {e}"))?;
    let cache = settings
        .cache_dir
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join("crawlsieve-labels"));
    std::fs::create_dir_all(&cache)
        .map_err(|e| anyhow::anyhow!("labels.hub.cache_dir {}: {e}", cache.display()))?;
    let wait = settings.wait_seconds;
    let hub = HubClient::new(&settings.url, token, settings.ca_file.as_deref(), |b| {
        b.connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(wait + 60))
    })
    .map_err(|e| anyhow::anyhow!("labels.hub.ca_file: {e}"))?;
    let stats = Arc::new(FollowStats::default());
    let ctx = Arc::new(Ctx {
        hub,
        public,
        cache,
        labels,
        stats: stats.clone(),
        wait: settings.wait_seconds,
        installed: Mutex::default(),
    });
    let sets = settings.sets.clone();
    let start_timeout = Duration::from_secs(settings.start_timeout_seconds);
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<anyhow::Result<()>>();
    std::thread::Builder::new()
        .name("labels-follow".into())
        .spawn(move || {
            let rt = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = ready_tx.send(Err(e.into()));
                    return;
                }
            };
            rt.block_on(async move {
                let mut current = Vec::new();
                let deadline = tokio::time::Instant::now() + start_timeout;
                for name in &sets {
                    match first_version(&ctx, name, deadline).await {
                        Ok(v) => current.push(v),
                        Err(e) => {
                            let _ = ready_tx.send(Err(e));
                            return;
                        }
                    }
                }
                let _ = ready_tx.send(Ok(()));
                let mut tasks = tokio::task::JoinSet::new();
                for (name, version) in sets.into_iter().zip(current) {
                    tasks.spawn(follow(ctx.clone(), name, version));
                }
                while tasks.join_next().await.is_some() {}
            });
        })?;
    ready_rx
        .recv()
        .map_err(|_| anyhow::anyhow!("labels follower stopped"))??;
    Ok(Follower { stats })
}

impl Ctx {
    fn cache_path(&self, name: &str) -> PathBuf {
        self.cache.join(format!("{name}.cslab"))
    }

    async fn get(&self, path: &str) -> anyhow::Result<reqwest::Response> {
        Ok(self.hub.get(path).await?)
    }

    async fn bytes(&self, path: &str) -> anyhow::Result<Vec<u8>> {
        self.hub.bytes(path).await
    }

    /// Verifies `bytes` as set `name`, builds it (on a blocking thread),
    /// caches the file and swaps it in. Returns its version.
    async fn install(&self, name: &str, bytes: Vec<u8>) -> Result<u64, Refused> {
        let (public, expected) = (self.public, name.to_string());
        let (set, bytes) = tokio::task::spawn_blocking(move || build(&expected, bytes, &public))
            .await
            .map_err(|e| Refused(e.to_string()))??;
        self.swap_in(name, set, bytes)
    }

    /// Applies `delta` to the installed file of set `name`, then verifies and
    /// builds the result, all on one blocking thread: the old file is read
    /// from memory, the new one parsed once. Returns its version.
    async fn install_delta(&self, name: &str, delta: Vec<u8>) -> Result<u64, Refused> {
        let current = self
            .installed
            .lock()
            .expect("installed files")
            .get(name)
            .cloned()
            .ok_or_else(|| Refused("no installed version to apply a delta to".into()))?;
        let (public, expected) = (self.public, name.to_string());
        let (set, bytes) = tokio::task::spawn_blocking(move || {
            let file = SetFile::parse(&current).map_err(|e| Refused(e.to_string()))?;
            let (next, _) = delta::apply(&file, &delta).map_err(|e| Refused(e.to_string()))?;
            build(&expected, next, &public)
        })
        .await
        .map_err(|e| Refused(e.to_string()))??;
        self.swap_in(name, set, bytes)
    }

    /// Puts a built set in use, remembers its file as the next delta's
    /// base, and caches a copy for the next start.
    fn swap_in(&self, name: &str, set: LabeledSet, bytes: Vec<u8>) -> Result<u64, Refused> {
        let version = set.number;
        if let Err(e) = crawlsieve_core::durable::replace(&self.cache_path(name), &bytes, true) {
            tracing::warn!(set = name, error = %e, "could not cache the labeled set");
        }
        self.labels
            .replace_set(Arc::new(set))
            .map_err(|e| Refused(e.to_string()))?;
        self.installed
            .lock()
            .expect("installed files")
            .insert(name.to_string(), Arc::new(bytes));
        self.stats.updates.fetch_add(1, Ordering::Relaxed);
        tracing::info!(set = name, version, "labeled set swapped in");
        Ok(version)
    }
}

/// Verifies `bytes` as a file of set `expected` and builds the set.
fn build(
    expected: &str,
    bytes: Vec<u8>,
    public: &VerifyingKey,
) -> Result<(LabeledSet, Vec<u8>), Refused> {
    let file = SetFile::open(&bytes, public).map_err(|e| Refused(e.to_string()))?;
    if file.header.name != expected {
        return Err(Refused(format!(
            "file is set `{}`, expected `{expected}`",
            file.header.name
        )));
    }
    let set = LabeledSet::from_file(&file).map_err(|e| Refused(e.to_string()))?;
    Ok((set, bytes))
}

/// A download that was refused (it stays unused; the current set stays).
#[derive(Debug)]
struct Refused(String);

/// The first version: the hub's latest (by delta from the cache when there
/// is one), else the cached file when the hub cannot be reached. Retries
/// until `deadline`, then fails with the last reason.
async fn first_version(
    ctx: &Ctx,
    name: &str,
    deadline: tokio::time::Instant,
) -> anyhow::Result<u64> {
    let cached = match tokio::fs::read(ctx.cache_path(name)).await {
        Ok(bytes) => match ctx.install(name, bytes).await {
            Ok(v) => Some(v),
            Err(Refused(why)) => {
                tracing::warn!(
                    set = name,
                    why,
                    "cached labeled set refused; fetching in full"
                );
                None
            }
        },
        Err(_) => None,
    };
    let mut backoff = backoff();
    loop {
        let attempt = tokio::time::timeout_at(deadline, update(ctx, name, cached)).await;
        let e = match attempt {
            Ok(Ok(v)) => return Ok(v),
            Ok(Err(e)) => e,
            Err(_) => anyhow::anyhow!("timed out"),
        };
        if let Some(v) = cached {
            tracing::warn!(set = name, error = %e, version = v, "hub unreachable at start; using the cached set");
            return Ok(v);
        }
        if tokio::time::Instant::now() + backoff.peek() >= deadline {
            anyhow::bail!(
                "labels.hub: no verified version of set `{name}` from {} within the start timeout: {e:#}",
                ctx.hub.base()
            );
        }
        tracing::warn!(set = name, error = %e, "fetching labeled set; will retry");
        backoff.sleep().await;
    }
}

/// Brings set `name` from `current` (if any) to the hub's latest: a delta
/// when possible, else the full file.
async fn update(ctx: &Ctx, name: &str, current: Option<u64>) -> anyhow::Result<u64> {
    let latest: SetInfo = {
        let resp = ctx.get(&paths::set(name)).await.inspect_err(|_| {
            ctx.stats.fetch_errors.fetch_add(1, Ordering::Relaxed);
        })?;
        if !resp.status().is_success() {
            ctx.stats.fetch_errors.fetch_add(1, Ordering::Relaxed);
            anyhow::bail!("GET /v1/sets/{name}: {}", resp.status());
        }
        resp.json().await?
    };
    if current == Some(latest.version) {
        return Ok(latest.version);
    }
    if let Some(from) = current {
        match apply_delta(ctx, name, from, latest.version).await {
            Ok(v) => {
                ctx.stats.deltas.fetch_add(1, Ordering::Relaxed);
                return Ok(v);
            }
            Err(e) => {
                tracing::warn!(set = name, from, error = %e, "delta failed; fetching the full set");
            }
        }
    }
    let bytes = ctx
        // URLs that name versions are immutable: a cache in front of the hub serves them.
        .bytes(&paths::full(name, latest.version))
        .await
        .inspect_err(|_| {
            ctx.stats.fetch_errors.fetch_add(1, Ordering::Relaxed);
        })?;
    ctx.install(name, bytes).await.map_err(|Refused(why)| {
        ctx.stats.refused.fetch_add(1, Ordering::Relaxed);
        anyhow::anyhow!("set `{name}` refused: {why}")
    })
}

async fn apply_delta(ctx: &Ctx, name: &str, from: u64, to: u64) -> anyhow::Result<u64> {
    let delta = ctx
        .bytes(&paths::delta(name, from, to))
        .await
        .inspect_err(|_| {
            ctx.stats.fetch_errors.fetch_add(1, Ordering::Relaxed);
        })?;
    ctx.install_delta(name, delta)
        .await
        .map_err(|Refused(why)| {
            ctx.stats.refused.fetch_add(1, Ordering::Relaxed);
            anyhow::anyhow!("set `{name}`: delta refused: {why}")
        })
}

/// Follows set `name` forever: long-poll for a newer version, then update.
async fn follow(ctx: Arc<Ctx>, name: String, mut version: u64) {
    let mut backoff = backoff();
    loop {
        let path = paths::next(&name, version, ctx.wait);
        let newer = match ctx.get(&path).await {
            Ok(resp) if resp.status() == reqwest::StatusCode::NO_CONTENT => false,
            Ok(resp) if resp.status().is_success() => true,
            Ok(resp) => {
                ctx.stats.fetch_errors.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(set = %name, status = %resp.status(), "hub long-poll failed; retrying");
                backoff.sleep().await;
                continue;
            }
            Err(e) => {
                ctx.stats.fetch_errors.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(set = %name, error = %e, "hub unreachable; keeping version {version}, retrying");
                backoff.sleep().await;
                continue;
            }
        };
        if !newer {
            backoff.reset();
            continue;
        }
        match update(&ctx, &name, Some(version)).await {
            Ok(v) => {
                version = v;
                backoff.reset();
            }
            Err(e) => {
                tracing::warn!(set = %name, error = %e, "update failed; keeping version {version}");
                backoff.sleep().await;
            }
        }
    }
}

/// The follower's retry schedule: 0.5 s doubling to 30 s.
fn backoff() -> Backoff {
    Backoff::new(Duration::from_millis(500), Duration::from_secs(30))
}
