//! What lets a CDN or a plain caching proxy stand in front of the hub for a
//! thousand agents: a stored version never changes, and neither does the
//! delta between two stored versions, so the URLs that name them
//! (`/full?version=N`, `/delta?from=N&to=M`) are served as immutable — cached
//! for a year, never revalidated. The URLs that mean "the latest"
//! (`/v1/sets/{name}`, `/full`, `/delta?from=N`) are `no-cache`: a cache keeps
//! them but asks again each time, and the hub answers `304 Not Modified` when
//! the client's `If-None-Match` names the current version. Long-polls are
//! `no-store`. Behind a read token, everything is `private` (a shared cache
//! must not hand a reader's answer to someone without the token).
//!
//! Files are streamed from disk, not read into memory: a thousand agents
//! fetching a large set at once cost the hub buffers, not copies of the set.

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use crawlsieve_core::labels::protocol::SetInfo;
use std::path::Path;

/// A year: "forever" for caches (RFC 9111 caps nothing; a year is the custom).
const FOREVER: &str = "max-age=31536000, immutable";

/// How long a cache may keep an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lifetime {
    /// A stored version or a delta between two: never changes.
    Immutable,
    /// "The latest": keep, but revalidate every time.
    Revalidate,
    /// Never store (long-polls).
    NoStore,
}

/// The `Cache-Control` value for an answer; `private` behind a read token.
pub fn cache_control(lifetime: Lifetime, private: bool) -> HeaderValue {
    let scope = if private { "private" } else { "public" };
    HeaderValue::from_str(&match lifetime {
        Lifetime::Immutable => format!("{scope}, {FOREVER}"),
        Lifetime::Revalidate => format!("{scope}, no-cache"),
        Lifetime::NoStore => "no-store".to_string(),
    })
    .expect("ASCII")
}

/// The entity tag of a stored version: its set, number and creation time
/// (a store rebuilt from scratch reuses numbers, not creation times).
pub fn version_tag(info: &SetInfo) -> String {
    format!("\"{}-{}-{}\"", info.name, info.version, info.created)
}

/// The entity tag of the delta from version `from` to `to`.
pub fn delta_tag(from: u64, to: &SetInfo) -> String {
    format!("\"{}-{from}-{}-{}\"", to.name, to.version, to.created)
}

/// Whether the request's `If-None-Match` names `etag` (weak comparison, as
/// RFC 9110 §13.1.2 asks for GET; `*` matches any current representation).
pub fn not_modified(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == "*" || t == etag)
}

/// `304 Not Modified` with the validators a cache refreshes.
pub fn unchanged(etag: &str, control: HeaderValue) -> Response {
    let mut r = StatusCode::NOT_MODIFIED.into_response();
    let h = r.headers_mut();
    h.insert(
        header::ETAG,
        HeaderValue::from_str(etag).expect("ASCII tag"),
    );
    h.insert(header::CACHE_CONTROL, control);
    r
}

/// A stored file, streamed, with its version and validators.
pub async fn file(
    path: &Path,
    version: u64,
    etag: &str,
    control: HeaderValue,
) -> std::io::Result<Response> {
    let f = tokio::fs::File::open(path).await?;
    let len = f.metadata().await?.len();
    let body = Body::from_stream(tokio_util::io::ReaderStream::with_capacity(f, 64 << 10));
    let mut r = body.into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    h.insert(
        header::HeaderName::from_static("x-set-version"),
        HeaderValue::from(version),
    );
    h.insert(
        header::ETAG,
        HeaderValue::from_str(etag).expect("ASCII tag"),
    );
    h.insert(header::CACHE_CONTROL, control);
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_none_match_lists_and_weak_tags_match() {
        let mut h = HeaderMap::new();
        assert!(!not_modified(&h, "\"a-1-5\""));
        h.insert(
            header::IF_NONE_MATCH,
            HeaderValue::from_static("\"x\", W/\"a-1-5\""),
        );
        assert!(not_modified(&h, "\"a-1-5\""));
        assert!(!not_modified(&h, "\"a-2-5\""));
        h.insert(header::IF_NONE_MATCH, HeaderValue::from_static("*"));
        assert!(not_modified(&h, "\"a-2-5\""));
        assert_eq!(
            cache_control(Lifetime::Immutable, true),
            "private, max-age=31536000, immutable"
        );
    }
}
