//! Streaming discovery's state for one key range: exact running totals that
//! only grow, and each key announced once, at the moment its total crosses
//! the threshold.
//!
//! The hub's `totals` re-reads the whole total at every discovery; at web
//! scale that is the bottleneck (`deploy/README.md`). But a count only grows,
//! so a chunk can newly cross the threshold only in the batch that adds to
//! it: keeping the totals in memory, keyed by hash, a batch costs its own
//! records and no discovery ever re-reads a total. A discoverer owns some key
//! ranges (Kafka partitions of the count topic) and keeps one `Running` for
//! each; ranges partition the keys, so the totals stay exact however many
//! discoverers share the work.
//!
//! **Exactly once per batch**: an agent numbers its batches; `(agent, batch)`
//! is taken once per range (`Batches`), and the state (totals and taken
//! batches together) is what a checkpoint saves, so a range restored from a
//! checkpoint and fed the batches after it adds each once.
//!
//! **One agent's share, bounded** (`agent_cap`): agent ids on the count
//! topic are bound to agents by their signatures (the discoverer checks
//! them), and with a cap a key's total is Σ over agents of min(count, cap),
//! as the hub's is: one agent alone cannot move a key by more than the cap,
//! however many batches it sends. A key only one agent added to keeps that
//! agent's number beside its total (the total is its share); the shares of
//! keys several agents added to live in `shares`.
//!
//! Checkpoint: `"CSRUNNIN"`, u16 format, u8 normalisation version, u64
//! threshold, u32 length + JSON of the taken batches; format 2 (a cap) then
//! has the shares (`Shares::write`); then u64 records and the records sorted
//! by hash: SHA-1 (20 bytes), count u64, sites u64, and in format 2 the
//! key's first agent u32 (`SHARED`: its shares are in `shares`).

use crate::crawl::discovery::count::Count;
use crate::crawl::discovery::shares::{Shares, SHARED};
use crate::fingerprints::chunks::{Hash, NORMALISATION_VERSION};
use crate::labels::protocol::Batches;
use rustc_hash::FxHashMap;
use std::io::{Read, Write};

const MAGIC: &[u8; 8] = b"CSRUNNIN";
const FORMAT: u16 = 1;
const FORMAT_CAPPED: u16 = 2;

/// A key's running total. Sites in 32 bits (saturating) so that the agent
/// number fits beside them in the 40 bytes an entry took before the cap.
#[derive(Clone, Copy, Debug)]
struct Total {
    count: u64,
    sites: u32,
    /// The one agent that added to the key, with a cap; else `SHARED`.
    first: u32,
}

impl Total {
    fn add(&mut self, count: u64, sites: u64) {
        // Saturating: records come from agents over the network.
        self.count = self.count.saturating_add(count);
        self.sites = (self.sites as u64)
            .saturating_add(sites)
            .min(u32::MAX as u64) as u32;
    }

    fn record(&self, hash: Hash) -> Count {
        Count {
            hash,
            count: self.count,
            sites: self.sites as u64,
        }
    }
}

/// One key range's running totals.
pub struct Running {
    threshold: u64,
    totals: FxHashMap<Hash, Total>,
    /// The agents' numbers and shares, when one agent's is capped.
    shares: Option<Shares>,
    batches: Batches,
    /// Count records added (a batch taken twice adds nothing).
    pub records: u64,
}

/// What adding one batch did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Added {
    /// False when this agent's batch was taken before: nothing was added.
    pub taken: bool,
    /// Keys whose totals crossed the threshold with this batch, in batch
    /// order, with their totals at that moment.
    pub crossed: Vec<Count>,
}

impl Running {
    /// Keys seen more than `threshold` times are discovered; with
    /// `agent_cap`, no agent adds more than it to a key.
    pub fn new(threshold: u64, agent_cap: Option<u64>) -> Self {
        Running {
            threshold,
            totals: FxHashMap::default(),
            shares: agent_cap.map(Shares::new),
            batches: Batches::default(),
            records: 0,
        }
    }

    pub fn threshold(&self) -> u64 {
        self.threshold
    }

    pub fn agent_cap(&self) -> Option<u64> {
        self.shares.as_ref().map(Shares::cap)
    }

    /// Whether `agent`'s batch `batch` was added.
    pub fn has(&self, agent: &str, batch: u64) -> bool {
        self.batches.contains(agent, batch)
    }

