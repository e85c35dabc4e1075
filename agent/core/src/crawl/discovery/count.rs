//! Blind discovery (seed 001 §3.2): count how often each chunk occurs in a
//! corpus, keep the chunks seen more than a threshold that are not stop
//! chunks. The paper notes discovery is not distributive: counts from many
//! machines must be added before the threshold is applied, so count files
//! merge by addition (`merge`) and the threshold is applied once (`discover`).
//!
//! **Bounded memory by external sorting**, not a sketch: a sketch (count-min)
//! overestimates counts, and at the paper's thresholds (10³–10⁵) the error of
//! a sketch small enough to matter would put many once-seen chunks over the
//! line. Sorting is exact and its cost is what the paper reports for
//! discovery (O(n log n)). Occurrences are held in memory up to a budget,
//! then sorted, aggregated and spilled as a run file; runs are merged k-way
//! into the count file. Memory: the budget plus one buffer per run.
//!
//! Each occurrence carries its site, so the count file also says on how many
//! distinct sites a chunk was seen: a chunk frequent across very many sites
//! is more likely boilerplate (a stop-chunk candidate) than copied content.
//! Site counts are exact within one count run and add across merged files
//! (exact when machines partition the crawl by site, an upper bound otherwise).
//!
//! Sampled word shingles are counted beside the chunks, in the same file:
//! a shingle's record "hash" is its 8 hash bytes (big-endian, so its key is
//! the shingle hash itself) followed by 12 bytes of 0xFF, which no SHA-1
//! ends in but with probability 2⁻⁹⁶ ([`shingle_record`]). Discovery keeps
//! frequent shingles as it keeps frequent chunks; the stop-chunk filter and
//! the stop-chunk proposals concern chunks only.
//!
//! Count file: `"CSCOUNTS"`, u16 format (1), u8 normalisation version, u32
//! min_chars, then records sorted by hash: SHA-1 (20 bytes), count u64,
//! sites u64 (little-endian).

use crate::fingerprints::chunks::Hash;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

pub const MAGIC: &[u8; 8] = b"CSCOUNTS";
const FORMAT: u16 = 1;
pub(crate) const HEADER_LEN: usize = 8 + 2 + 1 + 4;

pub use crate::fingerprints::chunks::{is_shingle_record, shingle_record};

/// One chunk's figures in a count file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    pub hash: Hash,
    pub count: u64,
    pub sites: u64,
}

/// An occurrence: a chunk hash seen on a site (the site as a 64-bit hash).
type Occurrence = (Hash, u64);
/// In a run file: an occurrence and how many times it was seen.
pub const RUN_RECORD: usize = 20 + 8 + 8;
const OCCURRENCE_BYTES: usize = std::mem::size_of::<Occurrence>();

/// Counts occurrences within a memory budget, spilling sorted runs to `dir`.
pub struct Counter {
    dir: PathBuf,
    budget: usize,
    buffer: Vec<Occurrence>,
    runs: Vec<PathBuf>,
    pub occurrences: u64,
}

