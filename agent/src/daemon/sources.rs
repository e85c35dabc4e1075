//! The agent's queue-like sources: a NATS JetStream subject, a Kafka topic,
//! a directory of WARC files. Each drives pages through `feed::drive`.

use super::feed::drive;
use super::Agent;
use crate::page::{Input, Origin};
use crate::sources::jsonl::page_from_json;
use futures::StreamExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::watch;

fn envelope(bytes: &[u8], origin: Origin, max_page_bytes: usize) -> Input {
    page_from_json(bytes, origin, max_page_bytes, "page envelope")
}

async fn stopped(mut rx: watch::Receiver<bool>) {
    let _ = rx.wait_for(|s| *s).await;
}

/// Pages from a JetStream stream through a durable pull consumer, until
/// `stop`. A server that is down when the agent starts (or a stream or
/// consumer that cannot be set up, or a message stream that ends) is retried
/// with backoff from 0.5 s to 30 s: the source never gives up for the
/// lifetime of the agent.
pub async fn nats(
    agent: Arc<Agent>,
    url: String,
    stream: String,
    subject: String,
    consumer: String,
    window: usize,
    stop: watch::Receiver<bool>,
) -> anyhow::Result<()> {
    let mut backoff = std::time::Duration::from_millis(500);
    while !*stop.borrow() {
        let run = nats_once(
            &agent,
            &url,
            &stream,
            &subject,
            &consumer,
            window,
            stop.clone(),
        );
        match run.await {
            Ok(()) if *stop.borrow() => break,
            Ok(()) => tracing::warn!(%url, "nats source: the message stream ended; starting again"),
            Err(e) => tracing::warn!(error = %e, retry_in = ?backoff, "nats source not ready"),
        }
        let mut s = stop.clone();
        let _ = tokio::time::timeout(backoff, s.wait_for(|s| *s)).await;
        backoff = (backoff * 2).min(std::time::Duration::from_secs(30));
    }
    Ok(())
}

async fn nats_once(
    agent: &Arc<Agent>,
    url: &str,
    stream: &str,
    subject: &str,
    consumer: &str,
    window: usize,
    stop: watch::Receiver<bool>,
) -> anyhow::Result<()> {
    use async_nats::jetstream::{self, consumer::pull, AckKind};
    let client = async_nats::ConnectOptions::new()
        .retry_on_initial_connect()
        .connect(url)
        .await
        .map_err(|e| anyhow::anyhow!("nats source {url}: {e}"))?;
    let js = jetstream::new(client);
    let stream = js
        .get_or_create_stream(jetstream::stream::Config {
            name: stream.to_string(),
            subjects: vec![subject.to_string()],
            ..Default::default()
        })
        .await
        .map_err(|e| anyhow::anyhow!("nats source stream {stream}: {e}"))?;
    let consumer = stream
        .get_or_create_consumer(
            consumer,
            pull::Config {
                durable_name: Some(consumer.to_string()),
                ack_policy: jetstream::consumer::AckPolicy::Explicit,
                max_ack_pending: (window * 4) as i64,
                ..Default::default()
            },
        )
        .await
        .map_err(|e| anyhow::anyhow!("nats source consumer {consumer}: {e}"))?;
    let messages = consumer
        .messages()
        .await
        .map_err(|e| anyhow::anyhow!("nats source: {e}"))?;
    let max = agent.max_page_bytes;
    let pages = messages.filter_map(|m| async move {
        match m {
            Ok(m) => {
                let origin = Origin::Ingest {
                    id: m
                        .info()
                        .map(|i| format!("nats:{}", i.stream_sequence))
                        .unwrap_or_default(),
                };
                Some((envelope(&m.payload, origin, max), m))
            }
            Err(e) => {
                tracing::warn!(error = %e, "nats source: receive failed");
                None
            }
        }
    });
    drive(
        agent,
        window,
        Box::pin(pages),
        |m| {
            tokio::spawn(async move {
                if let Err(e) = m.ack_with(AckKind::Ack).await {
                    tracing::warn!(error = %e, "nats source: ack failed (the page will be redelivered)");
                }
            });
        },
        stopped(stop),
    )
    .await;
    Ok(())
}

