//! The counts of a blind set, on the hub: batches agents sent, merged exactly
//! (by addition) into one running total, from which the set is discovered.
//!
//! Seed 001 §3.6: detection runs in the distributed crawler, discovery stays
//! central. Discovery is not distributive (§3.2): the threshold applies to the
//! sum of every agent's counts, so the hub adds count files before it applies
//! it — it never thresholds a part.
//!
//! On disk, `STORE/NAME/counts/`:
//!
//! - `batches/AGENT.BATCH.cscounts` — a batch taken and not merged yet;
//! - `total.GEN.cscounts` — the running total of generation GEN;
//! - `CURRENT` — JSON: the current generation and every batch in its total.
//!
//! **Exactly once.** A batch is taken when its file is renamed into
//! `batches/` (after it was checked and synced); `(agent, batch)` is a
//! duplicate when that file exists or `CURRENT` lists it. A merge writes
//! `total.GEN+1`, syncs it, then replaces `CURRENT` (atomically and durably),
//! and only then removes the merged batch files and the old total. A crash at
//! any point leaves either the old `CURRENT` with its batches still waiting,
//! or the new one, whose leftovers the next start removes: no batch is added
//! twice or lost.
//!
//! **One agent's share, bounded.** Whoever holds the count token could send
//! counts that push ordinary text over the threshold alone. With an agent
//! cap C the hub keeps each agent's own total as well
//! (`agents/AGENT.GEN.cscounts`, its batches merged) and the running total
//! is the sum over agents of `min(agent's count, C)`: one agent moves a key
//! by at most C, so a key whose honest count is at most `threshold - C`
//! cannot be pushed over by one agent, whatever it sends; crossing takes at
//! least `threshold / C` agents. The price: a merge reads every agent's
//! total (linear in their sizes, about the running total's size times the
//! share of keys seen by more than one agent), and a key one agent honestly
//! sees more than C times counts C from it.

use crate::crawl::discovery::count::{self, Summary};
use crate::labels::protocol::{Batches, CountsInfo};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The state `CURRENT` holds.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
struct Current {
    generation: u64,
    merged: Batches,
    occurrences: u64,
    distinct: u64,
    /// With an agent cap: the generation that wrote each agent's own total.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    agents: BTreeMap<String, u64>,
    /// The cap the running total was summed with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    agent_cap: Option<u64>,
}

/// One blind set's counts.
pub struct Counts {
    dir: PathBuf,
    current: Current,
    /// Taken, not merged yet: (agent, batch).
    pending: BTreeSet<(String, u64)>,
    /// One agent adds at most this much to a key's count.
    agent_cap: Option<u64>,
}

/// What a merge did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Merged {
    /// Batches added by this merge.
    pub batches: u64,
    pub generation: u64,
}

