//! `crawlsieve discoverer --listen`: `/metrics` (Prometheus text, behind a
//! token when given) and `/healthz`, over HTTPS when given a certificate —
//! the same doors, with the same guards, as the agent's and the hub's.

use super::Discoverer;
use crate::auth::{guarded, Token};
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::sync::Arc;

/// The routes: `/healthz` open (it says only that the process is up),
/// `/metrics` behind `token` when there is one.
pub fn router(discoverer: Arc<Discoverer>, token: Option<Token>) -> Router {
    let registry = Arc::new(discoverer.stats.registry());
    Router::new()
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/metrics", guarded(get(metrics), token, "metrics"))
        .with_state((discoverer, registry))
}

type Shared = (Arc<Discoverer>, Arc<prometheus_client::registry::Registry>);

async fn metrics(State((discoverer, registry)): State<Shared>) -> Response {
    discoverer.refresh();
    let mut text = String::new();
    if prometheus_client::encoding::text::encode(&mut text, &registry).is_err() {
        return axum::http::StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        text,
    )
        .into_response()
}

/// Listens on `listen` and serves until `shutdown`; the bound address is
/// logged ("discoverer listening on …").
pub async fn serve(
    discoverer: Arc<Discoverer>,
    listen: std::net::SocketAddr,
    token: Option<Token>,
    tls: Option<crate::tls::TlsFiles>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<tokio::task::JoinHandle<std::io::Result<()>>> {
    let cert = tls.map(crate::tls::Certificate::load).transpose()?;
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| anyhow::anyhow!("--listen {listen}: {e}"))?;
    let addr = listener.local_addr()?;
    let scheme = if cert.is_some() { "https" } else { "http" };
    tracing::info!(
        metrics_token = token.is_some(),
        "discoverer listening on {scheme}://{addr}"
    );
    let app = router(discoverer, token);
    Ok(tokio::spawn(crate::http::serve(
        listener,
        app,
        crate::http::Limits::default(),
        cert,
        shutdown,
    )))
}
