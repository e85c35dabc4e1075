//! `crawlsieve extract`: the main content of pages, as text, Markdown or
//! JSON with the page's metadata. Reads what `scan` reads (HTML files, WARC,
//! JSONL pages, directories of them), one page after another, in order.

use super::ConfigArgs;
use crawlsieve_core::extract::extractor::Extractor;
use crawlsieve_core::input::page::{Input, Origin};
use crawlsieve_core::input::sources::{self, Limits, SourceStats};
use std::io::Write;

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The content, paragraphs separated by newlines.
    Text,
    /// The content as Markdown (headings, lists, tables, code, links).
    Markdown,
    /// One JSON object per page: metadata, language, page type, text and Markdown.
    Json,
}

#[derive(clap::Args)]
pub struct ExtractArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// One JSON line per page: {"path", "url", "content"} (`--format json` gives more).
    #[arg(long, conflicts_with = "format")]
    jsonl: bool,
    /// The page's URL, for an HTML file given alone (resolves links and the
    /// canonical URL, and the URL is evidence of the page type).
    #[arg(long)]
    url: Option<String>,
    /// The URLs of HTML files given as inputs: a file of `PATH<TAB>URL`
    /// lines, PATH as the input names it (saved pages with where they came
    /// from; the URL is evidence of the page type, which the learned
    /// scorer reads).
    #[arg(long, conflicts_with = "url")]
    urls: Option<std::path::PathBuf>,
    /// One JSON line per page with every block's text and feature row (the
    /// training data of `bench/train_extractor.py`).
    #[arg(long, hide = true)]
    block_features: bool,
    /// One JSON line per page with its page-type feature row (the training
    /// data of `bench/train_pagetype.py`).
    #[arg(long, hide = true)]
    page_features: bool,
    /// Print the names of the block (with `--page-features`: page) feature row as a JSON list.
    #[arg(long, hide = true)]
    feature_names: bool,
    /// HTML files (plain or gzip), WARC files (plain or gzip), JSONL page files, or directories
    /// of them; `-` reads stdin.
    #[arg(required_unless_present = "feature_names")]
    inputs: Vec<String>,
}

/// `--feature-names`: the names of the feature rows' columns.
fn feature_names(page_features: bool) -> anyhow::Result<i32> {
    let names: Vec<String> = if page_features {
        crawlsieve_core::extract::pagetype::NAMES
            .iter()
            .map(|n| n.to_string())
            .collect()
    } else {
        crawlsieve_core::extract::features::names()
    };
    writeln!(std::io::stdout(), "{}", serde_json::to_string(&names)?)?;
    Ok(0)
}

/// The page's URL as `--url` or `--urls` give it, for a page read from a file.
fn with_url(
    input: Input,
    url: Option<&String>,
    urls: &std::collections::HashMap<String, String>,
) -> Input {
    match (input, url) {
        (Input::Page(mut page), Some(url)) if matches!(page.origin, Origin::File { .. }) => {
            page.url = url.clone().into();
            Input::Page(page)
        }
        (Input::Page(mut page), None) if !urls.is_empty() => {
            if let Origin::File { file } = &page.origin {
                if let Some(url) = urls.get(file) {
                    page.url = url.clone().into();
                }
            }
            Input::Page(page)
        }
        (input, _) => input,
    }
}

pub fn run(args: ExtractArgs) -> anyhow::Result<i32> {
    if args.feature_names {
        return feature_names(args.page_features);
    }
    let settings = args.config.load(&[])?;
    let limits = Limits::new(&settings.input);
    let extractor = settings.extractor()?;
    let paths = sources::expand_inputs(&args.inputs)?;
    if args.url.is_some() && paths.len() != 1 {
        anyhow::bail!(
            "--url names the URL of one HTML file; {} inputs given",
            paths.len()
        );
    }
    let urls = match &args.urls {
        Some(file) => read_urls(file)?,
        None => Default::default(),
    };
    let mut inputs = Vec::new();
    for path in &paths {
        inputs.push(sources::open(path, &limits)?);
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut writer = Writer {
        extractor: &extractor,
        args: &args,
        failed: 0,
        pages: 0,
        several: paths.len() > 1,
    };
    let mut stats = SourceStats::default();
    // A reader that stopped reading (`| head`): the rest is not written, and
    // that is not a failure.
    let mut closed = false;
    for mut source in inputs {
        let mut emit = |input: Input| -> anyhow::Result<()> {
            if closed {
                return Ok(());
            }
            let input = with_url(input, args.url.as_ref(), &urls);
            match writer.write(&input, &mut out) {
                Err(e) if super::is_broken_pipe(&e) => {
                    closed = true;
                    Ok(())
                }
                written => written,
            }
        };
        source.run(&mut emit, &mut stats)?;
    }
    if closed {
        return Ok(0);
    }
    out.flush()?;
    for failure in &stats.failures {
        eprintln!("crawlsieve: {failure}");
        writer.failed += 1;
    }
    Ok(if writer.failed > 0 { 1 } else { 0 })
}

/// What one page gives, before it is written.
enum Shown {
    Plain(String),
    Json(serde_json::Value),
}

struct Writer<'a> {
    extractor: &'a Extractor,
    args: &'a ExtractArgs,
    failed: u64,
    pages: u64,
    /// More than one input: text and Markdown output name each page.
    several: bool,
}

