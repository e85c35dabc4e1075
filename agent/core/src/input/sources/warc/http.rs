//! The HTTP response inside a WARC `response` record: status, headers,
//! chunked transfer encoding, gzip/deflate content encoding, and whether the
//! payload is HTML.

use super::super::{read_capped, Limits};
use crate::input::page::Page;
use flate2::bufread::{DeflateDecoder, GzDecoder, ZlibDecoder};
use std::io::Read;

/// Why an HTTP response holding HTML gives no page: the reason in its `error` verdict.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("HTTP header cut off")]
    HeaderCut,
    #[error("bad HTTP header: {0}")]
    Header(httparse::Error),
    #[error("unsupported Content-Encoding `{0}`")]
    Unsupported(String),
    #[error("bad {0} Content-Encoding: {1}")]
    Encoding(&'static str, std::io::Error),
}

/// Turns an HTTP response block into a page: `Ok(None)` when it is not HTML,
/// `Err` with the reason when it is HTML that cannot be decoded.
pub fn http_page(
    block: &[u8],
    cut: bool,
    limits: &Limits,
) -> Result<Option<Page<'static>>, HttpError> {
    let mut headers = [httparse::EMPTY_HEADER; 256];
    let mut response = httparse::Response::new(&mut headers);
    let header_len = match response.parse(block) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Err(HttpError::HeaderCut),
        Err(e) => return Err(HttpError::Header(e)),
    };
    let status = response.code;
    let header = |name: &str| {
        response
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| String::from_utf8_lossy(h.value).trim().to_string())
    };
    let content_type = header("content-type");
    let payload = &block[header_len..];
    let is_html = match &content_type {
        Some(ct) => limits.is_page_type(ct),
        None => looks_like_html(payload),
    };
    if !is_html {
        return Ok(None);
    }
    let mut body: Vec<u8> = payload.to_vec();
    let mut truncated = cut;
    if header("transfer-encoding").is_some_and(|te| te.to_ascii_lowercase().contains("chunked")) {
        if let Some(plain) = dechunk(&body) {
            body = plain;
        }
    }
    match header("content-encoding")
        .map(|e| e.to_ascii_lowercase())
        .as_deref()
    {
        None | Some("") | Some("identity") => {}
        Some("gzip") | Some("x-gzip") => {
            let (b, t) = inflate(GzDecoder::new(&body[..]), limits.max_page_bytes, "gzip")?;
            body = b;
            truncated |= t;
        }
        Some("deflate") => {
            // "deflate" is zlib by the standard and raw deflate in practice; try both.
            let zlib = inflate(
                ZlibDecoder::new(&body[..]),
                limits.max_page_bytes,
                "deflate",
            );
            let (b, t) = zlib.or_else(|_| {
                inflate(
                    DeflateDecoder::new(&body[..]),
                    limits.max_page_bytes,
                    "deflate",
                )
            })?;
            body = b;
            truncated |= t;
        }
        Some(other) => return Err(HttpError::Unsupported(other.to_string())),
    }
    if body.len() > limits.max_page_bytes {
        body.truncate(limits.max_page_bytes);
        truncated = true;
    }
    let mut page = Page::new(String::new(), body);
    page.status = Some(status.unwrap_or(0));
    page.content_type = content_type.map(Into::into);
    page.truncated = truncated;
    for h in response.headers.iter() {
        page.keep_header(h.name, &String::from_utf8_lossy(h.value));
    }
    Ok(Some(page))
}

fn inflate(mut r: impl Read, max: usize, what: &'static str) -> Result<(Vec<u8>, bool), HttpError> {
    read_capped(&mut r, max).map_err(|e| HttpError::Encoding(what, e))
}

fn looks_like_html(payload: &[u8]) -> bool {
    let head = &payload[..payload.len().min(512)];
    let start = head.iter().take_while(|b| b.is_ascii_whitespace()).count();
    let head = head[start..].to_ascii_lowercase();
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&head);
    head.starts_with(b"<!doctype html") || head.starts_with(b"<html")
}

/// Undoes chunked transfer encoding; `None` when the body is not chunked after all.
fn dechunk(mut body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len());
    loop {
        let line_end = body.iter().position(|&b| b == b'\n')?;
        let size_text = std::str::from_utf8(&body[..line_end]).ok()?;
        let size_text = size_text.trim().split(';').next()?.trim();
        let size = usize::from_str_radix(size_text, 16).ok()?;
        body = &body[line_end + 1..];
        if size == 0 {
            return Some(out);
        }
        if body.len() < size {
            // Cut off (size cap): keep what there is.
            out.extend_from_slice(body);
            return Some(out);
        }
        out.extend_from_slice(&body[..size]);
        body = &body[size..];
        body = body
            .strip_prefix(b"\r\n")
            .or_else(|| body.strip_prefix(b"\n"))
            .unwrap_or(body);
        if body.is_empty() {
            return Some(out);
        }
    }
}
