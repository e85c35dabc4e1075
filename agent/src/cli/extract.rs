//! `crawlsieve extract`: the main content of HTML files.

use super::ConfigArgs;
use crawlsieve::sources::read_capped;
use crawlsieve::{Page, Pipeline};
use std::io::{BufRead, BufReader, Write};

#[derive(clap::Args)]
pub struct ExtractArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// One JSON line per file: {"path": <as given>, "content": <paragraphs separated by \n>}.
    #[arg(long)]
    jsonl: bool,
    /// One JSON line per file with every block's text and feature row (the
    /// training data of `bench/train_extractor.py`).
    #[arg(long, hide = true)]
    block_features: bool,
    /// Print the names of the feature row as a JSON list.
    #[arg(long, hide = true)]
    feature_names: bool,
    /// HTML files, plain or gzip.
    #[arg(required_unless_present = "feature_names")]
    files: Vec<String>,
}

#[derive(serde::Serialize)]
struct Line<'a> {
    path: &'a str,
    content: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
}

pub fn run(args: ExtractArgs) -> anyhow::Result<i32> {
    if args.feature_names {
        println!(
            "{}",
            serde_json::to_string(&crawlsieve::extract::features::names())?
        );
        return Ok(0);
    }
    let settings = args.config.load(&[])?;
    let max = settings.input.max_page_bytes;
    let pipeline = Pipeline::new(settings)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut failed = 0;
    if args.block_features {
        for path in &args.files {
            let rows = read_file(path, max)
                .and_then(|body| pipeline.block_rows(&Page::new(format!("file://{path}"), body)));
            let rows = rows.unwrap_or_else(|e| {
                failed += 1;
                eprintln!("crawlsieve: {path}: {e}");
                Vec::new()
            });
            serde_json::to_writer(&mut out, &serde_json::json!({"path": path, "blocks": rows}))?;
            writeln!(out)?;
        }
        out.flush()?;
        return Ok(if failed > 0 { 1 } else { 0 });
    }
    for path in &args.files {
        let result = read_file(path, max).and_then(|body| {
            let url = format!("file://{path}");
            pipeline
                .extract(&Page::new(url, body))
                .map_err(|e| e.to_string())
        });
        match (&result, args.jsonl) {
            (Ok(x), true) => {
                serde_json::to_writer(
                    &mut out,
                    &Line {
                        path,
                        content: &x.content,
                        error: None,
                    },
                )?;
                writeln!(out)?;
            }
            (Ok(x), false) => {
                if args.files.len() > 1 {
                    writeln!(out, "==> {path} <==")?;
                }
                writeln!(out, "{}", x.content)?;
            }
            (Err(e), true) => {
                failed += 1;
                serde_json::to_writer(
                    &mut out,
                    &Line {
                        path,
                        content: "",
                        error: Some(e),
                    },
                )?;
                writeln!(out)?;
            }
            (Err(e), false) => {
                failed += 1;
                eprintln!("crawlsieve: {path}: {e}");
            }
        }
    }
    out.flush()?;
    Ok(if failed > 0 { 1 } else { 0 })
}

fn read_file(path: &str, max: usize) -> Result<Vec<u8>, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut r: Box<dyn BufRead> = Box::new(BufReader::new(file));
    if r.fill_buf()
        .map_err(|e| e.to_string())?
        .starts_with(&[0x1f, 0x8b])
    {
        r = Box::new(BufReader::new(flate2::bufread::MultiGzDecoder::new(r)));
    }
    read_capped(&mut r, max)
        .map(|(b, _)| b)
        .map_err(|e| e.to_string())
}
