//! Neighborhood state cut along a partitioned source's partitions, so that
//! many agents can share one crawl and hand state over when partitions move.
//!
//! A crawler that keys its pages by site puts every page of a site into one
//! partition, so a partition's neighborhoods are its own: no other partition
//! has pages of those sites. An agent keeps one `Shard` per partition it owns
//! — the partition's neighborhoods, and which of its offsets they already
//! hold — and a shard moves between agents as a whole (see the Kafka source's
//! `handover`). Because the shard carries its own badness statistic, what it
//! flags does not depend on which agent holds it: the same pages give the same
//! flags on one agent or on ten.
//!
//! **Exactly once in the state, at least once in the verdicts.** A page read
//! again after a hand-over or a crash (the broker redelivers from the last
//! committed offset) is judged again, but it is added to the neighborhoods only
//! if its offset is not `covered` yet. Pages finish out of order (they are
//! judged in parallel), so coverage is a contiguous prefix plus the few
//! offsets above it that are done (at most the source's window).

use super::config::NeighborhoodSettings;
use super::Neighborhoods;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, Write};
use std::sync::Arc;

/// Where a page sits in a partitioned source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub topic: Arc<str>,
    pub partition: i32,
    pub offset: i64,
}

impl Place {
    pub fn shard(&self) -> ShardKey {
        (self.topic.clone(), self.partition)
    }
}

/// A partition: (topic, partition number).
pub type ShardKey = (Arc<str>, i32);

/// The offsets of a partition whose pages are in the state, or that hold no
/// page at all.
///
/// A partition's offsets are not all pages: compaction and retention remove
/// records, a transactional producer's commit markers take an offset each,
/// and a consumer may be handed a fetch that starts past its committed
/// offset. The consumer reads a partition in offset order, so offsets it
/// stepped over are known at once (`skip`) and count as covered: otherwise
/// the prefix would stop at the first of them and no commit would pass it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coverage {
    /// Every offset below this one.
    pub through: i64,
    /// And these, each above `through`.
    pub above: BTreeSet<i64>,
    /// And these ranges (start → end, exclusive) of offsets the consumer
    /// stepped over, each above `through`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub skipped: BTreeMap<i64, i64>,
}

impl Coverage {
    /// Nothing below `start` will be read again (the partition's committed offset).
    pub fn starting_at(start: i64) -> Self {
        Coverage {
            through: start,
            ..Coverage::default()
        }
    }

    /// Everything below `start` counts as covered (it will not be read again).
    pub fn advance_to(&mut self, start: i64) {
        if start > self.through {
            self.through = start;
            self.settle();
        }
    }

    pub fn covers(&self, offset: i64) -> bool {
        offset < self.through
            || self.above.contains(&offset)
            || self
                .skipped
                .range(..=offset)
                .next_back()
                .is_some_and(|(_, &end)| offset < end)
    }

    /// Records `offset`; false when it was covered already.
    pub fn mark(&mut self, offset: i64) -> bool {
        if self.covers(offset) {
            return false;
        }
        if offset == self.through {
            // Saturating: a checkpoint read back may say anything.
            self.through = self.through.saturating_add(1);
            self.settle();
        } else {
            self.above.insert(offset);
        }
        true
    }

    /// Offsets `from..to` hold no page this consumer will read: covered, in
    /// constant space however many they are.
    pub fn skip(&mut self, from: i64, to: i64) {
        let from = from.max(self.through);
        if from >= to {
            return;
        }
        if from == self.through {
            self.through = to;
        } else {
            let end = self.skipped.entry(from).or_insert(to);
            *end = (*end).max(to);
        }
        self.settle();
    }

    /// Moves `through` over what is covered right above it, and drops what
    /// it passed. On a page's mark this is one lookup in each set.
    fn settle(&mut self) {
        loop {
            if self.above.remove(&self.through) {
                self.through = self.through.saturating_add(1);
            } else if let Some(end) = self
                .skipped
                .first_key_value()
                .and_then(|(&start, &end)| (start <= self.through).then_some(end))
            {
                self.skipped.pop_first();
                self.through = self.through.max(end);
            } else {
                break;
            }
        }
        // Singles a skipped range carried `through` past.
        if self.above.first().is_some_and(|&o| o < self.through) {
            self.above = self.above.split_off(&self.through);
        }
    }
}

