//! Informed discovery (seed 001 §3.2): an expert provides known content
//! (a Wikipedia snapshot, a bank's site) and every chunk of it is labeled.
//!
//! The corpus is read with the same sources as `scan` (WARC, HTML, JSONL)
//! plus plain text, and each document goes through the same extraction,
//! normalisation, stop chunks and minimum chunk length as the agent, so a
//! chunk the agent would match is exactly a chunk the set holds.

use crate::corpus::{walk, CorpusStats};
use crate::pipeline::Pipeline;
use crate::sources::Limits;

/// What a labeled set built from a corpus holds — chunk keys, whole-content
/// keys (when `whole`), sampled shingles, and page SimHashes (when
/// `simhashes`), each sorted and distinct — and what was read.
pub fn corpus_keys(
    pipeline: &Pipeline,
    inputs: &[String],
    limits: &Limits,
    workers: usize,
    whole: bool,
    simhashes: bool,
) -> anyhow::Result<(super::file::Contents, CorpusStats)> {
    let mut keys = Vec::new();
    let mut pages = Vec::new();
    let mut failed = 0;
    let mut stats = walk(
        pipeline,
        inputs,
        limits,
        workers,
        |p, doc| doc.matchable(p),
        |m| match m {
            Ok(m) => {
                keys.extend(m.chunks.iter().map(super::key));
                if whole {
                    keys.extend(m.whole.as_ref().map(super::key));
                }
                keys.extend_from_slice(&m.shingles);
                if simhashes {
                    pages.extend(m.simhash);
                }
            }
            Err(_) => failed += 1,
        },
    )?;
    stats.failed = failed;
    keys.sort_unstable();
    keys.dedup();
    pages.sort_unstable();
    pages.dedup();
    let contents = super::file::Contents {
        keys,
        simhashes: pages,
    };
    Ok((contents, stats))
}
