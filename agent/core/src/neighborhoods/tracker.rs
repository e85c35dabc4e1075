//! Neighborhoods inside a run: observe verdicts in order, write site flags
//! to the flag log, restore the state at start and save it at the end.
//!
//! Pages of a partitioned source (Kafka) go to the shard of their partition
//! (`shards`), which the source adopts and releases as partitions move; every
//! other page goes to `hoods`, the state of the `snapshot` file.

use super::config::NeighborhoodSettings;
use super::shards::{Place, Shard, ShardKey};
use super::{Neighborhoods, SiteFlag};
use crate::verdict::Verdict;
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

pub struct Tracker {
    pub hoods: Neighborhoods,
    shards: HashMap<ShardKey, Shard>,
    settings: NeighborhoodSettings,
    flag_log: Option<std::fs::File>,
    snapshot: Option<PathBuf>,
    /// Site flags emitted in this run.
    pub flags: u64,
    /// Pages of a partition read again whose offset the shard already held:
    /// judged again, not added again.
    pub replayed: u64,
    /// Pages that finished after their partition moved to another agent: the
    /// new owner reads them again.
    pub unowned: u64,
}

impl Tracker {
    /// `None` when neighborhoods are disabled. Restores the snapshot when it exists.
    pub fn from_settings(s: &NeighborhoodSettings) -> anyhow::Result<Option<Self>> {
        if !s.enabled {
            return Ok(None);
        }
        let hoods = match &s.snapshot {
            Some(path) if path.exists() => Neighborhoods::load(path, s.clone())?,
            _ => Neighborhoods::new(s.clone()),
        };
        let flag_log = match &s.flag_log {
            Some(path) => Some(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|e| {
                        anyhow::anyhow!("neighborhoods.flag_log {}: {e}", path.display())
                    })?,
            ),
            None => None,
        };
        Ok(Some(Tracker {
            hoods,
            shards: HashMap::new(),
            settings: s.clone(),
            flag_log,
            snapshot: s.snapshot.clone(),
            flags: 0,
            replayed: 0,
            unowned: 0,
        }))
    }

    fn log(&mut self, flags: &[SiteFlag]) -> anyhow::Result<()> {
        self.flags += flags.len() as u64;
        if let Some(f) = &mut self.flag_log {
            let mut text = String::new();
            for flag in flags {
                text.push_str(&crate::output::crawllog::flag_line(flag));
                text.push('\n');
            }
            // One write per batch: lines of concurrent writers never interleave.
            f.write_all(text.as_bytes())?;
        }
        Ok(())
    }

    /// Adds a verdict; returns the flags that changed (already in the flag log).
    pub fn observe(&mut self, v: &Verdict) -> anyhow::Result<Vec<SiteFlag>> {
        let flags = self.hoods.observe_verdict(v);
        if !flags.is_empty() {
            self.log(&flags)?;
        }
        Ok(flags)
    }

    /// Adds a verdict of a page at `place` in a partitioned source: to the
    /// partition's shard, once per offset, if this agent owns the partition.
    pub fn observe_at(&mut self, v: &Verdict, place: &Place) -> anyhow::Result<Vec<SiteFlag>> {
        let Some(shard) = self.shards.get_mut(&place.shard()) else {
            self.unowned += 1;
            return Ok(Vec::new());
        };
        if !shard.coverage.mark(place.offset) {
            self.replayed += 1;
            return Ok(Vec::new());
        }
        shard.changes += 1;
        let flags = shard.hoods.observe_verdict(v);
        if !flags.is_empty() {
            self.log(&flags)?;
        }
        Ok(flags)
    }

    /// A fresh shard for a partition this tracker's settings.
    pub fn new_shard(&self, coverage: super::shards::Coverage) -> Shard {
        Shard::new(self.settings.clone(), coverage)
    }

    pub fn settings(&self) -> &NeighborhoodSettings {
        &self.settings
    }

    /// Takes ownership of a partition's state (restored from its last checkpoint).
    pub fn adopt(&mut self, key: ShardKey, shard: Shard) {
        self.shards.insert(key, shard);
    }

    /// Gives up a partition; its state goes to whoever checkpoints it.
    pub fn release(&mut self, key: &ShardKey) -> Option<Shard> {
        self.shards.remove(key)
    }

    /// The partitions held, and their state.
    pub fn shards(&self) -> impl Iterator<Item = (&ShardKey, &Shard)> {
        self.shards.iter()
    }

    pub fn shard(&self, key: &ShardKey) -> Option<&Shard> {
        self.shards.get(key)
    }

    pub fn shard_mut(&mut self, key: &ShardKey) -> Option<&mut Shard> {
        self.shards.get_mut(key)
    }

    /// End of a run: re-judge everything, log, save the snapshot. (Shards
    /// are checkpointed by their source, which releases them as it stops.)
    pub fn finish(&mut self) -> anyhow::Result<Vec<SiteFlag>> {
        let mut flags = self.hoods.sweep();
        for shard in self.shards.values_mut() {
            flags.extend(shard.hoods.sweep());
        }
        self.log(&flags)?;
        if let Some(path) = &self.snapshot {
            self.hoods.save(path)?;
        }
        Ok(flags)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::neighborhoods::shards::Coverage;

    fn page(url: &str, contains: f64) -> Verdict {
        let mut v = Verdict::new(
            "id".into(),
            url.into(),
            crate::input::page::Origin::Ingest { id: "t".into() },
        );
        v.contains = Some(contains);
        v
    }

    #[test]
    fn a_partitions_pages_count_once_and_only_where_it_is_owned() {
        let mut s = crate::settings::Settings::defaults().neighborhoods;
        s.snapshot = None;
        s.flag_log = None;
        let mut t = Tracker::from_settings(&s).unwrap().unwrap();
        let at = |partition, offset| Place {
            topic: "pages".into(),
            partition,
            offset,
        };
        // Not owned: finished after its partition moved; the new owner reads it again.
        t.observe_at(&page("http://a.example/x/1", 0.9), &at(0, 3))
            .unwrap();
        assert_eq!((t.unowned, t.shards().count()), (1, 0));
        // Adopted from a checkpoint that holds offsets below 10 and offset 12.
        let mut coverage = Coverage::starting_at(10);
        coverage.mark(12);
        let shard = t.new_shard(coverage);
        t.adopt(("pages".into(), 0), shard);
        for offset in [7, 10, 11, 12, 13] {
            t.observe_at(&page("http://a.example/x/1", 0.9), &at(0, offset))
                .unwrap();
        }
        let shard = t.shard(&("pages".into(), 0)).unwrap();
        assert_eq!(shard.hoods.pages, 3, "offsets 10, 11 and 13");
        assert_eq!(t.replayed, 2, "offsets 7 and 12 were in the checkpoint");
        assert!(shard.dirty());
        assert!(t.release(&("pages".into(), 0)).is_some());
        assert_eq!(t.shards().count(), 0);
    }
}