/// One partition's neighborhoods and what they cover.
#[derive(Clone)]
pub struct Shard {
    pub hoods: Neighborhoods,
    pub coverage: Coverage,
    /// Pages marked since the shard was made or restored; with `saved`, says
    /// whether a checkpoint is due.
    pub changes: u64,
    pub saved: u64,
}

#[derive(Serialize, Deserialize)]
struct ShardHeader {
    crawlsieve_shard: u32,
    topic: String,
    partition: i32,
    coverage: Coverage,
}

impl Shard {
    pub fn new(settings: NeighborhoodSettings, coverage: Coverage) -> Self {
        Shard {
            hoods: Neighborhoods::new(settings),
            coverage,
            changes: 0,
            saved: 0,
        }
    }

    pub fn dirty(&self) -> bool {
        self.changes != self.saved
    }

    /// The offset a checkpoint of this shard may commit, given the partition's
    /// pages acknowledged below `acked`: no further than the pages it holds.
    /// The two differ when a page read before a rebalance is acknowledged
    /// after its partition came back to this agent: its verdict reached the
    /// tracker while the partition was away, so the shard lacks it and the
    /// consumer reads it again from the commit. A commit past it would lose
    /// it from the crawl's state should the agent die before it is read again.
    pub fn commit_below(&self, acked: i64) -> i64 {
        acked.min(self.coverage.through)
    }