impl Counter {
    /// `budget_bytes` bounds the occurrences held before a spill.
    pub fn new(dir: &Path, budget_bytes: usize) -> anyhow::Result<Self> {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("spill directory {}: {e}", dir.display()))?;
        Ok(Counter {
            dir: dir.to_path_buf(),
            budget: (budget_bytes / OCCURRENCE_BYTES).max(64),
            buffer: Vec::new(),
            runs: Vec::new(),
            occurrences: 0,
        })
    }

    /// The 64-bit site key of a site name.
    pub fn site_key(site: &str) -> u64 {
        crate::labels::key(&crate::fingerprints::chunks::hash(site))
    }

    pub fn add(&mut self, hash: Hash, site: u64) -> anyhow::Result<()> {
        self.buffer.push((hash, site));
        self.occurrences += 1;
        if self.buffer.len() >= self.budget {
            self.spill()?;
        }
        Ok(())
    }

    /// Runs spilled so far.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Writes the occurrences held as a sorted run. On an error (a full
    /// disk) nothing is lost: the occurrences stay held and a later call
    /// writes the same run again.
    pub fn spill(&mut self) -> anyhow::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        self.buffer.sort_unstable();
        let path = self.dir.join(format!(
            "crawlsieve-count-{}-{}.run",
            std::process::id(),
            self.runs.len()
        ));
        let written = (|| -> std::io::Result<()> {
            let mut w = BufWriter::with_capacity(1 << 20, File::create(&path)?);
            let mut i = 0;
            while i < self.buffer.len() {
                let mut j = i + 1;
                while j < self.buffer.len() && self.buffer[j] == self.buffer[i] {
                    j += 1;
                }
                let (hash, site) = self.buffer[i];
                w.write_all(&hash)?;
                w.write_all(&site.to_le_bytes())?;
                w.write_all(&((j - i) as u64).to_le_bytes())?;
                i = j;
            }
            w.flush()
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&path);
            anyhow::bail!("spilling a run to {}: {e}", path.display());
        }
        self.runs.push(path);
        self.buffer.clear();
        Ok(())
    }

    /// Merges the runs into a count file at `output`; removes the runs.
    /// Returns the distinct chunks and the number of runs merged.
    pub fn finish(mut self, output: &Path, min_chars: u32) -> anyhow::Result<(u64, usize)> {
        self.write_to(output, min_chars)
    }

    /// [`finish`](Self::finish) that keeps the counter whole when it fails
    /// (a full disk): the runs stay, and a later call writes `output` again.
    /// After a success the counter is empty.
    pub fn write_to(&mut self, output: &Path, min_chars: u32) -> anyhow::Result<(u64, usize)> {
        self.spill()?;
        let runs = self.runs.len();
        let mut readers = Vec::new();
        for path in &self.runs {
            readers.push(BufReader::with_capacity(1 << 20, File::open(path)?));
        }
        let mut out = CountWriter::create(output, min_chars)?;
        merge_runs(&mut readers, |c| out.write(&c))?;
        let distinct = out.finish()?;
        for path in &self.runs {
            let _ = std::fs::remove_file(path);
        }
        self.runs.clear();
        self.occurrences = 0;
        Ok((distinct, runs))
    }
}

