//! Hub requests in process: any method, path, query, token and body through
//! the axum router over a real store on disk (a set with two versions is
//! published first). Every request gets an answer without a panic and never a
//! server error; long-polls run on a paused clock, so `wait` costs nothing.
//!
//! Input: one selector byte (method = bits 0-1, token = bits 2-3: none, the
//! publish token, a wrong one), the request target up to the first newline,
//! then the body.
#![no_main]

use axum::body::Body;
use axum::http::Request;
use axum::Router;
use crawlsieve_daemon::auth::Token;
use crawlsieve_daemon::hub::{self, HubConfig};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use tower::ServiceExt;

struct Fixture {
    rt: tokio::runtime::Runtime,
    app: Router,
    _store: tempfile::TempDir,
}

const TOKEN: &str = "fuzz-publish-token";

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let store = tempfile::tempdir().unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap();
        let app = hub::app(HubConfig {
            listen: "127.0.0.1:0".parse().unwrap(),
            store: store.path().to_path_buf(),
            key: ed25519_dalek::SigningKey::from_bytes(&[7; 32]),
            publish_token: Token::new(TOKEN),
            read_token: None,
            max_upload_bytes: 1 << 20,
            limits: Default::default(),
            // The counts endpoint and on-demand discovery are fuzzed too.
            discovery: hub::blind::Discovery {
                sets: [("blind".to_string(), 1)].into(),
                count_token: Some(Token::new(TOKEN)),
                stop: None,
                every: None,
                kafka: None,
                agent_cap: None,
                agent_tokens: None,
            },
            tls: None,
        })
        .unwrap();
        let f = Fixture {
            rt,
            app,
            _store: store,
        };
        for body in [
            "da39a3ee5e6b4b0d3255bfef95601890afd80709\n",
            "da39a3ee5e6b4b0d3255bfef95601890afd80709\n2fd4e1c67a2d28fced849ee1bb76e7391b93eb12\n",
        ] {
            let status = send(
                &f,
                "POST",
                "/v1/sets/seed",
                Some(TOKEN),
                body.as_bytes().to_vec(),
            );
            assert_eq!(status, Some(201));
        }
        f
    })
}

/// The status code, or None when the request cannot be built (hyper refuses
/// such a target before the router sees it).
fn send(
    f: &Fixture,
    method: &str,
    target: &str,
    token: Option<&str>,
    body: Vec<u8>,
) -> Option<u16> {
    let mut req = Request::builder().method(method).uri(target);
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    let req = req.body(Body::from(body)).ok()?;
    let response = f.rt.block_on(async {
        let response = f.app.clone().oneshot(req).await.unwrap();
        let status = response.status();
        let _ = axum::body::to_bytes(response.into_body(), usize::MAX).await;
        status
    });
    Some(response.as_u16())
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let f = fixture();
    let method = ["GET", "POST", "HEAD", "PUT"][(selector & 3) as usize];
    let token = [None, Some(TOKEN), Some("wrong")][((selector >> 2) % 3) as usize];
    let newline = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    let Ok(target) = std::str::from_utf8(&rest[..newline]) else {
        return;
    };
    let body = rest.get(newline + 1..).unwrap_or_default().to_vec();
    if let Some(status) = send(f, method, target, token, body) {
        assert!(status < 500, "{method} {target}: {status}");
    }
});
