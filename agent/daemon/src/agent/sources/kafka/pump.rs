//! Keeping a Kafka consumer polled while the pipeline is full.
//!
//! librdkafka hands a group's events — a rebalance's revoke and assign — to
//! the application only when it polls the consumer. A consumer read straight
//! by the pipeline is polled only when the pipeline has room for a page: with
//! a window of slow pages (large pages, a loaded machine, a sink retrying) it
//! goes unpolled for as long, and its member answers a rebalance that late —
//! the whole group waits for it, and past `max.poll.interval.ms` the member
//! is dropped and rejoins, which starts another rebalance.
//!
//! So the pump polls without pause and holds what the pipeline has no room
//! for, as the Java client's users do: once it holds `hold` pages it pauses
//! the assigned partitions (no more pages are fetched, events still come),
//! and resumes them when the pages it holds have all gone on. A paused
//! partition drops what it had fetched and refetches from the position after
//! the last page handed out, so nothing is skipped or duplicated. Each pause
//! costs a refetch, so it comes only after a whole window's worth of pages:
//! pausing whenever the channel was full took 200 pages from 3.4 s to 12 s
//! (`tests/agent.rs`, debug build).

use super::SourceContext;
use rdkafka::consumer::{Consumer, StreamConsumer};
use rdkafka::message::BorrowedMessage;
use std::collections::VecDeque;
use std::sync::Arc;
use tokio::sync::mpsc;

/// Reads `consumer` until `done` says stop or the receiving end of `tx` is
/// dropped, sending each message through `convert`, holding at most about
/// `hold` that `tx` has no room for; dropping `tx` on return ends the
/// pipeline's stream. Receive errors go to `failed` (the client reconnects
/// by itself).
pub async fn pump<T, F, E>(
    consumer: Arc<StreamConsumer<SourceContext>>,
    tx: mpsc::Sender<T>,
    hold: usize,
    mut convert: F,
    mut failed: E,
    done: impl Fn() -> bool,
) where
    F: FnMut(&BorrowedMessage<'_>) -> T,
    E: FnMut(&rdkafka::error::KafkaError),
{
    let mut held: VecDeque<T> = VecDeque::new();
    let mut paused = false;
    // `done` is looked at every second as well: a failed restore is set
    // inside a rebalance callback, while `recv` goes on waiting.
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
    while !done() {
        if paused && held.is_empty() {
            paused = !set_paused(&consumer, false);
        }
        tokio::select! {
            biased;
            permit = tx.reserve(), if !held.is_empty() => {
                let Ok(permit) = permit else { return };
                permit.send(held.pop_front().expect("held is not empty"));
            }
            got = consumer.recv() => {
                match got {
                    Ok(m) => {
                        let item = convert(&m);
                        match tx.try_reserve() {
                            Ok(permit) if held.is_empty() => permit.send(item),
                            _ => held.push_back(item),
                        }
                    }
                    Err(e) => failed(&e),
                }
                // Paused again on each page past the limit: a rebalance may
                // have assigned new, unpaused partitions meanwhile.
                if held.len() >= hold.max(1) {
                    paused |= set_paused(&consumer, true);
                }
            }
            _ = tx.closed() => return,
            _ = tick.tick() => {}
        }
    }
}

/// Pauses (or resumes) every assigned partition; true when it did.
fn set_paused(consumer: &StreamConsumer<SourceContext>, pause: bool) -> bool {
    let assigned = match consumer.assignment() {
        Ok(a) => a,
        Err(e) => {
            tracing::debug!(error = %e, "kafka source: no assignment to pause or resume");
            return false;
        }
    };
    if assigned.count() == 0 {
        return false;
    }
    let done = if pause {
        consumer.pause(&assigned)
    } else {
        consumer.resume(&assigned)
    };
    match done {
        Ok(()) => true,
        Err(e) => {
            tracing::warn!(error = %e, pause, "kafka source: pause or resume failed");
            false
        }
    }
}
