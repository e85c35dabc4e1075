//! `crawlsieve quilts`: pages stitched together from patches of other pages
//! (seed 000), over a crawl — in one process, or step by step across machines.

use super::ConfigArgs;
use crawlsieve_core::crawl::corpus::{self, Document};
use crawlsieve_core::crawl::quilts::collect::{Collected, Collector};
use crawlsieve_core::crawl::quilts::cover::{self, CoverStats, Params, Quilt};
use crawlsieve_core::crawl::quilts::files::{doc_key, DocLine};
use crawlsieve_core::crawl::quilts::{grams, patches, K, M};
use crawlsieve_core::input::sources;
use crawlsieve_core::verdict::VerdictRecord;
use crawlsieve_core::Pipeline;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct QuiltsArgs {
    #[command(subcommand)]
    step: Option<Step>,
    #[command(flatten)]
    find: FindArgs,
}

/// The three steps of a job spread over machines (`crawlsieve quilts FILES` runs all three).
#[derive(clap::Subcommand)]
enum Step {
    /// Step 1, on each machine over its part of the crawl: the docs table and one sorted grams file per partition.
    Grams(GramsArgs),
    /// Step 2, once per partition: every machine's grams file of that partition -> its patch grams.
    Patches(PatchesArgs),
    /// Step 3: every docs table and every partition's patches -> the quilted pages.
    Cover(CoverArgs),
}

/// Where the pages come from and how they are read.
#[derive(clap::Args)]
struct ReadArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Words per gram (k).
    #[arg(short = 'k', long, default_value_t = K)]
    k: u8,
    /// Worker threads extracting content (default: one per core).
    #[arg(long, short = 'j')]
    workers: Option<usize>,
}

/// Memory and spill files.
#[derive(clap::Args)]
struct MemoryArgs {
    /// Memory for records before a sorted run is spilled to disk, in MB.
    #[arg(long, default_value_t = 512)]
    memory_mb: usize,
    /// Where sorted runs and intermediate files go (default: the system's temporary directory).
    #[arg(long)]
    spill_dir: Option<PathBuf>,
}

/// The definition's c and θ, and the paper's refinement.
#[derive(clap::Args)]
struct DefinitionArgs {
    /// Sources a quilted page has at least (c).
    #[arg(long = "min-sources", default_value_t = Params::PAPER.c)]
    c: u32,
    /// Patch fraction a quilted page has at least (θ).
    #[arg(long, default_value_t = Params::PAPER.theta)]
    theta: f64,
    /// Count only sources on another site (registered domain) than the page: the paper's
    /// "foreign-sourced" quilts, which leave out blog home pages quilted from their own posts.
    #[arg(long)]
    foreign: bool,
    /// A source counts only when it gave at least this share of the page's patch grams (ϕ; 0 = every source).
    #[arg(long, default_value_t = Params::PAPER.min_share)]
    min_share: f64,
    /// Where quilted pages go, one JSON line each, most patched first (default stdout).
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
}

#[derive(clap::Args)]
struct FindArgs {
    #[command(flatten)]
    read: ReadArgs,
    /// A patch gram is in at most this many documents (m).
    #[arg(short = 'm', long, default_value_t = M)]
    m: u32,
    #[command(flatten)]
    definition: DefinitionArgs,
    #[command(flatten)]
    memory: MemoryArgs,
    /// Pages (WARC, JSONL, HTML; plain or `.gz`), plain-text documents (`.txt`),
    /// verdict files written with `output.content`, or directories of them.
    #[arg(required = true)]
    inputs: Vec<String>,
}

#[derive(clap::Args)]
struct GramsArgs {
    #[command(flatten)]
    read: ReadArgs,
    /// Partitions of the gram space (one step-2 job each); the same on every machine.
    #[arg(long, default_value_t = 1)]
    partitions: u32,
    /// This machine's name in the file names (NAME.docs.jsonl, NAME.pI-of-P.grams).
    #[arg(long, default_value = "part")]
    name: String,
    /// Directory the files go to.
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    memory: MemoryArgs,
    #[arg(required = true)]
    inputs: Vec<String>,
}

#[derive(clap::Args)]
struct PatchesArgs {
    /// A patch gram is in at most this many documents (m).
    #[arg(short = 'm', long, default_value_t = M)]
    m: u32,
    #[arg(long, short = 'o')]
    output: PathBuf,
    /// The grams files of one partition, from every machine.
    #[arg(required = true)]
    grams: Vec<PathBuf>,
}

#[derive(clap::Args)]
struct CoverArgs {
    /// Every machine's docs table (NAME.docs.jsonl).
    #[arg(long, required = true, num_args = 1..)]
    docs: Vec<PathBuf>,
    #[command(flatten)]
    definition: DefinitionArgs,
    /// This worker's share of the pages, I/N (0-based): candidates whose key is I modulo N.
    #[arg(long, default_value = "0/1")]
    part: String,
    #[command(flatten)]
    memory: MemoryArgs,
    /// Every partition's patches file.
    #[arg(required = true)]
    patches: Vec<PathBuf>,
}