impl Drop for Counter {
    fn drop(&mut self) {
        for path in &self.runs {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Merges runs — (hash, site, count) records, each run sorted by (hash,
/// site) — into one total per hash, handed to `emit` in hash order: the
/// counts summed, the distinct sites counted. Exact whatever the runs'
/// number: equal (hash, site) pairs from different runs come out of the heap
/// together. What a counter's spilled runs merge with, and what the Spark
/// job's reduce runs on a key range's blobs ([`add_up`]).
pub fn merge_runs<R: Read>(
    runs: &mut [R],
    mut emit: impl FnMut(Count) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut last: Vec<Option<(Hash, u64)>> = vec![None; runs.len()];
    let mut read = |runs: &mut [R], i: usize| -> anyhow::Result<Option<(Hash, u64, u64)>> {
        let mut rec = [0u8; RUN_RECORD];
        if !read_record(&mut runs[i], &mut rec)? {
            return Ok(None);
        }
        let hash: Hash = rec[..20].try_into().expect("20");
        let site = u64::from_le_bytes(rec[20..28].try_into().expect("8"));
        let n = u64::from_le_bytes(rec[28..36].try_into().expect("8"));
        anyhow::ensure!(
            last[i].is_none_or(|l| l < (hash, site)),
            "run {i} is not sorted by (hash, site)"
        );
        last[i] = Some((hash, site));
        Ok(Some((hash, site, n)))
    };
    let mut heap = BinaryHeap::new();
    for i in 0..runs.len() {
        if let Some((h, s, n)) = read(runs, i)? {
            heap.push(Reverse((h, s, n, i)));
        }
    }
    let mut current: Option<(Hash, u64, u64, u64)> = None; // hash, last site, count, sites
    while let Some(Reverse((h, s, n, i))) = heap.pop() {
        current = match current {
            // Saturating: runs may come from elsewhere (the Spark job's map tasks).
            Some((ch, cs, count, sites)) if ch == h => {
                Some((ch, s, count.saturating_add(n), sites + (cs != s) as u64))
            }
            Some((hash, _, count, sites)) => {
                emit(Count { hash, count, sites })?;
                Some((h, s, n, 1))
            }
            None => Some((h, s, n, 1)),
        };
        if let Some((h, s, n)) = read(runs, i)? {
            heap.push(Reverse((h, s, n, i)));
        }
    }
    if let Some((hash, _, count, sites)) = current {
        emit(Count { hash, count, sites })?;
    }
    Ok(())
}

/// Adds up one key range's runs held in memory (the Spark job's blobs: every
/// file's (hash, site, count) records of that range, each sorted) and keeps
/// the chunks seen more than `threshold` times, as count-file records (hash,
/// count, sites) in hash order.
pub fn add_up(runs: &[&[u8]], threshold: u64) -> anyhow::Result<Vec<u8>> {
    if let Some(r) = runs.iter().find(|r| r.len() % RUN_RECORD != 0) {
        anyhow::bail!(
            "a run of {} bytes is not whole records of {RUN_RECORD}",
            r.len()
        );
    }
    let mut readers = runs.to_vec();
    let mut out = Vec::new();
    merge_runs(&mut readers, |c| {
        if c.count > threshold {
            out.extend_from_slice(&c.hash);
            out.extend_from_slice(&c.count.to_le_bytes());
            out.extend_from_slice(&c.sites.to_le_bytes());
        }
        Ok(())
    })?;
    Ok(out)
}

/// Fills `rec`; false at a clean end of file; an error on a partial record.
fn read_record(r: &mut impl Read, rec: &mut [u8]) -> std::io::Result<bool> {
    let mut got = 0;
    while got < rec.len() {
        match r.read(&mut rec[got..])? {
            0 if got == 0 => return Ok(false),
            0 => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "truncated record",
                ))
            }
            n => got += n,
        }
    }
    Ok(true)
}

/// Writes a count file.
pub struct CountWriter {
    w: BufWriter<File>,
    written: u64,
    last: Option<Hash>,
}

impl CountWriter {
    pub fn create(path: &Path, min_chars: u32) -> anyhow::Result<Self> {
        let file = File::create(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        w.write_all(&header(min_chars))?;
        Ok(CountWriter {
            w,
            written: 0,
            last: None,
        })
    }

    pub fn write(&mut self, c: &Count) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.last.is_none_or(|l| l < c.hash),
            "count records out of order"
        );
        self.last = Some(c.hash);
        self.w.write_all(&c.hash)?;
        self.w.write_all(&c.count.to_le_bytes())?;
        self.w.write_all(&c.sites.to_le_bytes())?;
        self.written += 1;
        Ok(())
    }

    /// Flushes; returns the number of records.
    pub fn finish(mut self) -> anyhow::Result<u64> {
        self.w.flush()?;
        Ok(self.written)
    }
}

/// A count file's header: its min_chars, or why it is not one this build reads.
pub(crate) fn read_header(head: &[u8]) -> Result<u32, String> {
    if head.len() < HEADER_LEN {
        return Err("not a count file (too short)".into());
    }
    if &head[..8] != MAGIC || u16::from_le_bytes([head[8], head[9]]) != FORMAT {
        return Err("not a count file (bad magic or format)".into());
    }
    if head[10] != crate::fingerprints::chunks::NORMALISATION_VERSION {
        return Err(format!(
            "normalisation version {} differs from this build's {}",
            head[10],
            crate::fingerprints::chunks::NORMALISATION_VERSION
        ));
    }
    Ok(u32::from_le_bytes(head[11..15].try_into().expect("4")))
}

/// The header a count file starts with.
pub(crate) fn header(min_chars: u32) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(MAGIC);
    h[8..10].copy_from_slice(&FORMAT.to_le_bytes());
    h[10] = crate::fingerprints::chunks::NORMALISATION_VERSION;
    h[11..].copy_from_slice(&min_chars.to_le_bytes());
    h
}

