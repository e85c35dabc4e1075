//! Streaming discovery's state (`discovery::running`) on a count stream with a
//! web-like duplication distribution: count records a second per core, memory
//! per million keys, checkpoint size and time, and 1 → 2 threads each owning
//! half the key ranges (issue 49, part 3). The state alone, in process: no
//! Kafka consumer, no network — the ceiling a discoverer's partition can
//! reach, what the billion-page plan in deploy/README.md rests on.
//!
//! The stream: each record is a chunk seen once on one site. With
//! probability `--unique` (default 0.6) the chunk is new (most of the web's
//! chunks are seen once); otherwise it is drawn from a pool of `--pool` chunks
//! by a Zipf law of exponent 1 (rank = pool^u, u uniform: a few chunks —
//! boilerplate, licences, copied articles — are seen very often, most of the
//! pool a few times). Records come in batches of 10,000 (an agent's batch),
//! generated before the clock starts.
//!
//! With `--agent-cap N` the state keeps each agent's share of each key
//! (`discovery::shares`) and batches come round-robin from `--agents K`
//! agents (default 16 then, else 1): the cost of bounding one agent's share.
//!
//! Usage: cargo run --release -p crawlsieve-bench --example running_totals -- [--records 20000000]
//!        [--threshold 10] [--unique 0.6] [--pool 5000000] [--agent-cap N [--agents 16]]

use crawlsieve_core::crawl::discovery::count::Count;
use crawlsieve_core::crawl::discovery::running::Running;
use crawlsieve_core::fingerprints::splitmix64 as splitmix;
use std::time::Instant;

/// A chunk hash from an id: SHA-1-like uniform bytes (two splitmix draws).
fn hash_of(id: u64) -> [u8; 20] {
    let mut s = id;
    let (a, b, c) = (splitmix(&mut s), splitmix(&mut s), splitmix(&mut s));
    let mut h = [0u8; 20];
    h[..8].copy_from_slice(&a.to_be_bytes());
    h[8..16].copy_from_slice(&b.to_be_bytes());
    h[16..].copy_from_slice(&c.to_be_bytes()[..4]);
    h
}

struct Args {
    records: u64,
    threshold: u64,
    unique: f64,
    pool: u64,
    agent_cap: Option<u64>,
    agents: u64,
}

fn args() -> Args {
    let mut a = Args {
        records: 20_000_000,
        threshold: 10,
        unique: 0.6,
        pool: 5_000_000,
        agent_cap: None,
        agents: 0,
    };
    let v: Vec<String> = std::env::args().skip(1).collect();
    for w in v.chunks(2) {
        let x = w.get(1).map(String::as_str).unwrap_or("");
        match w[0].as_str() {
            "--records" => a.records = x.parse().expect("--records N"),
            "--threshold" => a.threshold = x.parse().expect("--threshold N"),
            "--unique" => a.unique = x.parse().expect("--unique P"),
            "--pool" => a.pool = x.parse().expect("--pool N"),
            "--agent-cap" => a.agent_cap = Some(x.parse().expect("--agent-cap N")),
            "--agents" => a.agents = x.parse().expect("--agents K"),
            other => panic!("unknown flag {other}"),
        }
    }
    if a.agents == 0 {
        a.agents = if a.agent_cap.is_some() { 16 } else { 1 };
    }
    a
}

fn stream(a: &Args) -> Vec<Vec<Count>> {
    let mut state = 42u64;
    let mut fresh = 1u64 << 40;
    let mut batches = Vec::new();
    let mut batch = Vec::with_capacity(10_000);
    for _ in 0..a.records {
        let u = (splitmix(&mut state) >> 11) as f64 / (1u64 << 53) as f64;
        let id = if u < a.unique {
            fresh += 1;
            fresh
        } else {
            let v = (splitmix(&mut state) >> 11) as f64 / (1u64 << 53) as f64;
            (a.pool as f64).powf(v) as u64
        };
        batch.push(Count {
            hash: hash_of(id),
            count: 1,
            sites: 1,
        });
        if batch.len() == 10_000 {
            batches.push(std::mem::take(&mut batch));
        }
    }
    if !batch.is_empty() {
        batches.push(batch);
    }
    batches
}

fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .unwrap_or(0.0)
        / 1024.0
}

/// Each batch's records dealt to `parts` owners by key (as a count topic's
/// partitions deal them), before the clock starts.
fn split(batches: &[Vec<Count>], parts: u64) -> Vec<Vec<Vec<Count>>> {
    (0..parts)
        .map(|p| {
            batches
                .iter()
                .map(|b| {
                    b.iter()
                        .filter(|c| {
                            u64::from_be_bytes(c.hash[..8].try_into().unwrap()) % parts == p
                        })
                        .copied()
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// Adds every batch, in order, batch i from agent i mod `agents`; returns
/// the state and the keys announced.
fn feed(batches: &[Vec<Count>], a: &Args) -> (Running, u64) {
    let mut r = Running::new(a.threshold, a.agent_cap);
    let names: Vec<String> = (0..a.agents).map(|i| format!("agent-{i}")).collect();
    let mut crossed = 0;
    for (i, b) in batches.iter().enumerate() {
        let (agent, batch) = (i as u64 % a.agents, i as u64 / a.agents + 1);
        crossed += r
            .add(&names[agent as usize], batch, b.iter().copied())
            .crossed
            .len() as u64;
    }
    (r, crossed)
}

fn main() {
    let a = args();
    let batches = stream(&a);
    let base = rss_mb();
    let t = Instant::now();
    let (r, crossed) = feed(&batches, &a);
    let one = t.elapsed().as_secs_f64();
    let held = rss_mb() - base;
    let keys = r.len() as f64 / 1e6;
    let t = Instant::now();
    let mut bytes = Vec::new();
    r.checkpoint(&mut bytes).unwrap();
    let write = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let back = Running::restore(bytes.as_slice()).unwrap();
    let read = t.elapsed().as_secs_f64();
    assert_eq!(back.len(), r.len());
    drop((r, back));
    let halves = split(&batches, 2);
    let t = Instant::now();
    let crossed2: u64 = std::thread::scope(|s| {
        let h: Vec<_> = halves
            .iter()
            .map(|half| s.spawn(|| feed(half, &a).1))
            .collect();
        h.into_iter().map(|h| h.join().unwrap()).sum()
    });
    let two = t.elapsed().as_secs_f64();
    assert_eq!(crossed, crossed2, "two halves announce what one does");
    let mut cmd = format!(
        "cargo run --release -p crawlsieve-bench --example running_totals -- --records {} --threshold {} --unique {} --pool {}",
        a.records, a.threshold, a.unique, a.pool
    );
    if let Some(cap) = a.agent_cap {
        cmd.push_str(&format!(" --agent-cap {cap} --agents {}", a.agents));
    }
    println!(
        "| {:.0} M records, {:.2} M keys, {} announced (threshold {}) | one thread {:.1} M records/s | two threads, half the ranges each: {:.1} M records/s ({:.2}×) | RSS {:.0} MB per million keys | checkpoint {:.0} MB per million keys, written {:.2} s, read {:.2} s per million keys | `{cmd}` |",
        a.records as f64 / 1e6,
        keys,
        crossed,
        a.threshold,
        a.records as f64 / one / 1e6,
        a.records as f64 / two / 1e6,
        one / two,
        held / keys,
        bytes.len() as f64 / 1e6 / keys,
        write / keys,
        read / keys,
    );
}
