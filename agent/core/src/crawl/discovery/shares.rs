//! Each agent's share of each key, so that no one agent moves a key's total
//! by more than a cap: the streaming twin of the hub's
//! `count::merge_capped` (the total is Σ over agents of min(count, cap),
//! and the same for sites).
//!
//! **Why shares are kept, and where.** An agent's contribution to a key
//! grows until it reaches the cap and then stops; to know how much of the
//! next record counts, the agent's share so far must be known. Most keys
//! are seen by one agent only (most of the web's chunks are seen once), and
//! then the share *is* the key's total: `running` keeps that agent's number
//! beside the total and nothing here. Only when a second agent adds to a key
//! do the shares move here, one entry per (key, agent). The cap is fixed for
//! a set, so a share is kept capped: what lies past the cap never counts.
//! Agents are numbered in the order first seen, so an entry holds a u32,
//! not a name.

use crate::fingerprints::chunks::Hash;
use rustc_hash::FxHashMap;
use std::io::{Read, Write};

/// A key's first agent when it has none of its own: totals without a cap,
/// and keys several agents added to (their shares are here).
pub const SHARED: u32 = u32::MAX;

/// The agents' names and the shares of keys more than one agent added to.
pub struct Shares {
    cap: u64,
    agents: Vec<String>,
    numbers: FxHashMap<String, u32>,
    shares: FxHashMap<(Hash, u32), (u64, u64)>,
}

/// Bytes a share takes on disk: hash, agent number, count, sites.
const RECORD: usize = 20 + 4 + 8 + 8;

impl Shares {
    pub fn new(cap: u64) -> Shares {
        Shares {
            cap,
            agents: Vec::new(),
            numbers: FxHashMap::default(),
            shares: FxHashMap::default(),
        }
    }

    pub fn cap(&self) -> u64 {
        self.cap
    }

    /// The agent's number, given on first sight (never `SHARED`: agent ids
    /// are batches' keys, far fewer than 2^32).
    pub fn agent(&mut self, name: &str) -> u32 {
        if let Some(&n) = self.numbers.get(name) {
            return n;
        }
        let n = self.agents.len() as u32;
        self.agents.push(name.to_string());
        self.numbers.insert(name.to_string(), n);
        n
    }

    /// `count` and `sites` capped: what one agent may add to a key it had
    /// no share of.
    pub fn capped(&self, count: u64, sites: u64) -> (u64, u64) {
        (count.min(self.cap), sites.min(self.cap))
    }

    /// A key's first agent `first`, whose share was the key's total
    /// `(count, sites)`, is joined by another: its share moves here.
    pub fn split(&mut self, hash: Hash, first: u32, share: (u64, u64)) {
        self.shares.insert((hash, first), share);
    }

    /// Adds `count` occurrences on `sites` sites of `hash` from `agent` to
    /// its share; returns what the key's total grows by.
    pub fn add(&mut self, hash: Hash, agent: u32, count: u64, sites: u64) -> (u64, u64) {
        let cap = self.cap;
        let share = self.shares.entry((hash, agent)).or_insert((0, 0));
        let before = *share;
        // Saturating: records come from agents over the network.
        share.0 = share.0.saturating_add(count).min(cap);
        share.1 = share.1.saturating_add(sites).min(cap);
        (share.0 - before.0, share.1 - before.1)
    }

    /// Shares held (one per key and agent, for keys several agents added to).
    pub fn len(&self) -> usize {
        self.shares.len()
    }

    pub fn is_empty(&self) -> bool {
        self.shares.is_empty()
    }

    pub fn heap_bytes(&self) -> usize {
        self.shares.capacity() * (std::mem::size_of::<((Hash, u32), (u64, u64))>() + 1)
    }

    /// Whether `agent` is a number `read` gave a name to.
    pub fn known(&self, agent: u32) -> bool {
        (agent as usize) < self.agents.len()
    }

