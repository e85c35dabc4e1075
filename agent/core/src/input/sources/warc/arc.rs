//! ARC files: the Internet Archive's format before WARC, in which Common
//! Crawl's crawls up to 2012 and much of every national web archive's older
//! holdings are stored (and which Heritrix still writes).
//!
//! A record is one header line — `URL IP DATE MIME LENGTH` in version 1,
//! `URL IP DATE MIME RESULT CHECKSUM LOCATION OFFSET FILENAME LENGTH` in
//! version 2 — then LENGTH bytes: the HTTP response as fetched (status line,
//! headers, body), then a newline. The file starts with a `filedesc://`
//! record whose block is the file's own description. `.arc.gz` files hold
//! one gzip member per record, as `.warc.gz` files do. The fields are read
//! from the end of the line, since URLs with spaces are common in old
//! crawls; a record whose length is not a number is an `error` verdict for
//! its URL, and reading resumes at the next line that is an ARC header.

use super::super::{read_capped, Limits, SourceStats};
use super::http::http_page;
use super::records::{skip_blank_lines, Found, ReadError};
use super::resync::Counting;
use crate::input::page::{Broken, Input, Origin};
use std::io::{self, BufRead, Read};

/// Longest header line taken (a URL of up to this much).
const MAX_LINE: usize = 64 * 1024;
/// Room for the HTTP status line and headers on top of the page size cap.
const HTTP_HEADER_ALLOWANCE: usize = 256 * 1024;

/// An ARC record's header line, its fields taken from the end.
#[derive(Debug, PartialEq)]
struct Line {
    url: String,
    date: String,
    mime: String,
    /// The length field as written (checked by the caller).
    length: String,
}

/// Parses a header line; `None` when it is no ARC header (a record's URL
/// with a scheme, a date of 12 or more digits at the place a version 1 or 2
/// line has it).
fn parse(line: &str) -> Option<Line> {
    let fields: Vec<&str> = line.split(' ').filter(|f| !f.is_empty()).collect();
    let is_date = |s: &str| s.len() >= 12 && s.bytes().all(|b| b.is_ascii_digit());
    let n = fields.len();
    // Version 1: DATE third from the end; version 2: eighth from the end.
    let (date_at, mime_at) = if n >= 5 && is_date(fields[n - 3]) {
        (n - 3, n - 2)
    } else if n >= 10 && is_date(fields[n - 8]) {
        (n - 8, n - 7)
    } else {
        return None;
    };
    // The IP address stands before the date; the URL is everything before.
    let url = fields[..date_at - 1].join(" ");
    if !url.contains(':') {
        return None;
    }
    Some(Line {
        url,
        date: fields[date_at].to_string(),
        mime: fields[mime_at].to_ascii_lowercase(),
        length: fields[n - 1].to_string(),
    })
}

/// `YYYYMMDDhhmmss…` as RFC 3339 (`YYYY-MM-DDThh:mm:ssZ`), as WARC-Date is.
fn rfc3339(date: &str) -> Option<String> {
    let d = date.get(..14)?;
    Some(format!(
        "{}-{}-{}T{}:{}:{}Z",
        &d[..4],
        &d[4..6],
        &d[6..8],
        &d[8..10],
        &d[10..12],
        &d[12..14]
    ))
}

/// Reads one line (at most `MAX_LINE` kept): the text, and whether it ended
/// with a newline (else the stream ended inside it).
fn read_line(r: &mut impl BufRead) -> io::Result<(String, bool)> {
    let mut line = Vec::new();
    let n = r.take(MAX_LINE as u64).read_until(b'\n', &mut line)?;
    let whole = line.last() == Some(&b'\n');
    if !whole && n == MAX_LINE {
        // Longer than any header: drop the rest of it.
        let mut rest = Vec::new();
        r.read_until(b'\n', &mut rest)?;
        return Ok((String::new(), rest.last() == Some(&b'\n')));
    }
    let text = String::from_utf8_lossy(&line);
    Ok((text.trim_end_matches(['\r', '\n']).to_string(), whole))
}