/// What merging relies on, for the `n`th record (from 1) after `last`:
/// hashes strictly ascending, seen at least once, on no more sites than times.
pub(crate) fn check_record(last: Option<&Hash>, c: &Count, n: u64) -> Result<(), String> {
    if last.is_some_and(|l| *l >= c.hash) {
        return Err(format!("record {n} is out of order"));
    }
    if !(c.count >= 1 && (1..=c.count).contains(&c.sites)) {
        return Err(format!(
            "record {n} counts {} occurrences on {} sites",
            c.count, c.sites
        ));
    }
    Ok(())
}

/// Reads a count file, record by record.
pub struct CountReader {
    r: BufReader<File>,
    pub min_chars: u32,
    path: PathBuf,
}

impl CountReader {
    pub fn open(path: &Path) -> anyhow::Result<Self> {
        let err = |e: &dyn std::fmt::Display| anyhow::anyhow!("count file {}: {e}", path.display());
        let mut r = BufReader::with_capacity(1 << 20, File::open(path).map_err(|e| err(&e))?);
        let mut head = [0u8; HEADER_LEN];
        r.read_exact(&mut head)
            .map_err(|_| err(&"not a count file (too short)"))?;
        let min_chars = read_header(&head).map_err(|e| err(&e))?;
        Ok(CountReader {
            r,
            min_chars,
            path: path.to_path_buf(),
        })
    }

    /// The next record, or `None` at the end.
    pub fn next_count(&mut self) -> anyhow::Result<Option<Count>> {
        let mut rec = [0u8; 36];
        if !read_record(&mut self.r, &mut rec)
            .map_err(|e| anyhow::anyhow!("count file {}: {e}", self.path.display()))?
        {
            return Ok(None);
        }
        Ok(Some(Count {
            hash: rec[..20].try_into().expect("20"),
            count: u64::from_le_bytes(rec[20..28].try_into().expect("8")),
            sites: u64::from_le_bytes(rec[28..36].try_into().expect("8")),
        }))
    }
}

/// Merges count files by addition into `output`. Returns the distinct chunks.
pub fn merge(inputs: &[PathBuf], output: &Path) -> anyhow::Result<u64> {
    merge_capped(inputs, output, None)
}

/// [`merge`], each input adding at most `cap` to a key's count (and no more
/// sites than that): the hub's sum over its agents' totals, where no one
/// agent may move a key by more than the cap (`totals`).
pub fn merge_capped(inputs: &[PathBuf], output: &Path, cap: Option<u64>) -> anyhow::Result<u64> {
    let capped = |count: u64, sites: u64| match cap {
        Some(cap) => (count.min(cap), sites.min(cap)),
        None => (count, sites),
    };
    let mut readers = Vec::new();
    let mut min_chars = None;
    for p in inputs {
        let r = CountReader::open(p)?;
        if let Some(m) = min_chars {
            anyhow::ensure!(
                m == r.min_chars,
                "count file {}: made with min_chars {}, others with {m}",
                p.display(),
                r.min_chars
            );
        }
        min_chars = Some(r.min_chars);
        readers.push(r);
    }
    let mut out = CountWriter::create(output, min_chars.unwrap_or(0))?;
    let mut heap = BinaryHeap::new();
    for (i, r) in readers.iter_mut().enumerate() {
        if let Some(c) = r.next_count()? {
            let (count, sites) = capped(c.count, c.sites);
            heap.push(Reverse((c.hash, count, sites, i)));
        }
    }
    let mut current: Option<Count> = None;
    while let Some(Reverse((hash, count, sites, i))) = heap.pop() {
        match current.as_mut() {
            // Saturating: count files come from agents over the network.
            Some(c) if c.hash == hash => {
                c.count = c.count.saturating_add(count);
                c.sites = c.sites.saturating_add(sites);
            }
            _ => {
                if let Some(c) = current.take() {
                    out.write(&c)?;
                }
                current = Some(Count { hash, count, sites });
            }
        }
        if let Some(c) = readers[i].next_count()? {
            let (count, sites) = capped(c.count, c.sites);
            heap.push(Reverse((c.hash, count, sites, i)));
        }
    }
    if let Some(c) = current {
        out.write(&c)?;
    }
    out.finish()
}

