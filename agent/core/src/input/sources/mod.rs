//! Sources: where pages come from. Each yields `Input`s — pages, or broken
//! records that still get a verdict — and counts what it skipped.

pub mod html;
pub mod jsonl;
pub mod warc;

use crate::input::page::Input;
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
    /// WARC `resource` records of those content types are pages too.
    pub resource_records: bool,
}

impl Limits {
    /// Whether a `Content-Type` value (parameters and case aside) is a page's.
    pub fn is_page_type(&self, content_type: &str) -> bool {
        let mime = content_type.split(';').next().unwrap_or("").trim();
        self.html_content_types
            .iter()
            .any(|t| t.eq_ignore_ascii_case(mime))
    }

    pub fn new(s: &super::InputSettings) -> Self {
        Limits {
            max_page_bytes: s.max_page_bytes,
            html_content_types: s
                .html_content_types
                .iter()
                .map(|t| t.to_ascii_lowercase())
                .collect(),
            resource_records: s.resource_records,
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

/// What kind of input a stream holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Warc,
    Jsonl,
    Html,
}

/// The format a file's name says (`.warc`, `.jsonl`, `.html`, each plain or
/// `.gz`), or `None` when the name says nothing and the bytes must.
///
/// The name comes first because the bytes can mislead: a JSONL file whose
/// first line was cut, or a WARC file that is empty, would otherwise be
/// taken as one HTML page and its real pages lost without a word.
pub fn format_from_name(path: &str) -> Option<Format> {
    let name = path.to_ascii_lowercase();
    if warc::Container::from_name(&name).is_some() {
        // WARC and ARC, plain, gzip or LZ4 (the reader tells them apart by content).
        return Some(Format::Warc);
    }
    let base = name.strip_suffix(".gz").unwrap_or(&name);
    if base.ends_with(".warc") {
        Some(Format::Warc)
    } else if [".jsonl", ".json", ".ndjson"]
        .iter()
        .any(|e| base.ends_with(e))
    {
        Some(Format::Jsonl)
    } else if [".html", ".htm", ".xhtml", ".txt"]
        .iter()
        .any(|e| base.ends_with(e))
    {
        Some(Format::Html)
    } else {
        None
    }
}

/// Opens an input by path (`-` is stdin). The format comes from the name
/// (`format_from_name`), from the first bytes only when the name says nothing.
///
/// A path that does not exist is an error here: that is a mistake in the
/// command, reported before any page is judged. Anything else that keeps a
/// file from being read — permission denied, a directory that cannot be
/// listed, a corrupt gzip stream — is the disk's or the web's doing: the
/// file becomes one `error` verdict (its path, the OS error) and the other
/// inputs are judged. An empty file is an input problem (named, failing
/// `--fail-on-error`), not a page.
pub fn open(path: &str, limits: &Limits) -> anyhow::Result<Box<dyn Source>> {
    let limits = limits.clone();
    if path == "-" {
        return Ok(Box::new(StdinSource { limits }));
    }
    let unreadable = |reason: String| -> anyhow::Result<Box<dyn Source>> {
        Ok(Box::new(Unreadable {
            path: path.to_string(),
            reason,
        }))
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        // A link whose target is gone is there, and unreadable.
        Err(e)
            if e.kind() == io::ErrorKind::NotFound && std::fs::symlink_metadata(path).is_err() =>
        {
            anyhow::bail!("{path}: {e}")
        }
        Err(e) => return unreadable(format!("unreadable input: {e}")),
    };
    if meta.is_dir() {
        // Only a directory that could not be listed gets here (`expand`).
        let why = std::fs::read_dir(path)
            .err()
            .map_or_else(|| "not a file".to_string(), |e| e.to_string());
        return unreadable(format!("unreadable directory: {why}"));
    }
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => anyhow::bail!("{path}: {e}"),
        Err(e) => return unreadable(format!("unreadable input: {e}")),
    };
    if meta.len() == 0 && meta.is_file() {
        return Ok(Box::new(Empty {
            path: path.to_string(),
        }));
    }
    let format = match format_from_name(path) {
        Some(f) => f,
        None => match sniff(&mut BufReader::new(file)) {
            Ok(format) => format,
            Err(e) => return unreadable(format!("unreadable input: {e}")),
        },
    };
    Ok(match format {
        Format::Warc => Box::new(warc::WarcSource::new(PathBuf::from(path), limits)),
        Format::Jsonl => Box::new(jsonl::JsonlSource::new(PathBuf::from(path), limits)),
        Format::Html => Box::new(html::HtmlFileSource::new(PathBuf::from(path), limits)),
    })
}

/// A file that could not be read from its first bytes: one broken input,
/// which is its `error` verdict.
struct Unreadable {
    path: String,
    reason: String,
}

impl Source for Unreadable {
    fn name(&self) -> String {
        self.path.clone()
    }

