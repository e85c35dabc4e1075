//! The agent's listener: `/healthz` (always open: it tells nothing but that
//! the process is up), `/metrics` (behind a bearer token when one is set),
//! and the routes of the HTTP source (`POST /v1/pages`, [`super::sources::http`])
//! when one is configured; over HTTPS with a certificate.

use super::config::AgentSettings;
use super::Agent;
use crate::auth::{guarded, Token};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::sync::Arc;

/// Who may use the agent's listener, and over what.
#[derive(Debug, Default)]
pub struct Doors {
    /// `POST /v1/pages` needs this bearer token.
    pub ingest: Option<Token>,
    /// `/metrics` needs this bearer token.
    pub metrics: Option<Token>,
    /// HTTPS with this certificate.
    pub tls: Option<Arc<crate::tls::Certificate>>,
}

impl Doors {
    /// The tokens and certificate `[agent]` names, each read and checked
    /// now: a missing or unsafe file fails at start-up, naming its key.
    pub fn from_settings(s: &AgentSettings) -> anyhow::Result<Doors> {
        let ingest =
            Token::from_file_or_env(s.ingest_token_file.as_deref(), "CRAWLSIEVE_INGEST_TOKEN")
                .map_err(|e| anyhow::anyhow!("agent.ingest_token_file: {e}"))?;
        let metrics =
            Token::from_file_or_env(s.metrics_token_file.as_deref(), "CRAWLSIEVE_METRICS_TOKEN")
                .map_err(|e| anyhow::anyhow!("agent.metrics_token_file: {e}"))?;
        let tls = match &s.tls {
            Some(t) => Some(
                crate::tls::Certificate::load(crate::tls::TlsFiles {
                    cert: t.cert_file.clone(),
                    key: t.key_file.clone(),
                })
                .map_err(|e| anyhow::anyhow!("agent.tls: {e}"))?,
            ),
            None => None,
        };
        Ok(Doors {
            ingest,
            metrics,
            tls,
        })
    }
}

/// The listener's routes; `ingest`: an HTTP source is configured.
pub fn router(agent: Arc<Agent>, ingest: bool, doors: Doors) -> Router {
    let limit = agent.max_page_bytes.saturating_mul(2).max(1 << 20);
    let mut r = Router::new()
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/metrics", guarded(get(metrics), doors.metrics, "metrics"));
    if ingest {
        r = r.merge(super::sources::http::routes(doors.ingest));
    }
    r.layer(DefaultBodyLimit::max(limit)).with_state(agent)
}

async fn metrics(State(agent): State<Arc<Agent>>) -> Response {
    agent.refresh_gauges();
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        agent.metrics.encode(),
    )
        .into_response()
}