    /// The checkpoint message: gzip of a header line, then the neighborhood
    /// snapshot (`Neighborhoods::write_snapshot`).
    pub fn encode(&self, key: &ShardKey) -> anyhow::Result<Vec<u8>> {
        // Buffered: the snapshot is many short writes, each a deflate call otherwise.
        let mut w = std::io::BufWriter::with_capacity(
            256 * 1024,
            flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast()),
        );
        serde_json::to_writer(
            &mut w,
            &ShardHeader {
                crawlsieve_shard: 1,
                topic: key.0.to_string(),
                partition: key.1,
                coverage: self.coverage.clone(),
            },
        )?;
        w.write_all(b"\n")?;
        self.hoods.write_snapshot(&mut w)?;
        let gz = w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(gz.finish()?)
    }

    /// Reads a checkpoint written by `encode`; says which partition it is of.
    pub fn decode(
        bytes: &[u8],
        settings: NeighborhoodSettings,
    ) -> anyhow::Result<(ShardKey, Shard)> {
        let mut r = std::io::BufReader::new(flate2::read::GzDecoder::new(bytes));
        let mut first = String::new();
        r.read_line(&mut first)?;
        let header: ShardHeader = serde_json::from_str(&first)
            .map_err(|e| anyhow::anyhow!("neighborhood checkpoint header: {e}"))?;
        anyhow::ensure!(
            header.crawlsieve_shard == 1,
            "neighborhood checkpoint: unknown format {}",
            header.crawlsieve_shard
        );
        let hoods = Neighborhoods::read_snapshot(r, settings)
            .map_err(|e| anyhow::anyhow!("neighborhood checkpoint: {e}"))?;
        Ok((
            (header.topic.into(), header.partition),
            Shard {
                hoods,
                coverage: header.coverage,
                changes: 0,
                saved: 0,
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coverage_is_a_prefix_and_the_few_done_above_it() {
        let mut c = Coverage::starting_at(10);
        assert!(c.covers(3) && !c.covers(10));
        assert!(c.mark(12));
        assert!(c.mark(11));
        assert_eq!((c.through, c.above.len()), (10, 2));
        assert!(c.mark(10));
        assert_eq!((c.through, c.above.len()), (13, 0));
        assert!(!c.mark(12), "a page read again is not added twice");
    }

    #[test]
    fn offsets_without_a_page_do_not_hold_the_prefix_back() {
        // A fetch that starts past the committed offset (10): 10 and 11 will
        // never be read; the page at 12 is.
        let mut c = Coverage::starting_at(10);
        c.skip(10, 12);
        assert_eq!(c.through, 12);
        assert!(c.mark(12));
        assert_eq!(c.through, 13);
        // A transaction marker at 15 while 13 and 14 are still in flight, and
        // a gap of ten million (retention) after 20: constant space.
        c.mark(16);
        c.skip(15, 16);
        c.skip(21, 10_000_021);
        c.mark(20);
        assert!(c.covers(15) && c.covers(5_000_000) && !c.covers(13) && !c.covers(17));
        assert_eq!((c.through, c.above.len(), c.skipped.len()), (13, 2, 2));
        for o in [14, 17, 18, 19, 13] {
            assert!(c.mark(o), "offset {o}");
        }
        assert_eq!(c.through, 10_000_021);
        assert!(c.above.is_empty() && c.skipped.is_empty());
        // Skips that overlap what is covered, or are empty, change nothing wrong.
        c.skip(5, 10_000_022);
        c.skip(10_000_030, 10_000_030);
        assert_eq!((c.through, c.skipped.len()), (10_000_022, 0));
        // A checkpoint written before gaps were known reads back.
        let old: Coverage = serde_json::from_str(r#"{"through":7,"above":[9]}"#).unwrap();
        assert_eq!((old.through, old.skipped.len()), (7, 0));
    }

    #[test]
    fn a_commit_never_passes_a_page_the_state_lacks() {
        let settings = crate::settings::Settings::defaults().neighborhoods;
        // Adopted at offset 5; the page at 5, read before the rebalance, was
        // judged while the partition was away and is acknowledged now (6).
        let mut s = Shard::new(settings, Coverage::starting_at(5));
        assert_eq!(s.commit_below(6), 5);
        // Read again, it is in the state: the commit moves past it.
        s.coverage.mark(5);
        assert_eq!(s.commit_below(6), 6);
        // Held but not yet acknowledged (a sink retrying): not past it either.
        s.coverage.mark(6);
        assert_eq!(s.commit_below(6), 6);
    }

    #[test]
    fn a_checkpoint_round_trips() {
        let settings = crate::settings::Settings::defaults().neighborhoods;
        let mut s = Shard::new(settings.clone(), Coverage::starting_at(5));
        for i in 0..12 {
            s.coverage.mark(5 + i);
            s.hoods
                .observe(&format!("http://copier.example/p/{i}"), 0.9);
        }
        s.coverage.mark(40);
        s.coverage.skip(50, 60);
        let key: ShardKey = ("pages".into(), 3);
        let bytes = s.encode(&key).unwrap();
        let (k, back) = Shard::decode(&bytes, settings).unwrap();
        assert_eq!(k, key);
        assert_eq!(back.coverage, s.coverage);
        assert_eq!(back.hoods.pages, 12);
        let copier = back
            .hoods
            .iter()
            .find(|(n, _)| *n == "copier.example")
            .unwrap()
            .1;
        assert_eq!(
            (copier.pages, copier.bad, copier.announced),
            (12, true, true)
        );
        assert!(Shard::decode(
            b"not gzip",
            crate::settings::Settings::defaults().neighborhoods
        )
        .is_err());
    }

    /// Size and speed of a large partition's checkpoint (figures in bench/HISTORY.md):
    /// `cargo test --release -p crawlsieve --lib checkpoint_at_scale -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn checkpoint_at_scale() {
        let settings = crate::settings::Settings::defaults().neighborhoods;
        for sites in [10_000u32, 100_000] {
            let mut s = Shard::new(settings.clone(), Coverage::starting_at(0));
            let mut offset = 0;
            for site in 0..sites {
                for page in 0..5 {
                    s.coverage.mark(offset);
                    offset += 1;
                    let url = format!(
                        "http://www.site{site}.example/section{}/2026/page-{page}.html",
                        page % 3
                    );
                    s.hoods.observe(&url, (site % 7) as f64 / 10.0);
                }
            }
            let key: ShardKey = ("pages".into(), 0);
            let t = std::time::Instant::now();
            let copy = s.clone();
            let clone = t.elapsed();
            drop(copy);
            let t = std::time::Instant::now();
            let bytes = s.encode(&key).unwrap();
            let encode = t.elapsed();
            let t = std::time::Instant::now();
            let (_, back) = Shard::decode(&bytes, settings.clone()).unwrap();
            let decode = t.elapsed();
            assert_eq!(back.hoods.len(), s.hoods.len());
            eprintln!(
                "{sites} sites, {} pages, {} neighborhoods: checkpoint {:.2} MB ({:.1} bytes a neighborhood), copy {:.0} ms, encode {:.0} ms, decode {:.0} ms",
                offset,
                s.hoods.len(),
                bytes.len() as f64 / 1e6,
                bytes.len() as f64 / s.hoods.len() as f64,
                clone.as_secs_f64() * 1e3,
                encode.as_secs_f64() * 1e3,
                decode.as_secs_f64() * 1e3
            );
        }
    }
}