    /// Adds `agent`'s batch `batch` (its records in this range), once.
    pub fn add(
        &mut self,
        agent: &str,
        batch: u64,
        records: impl IntoIterator<Item = Count>,
    ) -> Added {
        if self.batches.contains(agent, batch) {
            return Added::default();
        }
        let mut crossed = Vec::new();
        let number = self.shares.as_mut().map_or(SHARED, |s| s.agent(agent));
        for r in records {
            let total = self.totals.entry(r.hash).or_insert(Total {
                count: 0,
                sites: 0,
                first: number,
            });
            let before = total.count;
            match self.shares.as_mut() {
                None => total.add(r.count, r.sites),
                Some(shares) => add_capped(shares, r, number, total),
            }
            if before <= self.threshold && total.count > self.threshold {
                crossed.push(total.record(r.hash));
            }
            self.records += 1;
        }
        self.batches.insert(agent, batch);
        Added {
            taken: true,
            crossed,
        }
    }

    /// Distinct keys held.
    pub fn len(&self) -> usize {
        self.totals.len()
    }

    pub fn is_empty(&self) -> bool {
        self.totals.is_empty()
    }

    /// Every key over the threshold, as count records in hash order (what
    /// `count::discover_counts` takes, for a full set at any moment).
    pub fn discovered(&self) -> Vec<Count> {
        let mut out: Vec<Count> = self
            .totals
            .iter()
            .filter(|(_, t)| t.count > self.threshold)
            .map(|(h, t)| t.record(*h))
            .collect();
        out.sort_unstable_by_key(|c| c.hash);
        out
    }

    /// The memory the totals (and shares) take: the tables' buckets and
    /// control bytes.
    pub fn heap_bytes(&self) -> usize {
        self.totals.capacity() * (std::mem::size_of::<(Hash, Total)>() + 1)
            + self.shares.as_ref().map_or(0, Shares::heap_bytes)
    }

    /// Writes the state: totals and taken batches together.
    pub fn checkpoint(&self, mut w: impl Write) -> anyhow::Result<()> {
        w.write_all(MAGIC)?;
        let format = if self.shares.is_some() {
            FORMAT_CAPPED
        } else {
            FORMAT
        };
        w.write_all(&format.to_le_bytes())?;
        w.write_all(&[NORMALISATION_VERSION])?;
        w.write_all(&self.threshold.to_le_bytes())?;
        let batches = serde_json::to_vec(&self.batches)?;
        w.write_all(&(batches.len() as u32).to_le_bytes())?;
        w.write_all(&batches)?;
        if let Some(shares) = &self.shares {
            shares.write(&mut w)?;
        }
        let mut records: Vec<(&Hash, &Total)> = self.totals.iter().collect();
        records.sort_unstable_by_key(|(h, _)| **h);
        w.write_all(&(records.len() as u64).to_le_bytes())?;
        for (h, t) in records {
            w.write_all(h)?;
            w.write_all(&t.count.to_le_bytes())?;
            w.write_all(&(t.sites as u64).to_le_bytes())?;
            if self.shares.is_some() {
                w.write_all(&t.first.to_le_bytes())?;
            }
        }
        w.flush()?;
        Ok(())
    }

    /// Reads a state `checkpoint` wrote; refuses another normalisation or a
    /// cut-off file.
    pub fn restore(mut r: impl Read) -> anyhow::Result<Self> {
        let mut head = [0u8; 8 + 2 + 1 + 8 + 4];
        r.read_exact(&mut head)
            .map_err(|_| anyhow::anyhow!("not a discoverer checkpoint (too short)"))?;
        let format = u16::from_le_bytes([head[8], head[9]]);
        anyhow::ensure!(
            &head[..8] == MAGIC && (format == FORMAT || format == FORMAT_CAPPED),
            "not a discoverer checkpoint (bad magic or format)"
        );
        anyhow::ensure!(
            head[10] == NORMALISATION_VERSION,
            "checkpoint of normalisation version {}, this build has {NORMALISATION_VERSION}",
            head[10]
        );
        let threshold = u64::from_le_bytes(head[11..19].try_into().expect("8"));
        let len = u32::from_le_bytes(head[19..23].try_into().expect("4")) as usize;
        let mut json = vec![0u8; len];
        r.read_exact(&mut json)?;
        let batches: Batches = serde_json::from_slice(&json)?;
        let shares = match format {
            FORMAT_CAPPED => Some(Shares::read(&mut r)?),
            _ => None,
        };
        let totals = read_totals(&mut r, shares.as_ref())?;
        Ok(Running {
            threshold,
            totals,
            shares,
            batches,
            records: 0,
        })
    }
}

