//! Whole input files through the pipeline, for engines that deal files out to
//! workers (the Spark jobs of `deploy/spark/`): counting a file's chunks for
//! blind discovery, judging a file's pages, and turning counts added up
//! elsewhere into a signed set. The same core functions as `labels count`,
//! `scan` and `labels discover`, so a distributed run and one machine agree.
//!
//! Counts cross into Python as three packed buffers (hashes, sites, counts)
//! rather than a tuple per occurrence: an engine wraps them as Arrow arrays
//! without touching each record in Python.

use crawlsieve_core::crawl::discovery::count::{self, Count};
use crawlsieve_core::dedup::batch;
use crawlsieve_core::fingerprints::chunks::Hash;
use crawlsieve_core::input::sources::{self, Limits};
use crawlsieve_core::labels::{file, keys};
use crawlsieve_core::output::Sink;
use crawlsieve_core::verdict::{SiteFlag, Verdict};
use crawlsieve_core::Pipeline;
use std::path::Path;
use std::sync::Arc;

/// One record of a count blob: a spilled run's (SHA-1, site key, count), or
/// from `count::add_up` a count file's (SHA-1, count, sites); 36 bytes both.
const RECORD: usize = count::RUN_RECORD;

/// A file's occurrences added up by (chunk, site) and dealt into `ranges`
/// key ranges (by the hash's first 64 bits, so range `r` holds keys in
/// `[r, r + 1) * 2^64 / ranges`): one blob of [`RECORD`]s per range that has
/// any, in hash order, and what the walk read (documents, failed).
pub struct FileCounts {
    pub ranges: Vec<(u32, Vec<u8>)>,
    pub documents: u64,
    pub failed: u64,
}

/// Counts the chunks and sampled shingles of one input (a WARC, JSONL, HTML
/// or text file, or a directory of them) as `labels count` does.
pub fn count_file(
    pipeline: &Pipeline,
    path: &str,
    workers: usize,
    ranges: u32,
) -> anyhow::Result<FileCounts> {
    anyhow::ensure!(ranges >= 1, "ranges must be at least 1");
    let limits = Limits::new(&pipeline.settings().input);
    let mut seen: Vec<(Hash, u64)> = Vec::new();
    let stats = crawlsieve_core::crawl::corpus::occurrences(
        pipeline,
        &[path.to_string()],
        &limits,
        workers,
        |h, site| seen.push((h, site)),
    )?;
    seen.sort_unstable();
    let mut out = FileCounts {
        ranges: Vec::new(),
        documents: stats.documents,
        failed: stats.failed,
    };
    for run in seen.chunk_by(|a, b| a == b) {
        let (hash, site) = run[0];
        let range = ((crawlsieve_core::labels::key(&hash) as u128 * ranges as u128) >> 64) as u32;
        if out.ranges.last().is_none_or(|(r, _)| *r != range) {
            out.ranges.push((range, Vec::new()));
        }
        let blob = &mut out.ranges.last_mut().expect("pushed").1;
        blob.extend_from_slice(&hash);
        blob.extend_from_slice(&site.to_le_bytes());
        blob.extend_from_slice(&(run.len() as u64).to_le_bytes());
    }
    Ok(out)
}

/// Verdicts as JSON lines, in input order.
struct Lines(Vec<String>);

impl Sink for Lines {
    fn send(&mut self, v: &Verdict) -> anyhow::Result<()> {
        self.0.push(serde_json::to_string(v)?);
        Ok(())
    }
    // A file's pages are a slice of their sites' pages: site flags need the
    // whole crawl (`scan` or the agent), not one worker's file.
    fn send_flag(&mut self, _: &SiteFlag) -> anyhow::Result<()> {
        Ok(())
    }
    fn flush(&mut self) -> anyhow::Result<()> {
        Ok(())
    }
}

/// Judges every page of one input as `scan` does: one verdict per page, a
/// broken record or an unreadable file an `error` verdict. Returns the
/// verdicts as JSON lines and the run's summary as JSON.
pub fn judge_file(
    pipeline: &Arc<Pipeline>,
    path: &str,
    workers: usize,
) -> anyhow::Result<(Vec<String>, String)> {
    let mut lines = Lines(Vec::new());
    let summary = run_file(pipeline, path, workers, &mut lines)?;
    Ok((lines.0, summary))
}

