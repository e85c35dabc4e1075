//! Blind sets discovered by a discoverer group on Kafka (`crate::discoverer`):
//! the hub follows the compacted `crawlsieve.discovered.SET` topic, where each
//! key over the threshold is announced as it crosses, and publishes from
//! those keys instead of adding counts itself.
//!
//! The hub keeps no state of its own for this: at start it reads the topic
//! from the beginning (compaction keeps one message a key) and rebuilds the
//! keys, so a hub restarted after minutes down misses nothing and publishes
//! nothing twice — an unchanged key set publishes no version. A key
//! announced twice (a discoverer that crashed between announcing and its
//! checkpoint) is one key.

use crawlsieve_core::crawl::discovery::count::Count;
use crawlsieve_core::crawl::discovery::slices::{self, Announcement};
use crawlsieve_core::fingerprints::chunks::Hash;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::{Message, Offset, TopicPartitionList};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the topic announced so far.
#[derive(Default)]
pub struct Announced {
    pub keys: HashMap<Hash, Count>,
    pub min_chars: Option<u32>,
    /// Announcements read (repeats included).
    pub read: u64,
    /// Announcements refused (another threshold, malformed).
    pub refused: u64,
}

/// Follows set `set`'s discovered topic on `brokers` for as long as the
/// process runs, on a thread of its own.
pub fn follow(brokers: &str, set: &str, threshold: u64) -> anyhow::Result<Arc<Mutex<Announced>>> {
    let reader: BaseConsumer = crate::kafka::client(brokers)?
        // Assigned by hand, never subscribed: it joins no group, commits nothing.
        .set("group.id", "crawlsieve-hub-announced")
        .set("enable.auto.commit", "false")
        .create()
        .map_err(|e| anyhow::anyhow!("--discovered-from {brokers}: {e}"))?;
    let shared = Arc::new(Mutex::new(Announced::default()));
    let topic = slices::discovered_topic(set);
    let out = shared.clone();
    std::thread::Builder::new()
        .name(format!("announced-{set}"))
        .spawn(move || read_forever(reader, &topic, threshold, &out))?;
    Ok(shared)
}

fn read_forever(reader: BaseConsumer, topic: &str, threshold: u64, out: &Mutex<Announced>) {
    // Wait for the topic (a discoverer makes it), then read every partition from its start.
    loop {
        match crate::kafka::partition_ids(&reader, topic) {
            Ok(ps) if !ps.is_empty() => {
                let mut tpl = TopicPartitionList::new();
                for p in ps {
                    let _ = tpl.add_partition_offset(topic, p, Offset::Beginning);
                }
                match reader.assign(&tpl) {
                    Ok(()) => break,
                    Err(e) => tracing::warn!(topic, error = %e, "announcements: assign"),
                }
            }
            Ok(_) => tracing::info!(
                topic,
                "announcements: waiting for the topic (a discoverer makes it)"
            ),
            Err(e) => tracing::warn!(topic, error = %e, "announcements: brokers not reached"),
        }
        std::thread::sleep(Duration::from_secs(2));
    }
    tracing::info!(topic, "following the discoverers' announcements");
    loop {
        match reader.poll(Duration::from_secs(1)) {
            Some(Ok(m)) => take(m.payload(), threshold, out),
            Some(Err(e)) => {
                tracing::warn!(topic, error = %e, "announcements: reading");
                std::thread::sleep(Duration::from_millis(500));
            }
            None => {}
        }
    }
}

fn take(payload: Option<&[u8]>, threshold: u64, out: &Mutex<Announced>) {
    let mut a = out.lock().unwrap_or_else(|p| p.into_inner());
    a.read += 1;
    let Some(payload) = payload else {
        return;
    };
    let checked = Announcement::decode(payload).and_then(|n| {
        anyhow::ensure!(
            n.threshold == threshold,
            "announced at threshold {}, the hub's --blind has {threshold}",
            n.threshold
        );
        if let Some(m) = a.min_chars {
            anyhow::ensure!(
                n.min_chars == m,
                "announced with min_chars {}, earlier ones {m}",
                n.min_chars
            );
        }
        Ok(n)
    });
    match checked {
        Ok(n) => {
            a.min_chars = Some(n.min_chars);
            // The latest total wins (a count only grows).
            let e = a.keys.entry(n.count.hash).or_insert(n.count);
            if n.count.count >= e.count {
                *e = n.count;
            }
        }
        Err(e) => {
            a.refused += 1;
            if a.refused <= 10 {
                tracing::error!(error = %e, "an announcement refused");
            }
        }
    }
}
