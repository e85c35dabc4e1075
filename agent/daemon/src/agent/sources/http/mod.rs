//! The HTTP source, `POST /v1/pages`: a crawler hands over one fetched page.
//!
//! Two forms:
//! - the body is the page's bytes, with `X-Crawlsieve-Url` (required),
//!   `Content-Type` (the page's, charset included), and optionally
//!   `X-Crawlsieve-Status`, `X-Crawlsieve-Fetched-At`, `X-Crawlsieve-Id`,
//!   and the page's own headers that state its terms of use, forwarded as
//!   the site sent them (`X-Robots-Tag`, `tdm-reservation`, `tdm-policy`);
//! - `Content-Type: application/json` with an envelope
//!   `{"url", "html", "status", "content_type", "fetched_at", "headers"}` (the JSONL page form).
//!
//! Answers: `200` with the verdict once every sink accepted it (the page is
//! acknowledged); `503` with `Retry-After` when the agent is saturated or a
//! spool is full (retry later: nothing was taken); `400` for a request that
//! is not a page (no URL). A malformed envelope is a page with an `error`
//! verdict, like any broken input.
//!
//! With an ingest token (`agent.ingest_token_file`), `POST /v1/pages` answers
//! `401` to a request without it before reading the body. Pages posted
//! without a token feed no neighborhood and no count unless
//! `agent.trusted_sources` says so. The route is served by the agent's
//! listener (`crate::agent::listener`), beside `/metrics` and `/healthz`.

mod config;

pub use config::Config;

use super::SourceKind;
use crate::agent::Agent;
use crate::auth::{guarded, Token};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use crawlsieve_core::input::page::{Input, Origin, Page};
use crawlsieve_core::input::sources::jsonl::{json_url, page_from_json};
use std::sync::Arc;
use std::time::Instant;

/// The source's route on the agent's listener, behind `token` when there is one.
pub fn routes(token: Option<Token>) -> Router<Arc<Agent>> {
    Router::new().route("/v1/pages", guarded(post(pages), token, "ingest"))
}

fn refuse(agent: &Agent, why: &str, retry_after: u64) -> Response {
    agent
        .metrics
        .rejected
        .get_or_create(&crate::agent::metrics::WhyLabel { why: why.into() })
        .inc();
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [(header::RETRY_AFTER, retry_after.to_string())],
        format!("{why}; retry later\n"),
    )
        .into_response()
}

fn header_str<'a>(h: &'a HeaderMap, name: &str) -> Option<&'a str> {
    h.get(name).and_then(|v| v.to_str().ok()).map(str::trim)
}

/// An RFC 3339 time, `Z` or a numeric offset (humantime reads UTC only:
/// an offset is checked for form and put aside).
fn is_rfc3339(s: &str) -> bool {
    let utc = match s
        .len()
        .checked_sub(6)
        .and_then(|i| s.get(i..).map(|tail| (i, tail)))
    {
        Some((i, tail))
            if matches!(tail.as_bytes(), [b'+' | b'-', h1, h2, b':', m1, m2]
                if [h1, h2, m1, m2].iter().all(|b| b.is_ascii_digit())) =>
        {
            format!("{}Z", &s[..i])
        }
        _ => s.to_string(),
    };
    humantime::parse_rfc3339_weak(&utc).is_ok()
}

/// The page a request carries, or why it is not one.
fn parse(agent: &Agent, headers: &HeaderMap, body: Bytes) -> Result<Input, String> {
    let id = header_str(headers, "x-crawlsieve-id")
        .unwrap_or_default()
        .to_string();
    let origin = Origin::Ingest { id };
    let content_type = header_str(headers, "content-type").unwrap_or_default();
    if content_type.starts_with("application/json") {
        // JSON without a URL is not a page at all; with one, a bad envelope is a broken page.
        if json_url(&body).is_none() {
            return Err("not a page envelope (a JSON object with `url` and `html`)".into());
        }
        return Ok(page_from_json(
            &body,
            origin,
            agent.max_page_bytes,
            "page envelope",
        ));
    }
    let url = header_str(headers, "x-crawlsieve-url")
        .filter(|u| !u.is_empty())
        .ok_or("missing X-Crawlsieve-Url header")?
        .to_string();
    let mut bytes = body.to_vec();
    let truncated = bytes.len() > agent.max_page_bytes;
    bytes.truncate(agent.max_page_bytes);
    let mut page = Page::new(url, bytes).with_origin(origin);
    // A header that is there but malformed is refused by name: dropped, a
    // crawler's bug would go unnoticed and the verdict say less than asked.
    page.status = match header_str(headers, "x-crawlsieve-status") {
        None | Some("") => None,
        Some(s) => Some(
            s.parse::<u16>()
                .ok()
                .filter(|n| (100..=999).contains(n))
                .ok_or_else(|| {
                    format!("X-Crawlsieve-Status: {s:?} is not an HTTP status code (100-999)")
                })?,
        ),
    };
    page.content_type = Some(content_type.to_string())
        .filter(|c| !c.is_empty())
        .map(Into::into);
    page.fetched_at = match header_str(headers, "x-crawlsieve-fetched-at") {
        None | Some("") => None,
        Some(s) => {
            if !is_rfc3339(s) {
                return Err(format!(
                    "X-Crawlsieve-Fetched-At: {s:?} is not an RFC 3339 time (2026-12-01T21:35:00Z)"
                ));
            }
            Some(s.to_string().into())
        }
    };
    page.truncated = truncated;
    for (name, value) in headers {
        if let Ok(value) = value.to_str() {
            page.keep_header(name.as_str(), value);
        }
    }
    Ok(Input::Page(page))
}

async fn pages(State(agent): State<Arc<Agent>>, headers: HeaderMap, body: Bytes) -> Response {
    let started = Instant::now();
    if agent.spool_full() {
        return refuse(&agent, "spool_full", 5);
    }
    let input = match parse(&agent, &headers, body) {
        Ok(i) => i,
        Err(why) => {
            agent
                .metrics
                .rejected
                .get_or_create(&crate::agent::metrics::WhyLabel {
                    why: "not_a_page".into(),
                })
                .inc();
            return (StatusCode::BAD_REQUEST, format!("{why}\n")).into_response();
        }
    };
    let Ok(reply) = agent.pool.submit(input) else {
        return refuse(&agent, "queue_full", 1);
    };
    agent.metrics.pages_in.inc();
    let mut verdict = match reply.await {
        Ok(v) => v,
        Err(_) => return refuse(&agent, "worker_stopped", 1),
    };
    agent.look_up(&mut verdict);
    if let Err(e) = agent
        .deliver(&verdict, None, agent.trusts(SourceKind::Http))
        .await
    {
        tracing::warn!(error = %e, id = %verdict.id, "verdict not accepted by every sink");
        return refuse(&agent, "sink_unavailable", 5);
    }
    agent
        .metrics
        .latency
        .observe(started.elapsed().as_secs_f64());
    (StatusCode::OK, axum::Json(verdict)).into_response()
}