pub fn run(args: QuiltsArgs) -> anyhow::Result<i32> {
    match args.step {
        None => find(args.find),
        Some(Step::Grams(a)) => run_grams(a),
        Some(Step::Patches(a)) => run_patches(a),
        Some(Step::Cover(a)) => run_cover(a),
    }
}

fn find(a: FindArgs) -> anyhow::Result<i32> {
    let started = Instant::now();
    let params = params(&a.definition, "0/1")?;
    let spill = spill_dir(&a.memory);
    let work = tempfile::Builder::new()
        .prefix("crawlsieve-quilts-")
        .tempdir_in(&spill)
        .map_err(|e| anyhow::anyhow!("work directory in {}: {e}", spill.display()))?;
    let collector = Collector::new(
        work.path(),
        "all",
        a.read.k,
        1,
        a.memory.memory_mb << 20,
        work.path(),
    )?;
    let collected = collect(&a.read, &a.inputs, collector)?;
    let read_s = started.elapsed().as_secs_f64();
    let patches_file = work.path().join("all.patches");
    let p = patches::patches(&collected.grams_files, a.m, &patches_file)?;
    for f in &collected.grams_files {
        let _ = std::fs::remove_file(f);
    }
    let patch_s = started.elapsed().as_secs_f64() - read_s;
    let (quilts, stats) = cover::find(
        std::slice::from_ref(&collected.docs_table),
        &[patches_file],
        &params,
        work.path(),
        a.memory.memory_mb << 20,
    )?;
    write_quilts(a.definition.output.as_deref(), &quilts)?;
    eprintln!(
        "{}; {} distinct grams: {} unique, {} patch, {} in more than {} documents; {}; {:.1} s (pages and grams {read_s:.1}, patches {patch_s:.1}, cover {:.1})",
        describe_collected(&collected),
        p.grams,
        p.unique,
        p.patch,
        p.common,
        a.m,
        describe_cover(&stats, &params),
        started.elapsed().as_secs_f64(),
        started.elapsed().as_secs_f64() - read_s - patch_s,
    );
    if let Some(mb) = peak_memory_mb() {
        eprintln!("peak memory {mb} MB");
    }
    Ok(0)
}

/// The process's peak resident memory (Linux `VmHWM`), for the run's
/// summary: what an operator sizes machines by, and what the benchmark
/// reads (a parent's rusage would count memory inherited across `exec`).
fn peak_memory_mb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