    fn run(&mut self, emit: &mut Emit<'_>, _: &mut SourceStats) -> anyhow::Result<()> {
        emit(Input::Broken(crate::input::page::Broken {
            url: Some(file_url(&self.path)),
            origin: crate::input::page::Origin::File {
                file: self.path.clone(),
            },
            reason: self.reason.clone(),
        }))
    }
}

/// `file://` and the absolute path (not resolved: a link that cannot be
/// followed still has a name).
pub fn file_url(path: &str) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| PathBuf::from(path));
    url::Url::from_file_path(&abs)
        .map(|u| u.to_string())
        .unwrap_or_else(|_| path.to_string())
}

/// A file of zero bytes: no page in it, which the summary names.
struct Empty {
    path: String,
}

impl Source for Empty {
    fn name(&self) -> String {
        self.path.clone()
    }

    fn run(&mut self, _: &mut Emit<'_>, stats: &mut SourceStats) -> anyhow::Result<()> {
        stats.failures.push(format!("{}: empty file", self.path));
        Ok(())
    }
}

/// File names a directory walk picks up: the formats the sources read, plain
/// or gzipped.
const WALKED: &[&str] = &[
    ".warc", ".arc", ".jsonl", ".json", ".ndjson", ".html", ".htm", ".xhtml",
];

/// Whether a directory walk takes this file name: a known extension (plain
/// or `.gz`), not hidden, not a file still being written (`.open`, `.tmp`).
/// `.txt` only when `text` (`labels build` reads plain-text documents; a
/// scan would judge a README as a page).
pub fn walked_name(name: &str, text: bool) -> bool {
    if name.starts_with('.') {
        return false;
    }
    let name = name.to_ascii_lowercase();
    let base = name.strip_suffix(".gz").unwrap_or(&name);
    WALKED.iter().any(|ext| base.ends_with(ext))
        || (text && base.ends_with(".txt"))
        || warc::Container::from_name(&name).is_some()
}

/// Expands the inputs of a command: a directory becomes the files below it
/// that `walked_name` accepts, in sorted path order (so two runs over the
/// same tree read pages in the same order); files and `-` stay as they are.
/// A directory that holds no such file is an error: it is almost always the
/// wrong directory.
pub fn expand_inputs(inputs: &[String]) -> anyhow::Result<Vec<String>> {
    expand(inputs, false)
}

/// As `expand_inputs`, also taking `.txt` files (plain-text documents, for `labels build`).
pub fn expand_documents(inputs: &[String]) -> anyhow::Result<Vec<String>> {
    expand(inputs, true)
}

fn expand(inputs: &[String], text: bool) -> anyhow::Result<Vec<String>> {
    let mut out = Vec::with_capacity(inputs.len());
    for input in inputs {
        let path = Path::new(input);
        if input == "-" || !path.is_dir() {
            out.push(input.clone());
            continue;
        }
        let before = out.len();
        let mut files = Vec::new();
        walk_dir(path, text, &mut files);
        files.sort();
        out.extend(files.into_iter().map(|p| p.to_string_lossy().into_owned()));
        anyhow::ensure!(
            out.len() > before,
            "{input}: directory holds no WARC, JSONL or HTML file{}",
            if text { " nor text file" } else { "" }
        );
    }
    Ok(out)
}

