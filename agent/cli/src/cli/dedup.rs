//! `crawlsieve dedup`: a whole crawl's duplicate clusters and the pages to
//! keep, after the fact (`dedup::batch`). In one process, or with the
//! signatures computed on every machine first (`--signatures-only`) and
//! clustered over all their files (`--from-signatures`): the same answer.

use super::ConfigArgs;
use crawlsieve_core::dedup::batch::{self, Params, Siblings, Signature};
use crawlsieve_core::input::sources;
use crawlsieve_core::verdict::VerdictRecord;
use crawlsieve_core::Pipeline;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

#[derive(clap::Args)]
pub struct DedupArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Estimated Jaccard similarity at or above which two pages are near duplicates
    /// (default: `dedup.threshold`).
    #[arg(long)]
    threshold: Option<f64>,
    /// Near duplicates on one site (registered domain): `together` clusters them (a corpus
    /// keeps one copy), `apart` keeps them (an archive keeps a site's variants; exact copies
    /// still cluster).
    #[arg(long, default_value = "together", value_parser = ["together", "apart"])]
    siblings: String,
    #[command(flatten)]
    split: super::SplitArgs,
    /// Every page to keep (the first of each cluster, and every page in none), `ID<TAB>URL`
    /// a line, in order.
    #[arg(long, value_name = "FILE")]
    keep_list: Option<PathBuf>,
    /// Worker threads judging pages (default: one per core; `workers`).
    #[arg(long, short = 'j')]
    workers: Option<usize>,
    /// Where the clusters (or signatures) go, one JSON line each (default stdout).
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Pages (WARC, JSONL, HTML; plain or `.gz`), verdict files written with
    /// `output.content`, signature files (`--from-signatures`), or directories of them.
    #[arg(required = true)]
    inputs: Vec<String>,
}

pub fn run(a: DedupArgs) -> anyhow::Result<i32> {
    let started = Instant::now();
    let mut settings = a.config.load(&[])?;
    settings.dedup.signatures_only = true;
    let threshold = a.threshold.unwrap_or(settings.dedup.threshold);
    anyhow::ensure!(
        threshold > 0.0 && threshold <= 1.0,
        "--threshold {threshold}: a similarity in (0, 1]"
    );
    anyhow::ensure!(
        !(a.keep_list.is_some() && a.split.signatures_only),
        "--keep-list: the pages to keep are known once every signature is clustered, not with --signatures-only"
    );
    let params = Params {
        threshold,
        siblings: a.siblings.parse::<Siblings>()?,
    };
    let signatures = if a.split.from_signatures {
        read_signatures(&a.inputs)?
    } else {
        let workers = super::workers(a.workers.unwrap_or(settings.workers));
        signatures(&a.inputs, settings, workers)?
    };
    let mut out = super::output(a.output.as_deref())?;
    if a.split.signatures_only {
        let mut signatures = signatures;
        signatures.sort_by(|x, y| (&x.url, &x.id).cmp(&(&y.url, &y.id)));
        super::json_lines(&mut out, &signatures)?;
        out.flush()?;
        eprintln!(
            "crawlsieve dedup: {} signatures in {:.1} s",
            signatures.len(),
            started.elapsed().as_secs_f64()
        );
        return Ok(0);
    }
    let found = batch::cluster(signatures, &params)?;
    super::json_lines(&mut out, &found.clusters)?;
    out.flush()?;
    if let Some(path) = &a.keep_list {
        let mut keep = super::output(Some(path))?;
        for p in &found.keep {
            writeln!(keep, "{}\t{}", p.id, p.url)?;
        }
        keep.flush()?;
    }
    let s = &found.stats;
    eprintln!(
        "crawlsieve dedup: {} pages ({} given twice); {} clusters, {} duplicates ({} exact, {} near); {} to keep; \
         {} sketches compared, {} buckets full; {:.1} s",
        s.pages,
        s.repeated,
        s.clusters,
        s.duplicates,
        s.exact,
        s.duplicates - s.exact,
        found.keep.len(),
        s.compared,
        s.full_buckets,
        started.elapsed().as_secs_f64()
    );
    Ok(0)
}

/// Step 1: pages judged as `scan` judges them (on worker threads, in input
/// order), verdict files by their `content`.
fn signatures(
    inputs: &[String],
    settings: crawlsieve_core::Settings,
    workers: usize,
) -> anyhow::Result<Vec<Signature>> {
    let (pages, verdicts) = super::pages_and_verdicts(inputs, "dedup")?;
    let shape = (settings.dedup.bands, settings.dedup.rows);
    let limits = sources::Limits::new(&settings.input);
    let pipeline = Arc::new(Pipeline::new(settings)?);
    let mut sink = batch::Signatures {
        shape,
        ..Default::default()
    };
    if !pages.is_empty() {
        let opened = pages
            .iter()
            .map(|p| sources::open(p, &limits))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let summary = crawlsieve_core::scan::run(
            pipeline.clone(),
            opened,
            &mut sink,
            workers,
            None,
            &mut |_| {},
        )?;
        eprint!("{}", summary.problems());
        let without = sink.judged - sink.signatures.len() as u64;
        eprintln!(
            "crawlsieve dedup: {} pages judged; {without} not kept or flagged, or without content, left out",
            sink.judged
        );
    }
    let mut out = sink.signatures;
    let hashes = shape.0 * shape.1;
    let mut without_content = 0u64;
    for v in &verdicts {
        sources::read_verdict_lines(
            Path::new(v),
            super::not_a_verdict("dedup", Path::new(v)),
            |_, v: VerdictRecord| {
                if !v.is_verdict() || !matches!(v.verdict.as_deref(), Some("keep" | "flag")) {
                    return Ok(());
                }
                let Some(content) = v.content.as_deref() else {
                    without_content += 1;
                    return Ok(());
                };
                let paragraphs = content.split('\n').filter(|p| !p.is_empty());
                let (digest, minhash) = pipeline.content_signature(paragraphs, hashes);
                let site = v
                    .site
                    .clone()
                    .or_else(|| crawlsieve_core::input::site::registered_domain(&v.url));
                out.extend(Signature::from_content(
                    (v.id.as_str(), v.url.as_str()),
                    site,
                    v.fetched_at.clone(),
                    digest,
                    minhash.as_deref(),
                    shape,
                ));
                Ok(())
            },
        )?;
    }
    if without_content > 0 {
        eprintln!(
            "crawlsieve dedup: {without_content} verdicts without `content` left out (without `scan --content` none has)"
        );
    }
    Ok(out)
}

fn read_signatures(inputs: &[String]) -> anyhow::Result<Vec<Signature>> {
    let mut out = Vec::new();
    for input in sources::expand_documents(inputs)? {
        let before = out.len();
        let skipped = sources::read_verdict_lines(
            Path::new(&input),
            |n, e| eprintln!("crawlsieve dedup: {input}:{n}: not a signature: {e}"),
            |_, s: Signature| {
                out.push(s);
                Ok(())
            },
        )?;
        anyhow::ensure!(
            skipped == 0 || out.len() > before,
            "{input}: not a signatures file (written by `crawlsieve dedup --signatures-only`)"
        );
    }
    Ok(out)
}