    /// Writes the cap, the agents' names (JSON, in number order) and the
    /// shares sorted by key and agent.
    pub fn write(&self, mut w: impl Write) -> anyhow::Result<()> {
        w.write_all(&self.cap.to_le_bytes())?;
        let names = serde_json::to_vec(&self.agents)?;
        w.write_all(&(names.len() as u32).to_le_bytes())?;
        w.write_all(&names)?;
        let mut records: Vec<_> = self.shares.iter().collect();
        records.sort_unstable_by_key(|(k, _)| **k);
        w.write_all(&(records.len() as u64).to_le_bytes())?;
        for ((hash, agent), (count, sites)) in records {
            w.write_all(hash)?;
            w.write_all(&agent.to_le_bytes())?;
            w.write_all(&count.to_le_bytes())?;
            w.write_all(&sites.to_le_bytes())?;
        }
        Ok(())
    }

    /// Reads what `write` wrote; refuses an agent number with no name.
    pub fn read(mut r: impl Read) -> anyhow::Result<Shares> {
        let cut = |_| anyhow::anyhow!("discoverer checkpoint cut off (shares)");
        let mut head = [0u8; 12];
        r.read_exact(&mut head).map_err(cut)?;
        let cap = u64::from_le_bytes(head[..8].try_into().expect("8"));
        anyhow::ensure!(cap > 0, "a checkpoint's agent cap is 0");
        let mut names = vec![0u8; u32::from_le_bytes(head[8..].try_into().expect("4")) as usize];
        r.read_exact(&mut names).map_err(cut)?;
        let agents: Vec<String> = serde_json::from_slice(&names)?;
        let mut n = [0u8; 8];
        r.read_exact(&mut n).map_err(cut)?;
        let n = u64::from_le_bytes(n);
        let mut shares = FxHashMap::default();
        // Reserve what the file says only up to a bound: the count is data.
        shares.reserve(n.min(1 << 24) as usize);
        let mut rec = [0u8; RECORD];
        for _ in 0..n {
            r.read_exact(&mut rec).map_err(cut)?;
            let agent = u32::from_le_bytes(rec[20..24].try_into().expect("4"));
            anyhow::ensure!(
                (agent as usize) < agents.len(),
                "a share of agent number {agent}; the checkpoint names {}",
                agents.len()
            );
            shares.insert(
                (rec[..20].try_into().expect("20"), agent),
                (
                    u64::from_le_bytes(rec[24..32].try_into().expect("8")),
                    u64::from_le_bytes(rec[32..40].try_into().expect("8")),
                ),
            );
        }
        let numbers = agents
            .iter()
            .enumerate()
            .map(|(i, a)| (a.clone(), i as u32))
            .collect();
        Ok(Shares {
            cap,
            agents,
            numbers,
            shares,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agents_share_stops_at_the_cap_and_survives_a_checkpoint() {
        let h = crate::fingerprints::chunks::hash("a key");
        let mut s = Shares::new(2);
        let (a, b) = (s.agent("a"), s.agent("b"));
        assert_eq!(s.agent("a"), a);
        assert_eq!(s.capped(5, 1), (2, 1));
        s.split(h, a, (2, 1));
        assert_eq!(s.add(h, a, 100, 100), (0, 1), "a's count is at the cap");
        assert_eq!(s.add(h, b, 1, 1), (1, 1), "another agent still counts");
        assert_eq!(s.add(h, b, 1, 1), (1, 1));
        assert_eq!(s.add(h, b, 1, 1), (0, 0));
        let mut bytes = Vec::new();
        s.write(&mut bytes).unwrap();
        let mut back = Shares::read(bytes.as_slice()).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back.agent("b"), b);
        assert_eq!(
            back.add(h, b, 1, 1),
            (0, 0),
            "b's share restored at the cap"
        );
        assert!(Shares::read(&bytes[..bytes.len() - 1]).is_err());
    }
}
