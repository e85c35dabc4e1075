//! The records of a WARC stream: header, block, and what each record yields
//! (a page, a broken page, a skip). Offsets are those of the `Counting`
//! reader the records are read from.

use super::super::{read_capped, Limits, SourceStats};
use super::http::http_page;
use super::resync::Counting;
use crate::input::page::{Broken, Input, Origin, Page, Revisit, RevisitOf};
use std::io::{self, BufRead, Read};

/// Largest WARC header block we accept.
const MAX_HEADER_BYTES: usize = 256 * 1024;
/// Room for the HTTP status line and headers on top of the page size cap.
const HTTP_HEADER_ALLOWANCE: usize = 256 * 1024;

/// What a record reader hands on: an input, and the reader's position
/// after the record that yielded it.
pub(super) type Found<'a> = dyn FnMut(Input, u64) -> anyhow::Result<()> + 'a;

pub(super) enum ReadError {
    /// The input is broken here.
    Input(String),
    /// The stream ends inside the record that starts at this offset: a file
    /// still being written, or one cut short.
    Cut(u64),
    /// Whoever takes the pages has stopped.
    Consumer(anyhow::Error),
}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        ReadError::Input(e.to_string())
    }
}

/// Skips the blank lines between records; false at the end of `r`.
pub(super) fn skip_blank_lines<R: BufRead>(r: &mut Counting<R>) -> io::Result<bool> {
    loop {
        match r.fill_buf()?.first() {
            None => return Ok(false),
            Some(b'\r') | Some(b'\n') => r.consume(1),
            Some(_) => return Ok(true),
        }
    }
}

/// Reads records until the end of `r`. `origin(offset)` gives the origin of a
/// record that starts at `offset` in `r`.
pub(super) fn read_records<R: BufRead>(
    r: &mut Counting<R>,
    limits: &Limits,
    emit: &mut Found<'_>,
    stats: &mut SourceStats,
    origin: impl Fn(u64) -> Origin,
    cut_is_tail: bool,
) -> Result<(), ReadError> {
    loop {
        if !skip_blank_lines(r)? {
            return Ok(());
        }
        let offset = r.pos;
        let header = match read_header(r) {
            Err(ReadError::Cut(_)) => return Err(ReadError::Cut(offset)),
            other => other?,
        };
        let length = header
            .get("content-length")
            .and_then(|v| v.trim().parse::<u64>().ok())
            .ok_or_else(|| ReadError::Input("WARC record without a valid Content-Length".into()))?;
        let record_type = header.get("warc-type").unwrap_or("").to_ascii_lowercase();
        let judged = match record_type.as_str() {
            "response" | "revisit" => true,
            "resource" => limits.resource_records && is_html_resource(&header, limits),
            _ => false,
        };
        let mut block = r.take(length);
        if !judged {
            io::copy(&mut block, &mut io::sink())?;
            if block.limit() > 0 && cut_is_tail {
                return Err(ReadError::Cut(offset));
            }
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
        let origin = with_record(origin(offset), &header, &record_type);
        let url = header.target("warc-target-uri").unwrap_or_default();
        let fetched_at = header.get("warc-date").map(|s| s.to_string());
        let (bytes, cut) = read_capped(&mut block, limits.max_page_bytes + HTTP_HEADER_ALLOWANCE)?;
        if cut {
            io::copy(&mut block, &mut io::sink())?;
        }
        if block.limit() > 0 && cut_is_tail {
            return Err(ReadError::Cut(offset));
        }
        if let Err(e) = check_complete(&block, length) {
            // The record was cut off: judge nothing, but say so for this URL.
            emit(
                Input::Broken(Broken {
                    url: Some(url),
                    origin,
                    reason: "WARC record cut off before its Content-Length".into(),
                }),
                r.pos,
            )
            .map_err(ReadError::Consumer)?;
            return Err(e);
        }
        let record = Record {
            kind: &record_type,
            header: &header,
            url,
            fetched_at,
            origin,
        };
        let input = record.input(bytes, cut, limits, stats);
        if let Some(input) = input {
            emit(input, r.pos).map_err(ReadError::Consumer)?;
        }
    }
}

/// A judged record's origin: the WARC record's id, payload digest and (for
/// all but a response) its type.
fn with_record(mut origin: Origin, header: &Header, record_type: &str) -> Origin {
    if let Origin::Warc {
        record_id,
        record_type: kind,
        payload_digest,
        ..
    } = &mut origin
    {
        *record_id = header.get("warc-record-id").map(|s| s.to_string());
        *payload_digest = header.get("warc-payload-digest").map(|s| s.to_string());
        if record_type != "response" {
            *kind = Some(record_type.to_string());
        }
    }
    origin
}

/// A judged record (a response, revisit or HTML resource), read whole.
struct Record<'h> {
    kind: &'h str,
    header: &'h Header,
    url: String,
    fetched_at: Option<String>,
    origin: Origin,
}