/// Pages from a Kafka topic in a consumer group; offsets are stored only
/// past delivered pages and committed by the client.
pub async fn kafka(
    agent: Arc<Agent>,
    brokers: String,
    topic: String,
    group: String,
    window: usize,
    stop: watch::Receiver<bool>,
) -> anyhow::Result<()> {
    use rdkafka::consumer::{Consumer, StreamConsumer};
    use rdkafka::Message;
    let consumer: StreamConsumer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", &brokers)
        .set("group.id", &group)
        .set("enable.auto.commit", "true")
        .set("enable.auto.offset.store", "false")
        .set("auto.offset.reset", "earliest")
        .set("session.timeout.ms", "6000")
        .create()
        .map_err(|e| anyhow::anyhow!("kafka source: {e}"))?;
    consumer
        .subscribe(&[&topic])
        .map_err(|e| anyhow::anyhow!("kafka source {topic}: {e}"))?;
    let max = agent.max_page_bytes;
    let pages = consumer.stream().filter_map(|m| async move {
        match m {
            Ok(m) => {
                let origin = Origin::Ingest {
                    id: format!("kafka:{}:{}:{}", m.topic(), m.partition(), m.offset()),
                };
                let input = envelope(m.payload().unwrap_or_default(), origin, max);
                Some((input, (m.topic().to_string(), m.partition(), m.offset())))
            }
            Err(e) => {
                tracing::warn!(error = %e, "kafka source: receive failed");
                None
            }
        }
    });
    drive(
        &agent,
        window,
        Box::pin(pages),
        |(topic, partition, offset)| {
            // librdkafka's offset store commits `offset + 1` (the next to read) itself.
            if let Err(e) = consumer.store_offset(&topic, partition, offset) {
                tracing::warn!(error = %e, "kafka source: offset store failed");
            }
        },
        stopped(stop),
    )
    .await;
    // Leaving the group commits the stored offsets (pages delivered) — never
    // the fetch position, which may be past pages that were not.
    consumer.unsubscribe();
    Ok(())
}

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Checkpoint {
    /// Files processed to the end.
    done: Vec<String>,
    /// The file in progress and how many of its records were delivered.
    current: Option<(String, u64)>,
}

/// Durably: after a machine crash the checkpoint is the last one saved, whole
/// (an older one would only repeat pages; a torn one would stop the source).
fn save_checkpoint(path: &Path, c: &Checkpoint) -> anyhow::Result<()> {
    crate::durable::replace(path, &serde_json::to_vec(c)?, true)?;
    Ok(())
}

fn is_warc(name: &str) -> bool {
    name.ends_with(".warc") || name.ends_with(".warc.gz")
}

/// Every new WARC file of `dir`, once, in name order.
pub async fn warc_dir(
    agent: Arc<Agent>,
    dir: PathBuf,
    checkpoint: Option<PathBuf>,
    poll: std::time::Duration,
    window: usize,
    stop: watch::Receiver<bool>,
) -> anyhow::Result<()> {
    let cp_path = checkpoint.unwrap_or_else(|| dir.join(".crawlsieve-checkpoint.json"));
    let mut cp: Checkpoint = match std::fs::read(&cp_path) {
        Ok(b) => serde_json::from_slice(&b)
            .map_err(|e| anyhow::anyhow!("checkpoint {}: {e}", cp_path.display()))?,
        Err(_) => Checkpoint::default(),
    };
    let limits = crate::sources::Limits {
        max_page_bytes: agent.max_page_bytes,
        html_content_types: agent.pipeline.settings().input.html_content_types.clone(),
    };
    while !*stop.borrow() {
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .map_err(|e| anyhow::anyhow!("agent source warc_dir {}: {e}", dir.display()))?
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| is_warc(n) && !cp.done.contains(n))
            .collect();
        names.sort();
        let Some(name) = names.into_iter().next() else {
            let mut s = stop.clone();
            let _ = tokio::time::timeout(poll, s.wait_for(|s| *s)).await;
            continue;
        };
        let skip = match &cp.current {
            Some((n, k)) if *n == name => *k,
            _ => 0,
        };
        let path = dir.join(&name);
        let (tx, mut rx) = tokio::sync::mpsc::channel::<Input>(window.max(1));
        let reader_limits = limits.clone();
        let reader_path = path.clone();
        let reader = tokio::task::spawn_blocking(move || -> anyhow::Result<()> {
            let mut source = crate::sources::open(&reader_path.to_string_lossy(), &reader_limits)?;
            let mut stats = crate::sources::SourceStats::default();
            let mut seen = 0u64;
            source.run(
                &mut |input| {
                    seen += 1;
                    if seen <= skip {
                        return Ok(());
                    }
                    tx.blocking_send(input)
                        .map_err(|_| anyhow::anyhow!("stopped"))
                },
                &mut stats,
            )
        });
        let mut delivered = skip;
        let mut since_save = 0;
        let stop_rx = stop.clone();
        let pages = futures::stream::poll_fn(|cx| rx.poll_recv(cx).map(|o| o.map(|i| (i, ()))));
        drive(
            &agent,
            window,
            pages,
            |()| {
                delivered += 1;
                since_save += 1;
                if since_save >= 50 {
                    since_save = 0;
                    cp.current = Some((name.clone(), delivered));
                    if let Err(e) = save_checkpoint(&cp_path, &cp) {
                        tracing::error!(error = %e, "checkpoint not saved");
                    }
                }
            },
            stopped(stop_rx),
        )
        .await;
        rx.close();
        let read = reader.await;
        let finished = !*stop.borrow();
        if let (true, Ok(Err(e))) = (finished, &read) {
            tracing::error!(file = %name, error = %e, "WARC file could not be read to the end; moving on");
        }
        if finished {
            cp.done.push(name.clone());
            cp.current = None;
            tracing::info!(file = %name, records = delivered, "WARC file done");
        } else {
            cp.current = Some((name.clone(), delivered));
        }
        save_checkpoint(&cp_path, &cp)?;
    }
    Ok(())
}
