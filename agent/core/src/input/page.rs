//! What a crawler hands over: one fetched page, and where it came from.
//!
//! A `Page` borrows where it can (`Cow`): a Rust crawler embedding the library
//! passes its own buffers without a copy; the bundled sources hand over owned
//! pages because they cross a thread boundary.

use serde::Serialize;
use std::borrow::Cow;

/// One fetched page.
#[derive(Debug, Clone)]
pub struct Page<'a> {
    pub url: Cow<'a, str>,
    /// HTTP status, when the source knows it.
    pub status: Option<u16>,
    /// The HTTP `Content-Type` header, when the source knows it (charset comes from here first).
    pub content_type: Option<Cow<'a, str>>,
    /// Fetch time as the source gives it (WARC-Date, RFC 3339).
    pub fetched_at: Option<Cow<'a, str>>,
    /// The payload: the HTML bytes, after transfer/content decoding, at most the size cap.
    pub body: Cow<'a, [u8]>,
    /// True when the source cut the body at the configured size cap.
    pub truncated: bool,
    /// True when the body is text the source decoded already (the `html`
    /// string of a JSON page, a Python `str`): its bytes are UTF-8 whatever
    /// the `Content-Type` or a `<meta charset>` says, since those describe
    /// bytes that no longer exist.
    pub utf8: bool,
    /// True when the body is extracted text, not HTML (a JSON page's
    /// `text`): each line is a paragraph of its content, as given.
    pub text: bool,
    /// The response headers that state the page's terms of use, as the
    /// source got them (`TERMS_HEADERS`; names lower case, in order, a
    /// repeated header once per occurrence). Other headers are not kept.
    pub headers: Vec<(String, String)>,
    /// Where the page came from.
    pub origin: Origin,
}

/// The HTTP response headers a page's terms of use come in: the robots
/// directives (`noai`, `noimageai`) of `X-Robots-Tag`, and the W3C TDM
/// Reservation Protocol's `tdm-reservation` and `tdm-policy`.
pub const TERMS_HEADERS: [&str; 3] = ["x-robots-tag", "tdm-reservation", "tdm-policy"];

/// Headers kept per page at most, and bytes of one value: a response
/// cannot make a page hold more, whatever it sends.
const MAX_HEADERS: usize = 16;
const MAX_HEADER_BYTES: usize = 2048;

impl<'a> Page<'a> {
    /// A page from a URL and its HTML bytes, with nothing else known.
    pub fn new(url: impl Into<Cow<'a, str>>, body: impl Into<Cow<'a, [u8]>>) -> Self {
        Page {
            url: url.into(),
            status: None,
            content_type: None,
            fetched_at: None,
            body: body.into(),
            truncated: false,
            utf8: false,
            text: false,
            headers: Vec::new(),
            origin: Origin::None,
        }
    }

    /// Keeps a response header when it is one of `TERMS_HEADERS` (any
    /// case); others are passed over. Sources call it for every header.
    pub fn keep_header(&mut self, name: &str, value: &str) {
        let Some(known) = TERMS_HEADERS
            .iter()
            .find(|k| k.eq_ignore_ascii_case(name.trim()))
        else {
            return;
        };
        if self.headers.len() < MAX_HEADERS {
            let mut value = value.trim();
            if value.len() > MAX_HEADER_BYTES {
                let mut end = MAX_HEADER_BYTES;
                while !value.is_char_boundary(end) {
                    end -= 1;
                }
                value = &value[..end];
            }
            self.headers.push((known.to_string(), value.to_string()));
        }
    }

    /// Sets the HTTP `Content-Type` (builder style).
    pub fn with_content_type(mut self, content_type: impl Into<Cow<'a, str>>) -> Self {
        self.content_type = Some(content_type.into());
        self
    }

    /// Sets where the page came from (builder style).
    pub fn with_origin(mut self, origin: Origin) -> Self {
        self.origin = origin;
        self
    }
}

/// Where a page (or a broken record) came from. Serialised into the verdict
/// so an operator can go back to the exact bytes.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Origin {
    #[default]
    None,
    /// A WARC or ARC record: file, byte offset of the record (of its gzip
    /// member in a `.warc.gz`, its LZ4 frame in a `.warc.lz4`), and its
    /// `WARC-Record-ID` (an ARC record has none).
    Warc {
        file: String,
        offset: u64,
        record_id: Option<String>,
        /// The record's type when it is not a `response`: `resource` (a page
        /// stored without HTTP, as browser-based crawlers write rendered
        /// pages), `revisit`.
        #[serde(skip_serializing_if = "Option::is_none")]
        record_type: Option<String>,
        /// `WARC-Payload-Digest`: what a revisit record names the capture
        /// it repeats by. Not written out.
        #[serde(skip)]
        payload_digest: Option<String>,
    },
    /// A line of a JSONL file (1-based), or of stdin (`file` = "-").
    Jsonl { file: String, line: u64 },
    /// An HTML file given on the command line.
    File { file: String },
    /// A page handed over by a crawler through an ingest interface.
    Ingest { id: String },
}

impl Origin {
    /// The WARC record id, when there is one: it is the verdict's stable id.
    pub fn record_id(&self) -> Option<&str> {
        match self {
            Origin::Warc { record_id, .. } => record_id.as_deref(),
            _ => None,
        }
    }
}

/// What a source yields: a page, or a record that could not be made into one.
/// Both get exactly one verdict.
#[derive(Debug)]
pub enum Input {
    Page(Page<'static>),
    Broken(Broken),
    /// A WARC `revisit` record: a crawler's "same content as the capture it
    /// refers to", stored without the content.
    Revisit(Revisit),
}

/// A revisit record: where it is, and the capture it repeats.
#[derive(Debug, Clone)]
pub struct Revisit {
    pub url: String,
    pub origin: Origin,
    pub fetched_at: Option<String>,
    pub status: Option<u16>,
    pub of: RevisitOf,
}

/// The capture a revisit record repeats, as the record names it: any of its
/// record id (`WARC-Refers-To`), its URL and date
/// (`WARC-Refers-To-Target-URI`, `WARC-Refers-To-Date`) and the payload
/// digest they share.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct RevisitOf {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload_digest: Option<String>,
    /// The revisit's profile: `identical-payload-digest`, `server-not-modified`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
}

/// A record a source could read far enough to know it is a page, but not
/// far enough to judge it (bad content-encoding, bad JSONL line, cut-off
/// WARC record...). It becomes an `error` verdict carrying `reason`.
#[derive(Debug, Clone)]
pub struct Broken {
    pub url: Option<String>,
    pub origin: Origin,
    pub reason: String,
}
