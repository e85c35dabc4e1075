//! `crawlsieve spun`: spun content across a crawl (DSpin): exact and near
//! duplicates set apart, spun variants clustered — in one process, or with
//! the signatures computed on every machine first (`--signatures-only`).

use super::ConfigArgs;
use crawlsieve_core::crawl::corpus::{self, Document};
use crawlsieve_core::crawl::spun::{self, Params, Signature};
use crawlsieve_core::input::sources;
use crawlsieve_core::pipeline::Matchable;
use crawlsieve_core::verdict::VerdictRecord;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args)]
pub struct SpunArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Pair score (shared immutable grams over the smaller page's) at or above which two pages share a source.
    #[arg(long, default_value_t = Params::DEFAULT.threshold)]
    threshold: f64,
    /// Shingle containment at or above which a pair is a near duplicate (copied words), not spun.
    #[arg(long, default_value_t = Params::DEFAULT.near)]
    near: f64,
    /// A gram in more pages than this is boilerplate, left out of the index (bounds the work per gram).
    #[arg(long, default_value_t = Params::DEFAULT.max_postings)]
    max_postings: usize,
    /// Pages with fewer immutable grams are not compared.
    #[arg(long, default_value_t = Params::DEFAULT.min_grams)]
    min_grams: usize,
    #[command(flatten)]
    split: super::SplitArgs,
    /// Worker threads extracting content (default: one per core).
    #[arg(long, short = 'j')]
    workers: Option<usize>,
    /// Where the groups and clusters go, one JSON line each (default stdout).
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Pages (WARC, JSONL, HTML; plain or `.gz`), plain-text documents (`.txt`), verdict
    /// files written with `output.content`, or directories of them.
    #[arg(required = true)]
    inputs: Vec<String>,
}

pub fn run(a: SpunArgs) -> anyhow::Result<i32> {
    let started = Instant::now();
    anyhow::ensure!(
        a.threshold > 0.0 && a.threshold <= 1.0,
        "--threshold {}: a score in (0, 1]",
        a.threshold
    );
    anyhow::ensure!(
        a.near > 0.0 && a.near <= 1.0,
        "--near {}: a share in (0, 1]",
        a.near
    );
    anyhow::ensure!(a.max_postings >= 2, "--max-postings: at least 2");
    let params = Params {
        threshold: a.threshold,
        near: a.near,
        max_postings: a.max_postings,
        min_grams: a.min_grams,
    };
    let mut pages = if a.split.from_signatures {
        read_signatures(&a.inputs)?
    } else {
        signatures(&a)?
    };
    // Workers finish pages in any order, machines' files come in any order:
    // by URL, the output is the same whichever way the pages came.
    pages.sort_by(|x, y| x.url.cmp(&y.url).then_with(|| x.content.cmp(&y.content)));
    let mut out = super::output(a.output.as_deref())?;
    if a.split.signatures_only {
        super::json_lines(&mut out, &pages)?;
        out.flush()?;
        eprintln!(
            "{} signatures in {:.1} s",
            pages.len(),
            started.elapsed().as_secs_f64()
        );
        return Ok(0);
    }
    let found = spun::find(&pages, &params);
    super::json_lines(&mut out, found.exact.iter().chain(&found.near))?;
    super::json_lines(&mut out, &found.clusters)?;
    out.flush()?;
    let s = &found.stats;
    eprintln!(
        "{} pages ({} with fewer than {} immutable grams); {} exact-duplicate groups, {} near-duplicate groups, \
         {} spun clusters on {} sites; {} candidate pairs, {} at score >= {}, {} grams in more than {} pages left out; {:.1} s",
        s.pages,
        s.without_grams,
        params.min_grams,
        s.exact_groups,
        s.near_groups,
        s.clusters,
        spun::cluster_sites(&found.clusters),
        s.candidate_pairs,
        s.pairs,
        params.threshold,
        s.common_grams,
        params.max_postings,
        started.elapsed().as_secs_f64()
    );
    Ok(0)
}

/// Step 1: pages through the pipeline's extraction on worker threads,
/// verdict files by their `content`.
fn signatures(a: &SpunArgs) -> anyhow::Result<Vec<Signature>> {
    let (pipeline, limits, workers) = super::corpus_reader(&a.config, a.workers)?;
    let (pages, verdicts) = super::pages_and_verdicts(&a.inputs, "spun")?;
    let mut out = Vec::new();
    let mut failed = 0u64;
    if !pages.is_empty() {
        let stats = corpus::walk(
            &pipeline,
            &pages,
            &limits,
            workers,
            |p, doc| {
                let (url, site) = match doc {
                    Document::Page(page) => (
                        page.url.to_string(),
                        crawlsieve_core::input::site::registered_domain(&page.url),
                    ),
                    Document::Text { name, .. } => (name.clone(), Some(name.clone())),
                };
                doc.matchable(p).map(|m| signature(url, site, m))
            },
            |s| match s {
                Ok(Some(s)) => out.push(s),
                Ok(None) => {}
                Err(_) => failed += 1,
            },
        )?;
        for f in &stats.sources.failures {
            eprintln!("crawlsieve spun: {f}");
        }
        failed += stats.unreadable;
    }
    if failed > 0 {
        eprintln!(
            "crawlsieve spun: {failed} pages that could not be read or extracted were left out"
        );
    }
    let mut without_content = 0u64;
    for v in &verdicts {
        sources::read_verdict_lines(
            Path::new(v),
            super::not_a_verdict("spun", Path::new(v)),
            |_, v: VerdictRecord| {
                if !v.is_verdict() {
                    return Ok(());
                }
                let Some(content) = v.content else {
                    without_content += 1;
                    return Ok(());
                };
                let site = v
                    .site
                    .or_else(|| crawlsieve_core::input::site::registered_domain(&v.url));
                let m =
                    pipeline.matchable_paragraphs(content.split('\n').filter(|p| !p.is_empty()));
                out.extend(signature(v.url, site, m));
                Ok(())
            },
        )?;
    }
    if without_content > 0 {
        eprintln!(
            "crawlsieve spun: {without_content} verdicts without `content` left out (without `scan --content` none has)"
        );
    }
    Ok(out)
}

/// A page's signature; none for a page without content.
fn signature(url: String, site: Option<String>, m: Matchable) -> Option<Signature> {
    Some(Signature {
        content: crawlsieve_core::fingerprints::chunks::to_hex(&m.whole?),
        url,
        site,
        shingles: m.shingles,
        grams: m.immutables,
    })
}

fn read_signatures(inputs: &[String]) -> anyhow::Result<Vec<Signature>> {
    let mut out = Vec::new();
    for input in sources::expand_documents(inputs)? {
        let skipped = sources::read_verdict_lines(
            Path::new(&input),
            super::not_a_verdict("spun", Path::new(&input)),
            |_, s: Signature| {
                out.push(s);
                Ok(())
            },
        )?;
        anyhow::ensure!(
            skipped == 0 || !out.is_empty(),
            "{input}: not a signatures file (written by `crawlsieve spun --signatures-only`)"
        );
    }
    Ok(out)
}
