//! Command-line interface.

mod agent;
mod annotate;
mod bench;
mod cdx;
mod chunks;
mod dedup;
mod discoverer;
mod effective;
mod extract;
mod hub;
mod labels;
mod languages;
mod quilts;
mod report;
mod scan;
mod spun;
mod styles;

use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(
    name = "crawlsieve",
    version,
    about = "Streaming filter for web crawlers: substantive text, main content, language, copied content."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Options shared by commands that run the pipeline.
#[derive(clap::Args, Clone)]
pub struct ConfigArgs {
    /// TOML config file (keys as in rules/defaults.toml; see docs/configuration.md, or `crawlsieve config`).
    #[arg(long, short = 'c', env = "CRAWLSIEVE_CONFIG")]
    pub config: Option<PathBuf>,
    /// Set a config key, e.g. `--set filters.min_words=30` (repeatable; overrides file and environment).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

impl ConfigArgs {
    /// Loads settings: file, then environment, then `--set`, then `extra` (flags).
    pub fn load(
        &self,
        extra: &[(&str, config::Value)],
    ) -> anyhow::Result<crawlsieve_core::Settings> {
        let overrides = self.overrides()?;
        let mut all = pairs(&overrides);
        all.extend(extra.iter().cloned());
        crawlsieve_core::Settings::load(self.config.as_deref(), &all)
    }

    /// The `--set` flags as `(key, value)` pairs.
    pub fn overrides(&self) -> anyhow::Result<Vec<(String, config::Value)>> {
        self.set.iter().map(|kv| key_value("--set", kv)).collect()
    }
}

/// A flag's `KEY=VALUE` as a settings pair; `flag` names it in the error.
pub(crate) fn key_value(flag: &str, kv: &str) -> anyhow::Result<(String, config::Value)> {
    let (k, v) = kv
        .split_once('=')
        .ok_or_else(|| anyhow::anyhow!("{flag} {kv}: expected KEY=VALUE"))?;
    Ok((k.trim().to_string(), parse_value(v.trim())))
}

/// Borrowed `(key, value)` pairs, as the settings' loaders take them.
pub fn pairs(overrides: &[(String, config::Value)]) -> Vec<(&str, config::Value)> {
    overrides
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect()
}

/// `--set` values: numbers and booleans as such, `[a,b]` as a list, else a string.
/// A value quoted as in the TOML file (`extract.scorer="pruned"`, or in single
/// quotes) is that string, without its quotes — `"5"` stays the string `5`.
fn parse_value(v: &str) -> config::Value {
    for q in ['"', '\''] {
        if let Some(inner) = v
            .strip_prefix(q)
            .and_then(|s| s.strip_suffix(q))
            .filter(|_| v.len() >= 2)
        {
            return inner.to_string().into();
        }
    }
    if let Ok(b) = v.parse::<bool>() {
        return b.into();
    }
    if let Ok(i) = v.parse::<i64>() {
        return i.into();
    }
    if let Ok(f) = v.parse::<f64>() {
        return f.into();
    }
    if let Some(list) = v.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
        let items: Vec<config::Value> = list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| config::Value::from(s.trim_matches('"').to_string()))
            .collect();
        return items.into();
    }
    v.to_string().into()
}

