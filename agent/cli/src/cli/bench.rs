//! `crawlsieve bench`: single-core throughput on pages held in memory, so
//! the figure is the pipeline's and not the disk's or gzip's.

use super::ConfigArgs;
use crawlsieve_core::input::sources::read_capped;
use crawlsieve_core::{Page, Pipeline};
use std::io::Write as _;
use std::io::{BufRead, BufReader};
use std::time::Instant;

#[derive(clap::Args)]
pub struct BenchArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// `full`: the whole pipeline (process → verdict); `extract`: decode, the
    /// HTML pass and the content with the configured `extract.scorer` only
    /// (what the stages after extraction cost is the difference); `read`: the
    /// archive readers alone, over WARC or ARC files (their bytes held in memory).
    #[arg(long, default_value = "full")]
    mode: Mode,
    /// Passes over the pages (the best pass is reported).
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// A second configuration to judge the same pages with: the first with
    /// this key set too, as `--set` sets it (repeatable; e.g. `--against
    /// 'labels.files=[]'`). The two run in alternating passes, and the
    /// report adds the ratio of each pair of passes (the first's pages/s over
    /// the second's): on a machine whose speed drifts, a cost of a few
    /// percent shows in the pairs when it is lost between two processes.
    #[arg(long, value_name = "KEY=VALUE")]
    against: Vec<String>,
    /// HTML files (plain or gzip), or directories searched for *.html / *.html.gz
    /// (with `--mode read`: WARC or ARC files).
    #[arg(required = true)]
    paths: Vec<String>,
}

#[derive(Clone, Copy, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "snake_case")]
enum Mode {
    Full,
    Extract,
    /// The archive readers alone over WARC or ARC files (plain, gzip, LZ4):
    /// decompress, split records, undo HTTP encodings; MB/s of the files.
    Read,
}

#[derive(serde::Serialize)]
struct Report {
    mode: Mode,
    pages: usize,
    megabytes: f64,
    seconds: f64,
    mb_per_s: f64,
    pages_per_s: f64,
    /// Peak resident memory of the process, pages included.
    peak_rss_mb: f64,
    /// Resident memory once the pages were loaded: peak minus this is what
    /// the pipeline itself needed at most.
    loaded_rss_mb: f64,
    /// Judging time per page in the best pass: median and 99th percentile, ms.
    p50_ms: f64,
    p99_ms: f64,
    /// The same per 100 KB of page (a page's time scaled by 100 KB / its size).
    p50_ms_per_100kb: f64,
    p99_ms_per_100kb: f64,
}