impl Record<'_> {
    /// What the record gives: a page, a revisit, a broken page, or nothing
    /// (not HTML: counted as skipped).
    fn input(
        self,
        bytes: Vec<u8>,
        cut: bool,
        limits: &Limits,
        stats: &mut SourceStats,
    ) -> Option<Input> {
        let Record {
            url,
            fetched_at,
            origin,
            ..
        } = self;
        match self.kind {
            "revisit" => match revisit(self.header, &bytes, url, fetched_at, origin, limits) {
                Some(r) => Some(Input::Revisit(r)),
                None => {
                    // A revisit of an image, a script: no page, as its capture.
                    stats.skip("not_html");
                    None
                }
            },
            "resource" => {
                let mut page = Page::new(url, bytes).with_origin(origin);
                page.content_type = self
                    .header
                    .get("content-type")
                    .map(|c| c.to_string().into());
                page.fetched_at = fetched_at.map(Into::into);
                page.truncated = cut;
                Some(Input::Page(page))
            }
            _ => match http_page(&bytes, cut, limits) {
                Ok(Some(mut page)) => {
                    page.url = url.into();
                    page.fetched_at = fetched_at.map(Into::into);
                    page.origin = origin;
                    Some(Input::Page(page))
                }
                Ok(None) => {
                    stats.skip("not_html");
                    None
                }
                Err(reason) => Some(Input::Broken(Broken {
                    url: Some(url),
                    origin,
                    reason: reason.to_string(),
                })),
            },
        }
    }
}

/// A `resource` record whose own Content-Type is a page's (a resource
/// without one is skipped).
fn is_html_resource(header: &Header, limits: &Limits) -> bool {
    header
        .get("content-type")
        .is_some_and(|ct| limits.is_page_type(ct))
}

/// A revisit record: the capture it names, and the HTTP status of its
/// stored headers (a revisit keeps the response's headers, not its body).
/// `None` when those headers say the capture was no page.
fn revisit(
    header: &Header,
    block: &[u8],
    url: String,
    fetched_at: Option<String>,
    origin: Origin,
    limits: &Limits,
) -> Option<Revisit> {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut response = httparse::Response::new(&mut headers);
    let status = match response.parse(block) {
        Ok(_) => response.code,
        Err(_) => None,
    };
    let content_type = response
        .headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("content-type"))
        .map(|h| String::from_utf8_lossy(h.value).to_ascii_lowercase());
    if content_type.is_some_and(|ct| !limits.is_page_type(&ct)) {
        return None;
    }
    let profile = header
        .get("warc-profile")
        .map(|p| p.rsplit('/').next().unwrap_or(p).to_string());
    Some(Revisit {
        url,
        origin,
        fetched_at,
        status,
        of: RevisitOf {
            record_id: header.get("warc-refers-to").map(str::to_string),
            url: header.target("warc-refers-to-target-uri"),
            date: header.get("warc-refers-to-date").map(str::to_string),
            payload_digest: header.get("warc-payload-digest").map(str::to_string),
            profile,
        },
    })
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
    /// A URI field, unwrapped from the `<...>` wget writes around it.
    fn target(&self, name: &str) -> Option<String> {
        self.get(name).map(|u| {
            u.trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .to_string()
        })
    }

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
        if n == 0
            || (line.last() != Some(&b'\n') && total <= MAX_HEADER_BYTES && n < MAX_HEADER_BYTES)
        {
            // The stream ends inside the header (a line without its end).
            return Err(ReadError::Cut(0));
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
