//! A corpus walk: every document of some inputs (WARC, HTML, JSONL pages and
//! plain-text files) through the page pipeline on worker threads, results
//! folded on the calling thread. What builds labeled sets (`labels build`,
//! `labels count`) and what finds quilted pages (`quilts`) read with.
//!
//! Informed discovery (seed 001 §3.2) lives here too ([`corpus_keys`]): an
//! expert provides known content (a Wikipedia snapshot, a bank's site) and
//! every chunk of it is labeled. Each document goes through the same
//! extraction, normalisation, stop chunks and minimum chunk length as the
//! agent, so a chunk the agent would match is exactly a chunk the set holds.
//! It sits above `labels/` (a library of sets) because it needs the page
//! pipeline.

use crate::input::page::Input;
use crate::input::sources::{self, Limits, SourceStats};
use crate::pipeline::{Matchable, Pipeline};
use crossbeam_channel::bounded;
use std::io::Read;

/// One document of a corpus.
pub enum Document {
    /// A page, from WARC, HTML or JSONL.
    Page(crate::input::page::Page<'static>),
    /// A plain-text document (`.txt`, `.txt.gz`): paragraphs separated by blank lines.
    Text { name: String, text: String },
}

impl Document {
    /// The site a document counts for (blind discovery counts distinct sites):
    /// a page's registered domain, a text document's name.
    pub fn site(&self) -> String {
        match self {
            Document::Page(p) => crate::input::site::registered_domain(&p.url).unwrap_or_default(),
            Document::Text { name, .. } => name.clone(),
        }
    }

