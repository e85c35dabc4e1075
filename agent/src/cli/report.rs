//! `crawlsieve report`: the scan report as one self-contained HTML page.

use super::ConfigArgs;
use crawlsieve::neighborhoods::Neighborhoods;
use crawlsieve::report::Report;
use std::io::BufRead;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct ReportArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Where the HTML goes.
    #[arg(long)]
    html: PathBuf,
    /// Verdict files (JSONL, as `scan` writes them; `.gz` is fine).
    #[arg(required = true)]
    verdicts: Vec<PathBuf>,
}

pub fn run(a: ReportArgs) -> anyhow::Result<i32> {
    let settings = a.config.load(&[])?;
    let mut report = Report::new(Neighborhoods::new(settings.neighborhoods.clone()));
    for path in &a.verdicts {
        report.sources.push(path.display().to_string());
        let r = crawlsieve::sources::open_maybe_gz(path)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        for line in r.lines() {
            report.add_line(&line?);
        }
    }
    let html = report.html();
    std::fs::write(&a.html, html).map_err(|e| anyhow::anyhow!("{}: {e}", a.html.display()))?;
    eprintln!(
        "{} verdicts, {} neighborhoods, {} bad -> {}",
        report.verdicts,
        report.hoods.len(),
        report.hoods.iter().filter(|(_, h)| h.bad).count(),
        a.html.display()
    );
    Ok(0)
}