impl Writer<'_> {
    fn write(&mut self, input: &Input, out: &mut impl Write) -> anyhow::Result<()> {
        // A revisit record holds no content: its capture's is extracted.
        if matches!(input, Input::Revisit(_)) {
            return Ok(());
        }
        self.pages += 1;
        let (page, path) = match input {
            Input::Page(page) => (page, origin_path(&page.origin)),
            Input::Revisit(_) => return Ok(()),
            Input::Broken(b) => {
                let path = origin_path(&b.origin);
                let place = origin_place(&b.origin);
                return self.error(
                    out,
                    &path,
                    &place,
                    b.url.as_deref().unwrap_or(""),
                    &b.reason,
                );
            }
        };
        // A head per page, unless the one input is one HTML file.
        let head = self.several || !matches!(page.origin, Origin::File { .. });
        let url = page.url.to_string();
        let p = self.extractor;
        let json = |v: serde_json::Value| Shown::Json(v);
        let shown = || -> anyhow::Result<Shown> {
            Ok(if self.args.block_features {
                json(serde_json::to_value(p.block_rows(page)?)?)
            } else if self.args.page_features {
                json(serde_json::json!({ "row": p.page_row(page)? }))
            } else {
                match (self.args.jsonl, self.args.format) {
                    (true, _) => json(serde_json::json!({ "content": p.extract(page)?.content })),
                    (false, Format::Text) => Shown::Plain(p.extract(page)?.content),
                    (false, Format::Markdown) => {
                        Shown::Plain(p.document(page, true)?.markdown.unwrap_or_default())
                    }
                    (false, Format::Json) => json(serde_json::to_value(p.document(page, true)?)?),
                }
            })
        };
        match shown() {
            Ok(Shown::Plain(text)) => self.plain(out, head.then_some(url.as_str()), &text),
            Ok(Shown::Json(fields)) => {
                // `path` and `url` first, then what the format gives.
                let mut line = serde_json::Map::new();
                line.insert("path".into(), path.into());
                line.insert("url".into(), url.into());
                if let serde_json::Value::Object(fields) = fields {
                    line.extend(fields);
                }
                serde_json::to_writer(&mut *out, &line)?;
                writeln!(out)?;
                Ok(())
            }
            Err(e) => self.error(
                out,
                &path,
                &origin_place(&page.origin),
                &url,
                &e.to_string(),
            ),
        }
    }

    fn plain(&self, out: &mut impl Write, head: Option<&str>, text: &str) -> anyhow::Result<()> {
        if let Some(url) = head {
            writeln!(out, "==> {url} <==")?;
        }
        writeln!(out, "{text}")?;
        Ok(())
    }

    /// A page that could not be extracted: a JSON line with `error` in the
    /// JSON formats, a message on stderr otherwise; the exit code says so.
    fn error(
        &mut self,
        out: &mut impl Write,
        path: &str,
        place: &str,
        url: &str,
        why: &str,
    ) -> anyhow::Result<()> {
        self.failed += 1;
        let json = self.args.jsonl
            || self.args.block_features
            || self.args.page_features
            || self.args.format == Format::Json;
        if json {
            serde_json::to_writer(
                &mut *out,
                &serde_json::json!({"path": path, "url": url, "error": why}),
            )?;
            writeln!(out)?;
        } else {
            if url.is_empty() {
                eprintln!("crawlsieve: {place}: {why}");
            } else {
                eprintln!("crawlsieve: {place} ({url}): {why}");
            }
        }
        Ok(())
    }
}

/// The input file a page came from.
/// `--urls`: `PATH<TAB>URL` lines; a line without a tab is an error that
/// names it.
fn read_urls(file: &std::path::Path) -> anyhow::Result<std::collections::HashMap<String, String>> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| anyhow::anyhow!("--urls {}: {e}", file.display()))?;
    let mut urls = std::collections::HashMap::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let Some((path, url)) = line.split_once('\t') else {
            anyhow::bail!(
                "--urls {} line {}: expected PATH<TAB>URL",
                file.display(),
                n + 1
            );
        };
        urls.insert(path.to_string(), url.trim().to_string());
    }
    Ok(urls)
}

/// Where in its input a page was: the file, and the byte or line in it.
fn origin_place(origin: &Origin) -> String {
    match origin {
        Origin::Warc { file, offset, .. } => format!("{file} at byte {offset}"),
        Origin::Jsonl { file, line } => format!("{file} line {line}"),
        Origin::File { file } => file.clone(),
        Origin::Ingest { id } => format!("ingest {id}"),
        Origin::None => String::new(),
    }
}

fn origin_path(origin: &Origin) -> String {
    match origin {
        Origin::File { file } | Origin::Jsonl { file, .. } | Origin::Warc { file, .. } => {
            file.clone()
        }
        _ => String::new(),
    }
}
