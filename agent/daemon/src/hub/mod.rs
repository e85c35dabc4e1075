//! The hub: keeps every version of every labeled set, signs them, and serves
//! them to agents — the full file, a delta from any stored version to the
//! latest, and a long-poll that answers when a new version is published.
//!
//! | method and path | what |
//! |---|---|
//! | `GET /v1/sets` | latest metadata of every set (JSON) |
//! | `GET /v1/sets/{name}` | latest metadata of one set (JSON) |
//! | `GET /v1/sets/{name}/full[?version=N]` | the signed file (immutable with `version`) |
//! | `GET /v1/sets/{name}/delta?from=N[&to=M]` | delta from version N to M, default the latest (immutable with `to`) |
//! | `GET /v1/sets/{name}/next?after=N[&wait=S]` | metadata once the latest is newer than N; `204` after S seconds (default 30, at most 300) |
//! | `POST /v1/sets/{name}` | publish a new version (bearer token); body: a labeled-set file or a hex text list |
//! | `POST /v1/counts/{name}` | a batch of an agent's counts for blind set `name` (count token; `X-Crawlsieve-Agent`, `X-Crawlsieve-Batch`) |
//! | `POST /v1/sets/{name}/discover` | merge the counts taken and publish the set if it changed, now (publish token) |
//! | `GET /healthz` | `ok` |
//!
//! Answers carry `ETag` and `Cache-Control` so that caches can front the hub
//! (`cache`). Publishing needs the publish token; reading is open unless a read token is
//! configured. The hub re-signs every version with its own key: what an agent
//! trusts is the hub's public key, whoever built the keys. Blind sets
//! (`blind`) are discovered by the hub itself from the counts agents send,
//! or, past one hub, by discoverers on Kafka whose announcements the hub
//! publishes from (`announced`).

pub mod announced;
pub mod blind;
pub mod cache;
pub mod publish;
pub mod store;

use crate::auth::Token;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use cache::Lifetime;
use crawlsieve_core::labels::file::SetFile;
use crawlsieve_core::labels::origin;
use crawlsieve_core::labels::protocol::{paths, valid_name};
use ed25519_dalek::SigningKey;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use store::Upload;
use store::{SetInfo, Store};
use tokio::sync::watch;

/// How the hub runs.
pub struct HubConfig {
    pub listen: SocketAddr,
    pub store: std::path::PathBuf,
    pub key: SigningKey,
    pub publish_token: Token,
    pub read_token: Option<Token>,
    pub max_upload_bytes: usize,
    /// Open connections, in all and per client address (long-polls hold one each).
    pub limits: crate::http::Limits,
    /// Blind sets the hub discovers from agents' counts.
    pub discovery: blind::Discovery,
    /// Serve HTTPS with this certificate and key (reloaded when they change).
    pub tls: Option<crate::tls::TlsFiles>,
}

/// An upload that sends nothing for this long is cut off (408).
pub const UPLOAD_IDLE: Duration = Duration::from_secs(30);

struct Hub {
    store: Store,
    key: SigningKey,
    publish_token: Token,
    read_token: Option<Token>,
    /// Bumped on every publish; long-polls wait on it.
    published: watch::Sender<u64>,
    /// One publish at a time: versions are assigned in order.
    publishing: tokio::sync::Mutex<()>,
    /// One delta made at a time: a thousand followers asking for the same
    /// new delta at once make it once; the rest find the file.
    deltas: tokio::sync::Mutex<()>,
    /// Largest upload read, and only after the publish token was checked.
    max_upload_bytes: usize,
    /// Blind sets, their counts and how they are discovered.
    blind: blind::Blind,
}

type Shared = Arc<Hub>;

/// Serves until `shutdown` resolves. Returns the bound address through `bound`
/// (useful with port 0).
pub async fn serve(
    config: HubConfig,
    bound: impl FnOnce(SocketAddr),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let limits = config.limits;
    let listen = config.listen;
    let every = config.discovery.every;
    let cert = config
        .tls
        .clone()
        .map(crate::tls::Certificate::load)
        .transpose()?;
    let hub = hub(config)?;
    let app = router(hub.clone()).layer(DefaultBodyLimit::max(hub.max_upload_bytes));
    if let Some(every) = every {
        tokio::spawn(blind::schedule(hub, every));
    }
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| anyhow::anyhow!("hub: listen on {listen}: {e}"))?;
    let addr = listener.local_addr()?;
    tracing::info!(%addr, tls = cert.is_some(), "hub listening");
    bound(addr);
    crate::http::serve(listener, app, limits, cert, shutdown).await?;
    Ok(())
}

