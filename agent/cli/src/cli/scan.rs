//! `crawlsieve scan`: inputs → pipeline → JSONL verdicts, with a summary.

use super::ConfigArgs;
use crawlsieve_core::input::sources::{self, Limits};
use crawlsieve_core::output::jsonl::JsonlSink;
use crawlsieve_core::output::warc_metadata::WarcMetadataSink;
use crawlsieve_core::output::{Sink, Tee};
use crawlsieve_core::scan;
use crawlsieve_core::summary::Summary;
use crawlsieve_core::{Kind, Pipeline};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(clap::Args)]
pub struct ScanArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Labeled-set file(s) to match against (repeatable; adds to `labels.files`).
    #[arg(long, short = 'l')]
    labels: Vec<PathBuf>,
    /// Where verdicts go (default stdout; `output.path`).
    #[arg(long, short = 'o')]
    output: Option<String>,
    /// Worker threads (default: one per core; `workers`).
    #[arg(long, short = 'j')]
    workers: Option<usize>,
    /// Include the extracted content in every verdict (`output.content`).
    #[arg(long)]
    content: bool,
    /// Include the page's hidden-style fingerprint in every verdict (`output.style_fp`),
    /// for `crawlsieve styles`.
    #[arg(long)]
    style_fp: bool,
    /// Also write every verdict as a WARC/1.1 `metadata` record (refers to the
    /// response record judged) to this file; `.gz` for one gzip member per record.
    #[arg(long, value_name = "OUT.warc[.gz]")]
    warc_metadata: Option<PathBuf>,
    /// Verdicts of an earlier run (JSONL, repeatable): the captures this
    /// crawl's revisit records repeat (adds to `input.revisit_verdicts`).
    #[arg(long, value_name = "VERDICTS.jsonl")]
    revisit_verdicts: Vec<PathBuf>,
    /// Look every page up among the pages seen before (`dedup.check`): a
    /// duplicate's verdict names the first page with its content.
    #[arg(long)]
    dedup: bool,
    /// The index of pages seen, kept in this file so that a restarted or
    /// next crawl deduplicates against this one (`dedup.index`; implies --dedup).
    #[arg(long, value_name = "INDEX.redb")]
    dedup_index: Option<PathBuf>,
    /// An earlier crawl's index, opened read-only: its pages count as seen
    /// (repeatable; adds to `dedup.previous`; implies --dedup).
    #[arg(long, value_name = "INDEX.redb")]
    dedup_previous: Vec<PathBuf>,
    /// The index of pages seen shared with other agents and scans of the
    /// crawl, in Redis (`dedup.shared`, e.g. redis://127.0.0.1:6379/0;
    /// implies --dedup).
    #[arg(long, value_name = "REDIS_URL")]
    dedup_shared: Option<String>,
    /// Write the run's summary as JSON to this file.
    #[arg(long)]
    summary_json: Option<PathBuf>,
    /// No summary on stderr.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Exit with status 1 when any verdict is `error` or any input could not be
    /// read to its end (a corrupt record, a truncated file).
    #[arg(long)]
    fail_on_error: bool,
    /// WARC or ARC files (plain, gzip or LZ4), JSONL(.gz) or HTML(.gz) files, directories of
    /// them; `-` reads stdin (format recognised by content).
    #[arg(required = true)]
    inputs: Vec<String>,
}

/// The `--dedup*` flags over `[dedup]`; any of them turns the check on.
fn apply_dedup_flags(
    args: &ScanArgs,
    dedup: &mut crawlsieve_core::dedup::DedupSettings,
) -> anyhow::Result<()> {
    if let Some(path) = &args.dedup_index {
        dedup.index = Some(path.clone());
    }
    if let Some(url) = &args.dedup_shared {
        dedup.shared = url.clone();
    }
    dedup.previous.extend(args.dedup_previous.iter().cloned());
    dedup.check |= args.dedup
        || args.dedup_index.is_some()
        || args.dedup_shared.is_some()
        || !args.dedup_previous.is_empty();
    dedup.validate()?;
    Ok(())
}