/// Adds record `r` from agent `number` to `total` under the cap: while the
/// key is that agent's alone its share is the total; when another agent
/// adds, the first one's share moves to `shares`.
fn add_capped(shares: &mut Shares, r: Count, number: u32, total: &mut Total) {
    if total.first == number {
        let (count, sites) = shares.capped(
            total.count.saturating_add(r.count),
            (total.sites as u64).saturating_add(r.sites),
        );
        total.count = count;
        total.sites = sites.min(u32::MAX as u64) as u32;
        return;
    }
    if total.first != SHARED {
        shares.split(r.hash, total.first, (total.count, total.sites as u64));
        total.first = SHARED;
    }
    let (count, sites) = shares.add(r.hash, number, r.count, r.sites);
    total.add(count, sites);
}

/// The records of a checkpoint (with each key's first agent when capped).
fn read_totals(
    mut r: impl Read,
    shares: Option<&Shares>,
) -> anyhow::Result<FxHashMap<Hash, Total>> {
    let mut n = [0u8; 8];
    r.read_exact(&mut n)
        .map_err(|_| anyhow::anyhow!("discoverer checkpoint cut off"))?;
    let n = u64::from_le_bytes(n);
    let mut totals = FxHashMap::default();
    // Reserve what the file says only up to a bound: the count is data.
    totals.reserve(n.min(1 << 24) as usize);
    let size = if shares.is_some() { 40 } else { 36 };
    let mut rec = [0u8; 40];
    for _ in 0..n {
        r.read_exact(&mut rec[..size])
            .map_err(|_| anyhow::anyhow!("discoverer checkpoint cut off"))?;
        let sites = u64::from_le_bytes(rec[28..36].try_into().expect("8"));
        let first = match shares {
            None => SHARED,
            Some(s) => {
                let first = u32::from_le_bytes(rec[36..40].try_into().expect("4"));
                anyhow::ensure!(
                    first == SHARED || s.known(first),
                    "a key of agent number {first}, which the checkpoint does not name"
                );
                first
            }
        };
        totals.insert(
            rec[..20].try_into().expect("20"),
            Total {
                count: u64::from_le_bytes(rec[20..28].try_into().expect("8")),
                sites: sites.min(u32::MAX as u64) as u32,
                first,
            },
        );
    }
    Ok(totals)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(i: u32) -> Hash {
        crate::fingerprints::chunks::hash(&i.to_string())
    }

    fn hashes(counts: &[Count]) -> Vec<Hash> {
        counts.iter().map(|c| c.hash).collect()
    }

    fn rec(i: u32, count: u64) -> Count {
        Count {
            hash: h(i),
            count,
            sites: 1,
        }
    }

    #[test]
    fn a_key_is_announced_once_when_it_crosses_and_batches_count_once() {
        let mut r = Running::new(2, None);
        let a = r.add("a", 1, [rec(1, 1), rec(2, 3)]);
        assert!(a.taken);
        assert_eq!(hashes(&a.crossed), vec![h(2)]);
        assert_eq!(a.crossed[0].count, 3);
        // The same batch again: nothing added, nothing announced.
        assert_eq!(r.add("a", 1, [rec(1, 5)]), Added::default());
        let b = r.add("b", 1, [rec(1, 2), rec(2, 1)]);
        assert_eq!(
            hashes(&b.crossed),
            vec![h(1)],
            "2 crossed before; 1 crosses now"
        );
        assert!(r.add("a", 2, [rec(1, 1)]).crossed.is_empty());
        let found: Vec<Hash> = r.discovered().iter().map(|c| c.hash).collect();
        let mut want = vec![h(1), h(2)];
        want.sort();
        assert_eq!(found, want);
    }

    #[test]
    fn streaming_discovers_what_merge_and_discover_find() {
        use crate::crawl::discovery::count::{self, CountReader, Counter};
        let dir = tempfile::tempdir().unwrap();
        let mut files = Vec::new();
        let mut running = Running::new(4, None);
        let mut announced = Vec::new();
        for agent in 0..3u32 {
            for batch in 1..=4u64 {
                let mut c = Counter::new(dir.path(), 1 << 20).unwrap();
                for i in 0..500u32 {
                    // Chunk i seen (i * agent * batch) % 4 times, on one of 5 sites.
                    for _ in 0..(i * (agent + 1) * batch as u32) % 4 {
                        c.add(h(i), (i % 5) as u64).unwrap();
                    }
                }
                let path = dir.path().join(format!("{agent}-{batch}.cscounts"));
                c.finish(&path, 40).unwrap();
                let mut r = CountReader::open(&path).unwrap();
                let records = std::iter::from_fn(|| r.next_count().unwrap());
                announced.extend(hashes(
                    &running.add(&agent.to_string(), batch, records).crossed,
                ));
                files.push(path);
            }
        }
        let merged = dir.path().join("merged.cscounts");
        count::merge(&files, &merged).unwrap();
        let offline = count::discover(&merged, 4, None, |_| false).unwrap();
        let streaming =
            count::discover_counts(running.discovered(), 40, 4, None, |_| false).unwrap();
        assert!(!offline.keys.is_empty());
        assert_eq!(streaming.keys, offline.keys);
        // Each discovered key was announced exactly once.
        announced.sort();
        let before = announced.len();
        announced.dedup();
        assert_eq!(announced.len(), before);
        assert_eq!(announced.len(), offline.keys.len());
    }

    #[test]
    fn a_checkpoint_restores_totals_and_taken_batches() {
        let mut r = Running::new(3, None);
        for i in 0..1000u32 {
            r.add("a", i as u64 + 1, [rec(i % 100, 1), rec(i, 2)]);
        }
        let mut bytes = Vec::new();
        r.checkpoint(&mut bytes).unwrap();
        let mut back = Running::restore(bytes.as_slice()).unwrap();
        assert_eq!(back.discovered(), r.discovered());
        assert_eq!(back.len(), r.len());
        assert!(back.has("a", 1000) && !back.has("a", 1001));
        // What was taken is not taken again; what crosses later is announced.
        assert!(!back.add("a", 5, [rec(7, 100)]).taken);
        assert_eq!(
            hashes(&back.add("a", 1001, [rec(500, 2)]).crossed),
            vec![h(500)]
        );
        assert!(Running::restore(&bytes[..bytes.len() - 1]).is_err());
        assert!(Running::restore(&b"CSCOUNTS"[..]).is_err());
    }

    #[test]
    fn with_a_cap_streaming_discovers_what_the_hubs_capped_merge_finds() {
        use crate::crawl::discovery::count::{self, Counter};
        let dir = tempfile::tempdir().unwrap();
        let (threshold, cap) = (4, 2);
        let mut running = Running::new(threshold, Some(cap));
        let mut per_agent = Vec::new();
        for agent in 0..4u32 {
            // Each agent's batches, and its own total as the hub keeps it.
            let mut batches = Vec::new();
            for batch in 1..=3u64 {
                let mut c = Counter::new(dir.path(), 1 << 20).unwrap();
                for i in 0..400u32 {
                    // Agent 0 sends key i 50 times a batch (fabricated); the others honest counts.
                    let times = if agent == 0 {
                        50
                    } else {
                        (i * (agent + 1) * batch as u32) % 3
                    };
                    for _ in 0..times {
                        c.add(h(i), (i % 5) as u64).unwrap();
                    }
                }
                let path = dir.path().join(format!("{agent}-{batch}.cscounts"));
                c.finish(&path, 40).unwrap();
                let mut r = count::CountReader::open(&path).unwrap();
                let records = std::iter::from_fn(|| r.next_count().unwrap());
                running.add(&agent.to_string(), batch, records);
                batches.push(path);
            }
            let total = dir.path().join(format!("agent-{agent}.cscounts"));
            count::merge(&batches, &total).unwrap();
            per_agent.push(total);
        }
        let merged = dir.path().join("capped.cscounts");
        count::merge_capped(&per_agent, &merged, Some(cap)).unwrap();
        let offline = count::discover(&merged, threshold, None, |_| false).unwrap();
        let streaming =
            count::discover_counts(running.discovered(), 40, threshold, None, |_| false).unwrap();
        assert_eq!(streaming.keys, offline.keys);
        // Agent 0's 150 sightings of every key move none by more than 2.
        assert!(streaming.keys.len() < 400);

        let mut bytes = Vec::new();
        running.checkpoint(&mut bytes).unwrap();
        let mut back = Running::restore(bytes.as_slice()).unwrap();
        assert_eq!(back.agent_cap(), Some(cap));
        assert_eq!(back.discovered(), running.discovered());
        assert!(
            back.add("0", 4, [rec(0, 1000)]).crossed.is_empty(),
            "still capped"
        );
        assert!(Running::restore(&bytes[..bytes.len() - 1]).is_err());
    }
}
