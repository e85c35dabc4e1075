//! Bearer tokens on the HTTP listeners (the hub's publish, read and count
//! tokens; the agent's ingest and metrics tokens).
//!
//! A token is compared in constant time, so an attacker timing answers
//! learns nothing of it byte by byte; it is checked from the headers alone,
//! before the body is read, so an unauthenticated client cannot make the
//! server read (or buffer) an upload. [`Token`] never prints its secret:
//! `Debug` shows `Token(<redacted>)`, so a token cannot reach a log line
//! through a struct dumped for debugging.

use axum::extract::Request;
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::path::Path;
use subtle::ConstantTimeEq;

/// A bearer token.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

impl Token {
    pub fn new(secret: impl Into<String>) -> Token {
        Token(secret.into())
    }

    /// From `file` when given (checked like a key: others may not write it),
    /// else from the environment variable `env`; `None` when neither is set.
    pub fn from_file_or_env(file: Option<&Path>, env: &str) -> anyhow::Result<Option<Token>> {
        match file {
            Some(p) => Ok(Some(Token(crawlsieve_core::labels::keys::read_secret(p)?))),
            None => Ok(std::env::var(env)
                .ok()
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty())
                .map(Token)),
        }
    }

    /// The secret, to send it (a client's `bearer_auth`).
    pub fn secret(&self) -> &str {
        &self.0
    }

    /// Whether `headers` carry this token as `Authorization: Bearer …`.
    pub fn admits(&self, headers: &HeaderMap) -> bool {
        bearer(headers).is_some_and(|g| bool::from(g.as_bytes().ct_eq(self.0.as_bytes())))
    }
}

/// The bearer token a request carries.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
        .map(str::trim)
}

/// `401` with a `WWW-Authenticate` challenge naming what needs the token.
pub fn unauthorized(what: &str) -> Response {
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, "Bearer")],
        format!("{what} needs a bearer token\n"),
    )
        .into_response()
}

/// Middleware for a route guarded by `token`: runs before the handler's
/// extractors, so a refused request's body is never read.
pub async fn require(
    axum::extract::State(guard): axum::extract::State<Guard>,
    request: Request,
    next: Next,
) -> Response {
    if guard.token.admits(request.headers()) {
        next.run(request).await
    } else {
        unauthorized(guard.what)
    }
}

/// A route behind `token`, when there is one ([`require`] as its layer).
pub fn guarded<S: Clone + Send + Sync + 'static>(
    route: axum::routing::MethodRouter<S>,
    token: Option<Token>,
    what: &'static str,
) -> axum::routing::MethodRouter<S> {
    match token {
        Some(token) => route.route_layer(axum::middleware::from_fn_with_state(
            Guard { token, what },
            require,
        )),
        None => route,
    }
}

/// What [`require`] checks, and the name its `401` gives.
#[derive(Clone, Debug)]
pub struct Guard {
    pub token: Token,
    pub what: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admits_only_its_own_token_and_never_shows_it() {
        let t = Token::new("s3cret-value");
        let mut h = HeaderMap::new();
        assert!(!t.admits(&h));
        h.insert(header::AUTHORIZATION, "Bearer s3cret-valu".parse().unwrap());
        assert!(!t.admits(&h));
        h.insert(
            header::AUTHORIZATION,
            "Bearer s3cret-value".parse().unwrap(),
        );
        assert!(t.admits(&h));
        h.insert(header::AUTHORIZATION, "s3cret-value".parse().unwrap());
        assert!(!t.admits(&h), "not a bearer token");
        assert_eq!(format!("{t:?}"), "Token(<redacted>)");
    }
}
