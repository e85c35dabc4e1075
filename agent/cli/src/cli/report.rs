//! `crawlsieve report`: the scan report as one self-contained HTML page.

use super::ConfigArgs;
use crawlsieve_core::crawl::report::Report;
use crawlsieve_core::neighborhoods::Neighborhoods;
use std::io::BufRead;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct ReportArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Where the HTML goes.
    #[arg(long, required_unless_present = "json")]
    html: Option<PathBuf>,
    /// Where the figures go as JSON (verdicts by kind, reason and language; contamination by
    /// item sets, per set and task).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Style clusters (`crawlsieve styles cluster` output) to show.
    #[arg(long)]
    styles: Option<PathBuf>,
    /// Quilted pages (`crawlsieve quilts` output) to show.
    #[arg(long)]
    quilts: Option<PathBuf>,
    /// Spun clusters and duplicate groups (`crawlsieve spun` output) to show.
    #[arg(long)]
    spun: Option<PathBuf>,
    /// Verdict files (JSONL, as `scan` writes them; `.gz` is fine).
    #[arg(required = true)]
    verdicts: Vec<PathBuf>,
}

pub fn run(a: ReportArgs) -> anyhow::Result<i32> {
    let settings = a.config.load(&[])?;
    let mut report = Report::new(Neighborhoods::new(settings.neighborhoods.clone()));
    for path in &a.verdicts {
        report.sources.push(path.display().to_string());
        super::read_verdicts(path, |line| {
            report.add_line(line);
            Ok(())
        })?;
    }
    if let Some(path) = &a.styles {
        report.style_clusters = read_jsonl(path, "a style cluster")?;
    }
    if let Some(path) = &a.quilts {
        report.quilts = read_jsonl(path, "a quilted page")?;
    }
    if let Some(path) = &a.spun {
        report.spun = read_jsonl(path, "a spun cluster or duplicate group")?;
    }
    let html = report.html();
    let mut written = Vec::new();
    if let Some(path) = &a.html {
        std::fs::write(path, html).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        written.push(path.display().to_string());
    }
    if let Some(path) = &a.json {
        let json = serde_json::to_vec_pretty(&report.summary())?;
        std::fs::write(path, json).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        written.push(path.display().to_string());
    }
    eprintln!(
        "{} verdicts, {} neighborhoods, {} bad -> {}",
        report.verdicts,
        report.hoods.len(),
        report.hoods.iter().filter(|(_, h)| h.bad).count(),
        written.join(", ")
    );
    Ok(0)
}

#[derive(clap::Args)]
pub struct MergeArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// The merged snapshot.
    #[arg(long, short = 'o')]
    output: PathBuf,
    /// Snapshots (`neighborhoods.snapshot` files) of several agents.
    #[arg(required_unless_present = "kafka")]
    snapshots: Vec<PathBuf>,
    /// Also every partition's last checkpoint on the neighborhoods topic of a
    /// scaled-out crawl (agents reading a Kafka topic): the brokers.
    #[arg(long, requires = "state_topic")]
    kafka: Option<String>,
    /// That topic (the Kafka source's `neighborhoods_topic`).
    #[arg(long, requires = "kafka")]
    state_topic: Option<String>,
}

/// `crawlsieve merge-neighborhoods`: add the neighborhood states of several agents.
pub fn merge(a: MergeArgs) -> anyhow::Result<i32> {
    let settings = a.config.load(&[])?;
    let mut merged = Neighborhoods::new(settings.neighborhoods.clone());
    for path in &a.snapshots {
        let part = Neighborhoods::load(path, settings.neighborhoods.clone())?;
        merged.merge(&part);
    }
    if let (Some(brokers), Some(topic)) = (&a.kafka, &a.state_topic) {
        let shards = crawlsieve_daemon::agent::sources::kafka::handover::read_checkpoints(
            brokers,
            topic,
            &settings.neighborhoods,
        )?;
        eprintln!("{} partitions' checkpoints from {topic}", shards.len());
        for (_, shard) in &shards {
            merged.merge(&shard.hoods);
        }
    }
    merged.save(&a.output)?;
    eprintln!(
        "{} neighborhoods from {} pages, {} bad (threshold {:.3}) -> {}",
        merged.len(),
        merged.pages,
        merged.iter().filter(|(_, h)| h.bad).count(),
        merged.threshold(),
        a.output.display()
    );
    Ok(0)
}

/// Every line of a JSONL file (plain or `.gz`) as a `T`.
fn read_jsonl<T: serde::de::DeserializeOwned>(path: &Path, what: &str) -> anyhow::Result<Vec<T>> {
    let r = crawlsieve_core::input::sources::open_maybe_gz(path)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in r.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        out.push(
            serde_json::from_str(&line)
                .map_err(|e| anyhow::anyhow!("{}:{}: not {what}: {e}", path.display(), n + 1))?,
        );
    }
    Ok(out)
}