/// The batch-deduplication signature of every page of one input kept or
/// flagged with content (`crawlsieve dedup --signatures-only`), as JSON
/// lines, and the run's summary as JSON. The pipeline must make signatures
/// (`dedup.signatures_only`).
pub fn signatures_file(
    pipeline: &Arc<Pipeline>,
    path: &str,
    workers: usize,
) -> anyhow::Result<(Vec<String>, String)> {
    let d = &pipeline.settings().dedup;
    anyhow::ensure!(
        d.signatures_only,
        "this Pipeline makes no signatures: make it with dedup_signatures=True"
    );
    let mut sink = batch::Signatures {
        shape: (d.bands, d.rows),
        ..Default::default()
    };
    let summary = run_file(pipeline, path, workers, &mut sink)?;
    let lines = sink
        .signatures
        .iter()
        .map(serde_json::to_string)
        .collect::<serde_json::Result<_>>()?;
    Ok((lines, summary))
}

/// Every page of one input through `scan`'s wiring into `sink`; the summary as JSON.
fn run_file(
    pipeline: &Arc<Pipeline>,
    path: &str,
    workers: usize,
    sink: &mut dyn Sink,
) -> anyhow::Result<String> {
    let limits = Limits::new(&pipeline.settings().input);
    let mut inputs = Vec::new();
    for input in &sources::expand_inputs(&[path.to_string()])? {
        inputs.push(sources::open(input, &limits)?);
    }
    let summary =
        crawlsieve_core::scan::run(pipeline.clone(), inputs, sink, workers, None, &mut |_| {})?;
    Ok(serde_json::to_string(&summary)?)
}

/// The clusters as JSON lines, and the pages to keep as (id, url).
pub type Clusters = (Vec<String>, Vec<(String, String)>);

/// Clusters signature lines from every file of a crawl
/// (`crawlsieve dedup --from-signatures`): the clusters as JSON lines and
/// the pages to keep as (id, url), each in order.
pub fn clusters(lines: &[String], threshold: f64, siblings: &str) -> anyhow::Result<Clusters> {
    anyhow::ensure!(
        threshold > 0.0 && threshold <= 1.0,
        "threshold {threshold}: a similarity in (0, 1]"
    );
    let signatures = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str::<batch::Signature>(l)
                .map_err(|e| anyhow::anyhow!("signature {}: {e}", i + 1))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let params = batch::Params {
        threshold,
        siblings: siblings.parse()?,
    };
    let found = batch::cluster(signatures, &params)?;
    let clusters = found
        .clusters
        .iter()
        .map(serde_json::to_string)
        .collect::<serde_json::Result<_>>()?;
    Ok((
        clusters,
        found.keep.into_iter().map(|p| (p.id, p.url)).collect(),
    ))
}

/// What a signed set made from counts says about itself.
pub struct Made {
    pub keys: usize,
    pub chunks_read: u64,
    pub stop_chunks_skipped: u64,
    pub stop_candidates: usize,
}

/// What [`discover_set`] is asked to make.
pub struct SetRequest<'a> {
    pub threshold: u64,
    pub name: &'a str,
    pub version: u64,
    pub key: &'a Path,
    pub output: &'a Path,
    pub propose_stop: Option<&'a Path>,
    pub stop_min_sites: u64,
}

/// The threshold and the stop chunks applied once to counts added up by hash
/// elsewhere ([`RECORD`]s of hash, count, sites, from `count::add_up`), and the
/// set signed with the key file (`labels discover`).
pub fn discover_set(
    pipeline: &Pipeline,
    totals: &[u8],
    r: &SetRequest<'_>,
) -> anyhow::Result<Made> {
    anyhow::ensure!(
        totals.len() % RECORD == 0,
        "totals of {} bytes are not whole records of {RECORD}",
        totals.len()
    );
    let u64_at = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8"));
    let records = totals
        .chunks_exact(RECORD)
        .map(|t| Count {
            hash: t[..20].try_into().expect("20"),
            count: u64_at(&t[20..28]),
            sites: u64_at(&t[28..36]),
        })
        .collect();
    let key = keys::read_signing(r.key)?;
    let min_chars = pipeline.settings().chunks.min_chars;
    let found = count::discover_counts(
        records,
        min_chars,
        r.threshold,
        r.propose_stop.map(|_| r.stop_min_sites),
        |h| pipeline.is_stop_chunk(h),
    )?;
    let header = file::Header::new(r.name, r.version, 0, min_chars);
    let contents = file::Contents {
        keys: found.keys.clone(),
        simhashes: Vec::new(),
    };
    std::fs::write(r.output, file::encode(&header, &contents, &key))
        .map_err(|e| anyhow::anyhow!("{}: {e}", r.output.display()))?;
    if let Some(path) = r.propose_stop {
        std::fs::write(path, found.stop_candidates_text())
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    }
    Ok(Made {
        keys: found.keys.len(),
        chunks_read: found.chunks_read,
        stop_chunks_skipped: found.stop_chunks_skipped,
        stop_candidates: found.stop_candidates.len(),
    })
}