/// The `q` quantile (0..=1) of `v`, sorted in place; 0 for none.
fn quantile(v: &mut [f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// `--mode read`: every file in memory, read by the archive reader, best of
/// `repeat` passes.
fn read_archives(args: &BenchArgs) -> anyhow::Result<i32> {
    use crawlsieve_core::input::sources::{warc, Limits, SourceStats};
    let settings = args.config.load(&[])?;
    let limits = Limits::new(&settings.input);
    let files: Vec<(String, Vec<u8>)> = args
        .paths
        .iter()
        .map(|p| {
            Ok((
                p.clone(),
                std::fs::read(p).map_err(|e| anyhow::anyhow!("{p}: {e}"))?,
            ))
        })
        .collect::<anyhow::Result<_>>()?;
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    let (mut best, mut pages) = (f64::INFINITY, 0u64);
    for _ in 0..args.repeat.max(1) {
        let t = Instant::now();
        let mut n = 0u64;
        for (name, data) in &files {
            let mut stats = SourceStats::default();
            let mut count = |_input| {
                n += 1;
                Ok(())
            };
            warc::read(&data[..], name, &limits, &mut count, &mut stats)?;
        }
        best = best.min(t.elapsed().as_secs_f64());
        pages = n;
    }
    let report = serde_json::json!({
        "mode": "read",
        "files": files.len(),
        "pages": pages,
        "megabytes": bytes as f64 / 1e6,
        "seconds": best,
        "mb_per_s": bytes as f64 / 1e6 / best,
        "pages_per_s": pages as f64 / best,
    });
    if args.json {
        writeln!(std::io::stdout(), "{report}")?;
    } else {
        writeln!(
            std::io::stdout(),
            "   read: {} files, {pages} pages, {:.1} MB in {best:.3} s (best of {}): {:.1} MB/s, {:.0} pages/s on one core",
            files.len(),
            bytes as f64 / 1e6,
            args.repeat.max(1),
            bytes as f64 / 1e6 / best,
            pages as f64 / best
        )?;
    }
    Ok(0)
}

pub fn run(args: BenchArgs) -> anyhow::Result<i32> {
    if matches!(args.mode, Mode::Read) {
        return read_archives(&args);
    }
    let settings = args.config.load(&[])?;
    let pipeline = Pipeline::new(settings)?;
    let against = match args.against.is_empty() {
        true => None,
        false => Some(Pipeline::new(against_settings(&args)?)?),
    };
    let mut files = Vec::new();
    for p in &args.paths {
        collect(std::path::Path::new(p), &mut files)?;
    }
    files.sort();
    let pages: Vec<Vec<u8>> = files.iter().map(|f| load(f)).collect::<Result<_, _>>()?;
    let loaded_rss_mb = rss_mb("VmRSS:");
    let (mut best, mut other) = (Best::default(), Best::default());
    let mut ratios = Vec::new();
    for _ in 0..args.repeat.max(1) {
        let (took, times) = pass(&pipeline, &pages, args.mode);
        if let Some(b) = &against {
            let (took_b, times_b) = pass(b, &pages, args.mode);
            ratios.push(took_b / took);
            other.keep(took_b, times_b);
        }
        best.keep(took, times);
    }
    let report = best.report(args.mode, &pages, loaded_rss_mb);
    match against {
        None => print(&report, &args),
        Some(_) => {
            let against = other.report(args.mode, &pages, loaded_rss_mb);
            print_paired(report, against, ratios, &args)
        }
    }?;
    Ok(0)
}

/// The configuration of `--against`: the command's, and its keys.
fn against_settings(args: &BenchArgs) -> anyhow::Result<crawlsieve_core::Settings> {
    let extra = args
        .against
        .iter()
        .map(|kv| super::key_value("--against", kv))
        .collect::<anyhow::Result<Vec<_>>>()?;
    args.config.load(&super::pairs(&extra))
}

/// One pass over the pages: its seconds, and each page's milliseconds.
fn pass(pipeline: &Pipeline, pages: &[Vec<u8>], mode: Mode) -> (f64, Vec<f64>) {
    let mut times = Vec::with_capacity(pages.len());
    let mut sink = 0u64;
    let t = Instant::now();
    for (i, body) in pages.iter().enumerate() {
        let page = Page::new(format!("http://bench.example/{i}"), &body[..]);
        let started = Instant::now();
        match mode {
            Mode::Full | Mode::Read => sink += pipeline.process(&page).words as u64,
            Mode::Extract => {
                sink += pipeline
                    .extractor()
                    .extract(&page)
                    .map(|x| x.words as u64)
                    .unwrap_or(0)
            }
        }
        times.push(started.elapsed().as_secs_f64() * 1e3);
    }
    std::hint::black_box(sink);
    (t.elapsed().as_secs_f64(), times)
}

/// The best pass so far and its pages' times.
struct Best {
    seconds: f64,
    times: Vec<f64>,
}

impl Default for Best {
    fn default() -> Self {
        Best {
            seconds: f64::INFINITY,
            times: Vec::new(),
        }
    }
}

impl Best {
    fn keep(&mut self, seconds: f64, times: Vec<f64>) {
        if seconds < self.seconds {
            *self = Best { seconds, times };
        }
    }

    fn report(mut self, mode: Mode, pages: &[Vec<u8>], loaded_rss_mb: f64) -> Report {
        let bytes: usize = pages.iter().map(Vec::len).sum();
        let best = self.seconds;
        let mut per_100kb: Vec<f64> = self
            .times
            .iter()
            .zip(pages)
            .map(|(ms, body)| ms * 100_000.0 / body.len().max(1) as f64)
            .collect();
        Report {
            mode,
            pages: pages.len(),
            megabytes: bytes as f64 / 1e6,
            seconds: best,
            mb_per_s: bytes as f64 / 1e6 / best,
            pages_per_s: pages.len() as f64 / best,
            peak_rss_mb: rss_mb("VmHWM:"),
            loaded_rss_mb,
            p50_ms: quantile(&mut self.times, 0.5),
            p99_ms: quantile(&mut self.times, 0.99),
            p50_ms_per_100kb: quantile(&mut per_100kb, 0.5),
            p99_ms_per_100kb: quantile(&mut per_100kb, 0.99),
        }
    }
}

/// Both configurations' reports and the pairs' ratios: one JSON object
/// (`--json`: `{"first": .., "against": .., "ratios": [..], "median_ratio": ..}`)
/// or each report, then the ratios, for a person.
fn print_paired(
    first: Report,
    against: Report,
    mut ratios: Vec<f64>,
    args: &BenchArgs,
) -> anyhow::Result<()> {
    let pairs = ratios.clone();
    let median = quantile(&mut ratios, 0.5);
    let (min, max) = (ratios[0], ratios[ratios.len() - 1]);
    if args.json {
        let out = serde_json::json!({
            "first": first, "against": against, "ratios": pairs, "median_ratio": median,
        });
        writeln!(std::io::stdout(), "{out}")?;
        return Ok(());
    }
    print(&first, args)?;
    writeln!(std::io::stdout(), "against {}:", args.against.join(" "))?;
    print(&against, args)?;
    writeln!(
        std::io::stdout(),
        "  first over against, pass by pass: median {median:.3} ({min:.3}–{max:.3}) of {} pairs",
        ratios.len()
    )?;
    Ok(())
}

/// The report, as a JSON line (`--json`) or two lines for a person.
fn print(report: &Report, args: &BenchArgs) -> anyhow::Result<()> {
    if args.json {
        writeln!(std::io::stdout(), "{}", serde_json::to_string(&report)?)?;
    } else {
        writeln!(
        std::io::stdout(),
        "{:>7}: {} pages, {:.1} MB in {:.3} s (best of {}): {:.1} MB/s, {:.0} pages/s on one core; peak RSS {:.0} MB ({:.0} MB over the loaded pages)\n         per page p50 {:.3} ms, p99 {:.3} ms; per 100 KB p50 {:.3} ms, p99 {:.3} ms",
        match args.mode {
            Mode::Full => "full",
            Mode::Extract => "extract",
            Mode::Read => "read",
        },
        report.pages,
        report.megabytes,
        report.seconds,
        args.repeat.max(1),
        report.mb_per_s,
        report.pages_per_s,
        report.peak_rss_mb,
        report.peak_rss_mb - report.loaded_rss_mb,
        report.p50_ms,
        report.p99_ms,
        report.p50_ms_per_100kb,
        report.p99_ms_per_100kb
    )?;
    }
    Ok(())
}

fn collect(path: &std::path::Path, out: &mut Vec<std::path::PathBuf>) -> anyhow::Result<()> {
    if path.is_dir() {
        for entry in std::fs::read_dir(path)? {
            collect(&entry?.path(), out)?;
        }
    } else {
        let name = path.to_string_lossy();
        if name.ends_with(".html") || name.ends_with(".html.gz") || name.ends_with(".htm") {
            out.push(path.to_path_buf());
        }
    }
    Ok(())
}

fn load(path: &std::path::Path) -> anyhow::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let mut r: Box<dyn BufRead> = Box::new(BufReader::new(file));
    if r.fill_buf()?.starts_with(&[0x1f, 0x8b]) {
        r = Box::new(BufReader::new(flate2::bufread::MultiGzDecoder::new(r)));
    }
    Ok(read_capped(&mut r, usize::MAX - 1)?.0)
}

/// A resident-memory figure of /proc/self/status (`VmRSS:` now, `VmHWM:`
/// peak), in MB; Linux only, 0 elsewhere.
pub(crate) fn rss_mb(field: &str) -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}
