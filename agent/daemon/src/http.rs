//! Serving HTTP (the hub, the agent's ingest and metrics) with the limits a
//! server facing untrusted clients needs and `axum::serve` does not set.
//!
//! `axum::serve` runs hyper without a timer, so a client that opens a
//! connection and never finishes its request headers holds a socket (and a
//! file descriptor) forever: a few thousand such clients exhaust the process.
//! Here hyper gets a timer and a header-read timeout, so such connections are
//! closed after [`HEADER_TIMEOUT`] (also idle keep-alive ones); the number of
//! open connections is bounded overall and per client address ([`Limits`]) —
//! a connection beyond either is answered `503` at once and closed, so slow or
//! idle clients (long-polls included) cannot take every descriptor or every
//! byte of memory; shutdown is graceful (requests in flight finish, idle
//! connections close).

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A request's headers must be complete this long after the server starts
/// waiting for them (also on an idle keep-alive connection).
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a graceful shutdown waits for requests in flight.
const DRAIN: Duration = Duration::from_secs(30);

/// How many connections may be open at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// In all.
    pub max_connections: usize,
    /// From one client address.
    pub max_per_client: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 1024,
            max_per_client: 1024,
        }
    }
}

/// Open connections, in all and per client address.
#[derive(Default)]
struct Open {
    total: usize,
    by_client: HashMap<IpAddr, usize>,
}

/// A connection's place in [`Open`], given back when it closes.
struct Slot {
    open: Arc<Mutex<Open>>,
    client: IpAddr,
}

impl Slot {
    fn take(open: &Arc<Mutex<Open>>, client: IpAddr, limits: Limits) -> Option<Slot> {
        let mut o = open.lock().expect("connection count");
        let mine = o.by_client.get(&client).copied().unwrap_or(0);
        if o.total >= limits.max_connections || mine >= limits.max_per_client {
            return None;
        }
        o.total += 1;
        *o.by_client.entry(client).or_default() += 1;
        Some(Slot {
            open: open.clone(),
            client,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut o = self.open.lock().expect("connection count");
        o.total -= 1;
        if let Some(n) = o.by_client.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                o.by_client.remove(&self.client);
            }
        }
    }
}

/// What a connection over the limits hears before it is closed.
const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nretry-after: 5\r\ncontent-type: text/plain\r\ncontent-length: 21\r\nconnection: close\r\n\r\ntoo many connections\n";

/// Serves `app` on `listener` until `shutdown` resolves; HTTPS with `tls`.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    tls: Option<Arc<crate::tls::Certificate>>,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let acceptor = tls.as_ref().map(|c| c.acceptor());
    match tls {
        Some(cert) => {
            tokio::spawn(cert.watch());
        }
        // `systemctl reload` sends SIGHUP whether or not there is a certificate
        // to read again; its default action would end the process. Tokio keeps
        // a registered handler for the process's lifetime: the signal is ignored.
        #[cfg(unix)]
        None => {
            let _ = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup());
        }
        #[cfg(not(unix))]
        None => {}
    }
    let open = Arc::new(Mutex::new(Open::default()));
    let turning_away = Arc::new(AtomicUsize::new(0));
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT);
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        // Out of file descriptors and the like: wait, do not spin.
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let Some(slot) = Slot::take(&open, peer.ip(), limits) else {
                    turn_away(stream, &turning_away, limits.max_connections);
                    continue;
                };
                let service = TowerToHyperService::new(app.clone());
                let Some(acceptor) = acceptor.clone() else {
                    let conn = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
                    tokio::spawn(async move {
                        // A client that goes away or times out is not an error of ours.
                        let _ = conn.await;
                        drop(slot);
                    });
                    continue;
                };
                let watcher = graceful.watcher();
                let builder = builder.clone();
                tokio::spawn(async move {
                    let handshake = tokio::time::timeout(HEADER_TIMEOUT, acceptor.accept(stream)).await;
                    if let Ok(Ok(stream)) = handshake {
                        let _ = watcher.watch(builder.serve_connection(TokioIo::new(stream), service)).await;
                    }
                    drop(slot);
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

/// Answers `503` to a connection over the limits and closes it. The request
/// is read (and dropped) first, for at most a second: closing a socket with
/// unread bytes resets it, and the client would see a reset, not the answer.
/// Under a flood, at most `max` such answers are under way; the rest are
/// closed at once.
fn turn_away(mut stream: TcpStream, under_way: &Arc<AtomicUsize>, max: usize) {
    if under_way.fetch_add(1, Ordering::Relaxed) >= max {
        under_way.fetch_sub(1, Ordering::Relaxed);
        return;
    }
    let under_way = under_way.clone();
    tokio::spawn(async move {
        let _ = tokio::time::timeout(Duration::from_secs(1), async {
            stream.write_all(BUSY).await?;
            stream.shutdown().await?;
            let mut sink = [0u8; 4096];
            while stream.read(&mut sink).await? > 0 {}
            Ok::<_, std::io::Error>(())
        })
        .await;
        under_way.fetch_sub(1, Ordering::Relaxed);
    });
}
