//! WARC and WARC.gz files.
//!
//! A small reader of our own rather than the `warc` crate, for three things
//! a crawl operator needs and that crate does not give: the byte offset of
//! every record (a verdict points back to its bytes), a size cap that never
//! holds more than the cap in memory, and recovery — after a corrupt gzip
//! member or a malformed record the reader resynchronises on the next member
//! or record instead of giving up on the file.
//!
//! Pages are `response` records whose HTTP payload has an HTML content type;
//! other records are counted and skipped. `WARC-Target-URI` values wrapped in
//! `<...>` (as wget writes them) are unwrapped. Chunked transfer encoding and
//! gzip/deflate content encoding of the payload are undone.

mod http;
mod resync;

pub use http::http_page;
pub use resync::Counting;
use resync::{skip_to_gzip_header, skip_to_warc_line};

use super::{read_capped, Emit, Limits, Source, SourceStats};
use crate::input::page::{Broken, Input, Origin};
use flate2::bufread::GzDecoder;
use std::io::{self, BufRead, BufReader, Read};
use std::path::PathBuf;

/// Largest WARC header block we accept.
const MAX_HEADER_BYTES: usize = 256 * 1024;
/// Room for the HTTP status line and headers on top of the page size cap.
const HTTP_HEADER_ALLOWANCE: usize = 256 * 1024;

pub struct WarcSource {
    path: PathBuf,
    limits: Limits,
}

impl WarcSource {
    pub fn new(path: PathBuf, limits: Limits) -> Self {
        WarcSource { path, limits }
    }
}

impl Source for WarcSource {
    fn name(&self) -> String {
        self.path.display().to_string()
    }

    fn run(&mut self, emit: &mut Emit<'_>, stats: &mut SourceStats) -> anyhow::Result<()> {
        let name = self.path.display().to_string();
        let file = std::fs::File::open(&self.path).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        read(
            BufReader::with_capacity(1 << 16, file),
            &name,
            &self.limits,
            emit,
            stats,
        )
    }
}

/// Reads a WARC stream, plain or gzip (one member per record, or one for
/// all); `name` names it in origins and failures.
pub fn read(
    r: impl BufRead,
    name: &str,
    limits: &Limits,
    emit: &mut Emit<'_>,
    stats: &mut SourceStats,
) -> anyhow::Result<()> {
    let mut raw = Counting::new(r);
    let gz = raw.fill_buf()?.starts_with(&[0x1f, 0x8b]);
    if !gz {
        let result = read_stream(&mut raw, name, limits, emit, stats);
        stats.bytes += raw.pos;
        return result;
    }
    // One gzip member per record is the WARC convention: the member's
    // compressed offset is the record's address. A corrupt member is
    // reported, and reading resumes at the next gzip header.
    loop {
        if raw.fill_buf()?.is_empty() {
            break;
        }
        let member = raw.pos;
        let mut records =
            Counting::new(BufReader::with_capacity(1 << 16, GzDecoder::new(&mut raw)));
        let result = read_records(&mut records, limits, emit, stats, |_| Origin::Warc {
            file: name.to_string(),
            offset: member,
            record_id: None,
        });
        drop(records);
        match result {
            Ok(()) => {}
            Err(ReadError::Consumer(e)) => return Err(e),
            Err(ReadError::Input(why)) => {
                stats
                    .failures
                    .push(format!("{name}: gzip member at byte {member}: {why}"));
                stats.skip("corrupt_record");
                if raw.pos <= member {
                    raw.consume_n(1)?;
                }
                if !skip_to_gzip_header(&mut raw)? {
                    break;
                }
            }
        }
    }
    stats.bytes += raw.pos;
    Ok(())
}

/// Reads the records of an uncompressed WARC stream (offsets are stream
/// positions); resynchronises on the next `WARC/` line after a bad record.
pub fn read_stream(
    r: impl BufRead,
    name: &str,
    limits: &Limits,
    emit: &mut Emit<'_>,
    stats: &mut SourceStats,
) -> anyhow::Result<()> {
    let mut r = Counting::new(r);
    loop {
        let result = read_records(&mut r, limits, emit, stats, |offset| Origin::Warc {
            file: name.to_string(),
            offset,
            record_id: None,
        });
        match result {
            Ok(()) => return Ok(()),
            Err(ReadError::Consumer(e)) => return Err(e),
            Err(ReadError::Input(why)) => {
                stats
                    .failures
                    .push(format!("{name}: near byte {}: {why}", r.pos));
                stats.skip("corrupt_record");
                if !skip_to_warc_line(&mut r)? {
                    return Ok(());
                }
            }
        }
    }
}

enum ReadError {
    /// The input is broken here.
    Input(String),
    /// Whoever takes the pages has stopped.
    Consumer(anyhow::Error),
}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        ReadError::Input(e.to_string())
    }
}