#[derive(Subcommand)]
enum Command {
    /// Judge pages from WARC / WARC.gz / JSONL / HTML files or stdin; one JSON verdict per page.
    Scan(scan::ScanArgs),
    /// Print the configuration in effect (shipped defaults with their comments, your file, environment and --set), checking every key.
    Config(effective::ConfigCmdArgs),
    /// Print the main content of pages (HTML, WARC, JSONL files, plain or .gz) as text, Markdown or JSON.
    Extract(extract::ExtractArgs),
    /// Print the matchable chunk hashes of pages as a labeled-set file (`HEX LABEL` per line).
    Chunks(chunks::ChunksArgs),
    /// Measure single-core throughput on HTML files held in memory.
    Bench(bench::BenchArgs),
    /// Labeled sets: keygen, build (informed discovery), count / merge / discover (blind discovery), publish, inspect, bench.
    #[command(subcommand)]
    Labels(labels::LabelsCommand),
    /// The language codes a page may get (what `language.allow` takes), with script, detector, name and how sure each is.
    Languages(languages::LanguagesArgs),
    /// Serve labeled sets to agents: every version, full files, deltas, long-poll for the next version.
    Hub(hub::HubArgs),
    /// Streaming discovery on Kafka: one member of a blind set's discoverer group (exact running totals per key range).
    Discoverer(discoverer::DiscovererArgs),
    /// The long-running agent: pages from a crawler (HTTP, NATS JetStream, Kafka, a WARC directory), verdicts to JSONL / NATS / Kafka, at least once.
    Agent(agent::AgentArgs),
    /// Write a Heritrix crawl.log back with verdicts and bad-site annotations (field 12).
    AnnotateLog(annotate::AnnotateArgs),
    /// Add verdict fields to a CDXJ index (pywb), joined on each record's WARC file and offset.
    Cdx(cdx::CdxArgs),
    /// The scan report: verdicts, reasons, languages, neighborhood badness, flagged sites (HTML).
    Report(report::ReportArgs),
    /// Add the neighborhood snapshots of several agents into one.
    MergeNeighborhoods(report::MergeArgs),
    /// Quilted pages (seed 000): pages stitched together from patches of several other pages of a crawl.
    Quilts(quilts::QuiltsArgs),
    /// Duplicate clusters of a whole crawl and the pages to keep: exact and near (MinHash) copies, on one machine or many.
    Dedup(dedup::DedupArgs),
    /// Spun content (DSpin): pages rewritten with synonyms, clustered by their immutables; exact and near duplicates apart.
    Spun(spun::SpunArgs),
    /// Pages by hidden style (markup, not words): cluster a crawl, or rank it against one page.
    #[command(subcommand)]
    Styles(styles::StylesCommand),
}

pub fn main() -> i32 {
    let cli = Cli::parse();
    // The daemons say what they do (listening, sets swapped in, spool
    // replays, shutdown); the batch commands print a summary instead.
    init_logging(matches!(
        cli.command,
        Command::Agent(_) | Command::Hub(_) | Command::Discoverer(_)
    ));
    let result = match cli.command {
        Command::Scan(args) => scan::run(args),
        Command::Config(args) => effective::run(args),
        Command::Extract(args) => extract::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Chunks(args) => chunks::run(args),
        Command::Labels(cmd) => labels::run(cmd),
        Command::Hub(args) => hub::run(args),
        Command::Discoverer(args) => discoverer::run(args),
        Command::Languages(args) => languages::run(args),
        Command::AnnotateLog(args) => annotate::run(args),
        Command::Agent(args) => agent::run(args),
        Command::Report(args) => report::run(args),
        Command::Cdx(args) => cdx::run(args),
        Command::MergeNeighborhoods(args) => report::merge(args),
        Command::Styles(cmd) => styles::run(cmd),
        Command::Quilts(args) => quilts::run(args),
        Command::Spun(args) => spun::run(args),
        Command::Dedup(args) => dedup::run(args),
    };
    match result {
        Ok(code) => code,
        // A reader that stopped reading (`| head`) is not a failure of ours.
        Err(e) if is_broken_pipe(&e) => 0,
        Err(e) => {
            eprintln!("crawlsieve: {e:#}");
            2
        }
    }
}

/// A write to a closed pipe, also when serde_json made the write (its error
/// keeps the io error's kind but not the io error).
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    use std::io::ErrorKind::BrokenPipe;
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(BrokenPipe))
    })
}

/// Logs go to stderr, `RUST_LOG` filtering them; colour only on a terminal
/// (a log file or journald gets plain text) and never with `NO_COLOR`.
fn init_logging(daemon: bool) {
    use std::io::IsTerminal;
    use tracing_subscriber::EnvFilter;
    let default = if daemon {
        "warn,crawlsieve=info,crawlsieve_core=info,crawlsieve_daemon=info"
    } else {
        "warn"
    };
    let filter = EnvFilter::try_from_env("RUST_LOG").unwrap_or_else(|_| EnvFilter::new(default));
    let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colour)
        .with_writer(std::io::stderr)
        .try_init();
}

/// What a command says of a line of a verdict file that is not one (it goes on
/// without the line).
pub fn not_a_verdict<'a>(
    who: &'a str,
    path: &'a Path,
) -> impl FnMut(usize, &serde_json::Error) + 'a {
    move |n, e| {
        eprintln!(
            "crawlsieve {who}: {}:{n}: not a verdict: {e}",
            path.display()
        )
    }
}