impl Counts {
    /// Opens (or creates) `dir`, finishing what a crash interrupted. With
    /// `agent_cap`, one agent adds at most that much to a key's count.
    pub fn open(dir: &Path, agent_cap: Option<u64>) -> anyhow::Result<Self> {
        let batches = dir.join("batches");
        std::fs::create_dir_all(&batches)
            .map_err(|e| anyhow::anyhow!("counts {}: {e}", batches.display()))?;
        let current: Current = match std::fs::read(dir.join("CURRENT")) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| anyhow::anyhow!("{}: {e}", dir.join("CURRENT").display()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Current::default(),
            Err(e) => anyhow::bail!("{}: {e}", dir.join("CURRENT").display()),
        };
        let mut pending = BTreeSet::new();
        for entry in std::fs::read_dir(&batches)? {
            let path = entry?.path();
            let Some((agent, batch)) = batch_of(&path) else {
                // A temporary of an upload that did not finish.
                let _ = std::fs::remove_file(&path);
                continue;
            };
            if current.merged.contains(&agent, batch) {
                let _ = std::fs::remove_file(&path);
            } else {
                pending.insert((agent, batch));
            }
        }
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with("total.") && path != total_path(dir, current.generation) {
                let _ = std::fs::remove_file(&path);
            }
        }
        if current.generation > 0 {
            match (agent_cap, current.agents.is_empty()) {
                (Some(_), true) => anyhow::bail!(
                    "{}: these counts were added up without an agent cap, so no agent's share \
                     is known; count afresh (remove the directory) or run without an agent cap",
                    dir.display()
                ),
                (None, false) => anyhow::bail!(
                    "{}: these counts were added up per agent (agent cap {}); keep an agent cap",
                    dir.display(),
                    current.agent_cap.unwrap_or(0)
                ),
                _ => {}
            }
        }
        remove_stale_agent_totals(dir, &current.agents)?;
        Ok(Counts {
            dir: dir.to_path_buf(),
            current,
            pending,
            agent_cap,
        })
    }

    /// Whether this batch was taken already (merged or waiting).
    pub fn has(&self, agent: &str, batch: u64) -> bool {
        self.current.merged.contains(agent, batch)
            || self.pending.contains(&(agent.to_string(), batch))
    }

    /// Where an upload is written before it is checked.
    pub fn temporary(&self, agent: &str, batch: u64) -> PathBuf {
        self.dir
            .join("batches")
            .join(format!("{agent}.{batch}.tmp"))
    }

    /// Takes the batch written to `tmp`: checks it, makes it durable, and
    /// records it as waiting for the next merge. A batch that does not check
    /// out is removed and the reason returned.
    pub fn take(&mut self, agent: &str, batch: u64, tmp: &Path) -> anyhow::Result<Summary> {
        let checked = count::check(tmp).and_then(|s| {
            if let Some(total) = self.total() {
                let theirs = count::CountReader::open(&total)?.min_chars;
                anyhow::ensure!(
                    theirs == s.min_chars,
                    "counted with chunks.min_chars = {}, the set's counts with {theirs}",
                    s.min_chars
                );
            }
            Ok(s)
        });
        let summary = match checked {
            Ok(s) => s,
            Err(e) => {
                let _ = std::fs::remove_file(tmp);
                return Err(e);
            }
        };
        std::fs::File::open(tmp)?.sync_all()?;
        let path = self
            .dir
            .join("batches")
            .join(format!("{agent}.{batch}.cscounts"));
        std::fs::rename(tmp, &path)?;
        crate::durable::sync_dir(&path)?;
        self.pending.insert((agent.to_string(), batch));
        Ok(summary)
    }

    /// The running total, if any batch was merged yet.
    pub fn total(&self) -> Option<PathBuf> {
        (self.current.generation > 0).then(|| total_path(&self.dir, self.current.generation))
    }

    /// Batches taken and not merged yet.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// What the current total holds, for a version discovered from it.
    pub fn info(&self, threshold: u64) -> CountsInfo {
        CountsInfo {
            generation: self.current.generation,
            batches: self.current.merged.clone(),
            occurrences: self.current.occurrences,
            distinct: self.current.distinct,
            threshold,
            agent_cap: self.current.agent_cap,
        }
    }

    /// Adds every waiting batch into a new total (nothing to do when none
    /// waits and the cap is the one the total was summed with).
    pub fn merge(&mut self) -> anyhow::Result<Merged> {
        if self.pending.is_empty() && self.current.agent_cap == self.agent_cap {
            return Ok(Merged {
                batches: 0,
                generation: self.current.generation,
            });
        }
        let generation = self.current.generation + 1;
        let out = total_path(&self.dir, generation);
        let agents = match self.agent_cap {
            None => {
                let mut inputs: Vec<PathBuf> = self.total().into_iter().collect();
                inputs.extend(self.pending.iter().map(|(a, b)| self.batch_path(a, *b)));
                count::merge(&inputs, &out)?;
                BTreeMap::new()
            }
            Some(cap) => {
                let agents = self.merge_per_agent(generation)?;
                let inputs: Vec<PathBuf> = agents
                    .iter()
                    .map(|(a, g)| agent_path(&self.dir, a, *g))
                    .collect();
                count::merge_capped(&inputs, &out, Some(cap))?;
                agents
            }
        };
        std::fs::File::open(&out)?.sync_all()?;
        let summary = count::check(&out)?;
        let replaced: Vec<PathBuf> = self
            .current
            .agents
            .iter()
            .filter(|(a, g)| agents.get(*a) != Some(*g))
            .map(|(a, g)| agent_path(&self.dir, a, *g))
            .collect();
        let mut next = Current {
            generation,
            merged: self.current.merged.clone(),
            occurrences: summary.occurrences,
            distinct: summary.distinct,
            agents,
            agent_cap: self.agent_cap,
        };
        for (agent, batch) in &self.pending {
            next.merged.insert(agent, *batch);
        }
        // The commit point: from here on the new total holds these batches.
        crate::durable::replace(
            &self.dir.join("CURRENT"),
            &serde_json::to_vec_pretty(&next)?,
            true,
        )?;
        let old = self.total();
        let merged = std::mem::take(&mut self.pending);
        self.current = next;
        for (agent, batch) in &merged {
            let _ = std::fs::remove_file(self.batch_path(agent, *batch));
        }
        if let Some(old) = old {
            let _ = std::fs::remove_file(old);
        }
        for old in replaced {
            let _ = std::fs::remove_file(old);
        }
        Ok(Merged {
            batches: merged.len() as u64,
            generation,
        })
    }

    /// Each agent with waiting batches gets a new total of its own
    /// (generation `generation`); returns every agent's total after it.
    fn merge_per_agent(&self, generation: u64) -> anyhow::Result<BTreeMap<String, u64>> {
        let mut agents = self.current.agents.clone();
        let mut by_agent: BTreeMap<&str, Vec<PathBuf>> = BTreeMap::new();
        for (a, b) in &self.pending {
            by_agent.entry(a).or_default().push(self.batch_path(a, *b));
        }
        std::fs::create_dir_all(self.dir.join("agents"))?;
        for (agent, batches) in by_agent {
            let mut inputs: Vec<PathBuf> = agents
                .get(agent)
                .map(|g| agent_path(&self.dir, agent, *g))
                .into_iter()
                .collect();
            inputs.extend(batches);
            let out = agent_path(&self.dir, agent, generation);
            count::merge(&inputs, &out)?;
            std::fs::File::open(&out)?.sync_all()?;
            agents.insert(agent.to_string(), generation);
        }
        crate::durable::sync_dir(&agent_path(&self.dir, "x", generation))?;
        Ok(agents)
    }

    fn batch_path(&self, agent: &str, batch: u64) -> PathBuf {
        self.dir
            .join("batches")
            .join(format!("{agent}.{batch}.cscounts"))
    }
}

