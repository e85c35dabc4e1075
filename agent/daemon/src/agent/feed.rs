//! Queue-like sources (NATS, Kafka, a WARC directory) feed pages the same
//! way: up to `window` pages in flight, each acknowledged to its source only
//! after its verdict is accepted by every sink, acknowledgements in the
//! order the pages came (so an offset or checkpoint never passes a page that
//! is not done). When the agent is saturated — worker queue or a spool
//! full — a page waits, and with it the source: consumption pauses instead
//! of refusing or dropping.

use super::Agent;
use crawlsieve_core::input::page::Input;
use crawlsieve_core::neighborhoods::shards::Place;
use crawlsieve_core::verdict::Verdict;
use futures::stream::{FuturesOrdered, Stream, StreamExt};
use prometheus_client::metrics::counter::Counter;
use std::future::Future;
use std::time::Duration;

/// What a source gets back when its page is done (an ack handle, an offset).
/// A partitioned source's token says where the page sits, so that its
/// verdict counts in that partition's neighborhoods.
pub trait Token {
    fn place(&self) -> Option<&Place> {
        None
    }
}

impl Token for () {}

impl Token for Place {
    fn place(&self) -> Option<&Place> {
        Some(self)
    }
}

/// Judges one page and delivers its verdict, waiting while the agent is
/// saturated. `trusted`: the page counts in neighborhoods and counts.
pub async fn judge_and_deliver(
    agent: &Agent,
    mut input: Input,
    place: Option<&Place>,
    trusted: bool,
) -> Verdict {
    let mut pause = Duration::from_millis(5);
    let rx = loop {
        if agent.spool_full() {
            tokio::time::sleep(Duration::from_millis(500)).await;
            continue;
        }
        match agent.pool.submit(input) {
            Ok(rx) => break rx,
            Err(back) => {
                input = *back;
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_millis(200));
            }
        }
    };
    agent.metrics.pages_in.inc();
    let started = std::time::Instant::now();
    let mut verdict = rx
        .await
        .expect("pipeline workers run for the process's lifetime");
    agent.look_up(&mut verdict);
    let mut pause = Duration::from_millis(100);
    while let Err(e) = agent.deliver(&verdict, place, trusted).await {
        tracing::warn!(error = %e, id = %verdict.id, "verdict not accepted; retrying");
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_secs(5));
    }
    agent
        .metrics
        .latency
        .observe(started.elapsed().as_secs_f64());
    verdict
}

/// How a source feeds the agent: pages in flight at most, the counter of
/// pages taken, and whether its pages may feed neighborhoods and counts.
pub struct Feed<'a> {
    pub window: usize,
    pub taken: &'a Counter,
    pub trusted: bool,
}

/// Drives a stream of `(page, ack token)` through the agent with `window`
/// pages in flight; `ack` runs, in arrival order, once the page's verdict is
/// delivered; `taken` counts the pages taken. Stops taking new pages when
/// `stop` resolves (or the stream ends), and finishes those in flight.
pub async fn drive<A: Token>(
    agent: &Agent,
    feed: Feed<'_>,
    mut pages: impl Stream<Item = (Input, A)> + Unpin,
    mut ack: impl FnMut(A),
    stop: impl Future<Output = ()>,
) {
    let Feed {
        window,
        taken,
        trusted,
    } = feed;
    tokio::pin!(stop);
    let mut in_flight = FuturesOrdered::new();
    let mut stopping = false;
    loop {
        let room = !stopping && in_flight.len() < window.max(1);
        tokio::select! {
            _ = &mut stop, if !stopping => stopping = true,
            got = pages.next(), if room => match got {
                Some((input, token)) => {
                    taken.inc();
                    in_flight.push_back(async move {
                        judge_and_deliver(agent, input, token.place(), trusted).await;
                        token
                    });
                }
                None => stopping = true,
            },
            Some(token) = in_flight.next(), if !in_flight.is_empty() => ack(token),
            else => {
                if in_flight.is_empty() {
                    break;
                }
            }
        }
        if stopping && in_flight.is_empty() {
            break;
        }
    }
}