/// The hub's routes over its store, without a listener (what `serve` runs;
/// the fuzz target drives it in process). `config.listen` and
/// `config.limits` are not used here.
pub fn app(config: HubConfig) -> anyhow::Result<Router> {
    let hub = hub(config)?;
    let limit = hub.max_upload_bytes;
    Ok(router(hub).layer(DefaultBodyLimit::max(limit)))
}

fn hub(config: HubConfig) -> anyhow::Result<Shared> {
    let store = Store::open(&config.store)?;
    let blind = blind::Blind::open(&config.store, config.discovery)?;
    let hub = Arc::new(Hub {
        store,
        key: config.key,
        publish_token: config.publish_token,
        read_token: config.read_token,
        published: watch::channel(0).0,
        publishing: tokio::sync::Mutex::new(()),
        deltas: tokio::sync::Mutex::new(()),
        max_upload_bytes: config.max_upload_bytes,
        blind,
    });
    blind::first_versions(&hub)?;
    Ok(hub)
}

fn router(hub: Shared) -> Router {
    Router::new()
        .route("/healthz", get(|| async { "ok\n" }))
        .route(paths::SETS, get(list))
        .route(paths::SET, get(latest).post(publish))
        .route(paths::FULL, get(full))
        .route(paths::DELTA, get(delta))
        .route(paths::NEXT, get(next))
        .route(paths::DISCOVER, post(blind::discover))
        .route(paths::COUNTS, post(blind::counts))
        .with_state(hub)
}

/// An error response with a one-line reason.
struct Failure(StatusCode, String);

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        (self.0, format!("{}\n", self.1)).into_response()
    }
}

type Answer<T> = Result<T, Failure>;

fn check_read(hub: &Hub, headers: &HeaderMap) -> Answer<()> {
    match &hub.read_token {
        Some(t) if !t.admits(headers) => Err(Failure(
            StatusCode::UNAUTHORIZED,
            "reading needs a bearer token".into(),
        )),
        _ => Ok(()),
    }
}

fn known(hub: &Hub, name: &str) -> Answer<SetInfo> {
    hub.store
        .latest(name)
        .ok_or_else(|| Failure(StatusCode::NOT_FOUND, format!("no set named `{name}`")))
}

