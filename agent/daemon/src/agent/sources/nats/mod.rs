//! Pages from a JetStream stream through a durable pull consumer.

mod config;

pub use config::Config;

use super::watchdog::Backlog;
use super::{envelope, supervise, with_headers, Ended, Run};
use crawlsieve_core::input::page::{Input, Origin};
use futures::StreamExt;
use std::time::Duration;

/// Where a NATS source reads.
#[derive(Debug, Clone)]
pub struct Nats {
    pub url: String,
    pub stream: String,
    pub subject: String,
    pub consumer: String,
    /// Idle time after which the watchdog asks the server for the backlog.
    pub stall_after: Duration,
}

/// Pages from `nats.stream` until the agent stops; each acknowledged once
/// its verdict is delivered. A server that is down (at start or later), a
/// stream or consumer that cannot be set up, or a consumer that went silent
/// is retried under `supervise`.
pub async fn nats(run: Run, nats: Nats) {
    supervise(run, move |run| nats_once(run, nats.clone())).await
}

impl super::Source for Nats {
    fn run(self: Box<Self>, run: Run) -> futures::future::BoxFuture<'static, ()> {
        Box::pin(nats(run, *self))
    }
}

async fn nats_once(run: Run, cfg: Nats) -> anyhow::Result<Ended> {
    use async_nats::jetstream::{self, consumer::pull, AckKind};
    let url = &cfg.url;
    let (options, url) = crate::nats::connect(url).await?;
    let client = options
        .retry_on_initial_connect()
        .connect(&url)
        .await
        .map_err(|e| anyhow::anyhow!("nats source {url}: {e}"))?;
    let js = jetstream::new(client);
    let stream = js
        .get_or_create_stream(jetstream::stream::Config {
            name: cfg.stream.clone(),
            subjects: vec![cfg.subject.clone()],
            ..Default::default()
        })
        .await
        .map_err(|e| anyhow::anyhow!("nats source stream {}: {e}", cfg.stream))?;
    let consumer = stream
        .get_or_create_consumer(
            &cfg.consumer,
            pull::Config {
                durable_name: Some(cfg.consumer.clone()),
                ack_policy: jetstream::consumer::AckPolicy::Explicit,
                max_ack_pending: (run.window * 4) as i64,
                ..Default::default()
            },
        )
        .await
        .map_err(|e| anyhow::anyhow!("nats source consumer {}: {e}", cfg.consumer))?;
    let messages = consumer
        .messages()
        .await
        .map_err(|e| anyhow::anyhow!("nats source: {e}"))?;
    let max = run.agent.max_page_bytes;
    let quiet = &super::Quiet::new(&run.name);
    let pages = messages.filter_map(move |m| async move {
        match m {
            Ok(m) => {
                quiet.ok();
                Some((page_of(&m, max), m))
            }
            Err(e) => {
                quiet.failed(&e);
                None
            }
        }
    });
    // Waiting: messages the durable consumer has not delivered to anyone;
    // progress: the last stream sequence it delivered.
    let backlog = || async {
        let info = tokio::time::timeout(Duration::from_secs(5), consumer.get_info())
            .await
            .map_err(|_| anyhow::anyhow!("consumer info timed out"))??;
        Ok(Backlog {
            waiting: info.num_pending,
            position: info.delivered.stream_sequence,
        })
    };
    let ended = run
        .drive_watched(Box::pin(pages), cfg.stall_after, backlog, |m| {
            tokio::spawn(async move {
                if let Err(e) = m.ack_with(AckKind::Ack).await {
                    tracing::warn!(error = %e, "nats source: ack failed (the page will be redelivered)");
                }
            });
        })
        .await;
    Ok(ended)
}

/// A JetStream message is acknowledged by itself; a NATS subject is not
/// partitioned (its neighborhoods are the agent's).
impl crate::agent::feed::Token for async_nats::jetstream::Message {}

/// A message as the pipeline takes it: its page envelope, its own headers
/// added to the page's, its stream sequence for an id.
fn page_of(m: &async_nats::jetstream::Message, max: usize) -> Input {
    let origin = Origin::Ingest {
        id: m
            .info()
            .map(|i| format!("nats:{}", i.stream_sequence))
            .unwrap_or_default(),
    };
    let input = envelope(&m.payload, origin, max);
    let headers = m.headers.iter().flat_map(|h| {
        h.iter().flat_map(|(name, values)| {
            let name: &str = name.as_ref();
            values.iter().map(move |v| (name, v.as_str().as_bytes()))
        })
    });
    with_headers(input, headers)
}