/// Reads records until the end of `r`. `origin(offset)` gives the origin of a
/// record that starts at `offset` in `r`.
fn read_records<R: BufRead>(
    r: &mut Counting<R>,
    limits: &Limits,
    emit: &mut Emit<'_>,
    stats: &mut SourceStats,
    origin: impl Fn(u64) -> Origin,
) -> Result<(), ReadError> {
    loop {
        // Blank lines between records.
        loop {
            let buf = r.fill_buf()?;
            match buf.first() {
                None => return Ok(()),
                Some(b'\r') | Some(b'\n') => r.consume_n(1)?,
                Some(_) => break,
            }
        }
        let offset = r.pos;
        let header = read_header(r)?;
        let length = header
            .get("content-length")
            .and_then(|v| v.trim().parse::<u64>().ok())
            .ok_or_else(|| ReadError::Input("WARC record without a valid Content-Length".into()))?;
        let mut origin = origin(offset);
        if let Origin::Warc { record_id, .. } = &mut origin {
            *record_id = header.get("warc-record-id").map(|s| s.to_string());
        }
        let record_type = header.get("warc-type").unwrap_or("").to_ascii_lowercase();
        let mut block = r.take(length);
        if record_type != "response" {
            io::copy(&mut block, &mut io::sink())?;
            check_complete(&block, length)?;
            stats.skip(format!(
                "warc_{}",
                if record_type.is_empty() {
                    "untyped"
                } else {
                    &record_type
                }
            ));
            continue;
        }
        let url = header
            .get("warc-target-uri")
            .map(|u| {
                u.trim()
                    .trim_start_matches('<')
                    .trim_end_matches('>')
                    .to_string()
            })
            .unwrap_or_default();
        let fetched_at = header.get("warc-date").map(|s| s.to_string());
        let (bytes, cut) = read_capped(&mut block, limits.max_page_bytes + HTTP_HEADER_ALLOWANCE)?;
        if cut {
            io::copy(&mut block, &mut io::sink())?;
        }
        if let Err(e) = check_complete(&block, length) {
            // The record was cut off: judge nothing, but say so for this URL.
            emit(Input::Broken(Broken {
                url: Some(url),
                origin,
                reason: "WARC record cut off before its Content-Length".into(),
            }))
            .map_err(ReadError::Consumer)?;
            return Err(e);
        }
        match http_page(&bytes, cut, limits) {
            Ok(Some(mut page)) => {
                page.url = url.into();
                page.fetched_at = fetched_at.map(Into::into);
                page.origin = origin;
                emit(Input::Page(page)).map_err(ReadError::Consumer)?;
            }
            Ok(None) => stats.skip("not_html"),
            Err(reason) => emit(Input::Broken(Broken {
                url: Some(url),
                origin,
                reason,
            }))
            .map_err(ReadError::Consumer)?,
        }
    }
}

fn check_complete<R>(block: &io::Take<R>, _length: u64) -> Result<(), ReadError> {
    if block.limit() > 0 {
        return Err(ReadError::Input(format!(
            "record cut off: {} bytes of its block missing",
            block.limit()
        )));
    }
    Ok(())
}

/// WARC named fields, lower-cased names.
struct Header(Vec<(String, String)>);

impl Header {
    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

fn read_header(r: &mut impl BufRead) -> Result<Header, ReadError> {
    let mut line = Vec::new();
    let mut total = 0;
    let mut fields: Vec<(String, String)> = Vec::new();
    let mut first = true;
    loop {
        line.clear();
        let n = r
            .take(MAX_HEADER_BYTES as u64)
            .read_until(b'\n', &mut line)?;
        total += n;
        if n == 0 {
            return Err(ReadError::Input("WARC header cut off".into()));
        }
        if total > MAX_HEADER_BYTES {
            return Err(ReadError::Input("WARC header too large".into()));
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if first {
            if !text.starts_with("WARC/") {
                return Err(ReadError::Input(format!(
                    "expected a WARC version line, found {:?}",
                    text.chars().take(40).collect::<String>()
                )));
            }
            first = false;
            continue;
        }
        if text.is_empty() {
            return Ok(Header(fields));
        }
        if text.starts_with([' ', '\t']) {
            if let Some((_, v)) = fields.last_mut() {
                v.push(' ');
                v.push_str(text.trim());
            }
            continue;
        }
        if let Some((k, v)) = text.split_once(':') {
            fields.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::resync::skip_to;
    use super::*;

    fn limits() -> Limits {
        Limits {
            max_page_bytes: 1 << 20,
            html_content_types: vec!["text/html".into(), "application/xhtml+xml".into()],
        }
    }

    #[test]
    fn http_payloads() {
        let l = limits();
        let page = http_page(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>hi</p>",
            false,
            &l,
        )
        .unwrap()
        .unwrap();
        assert_eq!(&page.body[..], b"<p>hi</p>");
        assert_eq!(page.status, Some(200));
        assert!(http_page(
            b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n\x89PNG",
            false,
            &l
        )
        .unwrap()
        .is_none());
        let chunked = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n<p>a\r\n5\r\n</p>!\r\n0\r\n\r\n";
        assert_eq!(
            &http_page(chunked, false, &l).unwrap().unwrap().body[..],
            b"<p>a</p>!"
        );
        let br = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: br\r\n\r\nxxxx";
        assert!(http_page(br, false, &l).unwrap_err().contains("br"));
        assert!(http_page(b"garbage", false, &l).is_err());
    }

    #[test]
    fn skip_to_finds_patterns_across_buffers() {
        let data = b"xxxxxxxxxxxxxxxxxxxxWARC/1.0 rest".to_vec();
        let mut r = Counting::new(BufReader::with_capacity(16, &data[..]));
        assert!(skip_to(&mut r, b"WARC/").unwrap());
        assert_eq!(r.pos, 20);
        // A pattern that straddles two buffers is lost (its head is consumed
        // already); the search goes on to the next one.
        let data = b"xxxxxxxxxxxxxxWARC/xxxxxxxxxxxxxxxWARC/".to_vec();
        let mut r = Counting::new(BufReader::with_capacity(16, &data[..]));
        assert!(skip_to(&mut r, b"WARC/").unwrap());
        assert_eq!(r.pos, 34);
        let mut r = Counting::new(BufReader::with_capacity(4, &b"no pattern here"[..]));
        assert!(!skip_to(&mut r, b"WARC/").unwrap());
    }
}