fn internal(e: impl std::fmt::Display) -> Failure {
    tracing::error!(error = %e, "hub internal error");
    Failure(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
}

async fn list(State(hub): State<Shared>, headers: HeaderMap) -> Answer<Json<Vec<SetInfo>>> {
    check_read(&hub, &headers)?;
    Ok(Json(hub.store.list()))
}

async fn latest(
    State(hub): State<Shared>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Answer<Response> {
    check_read(&hub, &headers)?;
    let info = known(&hub, &name)?;
    let tag = cache::version_tag(&info);
    let control = cache::cache_control(Lifetime::Revalidate, hub.read_token.is_some());
    if cache::not_modified(&headers, &tag) {
        return Ok(cache::unchanged(&tag, control));
    }
    let mut r = Json(info).into_response();
    r.headers_mut().insert(header::CACHE_CONTROL, control);
    r.headers_mut()
        .insert(header::ETAG, tag.parse().expect("ASCII tag"));
    Ok(r)
}

#[derive(serde::Deserialize)]
struct FullQuery {
    version: Option<u64>,
}

/// The signed file of a version: immutable when the URL names the version.
async fn full(
    State(hub): State<Shared>,
    Path(name): Path<String>,
    Query(q): Query<FullQuery>,
    headers: HeaderMap,
) -> Answer<Response> {
    check_read(&hub, &headers)?;
    let latest = known(&hub, &name)?;
    let version = q.version.unwrap_or(latest.version);
    let info = hub.store.info(&name, version).ok_or_else(|| {
        Failure(
            StatusCode::NOT_FOUND,
            format!("set `{name}` has no version {version}"),
        )
    })?;
    let lifetime = match q.version {
        Some(_) => Lifetime::Immutable,
        None => Lifetime::Revalidate,
    };
    let control = cache::cache_control(lifetime, hub.read_token.is_some());
    let tag = cache::version_tag(&info);
    if cache::not_modified(&headers, &tag) {
        return Ok(cache::unchanged(&tag, control));
    }
    cache::file(&hub.store.path(&name, version), version, &tag, control)
        .await
        .map_err(internal)
}

#[derive(serde::Deserialize)]
struct DeltaQuery {
    from: u64,
    to: Option<u64>,
}

/// The delta from version `from` to `to` (default: the latest), made once
/// and kept: immutable when the URL names both versions.
async fn delta(
    State(hub): State<Shared>,
    Path(name): Path<String>,
    Query(q): Query<DeltaQuery>,
    headers: HeaderMap,
) -> Answer<Response> {
    check_read(&hub, &headers)?;
    let latest = known(&hub, &name)?;
    let to = q.to.unwrap_or(latest.version);
    let missing = |v: u64| {
        Failure(
            StatusCode::NOT_FOUND,
            format!("set `{name}` has no version {v}; fetch the full set"),
        )
    };
    if !hub.store.has(&name, q.from) {
        return Err(missing(q.from));
    }
    let target = hub.store.info(&name, to).ok_or_else(|| missing(to))?;
    if q.from >= to {
        return Err(Failure(
            StatusCode::BAD_REQUEST,
            format!(
                "a delta goes from an older version to a newer one, not {} to {to}",
                q.from
            ),
        ));
    }
    let lifetime = match q.to {
        Some(_) => Lifetime::Immutable,
        None => Lifetime::Revalidate,
    };
    let control = cache::cache_control(lifetime, hub.read_token.is_some());
    let tag = cache::delta_tag(q.from, &target);
    if cache::not_modified(&headers, &tag) {
        return Ok(cache::unchanged(&tag, control));
    }
    let path = {
        let _one = hub.deltas.lock().await;
        let h = hub.clone();
        tokio::task::spawn_blocking(move || h.store.delta(&name, q.from, to))
            .await
            .map_err(internal)?
            .map_err(internal)?
    };
    cache::file(&path, to, &tag, control)
        .await
        .map_err(internal)
}

#[derive(serde::Deserialize)]
struct NextQuery {
    after: u64,
    wait: Option<u64>,
}

async fn next(
    State(hub): State<Shared>,
    Path(name): Path<String>,
    Query(q): Query<NextQuery>,
    headers: HeaderMap,
) -> Answer<Response> {
    check_read(&hub, &headers)?;
    let wait = Duration::from_secs(q.wait.unwrap_or(30).min(300));
    let mut rx = hub.published.subscribe();
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        // Subscribe before looking, so a publish in between is not missed.
        rx.borrow_and_update();
        if let Some(info) = hub.store.latest(&name).filter(|i| i.version > q.after) {
            return Ok(no_store(Json(info).into_response()));
        }
        match tokio::time::timeout_at(deadline, rx.changed()).await {
            Ok(Ok(())) => continue,
            _ => return Ok(no_store(StatusCode::NO_CONTENT.into_response())),
        }
    }
}

/// A long-poll's answer is for this client at this moment: never cached.
fn no_store(mut r: Response) -> Response {
    r.headers_mut().insert(
        header::CACHE_CONTROL,
        cache::cache_control(Lifetime::NoStore, false),
    );
    r
}

fn check_publish(hub: &Hub, headers: &HeaderMap) -> Answer<()> {
    if !hub.publish_token.admits(headers) {
        return Err(Failure(
            StatusCode::UNAUTHORIZED,
            "publishing needs the publish bearer token".into(),
        ));
    }
    Ok(())
}

async fn publish(
    State(hub): State<Shared>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Answer<(StatusCode, Json<SetInfo>)> {
    // The token is checked before a byte of the body is read: an
    // unauthenticated client must not make the hub buffer its upload.
    check_publish(&hub, &headers)?;
    if hub.blind.has(&name) {
        return Err(Failure(
            StatusCode::CONFLICT,
            format!("set `{name}` is blind: the hub discovers it from agents' counts"),
        ));
    }
    if !valid_name(&name) {
        return Err(Failure(
            StatusCode::BAD_REQUEST,
            format!("set name `{name}`: use 1-64 of a-z 0-9 - _ ."),
        ));
    }
    // One upload in memory at a time: versions are assigned in order, and
    // the hub's memory holds at most one body of `max_upload_bytes`.
    let _one_at_a_time = hub.publishing.lock().await;
    let body = read_upload(body, hub.max_upload_bytes).await?;
    let upload = tokio::task::spawn_blocking(move || parse_upload(&body))
        .await
        .map_err(internal)?
        .map_err(|e| Failure(StatusCode::BAD_REQUEST, e))?;
    let h = hub.clone();
    let info = tokio::task::spawn_blocking(move || h.store.publish(&name, &upload, &h.key, None))
        .await
        .map_err(internal)?
        .map_err(internal)?;
    tracing::info!(set = %info.name, version = info.version, entries = info.entries, "published");
    hub.published.send_modify(|n| *n += 1);
    Ok((StatusCode::CREATED, Json(info)))
}

/// An upload body, frame by frame: at most `limit` bytes in all (413
/// beyond), and a client that stops sending for [`UPLOAD_IDLE`] is cut off
/// (408) — it holds a lock meanwhile (the publish lock, or a blind set's).
struct Frames {
    body: Body,
    limit: usize,
    seen: usize,
}

impl Frames {
    fn new(body: Body, limit: usize) -> Self {
        Frames {
            body,
            limit,
            seen: 0,
        }
    }

    /// The next data, or `None` at the end of the body.
    async fn next(&mut self) -> Answer<Option<axum::body::Bytes>> {
        use http_body_util::BodyExt;
        loop {
            let frame = match tokio::time::timeout(UPLOAD_IDLE, self.body.frame()).await {
                Err(_) => {
                    return Err(Failure(
                        StatusCode::REQUEST_TIMEOUT,
                        format!("upload: nothing received for {} s", UPLOAD_IDLE.as_secs()),
                    ))
                }
                Ok(None) => return Ok(None),
                Ok(Some(Err(e))) => {
                    return Err(Failure(StatusCode::BAD_REQUEST, format!("upload: {e}")))
                }
                Ok(Some(Ok(frame))) => frame,
            };
            if let Ok(data) = frame.into_data() {
                self.seen += data.len();
                if self.seen > self.limit {
                    return Err(Failure(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        format!("upload over the limit of {} bytes", self.limit),
                    ));
                }
                return Ok(Some(data));
            }
        }
    }
}

/// Reads a whole upload body into memory (see [`Frames`] for its limits).
async fn read_upload(body: Body, limit: usize) -> Answer<Vec<u8>> {
    let mut frames = Frames::new(body, limit);
    let mut bytes = Vec::new();
    while let Some(data) = frames.next().await? {
        bytes.extend_from_slice(&data);
    }
    Ok(bytes)
}

/// What an upload holds: a labeled-set file (its signature is not needed:
/// the publisher is authenticated by the token) or a text list of hex SHA-1s.
fn parse_upload(body: &[u8]) -> Result<Upload, String> {
    if body.starts_with(crawlsieve_core::labels::file::MAGIC) {
        // The checks an agent makes when it opens the file, but the signature's.
        let file = SetFile::parse(body)
            .and_then(|file| file.check().map(|()| file))
            .map_err(|e| format!("labeled-set file: {e}"))?;
        return Ok(Upload {
            contents: file.contents(),
            min_chars: file.header.min_chars,
            shingles: file.header.shingle_version != 0,
            immutables: file.header.immutable_version != 0,
            origins: origin::normalise_all(&file.header.origins).map_err(|e| e.to_string())?,
        });
    }
    let text =
        std::str::from_utf8(body).map_err(|_| "body is neither a labeled-set file nor text")?;
    let mut keys: Vec<u64> = crawlsieve_core::labels::parse_hex_list(text)
        .map_err(|e| e.to_string())?
        .iter()
        .map(|(hash, _)| crawlsieve_core::labels::key(hash))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    Ok(Upload {
        contents: crawlsieve_core::labels::file::Contents {
            keys,
            simhashes: Vec::new(),
        },
        min_chars: 0,
        shingles: false,
        immutables: false,
        // A text list's `#origin SITE` lines (those naming no other set).
        origins: origin::normalise_all(
            crawlsieve_core::labels::parse_origin_lines(text)
                .filter(|(_, set)| set.is_none())
                .map(|(site, _)| site),
        )
        .map_err(|e| e.to_string())?,
    })
}