    /// The document's matchable chunks, as the agent computes them.
    pub fn matchable(
        &self,
        pipeline: &Pipeline,
    ) -> Result<Matchable, crate::analyse::AnalyseError> {
        match self {
            Document::Page(p) => pipeline.matchable_chunks(p),
            Document::Text { text, .. } => Ok(pipeline.matchable_text(text)),
        }
    }
}

/// What a walk over a corpus read.
#[derive(Debug, Default, Clone)]
pub struct CorpusStats {
    pub documents: u64,
    /// Documents whose extraction failed (counted, skipped).
    pub failed: u64,
    /// Pages that could not be read (a broken record, a corrupt body), and
    /// inputs not read to their end: counted in `documents` and `failed`.
    pub unreadable: u64,
    pub sources: SourceStats,
    /// The registered domains of the pages (`corpus_keys`): a set's origin.
    pub sites: std::collections::BTreeSet<String>,
    /// Immutable grams the pages gave (`corpus_keys`, before repeats are merged).
    pub immutables: u64,
}

fn is_text(path: &str) -> bool {
    path.ends_with(".txt") || path.ends_with(".txt.gz")
}

/// The reader's side of `walk`: every document of `inputs` to `doc_tx`
/// (until the workers stop taking them), with what was read and lost.
fn read_documents(
    inputs: &[String],
    limits: &Limits,
    doc_tx: &crossbeam_channel::Sender<Document>,
) -> anyhow::Result<CorpusStats> {
    let mut stats = CorpusStats::default();
    for input in inputs {
        if is_text(input) {
            let mut text = String::new();
            sources::open_maybe_gz(std::path::Path::new(input))
                .and_then(|mut r| r.read_to_string(&mut text))
                .map_err(|e| anyhow::anyhow!("{input}: {e}"))?;
            stats.documents += 1;
            let doc = Document::Text {
                name: input.clone(),
                text,
            };
            if doc_tx.send(doc).is_err() {
                break;
            }
            continue;
        }
        let mut source = sources::open(input, limits)?;
        let (mut documents, mut unreadable) = (0, 0);
        source.run(
            &mut |input| {
                documents += 1;
                match input {
                    Input::Page(page) => doc_tx
                        .send(Document::Page(page))
                        .map_err(|_| anyhow::anyhow!("stopped"))?,
                    Input::Broken(_) => unreadable += 1,
                    // No content of its own: its capture's is the document.
                    Input::Revisit(_) => documents -= 1,
                }
                Ok(())
            },
            &mut stats.sources,
        )?;
        stats.documents += documents;
        stats.unreadable += unreadable;
    }
    // Records too corrupt to be pages, inputs cut short: lost documents.
    let lost = stats
        .sources
        .skipped
        .get("corrupt_record")
        .copied()
        .unwrap_or(0)
        + stats.sources.failures.len() as u64;
    stats.documents += lost;
    stats.unreadable += lost;
    Ok(stats)
}

/// Reads every document of `inputs` on one thread, runs `map` on `workers`
/// threads, and hands the results to `fold` on the calling thread.
pub fn walk<T: Send>(
    pipeline: &Pipeline,
    inputs: &[String],
    limits: &Limits,
    workers: usize,
    map: impl Fn(&Pipeline, &Document) -> T + Sync,
    mut fold: impl FnMut(T),
) -> anyhow::Result<CorpusStats> {
    let workers = workers.max(1);
    let inputs = &sources::expand_documents(inputs)?;
    let (doc_tx, doc_rx) = bounded::<Document>(workers * 4);
    let (out_tx, out_rx) = bounded::<T>(workers * 4);
    std::thread::scope(|scope| -> anyhow::Result<CorpusStats> {
        let reader = scope.spawn(move || read_documents(inputs, limits, &doc_tx));
        for _ in 0..workers {
            let rx = doc_rx.clone();
            let tx = out_tx.clone();
            let map = &map;
            scope.spawn(move || {
                for doc in rx {
                    if tx.send(map(pipeline, &doc)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(doc_rx);
        drop(out_tx);
        for item in out_rx {
            fold(item);
        }
        reader
            .join()
            .map_err(|_| anyhow::anyhow!("corpus reader panicked"))?
    })
}

/// Blind discovery's counting (seed 001 §3.2): every chunk and sampled
/// shingle of every document, as a count-file record hash
/// ([`crate::crawl::discovery::count::shingle_record`] for a shingle), with the
/// 64-bit key of the site it was seen on, handed to `add` in no particular
/// order. `labels count` and the Spark job both count through here, so the
/// same pages give the same counts whichever runs them.
pub fn occurrences(
    pipeline: &Pipeline,
    inputs: &[String],
    limits: &Limits,
    workers: usize,
    mut add: impl FnMut(crate::fingerprints::chunks::Hash, u64),
) -> anyhow::Result<CorpusStats> {
    use crate::crawl::discovery::count::{shingle_record, Counter};
    let mut failed = 0;
    let mut stats = walk(
        pipeline,
        inputs,
        limits,
        workers,
        |p, doc| (Counter::site_key(&doc.site()), doc.matchable(p)),
        |(site, m)| match m {
            Ok(m) => {
                let shingles = m.shingles.iter().map(|&s| shingle_record(s));
                for h in m.chunks.into_iter().chain(shingles) {
                    add(h, site);
                }
            }
            Err(_) => failed += 1,
        },
    )?;
    stats.failed = failed + stats.unreadable;
    Ok(stats)
}

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
    immutables: bool,
) -> anyhow::Result<(crate::labels::file::Contents, CorpusStats)> {
    let mut keys = Vec::new();
    let mut pages = Vec::new();
    let mut failed = 0;
    let mut stats_immutables = 0;
    let mut sites = std::collections::BTreeSet::new();
    let mut stats = walk(
        pipeline,
        inputs,
        limits,
        workers,
        |p, doc| {
            if let Document::Page(page) = doc {
                if let Some(site) = crate::input::site::registered_domain(&page.url) {
                    return (Some(site), doc.matchable(p));
                }
            }
            (None, doc.matchable(p))
        },
        |(site, m)| match m {
            Ok(m) => {
                sites.extend(site);
                keys.extend(m.chunks.iter().map(crate::labels::key));
                if whole {
                    keys.extend(m.whole.as_ref().map(crate::labels::key));
                }
                keys.extend_from_slice(&m.shingles);
                if immutables {
                    keys.extend_from_slice(&m.immutables);
                    stats_immutables += m.immutables.len() as u64;
                }
                if simhashes {
                    pages.extend(m.simhash);
                }
            }
            Err(_) => failed += 1,
        },
    )?;
    stats.failed = failed + stats.unreadable;
    stats.sites = sites;
    stats.immutables = stats_immutables;
    keys.sort_unstable();
    keys.dedup();
    pages.sort_unstable();
    pages.dedup();
    let contents = crate::labels::file::Contents {
        keys,
        simhashes: pages,
    };
    Ok((contents, stats))
}
/// The grams of `grams` (an item set's, before drops) that a reference
/// crawl shows on pages of at least `min_sites` sites: what is common on the
/// web, not particular to the items (`labels build --common-in`). A page's
/// whole visible text is read, as the agent reads it for items.
pub fn common_item_grams(
    pipeline: &Pipeline,
    inputs: &[String],
    limits: &Limits,
    workers: usize,
    grams: &rustc_hash::FxHashSet<u64>,
    min_sites: usize,
) -> anyhow::Result<(rustc_hash::FxHashSet<u64>, CorpusStats)> {
    use crate::fingerprints::wordgrams;
    let mut sites: rustc_hash::FxHashMap<u64, std::collections::BTreeSet<String>> =
        rustc_hash::FxHashMap::default();
    let stats = walk(
        pipeline,
        inputs,
        limits,
        workers,
        |pipeline, doc| {
            let text = match doc {
                Document::Page(p) => match pipeline.extractor().read(p, |_| {}) {
                    Ok(a) => a.text,
                    Err(_) => return (doc.site(), Vec::new()),
                },
                Document::Text { text, .. } => text.clone(),
            };
            let (mut buf, mut words, mut found) = (String::new(), Vec::new(), Vec::new());
            wordgrams::word_hashes(&text, &mut buf, &mut words);
            wordgrams::grams(&words, wordgrams::N, |_, g| {
                if grams.contains(&g) {
                    found.push(g);
                }
            });
            (doc.site(), found)
        },
        |(site, found)| {
            for g in found {
                let s = sites.entry(g).or_default();
                if s.len() < min_sites {
                    s.insert(site.clone());
                }
            }
        },
    )?;
    let common = sites
        .into_iter()
        .filter(|(_, s)| s.len() >= min_sites)
        .map(|(g, _)| g)
        .collect();
    Ok((common, stats))
}
