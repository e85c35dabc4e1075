//! One partition's state: its key range's running totals, cut into a fixed
//! number of finer ranges ("parts"), each checkpointed as one message.
//!
//! **Why parts.** A partition's totals outgrow one Kafka message (36 bytes a
//! key; a 16 MB message holds ~460 k keys). Each part is a message keyed
//! `PARTITION/PART` on the compacted state topic, so compaction keeps the
//! latest of each and a restore reads one message per part. Parts are
//! written one by one, so after a crash some may be newer than others; each
//! part therefore keeps its own taken batches (`Running` does), and a part
//! restored from an older checkpoint takes the batches read again after it
//! while a newer part skips them. Exact either way: every part adds each
//! `(agent, batch)` once.
//!
//! Part message: `"CSDPART1"`, u32 partitions of the count topic, u32 parts,
//! u32 this part, u32 min_chars (`u32::MAX`: none seen yet), then the part's
//! `Running` checkpoint.

use crawlsieve_core::crawl::discovery::count::Count;
use crawlsieve_core::crawl::discovery::running::Running;
use crawlsieve_core::crawl::discovery::slices::{self, SliceKey};

const MAGIC: &[u8; 8] = b"CSDPART1";
const HEAD: usize = 8 + 4 * 4;
const NO_MIN_CHARS: u32 = u32::MAX;

/// A partition's totals, in parts.
pub struct Partition {
    pub partition: u32,
    pub partitions: u32,
    parts: Vec<Running>,
    /// Every slice's min_chars (one per set; a slice with another is refused).
    pub min_chars: Option<u32>,
    /// Slices taken since the last checkpoint.
    pub changed: u64,
}

/// What taking one slice did.
#[derive(Default)]
pub struct Taken {
    /// False when every part had this batch already.
    pub new: bool,
    pub records: u64,
    pub crossed: Vec<Count>,
}

impl Partition {
    pub fn new(
        partition: u32,
        partitions: u32,
        parts: u32,
        threshold: u64,
        agent_cap: Option<u64>,
    ) -> Partition {
        Partition {
            partition,
            partitions,
            parts: (0..parts)
                .map(|_| Running::new(threshold, agent_cap))
                .collect(),
            min_chars: None,
            changed: 0,
        }
    }

    /// Adds one slice (checked: its partition count, key range and
    /// min_chars) to every part, each part once per batch.
    pub fn take(&mut self, key: &SliceKey, slice: &[u8]) -> anyhow::Result<Taken> {
        anyhow::ensure!(
            key.partitions == self.partitions,
            "slice dealt into {} partitions, the topic has {}",
            key.partitions,
            self.partitions
        );
        let (min_chars, records) = slices::read(slice)?;
        slices::check_range(&records, self.partition, self.partitions)?;
        if let Some(m) = self.min_chars {
            anyhow::ensure!(
                m == min_chars,
                "slice counted with min_chars {min_chars}, the set's counts with {m}"
            );
        }
        self.min_chars = Some(min_chars);
        let n = self.parts.len() as u64;
        let base = self.partition as u64 * n;
        let total = self.partitions as u64 * n;
        let mut taken = Taken::default();
        let mut rest = records.as_slice();
        for (i, part) in self.parts.iter_mut().enumerate() {
            // Records are sorted, so each part's are the next contiguous run.
            let end = rest
                .iter()
                .position(|c| slices::slot(&c.hash, total) > base + i as u64)
                .unwrap_or(rest.len());
            let (mine, after) = rest.split_at(end);
            rest = after;
            let added = part.add(&key.agent, key.batch, mine.iter().copied());
            if added.taken {
                taken.new = true;
                taken.records += mine.len() as u64;
                taken.crossed.extend(added.crossed);
            }
        }
        debug_assert!(rest.is_empty(), "check_range kept every record in range");
        self.changed += taken.new as u64;
        Ok(taken)
    }

    /// Distinct keys held.
    pub fn keys(&self) -> u64 {
        self.parts.iter().map(|p| p.len() as u64).sum()
    }

    /// The parts' tables, in bytes.
    pub fn heap_bytes(&self) -> usize {
        self.parts.iter().map(Running::heap_bytes).sum()
    }

    pub fn parts(&self) -> u32 {
        self.parts.len() as u32
    }

    /// Every key over the threshold (for tests and a full set on demand).
    pub fn discovered(&self) -> Vec<Count> {
        self.parts.iter().flat_map(|p| p.discovered()).collect()
    }

    /// Part `i` as its state message.
    pub fn encode_part(&self, i: u32) -> anyhow::Result<Vec<u8>> {
        let mut b = Vec::with_capacity(HEAD + 64 + self.parts[i as usize].len() * 36);
        b.extend_from_slice(MAGIC);
        for v in [
            self.partitions,
            self.parts.len() as u32,
            i,
            self.min_chars.unwrap_or(NO_MIN_CHARS),
        ] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        self.parts[i as usize].checkpoint(&mut b)?;
        Ok(b)
    }