fn total_path(dir: &Path, generation: u64) -> PathBuf {
    dir.join(format!("total.{generation}.cscounts"))
}

/// One agent's own total, written by merge `generation`.
fn agent_path(dir: &Path, agent: &str, generation: u64) -> PathBuf {
    dir.join("agents")
        .join(format!("{agent}.{generation}.cscounts"))
}

/// Agent totals `CURRENT` does not name: a crash's leftovers (the merge that
/// wrote them never committed) or totals a committed merge replaced.
fn remove_stale_agent_totals(dir: &Path, agents: &BTreeMap<String, u64>) -> anyhow::Result<()> {
    let Ok(entries) = std::fs::read_dir(dir.join("agents")) else {
        return Ok(());
    };
    let keep: BTreeSet<PathBuf> = agents.iter().map(|(a, g)| agent_path(dir, a, *g)).collect();
    for entry in entries {
        let path = entry?.path();
        if !keep.contains(&path) {
            let _ = std::fs::remove_file(&path);
        }
    }
    Ok(())
}

/// `AGENT.BATCH.cscounts` → (agent, batch).
fn batch_of(path: &Path) -> Option<(String, u64)> {
    let stem = path.file_name()?.to_str()?.strip_suffix(".cscounts")?;
    let (agent, batch) = stem.rsplit_once('.')?;
    Some((agent.to_string(), batch.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::discovery::count::Counter;

    fn batch(dir: &Path, name: &str, items: &[(u32, u64)]) -> PathBuf {
        let mut c = Counter::new(dir, 1 << 20).unwrap();
        for &(i, site) in items {
            c.add(crate::fingerprints::chunks::hash(&i.to_string()), site)
                .unwrap();
        }
        let path = dir.join(name);
        c.finish(&path, 40).unwrap();
        path
    }

    fn totals(counts: &Counts) -> Vec<(u64, u64)> {
        let mut r = count::CountReader::open(&counts.total().unwrap()).unwrap();
        let mut out = Vec::new();
        while let Some(c) = r.next_count().unwrap() {
            out.push((c.count, c.sites));
        }
        out.sort_unstable();
        out
    }

    #[test]
    fn batches_merge_once_and_survive_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("counts");
        let mut counts = Counts::open(&store, None).unwrap();
        let a1 = batch(dir.path(), "a1", &[(1, 1), (1, 1), (2, 1)]);
        std::fs::rename(&a1, counts.temporary("a", 1)).unwrap();
        counts.take("a", 1, &counts.temporary("a", 1)).unwrap();
        assert!(counts.has("a", 1) && !counts.has("a", 2) && !counts.has("b", 1));
        assert_eq!(counts.merge().unwrap().batches, 1);
        let b1 = batch(dir.path(), "b1", &[(1, 2), (3, 2)]);
        std::fs::rename(&b1, counts.temporary("b", 1)).unwrap();
        counts.take("b", 1, &counts.temporary("b", 1)).unwrap();
        drop(counts);
        // Restarted with b's batch waiting: it is still there, and merged once.
        let mut counts = Counts::open(&store, None).unwrap();
        assert_eq!(counts.pending(), 1);
        assert!(counts.has("a", 1) && counts.has("b", 1));
        assert_eq!(
            counts.merge().unwrap(),
            Merged {
                batches: 1,
                generation: 2
            }
        );
        assert_eq!(counts.merge().unwrap().batches, 0);
        // chunk 1: 3 times on 2 sites; 2 and 3 once each.
        assert_eq!(totals(&counts), vec![(1, 1), (1, 1), (3, 2)]);
        let info = counts.info(2);
        assert_eq!(
            (info.occurrences, info.distinct, info.batches.len()),
            (5, 3, 2)
        );
        // A crash after CURRENT was replaced but before the merged batch files
        // were removed: the next start removes them instead of merging again.
        std::fs::write(store.join("batches/b.1.cscounts"), b"leftover").unwrap();
        std::fs::write(store.join("total.1.cscounts"), b"leftover").unwrap();
        let counts = Counts::open(&store, None).unwrap();
        assert_eq!(counts.pending(), 0);
        assert!(!store.join("batches/b.1.cscounts").exists());
        assert!(!store.join("total.1.cscounts").exists());
        assert_eq!(totals(&counts), vec![(1, 1), (1, 1), (3, 2)]);
    }

    fn send(counts: &mut Counts, dir: &Path, agent: &str, batch_no: u64, items: &[(u32, u64)]) {
        let f = batch(dir, &format!("{agent}{batch_no}"), items);
        let tmp = counts.temporary(agent, batch_no);
        std::fs::rename(&f, &tmp).unwrap();
        counts.take(agent, batch_no, &tmp).unwrap();
    }

    #[test]
    fn with_an_agent_cap_one_agent_moves_a_key_by_at_most_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("counts");
        let mut counts = Counts::open(&store, Some(3)).unwrap();
        // Chunk 1: an honest sighting by b, then 100 fabricated ones by
        // `rogue` over two batches. Chunk 2: seen twice by each of a, b, c.
        send(&mut counts, dir.path(), "b", 1, &[(1, 1), (2, 1), (2, 2)]);
        let fabricated: Vec<(u32, u64)> = (0..50).map(|s| (1, s)).collect();
        send(&mut counts, dir.path(), "rogue", 1, &fabricated);
        counts.merge().unwrap();
        send(&mut counts, dir.path(), "rogue", 2, &fabricated);
        send(&mut counts, dir.path(), "a", 1, &[(2, 3), (2, 4)]);
        send(&mut counts, dir.path(), "c", 1, &[(2, 5), (2, 6)]);
        counts.merge().unwrap();
        // Chunk 1: 1 (b) + min(100, 3) (rogue) = 4; chunk 2: 2 + 2 + 2 = 6.
        assert_eq!(totals(&counts), vec![(4, 4), (6, 6)]);
        drop(counts);
        // Restarted: the agents' totals are kept, the stale ones gone.
        assert_eq!(std::fs::read_dir(store.join("agents")).unwrap().count(), 4);
        let mut counts = Counts::open(&store, Some(3)).unwrap();
        send(&mut counts, dir.path(), "b", 2, &[(1, 7)]);
        counts.merge().unwrap();
        assert_eq!(totals(&counts), vec![(5, 5), (6, 6)]);
        assert_eq!(std::fs::read_dir(store.join("agents")).unwrap().count(), 4);
        drop(counts);
        // Another cap sums the agents' totals again; none at all is refused.
        let mut counts = Counts::open(&store, Some(100)).unwrap();
        assert_eq!(counts.merge().unwrap().batches, 0);
        assert_eq!(totals(&counts), vec![(6, 6), (102, 102)]);
        drop(counts);
        let e = Counts::open(&store, None).err().unwrap().to_string();
        assert!(e.contains("keep an agent cap"), "{e}");
        // Counts added up without a cap cannot be capped afterwards.
        let plain = dir.path().join("plain");
        let mut counts = Counts::open(&plain, None).unwrap();
        send(&mut counts, dir.path(), "a", 1, &[(1, 1)]);
        counts.merge().unwrap();
        drop(counts);
        let e = Counts::open(&plain, Some(3)).err().unwrap().to_string();
        assert!(e.contains("without an agent cap"), "{e}");
    }

    #[test]
    fn a_batch_that_does_not_check_out_is_refused_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let mut counts = Counts::open(&dir.path().join("counts"), None).unwrap();
        let tmp = counts.temporary("a", 1);
        std::fs::write(&tmp, b"CSCOUNTS but not really").unwrap();
        assert!(counts.take("a", 1, &tmp).is_err());
        assert!(!tmp.exists() && !counts.has("a", 1));
        // Another min_chars than the total's.
        let ok = batch(dir.path(), "ok", &[(1, 1)]);
        std::fs::rename(&ok, &tmp).unwrap();
        counts.take("a", 1, &tmp).unwrap();
        counts.merge().unwrap();
        let mut c = Counter::new(dir.path(), 1 << 20).unwrap();
        c.add(crate::fingerprints::chunks::hash("x"), 1).unwrap();
        let tmp = counts.temporary("a", 2);
        c.finish(&tmp, 80).unwrap();
        let e = counts.take("a", 2, &tmp).unwrap_err().to_string();
        assert!(e.contains("min_chars"), "{e}");
    }
}