/// What a count file holds, once checked.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// Distinct chunks and shingles.
    pub distinct: u64,
    /// Occurrences in all.
    pub occurrences: u64,
    pub min_chars: u32,
}

/// Reads a count file through and checks what merging relies on: this
/// build's normalisation, whole records, hashes strictly ascending, every
/// record seen at least once on at least one site and on no more sites than
/// times. What the hub runs on a batch an agent sent before taking it.
pub fn check(path: &Path) -> anyhow::Result<Summary> {
    let mut r = CountReader::open(path)?;
    let mut s = Summary {
        min_chars: r.min_chars,
        ..Default::default()
    };
    let mut last: Option<Hash> = None;
    while let Some(c) = r.next_count()? {
        check_record(last.as_ref(), &c, s.distinct + 1)
            .map_err(|e| anyhow::anyhow!("count file {}: {e}", path.display()))?;
        last = Some(c.hash);
        s.distinct += 1;
        s.occurrences = s.occurrences.saturating_add(c.count);
    }
    Ok(s)
}

/// What `discover` found.
#[derive(Debug, Default)]
pub struct Discovered {
    /// Keys of chunks seen more than the threshold, not stop chunks; ascending.
    pub keys: Vec<u64>,
    /// Stop-chunk candidates: (count, sites, hash), most sites first.
    pub stop_candidates: Vec<Count>,
    pub chunks_read: u64,
    pub stop_chunks_skipped: u64,
    pub min_chars: u32,
}

/// Applies the discovery threshold to a count file: chunks seen more than
/// `threshold` times that are not stop chunks. Chunks seen on at least
/// `stop_min_sites` distinct sites are also proposed as stop chunks.
pub fn discover(
    path: &Path,
    threshold: u64,
    stop_min_sites: Option<u64>,
    is_stop: impl Fn(&Hash) -> bool,
) -> anyhow::Result<Discovered> {
    let mut r = CountReader::open(path)?;
    let mut d = Discovered {
        min_chars: r.min_chars,
        ..Default::default()
    };
    while let Some(c) = r.next_count()? {
        d.take(&c, threshold, stop_min_sites, &is_stop);
    }
    Ok(d.finish())
}

/// [`discover`] over counts added up elsewhere (the Spark job's aggregation):
/// the same threshold, stop chunks and candidates. `counts` need not be in
/// order; a hash given twice is an error (the counts were not added up).
pub fn discover_counts(
    mut counts: Vec<Count>,
    min_chars: u32,
    threshold: u64,
    stop_min_sites: Option<u64>,
    is_stop: impl Fn(&Hash) -> bool,
) -> anyhow::Result<Discovered> {
    counts.sort_unstable_by_key(|c| c.hash);
    if let Some(w) = counts.windows(2).find(|w| w[0].hash == w[1].hash) {
        anyhow::bail!(
            "chunk {} is counted twice: counts must be added up by hash first",
            crate::fingerprints::chunks::to_hex(&w[0].hash)
        );
    }
    let mut d = Discovered {
        min_chars,
        ..Default::default()
    };
    for c in &counts {
        d.take(c, threshold, stop_min_sites, &is_stop);
    }
    Ok(d.finish())
}

impl Discovered {
    /// One count, in hash order.
    fn take(
        &mut self,
        c: &Count,
        threshold: u64,
        stop_min_sites: Option<u64>,
        is_stop: &impl Fn(&Hash) -> bool,
    ) {
        self.chunks_read += 1;
        if c.count <= threshold {
            return;
        }
        let shingle = is_shingle_record(&c.hash);
        if !shingle && is_stop(&c.hash) {
            self.stop_chunks_skipped += 1;
            return;
        }
        if !shingle && stop_min_sites.is_some_and(|m| c.sites >= m) {
            self.stop_candidates.push(*c);
        }
        self.keys.push(crate::labels::key(&c.hash));
    }

    fn finish(mut self) -> Self {
        // Shingle records interleave with chunks by their first 8 bytes, so keys
        // are in order; distinct hashes can share a 64-bit key only by chance.
        self.keys.dedup();
        self.stop_candidates
            .sort_by(|a, b| b.sites.cmp(&a.sites).then(b.count.cmp(&a.count)));
        self
    }

