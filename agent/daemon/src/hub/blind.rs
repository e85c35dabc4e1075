//! Blind sets on the hub: agents send the chunk and shingle counts of the
//! pages they judge (`POST /v1/counts/{name}`); the hub adds them up
//! ([`super::counts`]), applies the threshold and the stop chunks, and
//! publishes a new signed version when the set changed — on a schedule
//! (`every`) or on demand (`POST /v1/sets/{name}/discover`). Followers then
//! hot-swap it by delta as they do any version.

use super::announced::Announced;
use super::store::Upload;
use super::{check_publish, internal, Answer, Failure, Shared};
use crate::auth::Token;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use crawlsieve_core::crawl::discovery::count;
use crawlsieve_core::crawl::discovery::totals::Counts;
use crawlsieve_core::fingerprints::stopchunks::StopChunks;
use crawlsieve_core::labels::file::{Contents, SetFile};
use crawlsieve_core::labels::protocol::{
    valid_agent_id, CountsInfo, CountsReceipt, SetInfo, AGENT_HEADER, BATCH_HEADER,
};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// How the hub discovers blind sets (`crawlsieve hub --blind NAME=THRESHOLD`).
#[derive(Default)]
pub struct Discovery {
    /// Blind set → threshold: a chunk is kept when seen more than this often.
    pub sets: BTreeMap<String, u64>,
    /// The token agents send counts with; `None`: the publish token.
    pub count_token: Option<Token>,
    /// A token per agent id: an agent may send counts only under its own id
    /// (ids are otherwise self-declared, and an agent cap per id would bound
    /// nothing). When set, the shared count token is not accepted.
    pub agent_tokens: Option<BTreeMap<String, Token>>,
    /// Chunks never kept (the agents' own stop chunks, from the same rules).
    pub stop: Option<StopChunks>,
    /// Merge and publish every so often; `None`: on demand only.
    pub every: Option<Duration>,
    /// Kafka brokers: a discoverer group counts, the hub publishes from its
    /// announcements (`super::announced`) instead of taking counts.
    pub kafka: Option<String>,
    /// One agent adds at most this much to a key's count (`totals`); `None`:
    /// whatever it sends.
    pub agent_cap: Option<u64>,
}

struct BlindSet {
    threshold: u64,
    /// Held while a batch is taken and while a discovery runs (owned
    /// guards: the file work runs on the blocking pool).
    counts: Arc<tokio::sync::Mutex<Counts>>,
    /// With discoverers on Kafka: the keys they announced.
    announced: Option<Arc<std::sync::Mutex<Announced>>>,
}

/// Every blind set with its counts.
pub struct Blind {
    sets: BTreeMap<String, BlindSet>,
    count_token: Option<Token>,
    agent_tokens: Option<BTreeMap<String, Token>>,
    stop: Option<StopChunks>,
}

impl Blind {
    pub fn open(store: &std::path::Path, d: Discovery) -> anyhow::Result<Self> {
        let mut sets = BTreeMap::new();
        for (name, threshold) in d.sets {
            anyhow::ensure!(
                crawlsieve_core::labels::protocol::valid_name(&name),
                "blind set `{name}`: use 1-64 of a-z 0-9 - _ ."
            );
            if let Some(cap) = d.agent_cap {
                anyhow::ensure!(
                    d.kafka.is_none(),
                    "--agent-cap with --discovered-from: the discoverers add the counts, so give them --agent-cap (and --agent-keys-file)"
                );
                anyhow::ensure!(
                    (1..=threshold).contains(&cap),
                    "--agent-cap {cap}: must be 1 to set `{name}`'s threshold {threshold} \
                     (a key then needs more than threshold / cap agents)"
                );
                if d.agent_tokens.is_none() {
                    tracing::warn!(
                        set = %name,
                        "--agent-cap without --agent-tokens-file: agent ids are self-declared, \
                         so a holder of the count token can send as many agents as it names"
                    );
                }
            } else if d.kafka.is_none() {
                tracing::warn!(
                    set = %name,
                    "one agent (any holder of the count token) can push a key over the \
                     threshold alone: --agent-cap bounds what one agent adds"
                );
            }
            let counts = Counts::open(&store.join(&name).join("counts"), d.agent_cap)
                .map_err(|e| anyhow::anyhow!("blind set `{name}`: {e}"))?;
            let counts = Arc::new(tokio::sync::Mutex::new(counts));
            let announced = match &d.kafka {
                Some(brokers) => Some(super::announced::follow(brokers, &name, threshold)?),
                None => None,
            };
            sets.insert(
                name,
                BlindSet {
                    threshold,
                    counts,
                    announced,
                },
            );
        }
        Ok(Blind {
            sets,
            count_token: d.count_token,
            agent_tokens: d.agent_tokens,
            stop: d.stop,
        })
    }

    pub fn has(&self, name: &str) -> bool {
        self.sets.contains_key(name)
    }
}

