//! Sources: where pages come from. Each yields `Input`s — pages, or broken
//! records that still get a verdict — and counts what it skipped.

pub mod html;
pub mod jsonl;
pub mod warc;

use crate::page::Input;
use flate2::bufread::MultiGzDecoder;
use std::collections::BTreeMap;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Limits every source applies.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Bodies are cut here and marked truncated.
    pub max_page_bytes: usize,
    /// HTTP content types (without parameters) that are pages.
    pub html_content_types: Vec<String>,
}

impl Limits {
    pub fn from_settings(s: &crate::settings::Settings) -> Self {
        Limits {
            max_page_bytes: s.input.max_page_bytes,
            html_content_types: s
                .input
                .html_content_types
                .iter()
                .map(|t| t.to_ascii_lowercase())
                .collect(),
        }
    }
}

/// What a source read besides pages: records it skipped (by why) and bytes read.
#[derive(Debug, Default, Clone)]
pub struct SourceStats {
    pub skipped: BTreeMap<String, u64>,
    /// Input files that could not be read to the end, with why.
    pub failures: Vec<String>,
    /// Bytes read from the input (compressed size for `.gz`).
    pub bytes: u64,
}

impl SourceStats {
    pub fn skip(&mut self, why: impl Into<String>) {
        *self.skipped.entry(why.into()).or_default() += 1;
    }
}

/// Hands an input on; an error means the consumer has gone away: stop reading.
pub type Emit<'a> = dyn FnMut(Input) -> anyhow::Result<()> + 'a;

/// A source of pages.
pub trait Source: Send {
    /// A name for logs and the summary.
    fn name(&self) -> String;
    /// Reads everything, handing each input to `emit`. An `Err` is a failure
    /// of the whole input (e.g. the file cannot be opened).
    fn run(&mut self, emit: &mut Emit<'_>, stats: &mut SourceStats) -> anyhow::Result<()>;
}

/// What kind of input a stream holds, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Warc,
    Jsonl,
    Html,
}

/// Opens an input by path (`-` is stdin), recognising the format by content.
pub fn open(path: &str, limits: &Limits) -> anyhow::Result<Box<dyn Source>> {
    let format = if path == "-" {
        None
    } else {
        let file = std::fs::File::open(path).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
        Some(sniff(&mut BufReader::new(file)).map_err(|e| anyhow::anyhow!("{path}: {e}"))?)
    };
    let limits = limits.clone();
    Ok(match format {
        None => Box::new(StdinSource { limits }),
        Some(Format::Warc) => Box::new(warc::WarcSource::new(PathBuf::from(path), limits)),
        Some(Format::Jsonl) => Box::new(jsonl::JsonlSource::new(PathBuf::from(path), limits)),
        Some(Format::Html) => Box::new(html::HtmlFileSource::new(PathBuf::from(path), limits)),
    })
}

/// Recognises WARC (`WARC/`), JSONL (`{`) or HTML (anything else), looking
/// through gzip.
pub fn sniff(r: &mut impl BufRead) -> io::Result<Format> {
    let head = r.fill_buf()?;
    if head.starts_with(&[0x1f, 0x8b]) {
        let mut dec = MultiGzDecoder::new(r);
        let mut buf = vec![0u8; 512];
        let mut n = 0;
        while n < buf.len() {
            match dec.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if n == 0 => return Err(e),
                Err(_) => break,
            }
        }
        return Ok(sniff_bytes(&buf[..n]));
    }
    Ok(sniff_bytes(head))
}

fn sniff_bytes(head: &[u8]) -> Format {
    let trimmed = &head[head.iter().take_while(|b| b.is_ascii_whitespace()).count()..];
    if trimmed.starts_with(b"WARC/") {
        Format::Warc
    } else if trimmed.starts_with(b"{") {
        Format::Jsonl
    } else {
        Format::Html
    }
}

/// Opens a file for reading, decompressing gzip when it starts with the gzip magic.
pub fn open_maybe_gz(path: &Path) -> io::Result<Box<dyn BufRead + Send>> {
    let file = std::fs::File::open(path)?;
    maybe_gz(Box::new(BufReader::with_capacity(1 << 16, file)))
}

/// Wraps a reader in a gzip decoder when it starts with the gzip magic.
pub fn maybe_gz(mut r: Box<dyn BufRead + Send>) -> io::Result<Box<dyn BufRead + Send>> {
    if r.fill_buf()?.starts_with(&[0x1f, 0x8b]) {
        Ok(Box::new(BufReader::with_capacity(
            1 << 16,
            MultiGzDecoder::new(r),
        )))
    } else {
        Ok(r)
    }
}

/// Reads at most `max` bytes; says whether there was more.
pub fn read_capped(r: &mut impl Read, max: usize) -> io::Result<(Vec<u8>, bool)> {
    let mut body = Vec::new();
    r.take(max as u64 + 1).read_to_end(&mut body)?;
    let truncated = body.len() > max;
    body.truncate(max);
    Ok((body, truncated))
}

/// Standard input: WARC, JSONL or a single HTML page, recognised by content.
pub struct StdinSource {
    limits: Limits,
}

impl Source for StdinSource {
    fn name(&self) -> String {
        "stdin".into()
    }

    fn run(&mut self, emit: &mut Emit<'_>, stats: &mut SourceStats) -> anyhow::Result<()> {
        let mut r = maybe_gz(Box::new(BufReader::with_capacity(1 << 16, io::stdin())))?;
        match sniff_bytes(r.fill_buf()?) {
            Format::Warc => warc::read_stream(r, "-", &self.limits, emit, stats),
            Format::Jsonl => jsonl::read_lines(r, "-", &self.limits, emit, stats),
            Format::Html => html::read_one(r, "-", "stdin:", &self.limits, emit, stats),
        }
    }
}