fn run_grams(a: GramsArgs) -> anyhow::Result<i32> {
    let started = Instant::now();
    let spill = spill_dir(&a.memory);
    let collector = Collector::new(
        &a.out,
        &a.name,
        a.read.k,
        a.partitions,
        a.memory.memory_mb << 20,
        &spill,
    )?;
    let collected = collect(&a.read, &a.inputs, collector)?;
    eprintln!(
        "{} -> {} and {} grams files in {:.1} s",
        describe_collected(&collected),
        collected.docs_table.display(),
        collected.grams_files.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(0)
}

fn run_patches(a: PatchesArgs) -> anyhow::Result<i32> {
    let started = Instant::now();
    let p = patches::patches(&a.grams, a.m, &a.output)?;
    eprintln!(
        "{} distinct grams: {} unique, {} patch, {} in more than {} documents -> {} in {:.1} s",
        p.grams,
        p.unique,
        p.patch,
        p.common,
        a.m,
        a.output.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(0)
}

fn run_cover(a: CoverArgs) -> anyhow::Result<i32> {
    let started = Instant::now();
    let params = params(&a.definition, &a.part)?;
    let (quilts, stats) = cover::find(
        &a.docs,
        &a.patches,
        &params,
        &spill_dir(&a.memory),
        a.memory.memory_mb << 20,
    )?;
    write_quilts(a.definition.output.as_deref(), &quilts)?;
    eprintln!(
        "{} in {:.1} s",
        describe_cover(&stats, &params),
        started.elapsed().as_secs_f64()
    );
    Ok(0)
}

fn params(d: &DefinitionArgs, part: &str) -> anyhow::Result<Params> {
    anyhow::ensure!(
        d.theta > 0.0 && d.theta <= 1.0,
        "--theta {}: a patch fraction in (0, 1]",
        d.theta
    );
    anyhow::ensure!(d.c >= 1, "--min-sources: at least 1");
    anyhow::ensure!(
        (0.0..1.0).contains(&d.min_share),
        "--min-share {}: a share in [0, 1)",
        d.min_share
    );
    let bad = || anyhow::anyhow!("--part {part}: expected I/N with 0 <= I < N");
    let (i, n) = part.split_once('/').ok_or_else(bad)?;
    let (i, n): (u64, u64) = (i.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    anyhow::ensure!(n >= 1 && i < n, bad());
    Ok(Params {
        c: d.c,
        theta: d.theta,
        foreign: d.foreign,
        min_share: d.min_share,
        part: (i, n),
    })
}

fn spill_dir(m: &MemoryArgs) -> PathBuf {
    m.spill_dir.clone().unwrap_or_else(std::env::temp_dir)
}

/// Step 1 over `inputs`: pages through the pipeline's extraction on worker
/// threads, verdict files by their `content`.
fn collect(r: &ReadArgs, inputs: &[String], mut c: Collector) -> anyhow::Result<Collected> {
    anyhow::ensure!(r.k >= 1, "-k: at least 1 word per gram");
    let (pipeline, limits, workers) = super::corpus_reader(&r.config, r.workers)?;
    let (pages, verdicts) = super::pages_and_verdicts(inputs, "quilts")?;
    let k = c.k();
    let mut error = None;
    let mut failed = 0u64;
    if !pages.is_empty() {
        let stats = corpus::walk(
            &pipeline,
            &pages,
            &limits,
            workers,
            |p, doc| document(p, doc, k),
            |d| match d {
                Ok((line, g)) => {
                    if let Err(e) = c.add(&line, &g) {
                        error.get_or_insert(e);
                    }
                }
                Err(_) => failed += 1,
            },
        )?;
        if let Some(e) = error {
            return Err(e);
        }
        for f in &stats.sources.failures {
            eprintln!("crawlsieve quilts: {f}");
        }
    }
    if failed > 0 {
        eprintln!("crawlsieve quilts: {failed} pages whose extraction failed were left out");
    }
    let mut without_content = 0u64;
    for v in &verdicts {
        read_verdicts(Path::new(v), k, &mut c, &mut without_content)?;
    }
    if without_content > 0 {
        eprintln!(
            "crawlsieve quilts: {without_content} verdicts without `content` left out (a page dropped before extraction has none; without `scan --content` none has)"
        );
    }
    c.finish()
}

/// A page's docs-table line and grams.
fn document(p: &Pipeline, doc: &Document, k: usize) -> Result<(DocLine, Vec<u64>), String> {
    let (url, site, content) = match doc {
        Document::Page(page) => {
            let e = p.extractor().extract(page).map_err(|e| e.to_string())?;
            let url = page.url.to_string();
            let site = crawlsieve_core::input::site::registered_domain(&url);
            (url, site, e.content)
        }
        Document::Text { name, text } => (name.clone(), Some(name.clone()), text.clone()),
    };
    Ok(line(url, site, &content, k))
}

fn line(url: String, site: Option<String>, content: &str, k: usize) -> (DocLine, Vec<u64>) {
    let g = grams::grams(content, k);
    let line = DocLine {
        doc: doc_key(&url, content),
        grams: g.len() as u32,
        url,
        site,
    };
    (line, g)
}

fn read_verdicts(
    path: &Path,
    k: usize,
    c: &mut Collector,
    without_content: &mut u64,
) -> anyhow::Result<()> {
    sources::read_verdict_lines(
        path,
        super::not_a_verdict("quilts", path),
        |_, v: VerdictRecord| {
            if v.line_type.is_some() {
                return Ok(()); // site flags and other events
            }
            let Some(content) = v.content else {
                *without_content += 1;
                return Ok(());
            };
            let site = v
                .site
                .or_else(|| crawlsieve_core::input::site::registered_domain(&v.url));
            let (line, g) = line(v.url, site, &content, k);
            c.add(&line, &g)
        },
    )?;
    Ok(())
}

fn write_quilts(path: Option<&Path>, quilts: &[Quilt]) -> anyhow::Result<()> {
    let mut out = super::output(path)?;
    for q in quilts {
        serde_json::to_writer(&mut out, q)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

fn describe_collected(c: &Collected) -> String {
    format!(
        "{} pages ({} of fewer than k words), {} gram occurrences, {} sorted runs",
        c.pages, c.without_grams, c.records, c.runs
    )
}

fn describe_cover(s: &CoverStats, p: &Params) -> String {
    format!(
        "{} documents, {} patch grams read, {} with patch fraction >= {} ({} pairs sorted, {} runs), {} quilted (>= {} sources{}{})",
        s.documents,
        s.postings,
        s.candidates,
        p.theta,
        s.pairs,
        s.runs,
        s.quilts,
        p.c,
        if p.foreign { ", foreign" } else { "" },
        if p.min_share > 0.0 { format!(", each >= {} of the patch grams", p.min_share) } else { String::new() }
    )
}
