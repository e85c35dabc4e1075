//! Serving HTTP (the hub, the agent's ingest and metrics) with the limits a
//! server facing untrusted clients needs and `axum::serve` does not set.
//!
//! `axum::serve` runs hyper without a timer, so a client that opens a
//! connection and never finishes its request headers holds a socket (and a
//! file descriptor) forever: a few thousand such clients exhaust the process.
//! Here hyper gets a timer and a header-read timeout, so such connections are
//! closed after [`HEADER_TIMEOUT`]; shutdown is graceful (requests in flight
//! finish, idle connections close).

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::time::Duration;
use tokio::net::TcpListener;

/// A request's headers must be complete this long after the server starts
/// waiting for them (also on an idle keep-alive connection).
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a graceful shutdown waits for requests in flight.
const DRAIN: Duration = Duration::from_secs(30);

/// Serves `app` on `listener` until `shutdown` resolves.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT);
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        // Out of file descriptors and the like: wait, do not spin.
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let service = TowerToHyperService::new(app.clone());
                let conn = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
                tokio::spawn(async move {
                    // A client that goes away or times out is not an error of ours.
                    let _ = conn.await;
                });
            }
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    if tokio::time::timeout(DRAIN, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("shutdown: connections still open after {DRAIN:?}, closing them");
    }
    Ok(())
}