/// A blind set with no version yet gets an empty version 1 at start, so
/// agents can follow it (and start) before any counts have arrived; the
/// first discovery then reaches them as a delta.
pub(super) fn first_versions(hub: &super::Hub) -> anyhow::Result<()> {
    for (name, set) in &hub.blind.sets {
        if hub.store.latest(name).is_some() {
            continue;
        }
        let counts = set.counts.try_lock().expect("not shared yet");
        let upload = Upload {
            contents: Contents::default(),
            min_chars: 0,
            shingles: true,
            immutables: false,
            origins: Vec::new(),
        };
        let info = hub
            .store
            .publish(name, &upload, &hub.key, Some(counts.info(set.threshold)))?;
        tracing::info!(set = %name, version = info.version, "blind set started empty");
    }
    Ok(())
}

/// Whether the request carries the count token (with per-agent tokens: the
/// agent's own, under its own id; checked before the id's syntax, so an
/// unknown id and a wrong token look the same to the sender).
fn admits_counts(hub: &Shared, headers: &HeaderMap) -> bool {
    match &hub.blind.agent_tokens {
        Some(tokens) => headers
            .get(AGENT_HEADER)
            .and_then(|v| v.to_str().ok())
            .and_then(|a| tokens.get(a.trim()))
            .is_some_and(|t| t.admits(headers)),
        None => hub
            .blind
            .count_token
            .as_ref()
            .unwrap_or(&hub.publish_token)
            .admits(headers),
    }
}

/// The batch's sender and number, from its headers.
fn agent_and_batch(headers: &HeaderMap) -> Answer<(String, u64)> {
    let header = |h: &str| headers.get(h).and_then(|v| v.to_str().ok()).map(str::trim);
    let agent = header(AGENT_HEADER)
        .filter(|a| valid_agent_id(a))
        .ok_or_else(|| {
            Failure(
                StatusCode::BAD_REQUEST,
                format!("{AGENT_HEADER}: 1-64 of A-Z a-z 0-9 . _ -"),
            )
        })?
        .to_string();
    let batch: u64 = header(BATCH_HEADER)
        .and_then(|b| b.parse().ok())
        .filter(|&b| b > 0)
        .ok_or_else(|| {
            Failure(
                StatusCode::BAD_REQUEST,
                format!("{BATCH_HEADER}: a batch number from 1"),
            )
        })?;
    Ok((agent, batch))
}