/// The files below `dir` that `walked_name` accepts. A directory or entry
/// that cannot be read is taken as an input all the same: `open` makes it an
/// `error` verdict naming the OS error, so it is accounted for and the walk
/// goes on.
fn walk_dir(dir: &Path, text: bool, out: &mut Vec<PathBuf>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(_) => return out.push(dir.to_path_buf()),
    };
    for entry in entries {
        let Ok(entry) = entry else {
            out.push(dir.to_path_buf());
            continue;
        };
        let name = entry.file_name();
        let name = name.to_string_lossy();
        // file_type does not follow links: a link to a directory is not walked
        // (no cycles), a link to a file is read like a file.
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => {
                if !name.starts_with('.') {
                    walk_dir(&entry.path(), text, out);
                }
            }
            // Files, links to files, and links that cannot be followed (gone,
            // a loop: `open` says which); not directories, pipes or devices.
            Ok(_) if walked_name(&name, text) && walked_file(&entry.path()) => {
                out.push(entry.path())
            }
            Ok(_) => {}
            Err(_) if walked_name(&name, text) => out.push(entry.path()),
            Err(_) => {}
        }
    }
}

/// A regular file, or a link that cannot be followed.
fn walked_file(path: &Path) -> bool {
    std::fs::metadata(path).map_or(true, |m| m.is_file())
}

/// Recognises WARC or ARC (`WARC/`, `filedesc://`, an LZ4 frame), JSONL
/// (`{`) or HTML (anything else), looking through gzip.
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
    if trimmed.starts_with(b"WARC/")
        || trimmed.starts_with(b"filedesc://")
        || head.starts_with(&warc::LZ4_MAGIC)
    {
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
    read_capped_sized(r, max, 0)
}

/// [`read_capped`] into a buffer made for `expected` bytes: a body read
/// into one that doubles is copied at each step wherever the allocator
/// cannot grow it in place.
pub fn read_capped_sized(
    r: &mut impl Read,
    max: usize,
    expected: usize,
) -> io::Result<(Vec<u8>, bool)> {
    let mut body = Vec::with_capacity(expected.min(max).saturating_add(1));
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
            Format::Html => html::read_one(r, "-", "stdin:", &self.limits, 0, emit),
        }
    }
}

/// A JSONL file whose first line is a verdict (has `verdict` or `style_fp`):
/// what `styles` and `quilts` read verdicts from instead of pages.
pub fn is_verdict_file(path: &Path) -> anyhow::Result<bool> {
    let name = path.to_string_lossy().to_ascii_lowercase();
    let base = name.strip_suffix(".gz").unwrap_or(&name);
    if ![".jsonl", ".json", ".ndjson"]
        .iter()
        .any(|e| base.ends_with(e))
    {
        return Ok(false);
    }
    let mut r = open_maybe_gz(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let mut first = String::new();
    r.read_line(&mut first)?;
    Ok(serde_json::from_str::<serde_json::Value>(&first)
        .map(|v| v.get("verdict").is_some() || v.get("style_fp").is_some())
        .unwrap_or(false))
}

/// Reads a verdict file (plain or `.gz`) line by line as `T`, with each
/// line's number; blank lines are skipped, and a line that is not a `T` is
/// handed to `broken` (with its number) and skipped. Returns the number of
/// lines skipped so.
pub fn read_verdict_lines<T: serde::de::DeserializeOwned>(
    path: &Path,
    mut broken: impl FnMut(usize, &serde_json::Error),
    mut each: impl FnMut(usize, T) -> anyhow::Result<()>,
) -> anyhow::Result<u64> {
    let r = open_maybe_gz(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let mut skipped = 0;
    for (n, line) in r.lines().enumerate() {
        let line = line.map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(&line) {
            Ok(v) => each(n + 1, v)?,
            Err(e) => {
                broken(n + 1, &e);
                skipped += 1;
            }
        }
    }
    Ok(skipped)
}
