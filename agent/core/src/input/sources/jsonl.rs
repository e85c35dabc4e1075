//! JSONL pages: one JSON object per line,
//! `{"url": "...", "html": "...", "status": 200, "content_type": "...", "fetched_at": "...",
//! "headers": {"X-Robots-Tag": "noai"}}`
//! (`url` and `html` required), or with `text` instead of `html`: text
//! extracted already (each line a paragraph), judged as it is, so that the
//! corpus rule sets run on any extracted text. A line that is not such an object becomes an
//! `error` verdict naming the line; the next line is read as usual.

use super::{open_maybe_gz, Emit, Limits, Source, SourceStats};
use crate::input::page::{Broken, Input, Origin, Page};
use serde::Deserialize;
use std::io::BufRead;
use std::path::PathBuf;

/// A page as JSON: a JSONL line, or the agent's ingest envelope.
#[derive(Deserialize)]
pub struct JsonPage {
    pub url: String,
    #[serde(default)]
    pub html: Option<String>,
    /// Extracted text instead of HTML.
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub status: Option<u16>,
    #[serde(default)]
    pub content_type: Option<String>,
    #[serde(default)]
    pub fetched_at: Option<String>,
    /// The page's HTTP response headers, `{"name": "value"}` (a list of
    /// values for a repeated header); those of `TERMS_HEADERS` are kept.
    #[serde(default)]
    pub headers: Option<std::collections::BTreeMap<String, HeaderValue>>,
}

/// A header's value in a JSON page: one, or one per occurrence.
#[derive(Deserialize)]
#[serde(untagged)]
pub enum HeaderValue {
    One(String),
    Many(Vec<String>),
}

pub struct JsonlSource {
    path: PathBuf,
    limits: Limits,
}

impl JsonlSource {
    pub fn new(path: PathBuf, limits: Limits) -> Self {
        JsonlSource { path, limits }
    }
}

impl Source for JsonlSource {
    fn name(&self) -> String {
        self.path.display().to_string()
    }

    fn run(&mut self, emit: &mut Emit<'_>, stats: &mut SourceStats) -> anyhow::Result<()> {
        let name = self.path.display().to_string();
        stats.bytes += std::fs::metadata(&self.path).map(|m| m.len()).unwrap_or(0);
        let r = open_maybe_gz(&self.path).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        read_lines(r, &name, &self.limits, emit, stats)
    }
}

/// Reads JSONL pages from a stream.
pub fn read_lines(
    mut r: impl BufRead,
    name: &str,
    limits: &Limits,
    emit: &mut Emit<'_>,
    stats: &mut SourceStats,
) -> anyhow::Result<()> {
    // A line holds a page's HTML escaped as a JSON string: room for every
    // byte escaped (`\u00XX`) would be 6×; twice the cap and a margin keeps
    // ordinary pages whole and bounds what one line can make us hold.
    let max_line = limits.max_page_bytes.saturating_mul(2) + (1 << 20);
    let mut line = Vec::new();
    let mut number = 0u64;
    loop {
        line.clear();
        let (read, whole) = match read_line_capped(&mut r, &mut line, max_line) {
            Ok(got) => got,
            Err(e) => {
                stats
                    .failures
                    .push(format!("{name}: after line {number}: {e}"));
                return Ok(());
            }
        };
        if read == 0 {
            return Ok(());
        }
        number += 1;
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        let origin = Origin::Jsonl {
            file: name.to_string(),
            line: number,
        };
        let input = if whole {
            page_from_json(
                &line,
                origin,
                limits.max_page_bytes,
                &format!("JSONL page (line {number})"),
            )
        } else {
            Input::Broken(Broken {
                url: json_url(&line),
                origin,
                reason: format!("JSONL line {number} longer than {max_line} bytes"),
            })
        };
        emit(input)?;
    }
}

/// Reads one line into `line`, keeping at most `max` bytes of it (the rest
/// is read and dropped). Returns the bytes read and whether the line was
/// kept whole.
fn read_line_capped(
    r: &mut impl BufRead,
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<(usize, bool)> {
    let mut read = 0;
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok((read, line.len() <= max));
        }
        let (n, end) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        let room = (max + 1).saturating_sub(line.len());
        line.extend_from_slice(&buf[..n.min(room)]);
        r.consume(n);
        read += n;
        if end {
            return Ok((read, line.len() <= max));
        }
    }
}

/// A page from its JSON form (a JSONL line, the agent's ingest envelope, a
/// NATS or Kafka message), cut at `max_page_bytes`. JSON that is not a page
/// is a broken input named `what`, with its `url` when it has one.
pub fn page_from_json(bytes: &[u8], origin: Origin, max_page_bytes: usize, what: &str) -> Input {
    let parsed = serde_json::from_slice::<JsonPage>(bytes).map_err(|e| e.to_string());
    let page = parsed.and_then(|p| match (&p.html, &p.text) {
        (Some(_), None) | (None, Some(_)) => Ok(p),
        (None, None) => Err("it has neither `html` nor `text`".to_string()),
        (Some(_), Some(_)) => Err("it has both `html` and `text`; give one".to_string()),
    });
    match page {
        Ok(p) => {
            let text = p.text.is_some();
            let mut body = p.html.or(p.text).unwrap_or_default().into_bytes();
            let truncated = body.len() > max_page_bytes;
            body.truncate(max_page_bytes);
            let mut page = Page::new(p.url, body).with_origin(origin);
            page.status = p.status;
            page.content_type = p.content_type.map(Into::into);
            page.fetched_at = p.fetched_at.map(Into::into);
            page.truncated = truncated;
            // A JSON string is Unicode: the page's declared charset no longer applies.
            page.utf8 = true;
            page.text = text;
            for (name, value) in p.headers.iter().flatten() {
                match value {
                    HeaderValue::One(v) => page.keep_header(name, v),
                    HeaderValue::Many(vs) => vs.iter().for_each(|v| page.keep_header(name, v)),
                }
            }
            Input::Page(page)
        }
        Err(e) => Input::Broken(Broken {
            url: json_url(bytes),
            origin,
            reason: format!("bad {what}: {e}"),
        }),
    }
}

/// The `url` of a JSON object, if it is one and has one. A cut-off object
/// (a crawler's connection dropped, a message cut at a size limit) still
/// names its page when its `"url": "..."` member came through whole: that
/// page gets an `error` verdict rather than being refused as not a page.
pub fn json_url(bytes: &[u8]) -> Option<String> {
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(v) => v.get("url")?.as_str().map(str::to_string),
        Err(_) => cut_off_url(bytes),
    }
}

/// The first `"url": "..."` member of what starts as a JSON object. A
/// `"url"` inside a string value is escaped (`\"url\"`), so it is not taken.
fn cut_off_url(bytes: &[u8]) -> Option<String> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    if bytes[start] != b'{' {
        return None;
    }
    let key = b"\"url\"";
    let mut at = start;
    while let Some(found) = bytes[at..].windows(key.len()).position(|w| w == key) {
        let i = at + found;
        at = i + key.len();
        if bytes[i - 1] == b'\\' {
            continue;
        }
        let rest = bytes[at..].trim_ascii_start();
        let Some(value) = rest.strip_prefix(b":") else {
            continue;
        };
        let mut values = serde_json::Deserializer::from_slice(value).into_iter::<String>();
        return values.next()?.ok();
    }
    None
}