/// `POST /v1/counts/{name}`: one batch of one agent's counts. The body goes
/// straight to a file (an agent's batch can be large; the hub holds none in
/// memory), is checked, and is taken once: the same `(agent, batch)` again
/// answers `200` with `duplicate: true` and adds nothing.
pub(super) async fn counts(
    State(hub): State<Shared>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Answer<(StatusCode, Json<CountsReceipt>)> {
    let admitted = admits_counts(&hub, &headers);
    if !admitted {
        return Err(Failure(
            StatusCode::UNAUTHORIZED,
            "counts need the count bearer token (with per-agent tokens: the agent's own)".into(),
        ));
    }
    let set = hub.blind.sets.get(&name).ok_or_else(|| {
        Failure(
            StatusCode::NOT_FOUND,
            format!("no blind set named `{name}` (the hub's --blind)"),
        )
    })?;
    if set.announced.is_some() {
        return Err(Failure(
            StatusCode::CONFLICT,
            format!(
                "set `{name}` is discovered on Kafka: agents publish counts to {} (agent.counts.kafka)",
                crawlsieve_core::crawl::discovery::slices::count_topic(&name)
            ),
        ));
    }
    let (agent, batch) = agent_and_batch(&headers)?;
    let counts = set.counts.clone().lock_owned().await;
    let receipt = |duplicate, s: count::Summary| CountsReceipt {
        set: name.clone(),
        agent: agent.clone(),
        batch,
        duplicate,
        distinct: s.distinct,
        occurrences: s.occurrences,
    };
    if counts.has(&agent, batch) {
        return Ok((StatusCode::OK, Json(receipt(true, Default::default()))));
    }
    let tmp = counts.temporary(&agent, batch);
    if let Err(f) = upload_to_file(body, hub.max_upload_bytes, &tmp).await {
        let _ = std::fs::remove_file(&tmp);
        return Err(f);
    }
    let (a, taken) = (agent.clone(), counts);
    let summary = tokio::task::spawn_blocking(move || {
        let mut counts = taken;
        counts.take(&a, batch, &tmp)
    })
    .await
    .map_err(internal)?
    .map_err(|e| Failure(StatusCode::BAD_REQUEST, format!("counts: {e}")))?;
    tracing::info!(set = %name, %agent, batch, distinct = summary.distinct, occurrences = summary.occurrences, "counts taken");
    Ok((StatusCode::CREATED, Json(receipt(false, summary))))
}

/// What a discovery did.
#[derive(Debug, serde::Serialize)]
pub struct Discovered {
    /// Batches merged by this run.
    pub merged: u64,
    /// The new version, when the set changed.
    pub published: Option<SetInfo>,
    /// Keys the set holds now (chunks and shingles over the threshold).
    pub keys: u64,
}

/// `POST /v1/sets/{name}/discover`: merge now, publish if changed.
pub(super) async fn discover(
    State(hub): State<Shared>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Answer<Json<Discovered>> {
    check_publish(&hub, &headers)?;
    if !hub.blind.has(&name) {
        return Err(Failure(
            StatusCode::NOT_FOUND,
            format!("no blind set named `{name}` (the hub's --blind)"),
        ));
    }
    Ok(Json(run(&hub, &name).await.map_err(internal)?))
}

/// Discovers every blind set every `every`, for as long as the hub runs.
pub(super) async fn schedule(hub: Shared, every: Duration) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await;
    loop {
        tick.tick().await;
        for name in hub.blind.sets.keys() {
            match run(&hub, name).await {
                Ok(d) if d.merged > 0 || d.published.is_some() => {
                    tracing::info!(set = %name, merged = d.merged, keys = d.keys, version = ?d.published.as_ref().map(|p| p.version), "discovered");
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::error!(set = %name, error = %e, "discovery failed; retried at the next tick")
                }
            }
        }
    }
}

/// Merges the batches taken, applies the threshold and the stop chunks, and
/// publishes a new version when the keys differ from the latest one's.
async fn run(hub: &Shared, name: &str) -> anyhow::Result<Discovered> {
    let set = &hub.blind.sets[name];
    let mut counts = set.counts.clone().lock_owned().await;
    // Versions are assigned in order with hand-made publishes too.
    let _one_at_a_time = hub.publishing.lock().await;
    let h = hub.clone();
    let name = name.to_string();
    let threshold = set.threshold;
    let announced = set.announced.clone();
    let (discovered, info) = tokio::task::spawn_blocking(move || -> anyhow::Result<_> {
        let stop = h.blind.stop.as_ref();
        let is_stop = |c: &_| stop.is_some_and(|s| s.contains(c));
        let (merged, found, info) = match &announced {
            Some(a) => {
                let (found, info) = from_announcements(a, threshold, is_stop)?;
                (0, found, info)
            }
            None => {
                let merged = counts.merge()?;
                let Some(total) = counts.total() else {
                    return Ok((
                        Discovered {
                            merged: 0,
                            published: None,
                            keys: 0,
                        },
                        None,
                    ));
                };
                let found = count::discover(&total, threshold, None, is_stop)?;
                (merged.batches, found, counts.info(threshold))
            }
        };
        let keys = found.keys.len() as u64;
        let unchanged = match h.store.latest(&name) {
            Some(latest) => {
                let bytes = h.store.read(&name, latest.version)?;
                SetFile::parse(&bytes)?.contents().keys == found.keys
            }
            None => false,
        };
        let published = if unchanged {
            None
        } else {
            let upload = Upload {
                contents: Contents {
                    keys: found.keys,
                    simhashes: Vec::new(),
                },
                min_chars: found.min_chars,
                shingles: true,
                immutables: false,
                origins: Vec::new(),
            };
            Some(h.store.publish(&name, &upload, &h.key, Some(info))?)
        };
        Ok((
            Discovered {
                merged,
                published: published.clone(),
                keys,
            },
            published,
        ))
    })
    .await??;
    if info.is_some() {
        hub.published.send_modify(|n| *n += 1);
    }
    Ok(discovered)
}

/// The set the discoverers' announcements make: the same threshold and stop
/// chunks as the hub's own discovery, over the keys announced.
fn from_announcements(
    a: &std::sync::Mutex<Announced>,
    threshold: u64,
    is_stop: impl Fn(&crawlsieve_core::fingerprints::chunks::Hash) -> bool,
) -> anyhow::Result<(count::Discovered, CountsInfo)> {
    let (counts, min_chars, read) = {
        let a = a.lock().unwrap_or_else(|p| p.into_inner());
        let counts: Vec<_> = a.keys.values().copied().collect();
        (counts, a.min_chars.unwrap_or(0), a.read)
    };
    let distinct = counts.len() as u64;
    let found = count::discover_counts(counts, min_chars, threshold, None, is_stop)?;
    let info = CountsInfo {
        // The announcements read: it grows as the discoverers find keys.
        generation: read,
        distinct,
        threshold,
        ..Default::default()
    };
    Ok((found, info))
}

/// Streams a request body into `path`, with the limits of every upload
/// ([`super::Frames`]).
async fn upload_to_file(body: Body, limit: usize, path: &std::path::Path) -> Answer<()> {
    use tokio::io::AsyncWriteExt;
    let mut file = tokio::fs::File::create(path).await.map_err(internal)?;
    let mut frames = super::Frames::new(body, limit);
    while let Some(data) = frames.next().await? {
        file.write_all(&data).await.map_err(internal)?;
    }
    file.flush().await.map_err(internal)?;
    Ok(())
}