/// Every line of a verdict file (the JSONL `scan` and the agent write, plain
/// or `.gz`), handed to `line`. A file that is not one — a WARC given by
/// mistake, other JSON — is an error that names it, never an empty result.
/// An empty file is fine: nothing judged yet. Lines are parsed here only
/// until the first verdict: the callers parse every line themselves.
pub fn read_verdicts(
    path: &std::path::Path,
    mut line: impl FnMut(&str) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    use crawlsieve_core::verdict::VerdictRecord;
    use std::io::BufRead;
    let name = path.display();
    let hint = "not a verdict file (give the JSONL that `crawlsieve scan` writes)";
    let r = crawlsieve_core::input::sources::open_maybe_gz(path)
        .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    let (mut lines, mut seen_verdict) = (0u64, false);
    for (n, bytes) in r.split(b'\n').enumerate() {
        let bytes = bytes.map_err(|e| anyhow::anyhow!("{name}: line {}: {e}", n + 1))?;
        if n == 0 && bytes.starts_with(b"WARC/") {
            anyhow::bail!("{name} is a WARC file: {hint}");
        }
        let text = std::str::from_utf8(&bytes)
            .map_err(|_| anyhow::anyhow!("{name}: line {} is not UTF-8 text: {hint}", n + 1))?;
        if text.trim().is_empty() {
            continue;
        }
        lines += 1;
        if !seen_verdict {
            seen_verdict =
                serde_json::from_str::<VerdictRecord>(text).is_ok_and(|v| v.is_verdict());
        }
        line(text).map_err(|e| anyhow::anyhow!("{name}: line {}: {e}", n + 1))?;
    }
    if lines > 0 && !seen_verdict {
        anyhow::bail!("{name}: none of its {lines} lines is a verdict: {hint}");
    }
    Ok(())
}

/// Worker threads: the configured number, or one per core.
pub fn workers(configured: usize) -> usize {
    if configured > 0 {
        configured
    } else {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    }
}

/// Where a command's lines go: a file, or stdout when none is given.
pub fn output(path: Option<&std::path::Path>) -> anyhow::Result<Box<dyn std::io::Write>> {
    Ok(match path {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    })
}

/// How a crawl analysis (`spun`, `dedup`) splits over machines: each
/// machine writes its pages' signatures, then one run reads them all.
#[derive(clap::Args)]
pub struct SplitArgs {
    /// Step 1 only, for a crawl spread over machines: write each page's signature (one JSON
    /// line) to OUTPUT; run the same command with `--from-signatures` over every machine's files.
    #[arg(long)]
    pub signatures_only: bool,
    /// The inputs are signature files written by `--signatures-only`.
    #[arg(long, conflicts_with = "signatures_only")]
    pub from_signatures: bool,
}

/// Writes `items` as JSON lines (a crawl analysis's output).
pub fn json_lines<'a, T: serde::Serialize + 'a>(
    out: &mut dyn std::io::Write,
    items: impl IntoIterator<Item = &'a T>,
) -> anyhow::Result<()> {
    for item in items {
        serde_json::to_writer(&mut *out, item)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// The inputs of a crawl analysis (`quilts`, `spun`), expanded: page files,
/// and verdict files written with `output.content`. Stdin is refused (`who`
/// names the command): the analyses read their inputs more than once.
pub fn pages_and_verdicts(
    inputs: &[String],
    who: &str,
) -> anyhow::Result<(Vec<String>, Vec<String>)> {
    let (mut pages, mut verdicts) = (Vec::new(), Vec::new());
    for input in crawlsieve_core::input::sources::expand_documents(inputs)? {
        anyhow::ensure!(input != "-", "{who} reads files and directories, not stdin");
        if crawlsieve_core::input::sources::is_verdict_file(std::path::Path::new(&input))? {
            verdicts.push(input);
        } else {
            pages.push(input);
        }
    }
    Ok((pages, verdicts))
}

/// What a crawl analysis (`quilts`, `spun`) reads pages with: the pipeline
/// (its extraction and fingerprints), the input limits and the worker
/// threads, from the configuration.
pub fn corpus_reader(
    config: &ConfigArgs,
    workers: Option<usize>,
) -> anyhow::Result<(
    crawlsieve_core::Pipeline,
    crawlsieve_core::input::sources::Limits,
    usize,
)> {
    let settings = config.load(&[])?;
    let limits = crawlsieve_core::input::sources::Limits::new(&settings.input);
    let workers = self::workers(workers.unwrap_or(settings.workers));
    Ok((crawlsieve_core::Pipeline::new(settings)?, limits, workers))
}