    /// The state of a partition from its parts' last messages (a part with
    /// none starts empty); refuses parts of another layout, threshold or
    /// agent cap.
    pub fn restore(
        partition: u32,
        partitions: u32,
        parts: u32,
        (threshold, agent_cap): (u64, Option<u64>),
        messages: impl IntoIterator<Item = Vec<u8>>,
    ) -> anyhow::Result<Partition> {
        let mut p = Partition::new(partition, partitions, parts, threshold, agent_cap);
        for m in messages {
            anyhow::ensure!(
                m.len() >= HEAD && &m[..8] == MAGIC,
                "not a discoverer state part"
            );
            let at = |i: usize| u32::from_le_bytes(m[8 + 4 * i..12 + 4 * i].try_into().expect("4"));
            let (their_partitions, their_parts, part, min_chars) = (at(0), at(1), at(2), at(3));
            anyhow::ensure!(
                their_partitions == partitions && their_parts == parts,
                "state kept for {their_partitions} partitions in {their_parts} parts; \
                 this discoverer has {partitions} in {parts}: keep --state-parts, \
                 and count into a new set when the count topic's partitions change"
            );
            anyhow::ensure!(part < parts, "state part {part} of {parts}");
            let running = Running::restore(&m[HEAD..])?;
            anyhow::ensure!(
                running.threshold() == threshold,
                "state kept at threshold {}, this discoverer's is {threshold}",
                running.threshold()
            );
            let show = |c: Option<u64>| c.map_or("none".to_string(), |c| c.to_string());
            anyhow::ensure!(
                running.agent_cap() == agent_cap,
                "state kept with agent cap {}, this discoverer's is {}: \
                 keep --agent-cap for a set (count into a new set to change it)",
                show(running.agent_cap()),
                show(agent_cap)
            );
            if min_chars != NO_MIN_CHARS {
                if let Some(m) = p.min_chars {
                    anyhow::ensure!(m == min_chars, "state parts of two min_chars");
                }
                p.min_chars = Some(min_chars);
            }
            p.parts[part as usize] = running;
        }
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crawlsieve_core::crawl::discovery::count::Counter;
    use crawlsieve_core::fingerprints::chunks::hash;

    /// A batch of keys 0..n, key i seen `times(i)` times.
    fn batch(dir: &std::path::Path, n: u32, times: impl Fn(u32) -> u32) -> Vec<u8> {
        let mut c = Counter::new(dir, 1 << 20).unwrap();
        for i in 0..n {
            for _ in 0..times(i) {
                c.add(hash(&i.to_string()), 1).unwrap();
            }
        }
        let path = dir.join("b");
        c.finish(&path, 40).unwrap();
        std::fs::read(path).unwrap()
    }

    fn key(agent: &str, batch: u64) -> SliceKey {
        SliceKey {
            agent: agent.into(),
            batch,
            partitions: 3,
        }
    }

    #[test]
    fn parts_restored_from_checkpoints_of_different_ages_count_each_batch_once() {
        let dir = tempfile::tempdir().unwrap();
        let b1 = slices::split(&batch(dir.path(), 3000, |i| i % 3), 3).unwrap();
        let b2 = slices::split(&batch(dir.path(), 3000, |i| i % 2), 3).unwrap();
        let mut p = Partition::new(1, 3, 4, 2, None);
        assert!(p.take(&key("a", 1), &b1[1]).unwrap().new);
        let old: Vec<Vec<u8>> = (0..4).map(|i| p.encode_part(i).unwrap()).collect();
        let crossed = p.take(&key("a", 2), &b2[1]).unwrap().crossed;
        assert!(!crossed.is_empty());
        let new: Vec<Vec<u8>> = (0..4).map(|i| p.encode_part(i).unwrap()).collect();
        // A crash after writing parts 0 and 1 of the new checkpoint.
        let mixed = vec![
            new[0].clone(),
            new[1].clone(),
            old[2].clone(),
            old[3].clone(),
        ];
        let mut back = Partition::restore(1, 3, 4, (2, None), mixed).unwrap();
        // Batch 2 read again: parts 2 and 3 take it, 0 and 1 skip it.
        let again = back.take(&key("a", 2), &b2[1]).unwrap();
        assert!(again.new);
        assert!(again.records < p.discovered().len() as u64 + 3000);
        let mut a = back.discovered();
        let mut b = p.discovered();
        a.sort_by_key(|c| c.hash);
        b.sort_by_key(|c| c.hash);
        assert_eq!(a, b);
        assert!(!back.take(&key("a", 2), &b2[1]).unwrap().new, "taken once");
    }

    #[test]
    fn wrong_slices_and_states_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let b = slices::split(&batch(dir.path(), 500, |_| 1), 3).unwrap();
        let mut p = Partition::new(0, 3, 2, 5, None);
        assert!(p.take(&key("a", 1), &b[1]).is_err(), "another range");
        let mut k = key("a", 1);
        k.partitions = 4;
        assert!(p.take(&k, &b[0]).is_err(), "another partition count");
        p.take(&key("a", 1), &b[0]).unwrap();
        let part = p.encode_part(0).unwrap();
        assert!(
            Partition::restore(0, 3, 2, (6, None), [part.clone()]).is_err(),
            "threshold"
        );
        assert!(
            Partition::restore(0, 3, 4, (5, None), [part.clone()]).is_err(),
            "parts"
        );
        assert!(
            Partition::restore(0, 3, 2, (5, Some(2)), [part.clone()]).is_err(),
            "agent cap"
        );
        assert!(Partition::restore(0, 3, 2, (5, None), [part[..30].to_vec()]).is_err());
        let back = Partition::restore(0, 3, 2, (5, None), [part]).unwrap();
        assert_eq!(back.min_chars, Some(40));
    }
}