    /// The stop-chunk candidates as `labels discover --propose-stop` writes them.
    pub fn stop_candidates_text(&self) -> String {
        let mut text = String::from(
            "# stop-chunk candidates: SHA-1, occurrences, distinct sites. Review, then add their text to rules/stopchunks.txt.\n",
        );
        for c in &self.stop_candidates {
            text.push_str(&format!(
                "{} {} {}\n",
                crate::fingerprints::chunks::to_hex(&c.hash),
                c.count,
                c.sites
            ));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(i: u32) -> Hash {
        crate::fingerprints::chunks::hash(&i.to_string())
    }

    #[test]
    fn check_takes_what_a_counter_writes_and_refuses_disorder() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = Counter::new(dir.path(), 1 << 20).unwrap();
        for i in 0..100 {
            c.add(h(i % 30), i as u64 % 3).unwrap();
        }
        let good = dir.path().join("good.cscounts");
        c.finish(&good, 40).unwrap();
        let s = check(&good).unwrap();
        assert_eq!((s.distinct, s.occurrences, s.min_chars), (30, 100, 40));
        // Two records swapped: out of order.
        let mut bytes = std::fs::read(&good).unwrap();
        let (a, b) = (HEADER_LEN, HEADER_LEN + 36);
        let first: Vec<u8> = bytes[a..b].to_vec();
        bytes.copy_within(b..b + 36, a);
        bytes[b..b + 36].copy_from_slice(&first);
        std::fs::write(&good, &bytes).unwrap();
        assert!(check(&good)
            .unwrap_err()
            .to_string()
            .contains("out of order"));
        // More sites than occurrences.
        let bad = dir.path().join("bad.cscounts");
        let mut w = CountWriter::create(&bad, 40).unwrap();
        w.write(&Count {
            hash: h(1),
            count: 1,
            sites: 2,
        })
        .unwrap();
        w.finish().unwrap();
        assert!(check(&bad).unwrap_err().to_string().contains("sites"));
        // Truncated.
        let mut bytes = std::fs::read(&bad).unwrap();
        bytes.pop();
        std::fs::write(&bad, &bytes).unwrap();
        assert!(check(&bad).is_err());
    }

    #[test]
    fn spilled_runs_count_exactly_and_merge_by_addition() {
        let dir = tempfile::tempdir().unwrap();
        // A tiny budget forces many runs.
        let mut c = Counter::new(dir.path(), 1).unwrap();
        for round in 0..3u64 {
            for i in 0..2000u32 {
                // chunk i seen (i % 5) + 1 times per round, on site i % 3 or round
                for _ in 0..(i % 5) + 1 {
                    c.add(h(i), if i % 2 == 0 { round } else { 7 }).unwrap();
                }
            }
        }
        assert!(c.runs() > 3);
        let out = dir.path().join("a.counts");
        assert_eq!(c.finish(&out, 100).unwrap().0, 2000);
        let mut r = CountReader::open(&out).unwrap();
        let mut seen = 0;
        while let Some(rec) = r.next_count().unwrap() {
            let i: u32 = (0..2000).find(|&i| h(i) == rec.hash).unwrap();
            assert_eq!(rec.count, 3 * ((i % 5) + 1) as u64);
            assert_eq!(rec.sites, if i % 2 == 0 { 3 } else { 1 });
            seen += 1;
        }
        assert_eq!(seen, 2000);
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "runs are removed");

        let merged = dir.path().join("m.counts");
        merge(&[out.clone(), out.clone()], &merged).unwrap();
        let d = discover(&merged, 20, Some(6), |hash| *hash == h(4)).unwrap();
        // count = 6 * ((i % 5) + 1) > 20  <=>  i % 5 >= 3; chunk 4 is a stop chunk.
        let expected = (0..2000u32).filter(|i| i % 5 >= 3 && *i != 4).count();
        assert_eq!(d.keys.len(), expected);
        assert_eq!(d.stop_chunks_skipped, 1);
        assert!(d.stop_candidates.iter().all(|c| c.sites >= 6));
        assert!(!d.stop_candidates.is_empty());
    }
}