pub fn run(args: ScanArgs) -> anyhow::Result<i32> {
    let mut settings = load(&args)?;
    settings.labels.files.extend(args.labels.iter().cloned());
    for path in &args.revisit_verdicts {
        anyhow::ensure!(
            path.exists(),
            "--revisit-verdicts {}: not found",
            path.display()
        );
    }
    settings
        .input
        .revisit_verdicts
        .extend(args.revisit_verdicts.iter().cloned());
    apply_dedup_flags(&args, &mut settings.dedup)?;
    let limits = Limits::new(&settings.input);
    let workers = super::workers(settings.workers);
    let output = settings.output.path.clone();
    let hub = settings.labels.hub.clone();
    let min_pages = settings.neighborhoods.min_pages;
    let mut tracker =
        crawlsieve_core::neighborhoods::tracker::Tracker::from_settings(&settings.neighborhoods)?;
    let public = settings.labels.public_key()?;
    let pipeline = Arc::new(Pipeline::new(settings)?);
    // Sets followed from a hub: the first version is in place before any page.
    let follower = match (hub, public) {
        (Some(hub), Some(public)) => Some(crawlsieve_daemon::agent::follow::start(
            &hub,
            public,
            pipeline.labels().clone(),
        )?),
        _ => None,
    };

    // Open every input first: a missing file is a mistake to report before any work.
    let mut inputs = Vec::new();
    for input in &sources::expand_inputs(&args.inputs)? {
        inputs.push(sources::open(input, &limits)?);
    }
    let mut sink = open_sinks(output.as_deref(), args.warc_metadata.as_deref())?;

    let bar = progress_bar(args.quiet);
    let started = std::time::Instant::now();
    let mut progress = |s: &Summary| show_progress(&bar, started, s);
    let summary = scan::run(
        pipeline,
        inputs,
        &mut sink,
        workers,
        tracker.as_mut(),
        &mut progress,
    )?;
    bar.finish_and_clear();
    if args.quiet {
        eprint!("{}", summary.problems());
    } else {
        eprint!("{summary}");
        if let Some(t) = &tracker {
            eprintln!("{}", neighborhoods_line(t, min_pages));
        }
        if let Some(f) = &follower {
            eprintln!("{}", follower_line(f));
        }
    }
    if let Some(path) = &args.summary_json {
        std::fs::write(path, serde_json::to_string_pretty(&summary)?)?;
    }
    Ok(if args.fail_on_error && summary.had_errors() {
        1
    } else {
        0
    })
}

/// The verdicts' JSONL (stdout or `output.path`), and the WARC metadata
/// records beside it when asked.
fn open_sinks(output: Option<&str>, warc_metadata: Option<&Path>) -> anyhow::Result<Tee> {
    let mut sinks: Vec<Box<dyn Sink>> = vec![Box::new(JsonlSink::open(output)?)];
    if let Some(path) = warc_metadata {
        sinks.push(Box::new(WarcMetadataSink::create(path)?));
    }
    Ok(Tee(sinks))
}

/// What the hub follower did during the scan.
fn follower_line(f: &crawlsieve_daemon::agent::follow::Follower) -> String {
    use std::sync::atomic::Ordering::Relaxed;
    format!(
        "labeled sets from the hub: {} versions swapped in ({} by delta), {} refused, {} failed requests",
        f.stats.updates.load(Relaxed),
        f.stats.deltas.load(Relaxed),
        f.stats.refused.load(Relaxed),
        f.stats.fetch_errors.load(Relaxed)
    )
}

/// The settings, with the flags that stand for keys laid over them.
fn load(args: &ScanArgs) -> anyhow::Result<crawlsieve_core::Settings> {
    let mut extra: Vec<(&str, config::Value)> = Vec::new();
    if let Some(o) = &args.output {
        extra.push(("output.path", o.clone().into()));
    }
    if let Some(w) = args.workers {
        extra.push(("workers", (w as i64).into()));
    }
    if args.content {
        extra.push(("output.content", true.into()));
    }
    if args.style_fp {
        extra.push(("output.style_fp", true.into()));
    }
    args.config.load(&extra)
}

/// A spinner on a terminal (none with `-q` or when stderr is not one).
fn progress_bar(quiet: bool) -> ProgressBar {
    if std::io::stderr().is_terminal() && !quiet {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {pos} pages  {msg}").expect("valid template"),
        );
        bar
    } else {
        ProgressBar::hidden()
    }
}

fn show_progress(bar: &ProgressBar, started: std::time::Instant, s: &Summary) {
    if s.verdicts_out % 64 == 0 {
        bar.set_position(s.verdicts_out);
        let secs = started.elapsed().as_secs_f64().max(1e-9);
        bar.set_message(format!(
            "{:.1} MB/s  keep {} drop {} flag {} error {}",
            s.page_bytes as f64 / 1e6 / secs,
            s.verdicts.get(&Kind::Keep).unwrap_or(&0),
            s.verdicts.get(&Kind::Drop).unwrap_or(&0),
            s.verdicts.get(&Kind::Flag).unwrap_or(&0),
            s.verdicts.get(&Kind::Error).unwrap_or(&0),
        ));
    }
}

/// The summary's line about the neighborhoods the scan judged.
fn neighborhoods_line(
    t: &crawlsieve_core::neighborhoods::tracker::Tracker,
    min_pages: u32,
) -> String {
    format!(
        "neighborhoods: {} tracked, {} judged (≥ {} pages), {} bad, threshold {:.3}; {} site flags; traps left out: {} repeated, {} too long",
        t.hoods.len(),
        t.hoods.judged(),
        min_pages,
        t.hoods.iter().filter(|(_, h)| h.bad).count(),
        t.hoods.threshold(),
        t.flags,
        t.hoods.traps_repeated,
        t.hoods.traps_too_long
    )
}
