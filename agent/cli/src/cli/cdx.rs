//! `crawlsieve cdx`: a CDXJ index (pywb, `cdxj-indexer`) written back with
//! each judged record's verdict fields (see `crawlsieve_core::output::cdxj`).

use crawlsieve_core::output::cdxj::{annotate, Verdicts};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct CdxArgs {
    /// Verdicts (the JSONL `scan` writes) of the WARC files the index covers.
    #[arg(long, required = true)]
    verdicts: Vec<PathBuf>,
    /// Where the annotated index goes (default stdout).
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// The CDXJ index (`-` for stdin).
    #[arg(default_value = "-")]
    index: String,
}

pub fn run(args: CdxArgs) -> anyhow::Result<i32> {
    let mut verdicts = Verdicts::default();
    for path in &args.verdicts {
        super::read_verdicts(path, |line| verdicts.add_line(line))
            .map_err(|e| anyhow::anyhow!("--verdicts {e}"))?;
    }
    let index: Box<dyn BufRead> = match args.index.as_str() {
        "-" => Box::new(BufReader::new(std::io::stdin())),
        p => Box::new(BufReader::new(
            std::fs::File::open(p).map_err(|e| anyhow::anyhow!("index {p}: {e}"))?,
        )),
    };
    let out: Box<dyn Write> = match &args.output {
        Some(p) => Box::new(
            std::fs::File::create(p)
                .map_err(|e| anyhow::anyhow!("--output {}: {e}", p.display()))?,
        ),
        None => Box::new(std::io::stdout()),
    };
    let stats = annotate(index, BufWriter::new(out), &verdicts).map_err(|e| {
        anyhow::anyhow!(
            "index {}: {e} (an index is the CDXJ text that cdxj-indexer writes, not the WARC file)",
            args.index
        )
    })?;
    eprintln!(
        "cdx: {} lines, {} annotated, {} without a verdict, {} not CDXJ; {} verdicts from WARC records, {} not from WARC files",
        stats.lines,
        stats.annotated,
        stats.without_verdict,
        stats.not_cdxj,
        verdicts.len(),
        verdicts.not_from_warc
    );
    Ok(0)
}