/// Reads ARC records until the end of `r`, as the WARC reader does its own.
pub(super) fn read_records<R: BufRead>(
    r: &mut Counting<R>,
    name: &str,
    limits: &Limits,
    emit: &mut Found<'_>,
    stats: &mut SourceStats,
    origin: impl Fn(u64) -> Origin,
    cut_is_tail: bool,
) -> Result<(), ReadError> {
    // Lines that were no record header, since the last record.
    let mut garbage: Option<(u64, u64)> = None;
    loop {
        if !skip_blank_lines(r)? {
            return end(garbage, name, stats);
        }
        let offset = r.pos;
        let (text, whole) = read_line(r)?;
        if !whole {
            end(garbage.take(), name, stats)?;
            return Err(ReadError::Cut(offset));
        }
        let Some(line) = parse(&text) else {
            let g = garbage.get_or_insert((offset, 0));
            g.1 += 1;
            continue;
        };
        end(garbage.take(), name, stats)?;
        let origin = origin(offset);
        let Ok(length) = line.length.parse::<u64>() else {
            if let Some(broken) = bad_length(line, origin, name, offset, stats) {
                emit(broken, r.pos).map_err(ReadError::Consumer)?;
            }
            continue;
        };
        let mut block = r.take(length);
        let kind = line
            .url
            .split(':')
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if kind == "filedesc" || kind == "dns" {
            io::copy(&mut block, &mut io::sink())?;
            if block.limit() > 0 {
                return Err(cut(cut_is_tail, offset));
            }
            stats.skip(format!("arc_{kind}"));
            continue;
        }
        let (bytes, capped) =
            read_capped(&mut block, limits.max_page_bytes + HTTP_HEADER_ALLOWANCE)?;
        if capped {
            io::copy(&mut block, &mut io::sink())?;
        }
        let missing = block.limit();
        if missing > 0 {
            if cut_is_tail {
                return Err(ReadError::Cut(offset));
            }
            let broken = Input::Broken(Broken {
                url: Some(line.url),
                origin,
                reason: "ARC record cut off before its length".into(),
            });
            emit(broken, r.pos).map_err(ReadError::Consumer)?;
            return Err(ReadError::Input(format!(
                "record cut off: {missing} bytes of its block missing"
            )));
        }
        let Some(input) = record_input(line, bytes, capped, origin, limits, stats) else {
            continue;
        };
        emit(input, r.pos).map_err(ReadError::Consumer)?;
    }
}

/// A record whose length is no number: a broken page, or for the file's own
/// `filedesc` record a failure of the file (counted, named; no page).
fn bad_length(
    line: Line,
    origin: Origin,
    name: &str,
    offset: u64,
    stats: &mut SourceStats,
) -> Option<Input> {
    let reason = format!("ARC record length `{}` is not a number", line.length);
    if line.url.starts_with("filedesc:") {
        stats
            .failures
            .push(format!("{name}: near byte {offset}: {reason}"));
        stats.skip("corrupt_record");
        return None;
    }
    Some(Input::Broken(Broken {
        url: Some(line.url),
        origin,
        reason,
    }))
}

/// What a whole record's block gives: a page (an HTTP response, or a version 1
/// document stored without its headers), a broken page, or nothing (not HTML).
fn record_input(
    line: Line,
    bytes: Vec<u8>,
    capped: bool,
    origin: Origin,
    limits: &Limits,
    stats: &mut SourceStats,
) -> Option<Input> {
    let fetched_at = rfc3339(&line.date);
    let page = if bytes.starts_with(b"HTTP/") {
        http_page(&bytes, capped, limits)
    } else if limits.html_content_types.contains(&line.mime) {
        // Version 1 files store some documents without their HTTP headers.
        let mut page = crate::input::page::Page::new(String::new(), bytes);
        page.content_type = Some(line.mime.clone().into());
        page.truncated = capped;
        Ok(Some(page))
    } else {
        Ok(None)
    };
    Some(match page {
        Ok(Some(mut page)) => {
            page.url = line.url.into();
            page.fetched_at = fetched_at.map(Into::into);
            page.origin = origin;
            Input::Page(page)
        }
        Ok(None) => {
            stats.skip("not_html");
            return None;
        }
        Err(reason) => Input::Broken(Broken {
            url: Some(line.url),
            origin,
            reason: reason.to_string(),
        }),
    })
}

fn cut(cut_is_tail: bool, offset: u64) -> ReadError {
    if cut_is_tail {
        ReadError::Cut(offset)
    } else {
        ReadError::Input(format!("ARC record at byte {offset} cut off"))
    }
}

/// Names a run of lines that were no ARC record header, once.
fn end(garbage: Option<(u64, u64)>, name: &str, stats: &mut SourceStats) -> Result<(), ReadError> {
    if let Some((at, lines)) = garbage {
        stats.failures.push(format!(
            "{name}: near byte {at}: {lines} line(s) that are no ARC record header"
        ));
        stats.skip("corrupt_record");
    }
    Ok(())
}

/// Whether a stream's first bytes are an ARC file's (its `filedesc://` record).
pub fn is_arc(head: &[u8]) -> bool {
    head.starts_with(b"filedesc://")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lines_of_both_versions_and_urls_with_spaces() {
        let v1 = parse("http://example.com/ 93.184.216.119 20140216050221 text/html 1591").unwrap();
        assert_eq!(v1.url, "http://example.com/");
        assert_eq!(v1.length, "1591");
        assert_eq!(v1.mime, "text/html");
        let spaced = parse("http://example.com/a b c 1.2.3.4 20140216050221 text/html 10").unwrap();
        assert_eq!(spaced.url, "http://example.com/a b c");
        let v2 = parse(
            "http://example.com/ 1.2.3.4 20080430204825 text/html 200 ABC123 - 1234 file.arc 512",
        )
        .unwrap();
        assert_eq!(
            (v2.url.as_str(), v2.length.as_str()),
            ("http://example.com/", "512")
        );
        assert_eq!(parse("HTTP/1.1 200 OK"), None);
        assert_eq!(
            parse("<html><body> some words 20140216050221 here 12"),
            None
        );
        assert_eq!(rfc3339("20140216050221").unwrap(), "2014-02-16T05:02:21Z");
    }
}
