//! `crawlsieve chunks`: a labeled-set file from pages, with the same
//! extraction, normalisation, stop chunks and minimum length as `scan`.

use super::ConfigArgs;
use crawlsieve_core::fingerprints::chunks;
use crawlsieve_core::input::sources::{self, Limits, SourceStats};
use crawlsieve_core::{Input, Pipeline};
use std::collections::BTreeSet;
use std::io::Write;

#[derive(clap::Args)]
pub struct ChunksArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Label written after each hash.
    #[arg(long, default_value = "labeled")]
    label: String,
    /// Only pages whose URL starts with this.
    #[arg(long)]
    url_prefix: Option<String>,
    /// Inputs as for `scan`.
    #[arg(required = true)]
    inputs: Vec<String>,
}

pub fn run(args: ChunksArgs) -> anyhow::Result<i32> {
    anyhow::ensure!(
        !args.label.is_empty() && !args.label.contains(char::is_whitespace),
        "--label must be one word"
    );
    let settings = args.config.load(&[])?;
    let limits = Limits::new(&settings.input);
    let pipeline = Pipeline::new(settings)?;
    let mut hashes = BTreeSet::new();
    let mut stats = SourceStats::default();
    for input in &sources::expand_inputs(&args.inputs)? {
        let mut source = sources::open(input, &limits)?;
        source.run(
            &mut |input| {
                if let Input::Page(page) = input {
                    if args
                        .url_prefix
                        .as_ref()
                        .is_none_or(|p| page.url.starts_with(p.as_str()))
                    {
                        if let Ok(found) = pipeline.matchable_chunks(&page) {
                            hashes.extend(found.chunks);
                        }
                    }
                }
                Ok(())
            },
            &mut stats,
        )?;
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    writeln!(
        out,
        "# crawlsieve labeled set v0: SHA-1 of normalised chunks (normalisation v{})",
        chunks::NORMALISATION_VERSION
    )?;
    for h in &hashes {
        writeln!(out, "{} {}", chunks::to_hex(h), args.label)?;
    }
    out.flush()?;
    eprintln!("{} chunks", hashes.len());
    Ok(0)
}
