//! `crawlsieve._native`: the pipeline in a Python process.
//!
//! Verdicts and documents cross into Python as JSON text read by the
//! standard `json` module: one schema, the JSONL output's, with no second
//! serialiser to keep in step. Judging happens with the GIL released, so
//! Python threads (and `process_many`'s own worker threads) judge pages in
//! parallel.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyTuple};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

mod corpus;

/// `count_file`'s answer: a blob per key range, and the walk's figures.
type RangeCounts = (Vec<(u32, Py<PyBytes>)>, Py<PyAny>);

/// A page as Python hands it over, copied out of Python objects.
struct PageIn {
    url: String,
    body: Body,
    content_type: Option<String>,
    status: Option<u16>,
    /// The page's response headers (those that state its terms are kept).
    headers: Vec<(String, String)>,
}

impl PageIn {
    fn page(&self, max_bytes: usize) -> crawlsieve_core::Page<'_> {
        let bytes = &self.body.bytes;
        let truncated = bytes.len() > max_bytes;
        let mut page =
            crawlsieve_core::Page::new(self.url.as_str(), &bytes[..bytes.len().min(max_bytes)]);
        page.utf8 = self.body.utf8;
        page.content_type = self.content_type.as_deref().map(Into::into);
        page.status = self.status;
        page.truncated = truncated;
        for (name, value) in &self.headers {
            page.keep_header(name, value);
        }
        page
    }
}

/// Response headers as Python holds them: a mapping (a dict, Scrapy's
/// `response.headers`, requests' `CaseInsensitiveDict`) or a list of
/// pairs; names and values `str` or `bytes`, a value or a list of them.
fn headers_of(headers: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<(String, String)>> {
    let Some(h) = headers.filter(|h| !h.is_none()) else {
        return Ok(Vec::new());
    };
    let text = |o: &Bound<'_, PyAny>| -> PyResult<String> {
        match o.cast::<PyBytes>() {
            Ok(b) => Ok(String::from_utf8_lossy(b.as_bytes()).into_owned()),
            Err(_) => o.extract::<String>(),
        }
    };
    let pairs = if h.hasattr("items")? {
        h.call_method0("items")?
    } else {
        h.clone()
    };
    let mut out = Vec::new();
    for pair in pairs.try_iter()? {
        let (name, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = pair?.extract()?;
        let name = text(&name)?;
        if value.cast::<PyString>().is_ok() || value.cast::<PyBytes>().is_ok() {
            out.push((name, text(&value)?));
        } else {
            for v in value.try_iter()? {
                out.push((name.clone(), text(&v?)?));
            }
        }
    }
    Ok(out)
}

/// A page body and whether Python handed it over as text.
struct Body {
    bytes: Vec<u8>,
    utf8: bool,
}

/// `bytes` as they are; `str` as UTF-8 (its charset is then UTF-8, whatever
/// the page's `<meta charset>` says: `Page::utf8`).
fn body_of(body: &Bound<'_, PyAny>) -> PyResult<Body> {
    if let Ok(b) = body.cast::<PyBytes>() {
        Ok(Body {
            bytes: b.as_bytes().to_vec(),
            utf8: false,
        })
    } else if let Ok(s) = body.cast::<PyString>() {
        Ok(Body {
            bytes: s.extract::<String>()?.into_bytes(),
            utf8: true,
        })
    } else {
        Err(PyTypeError::new_err("a page body is bytes or str"))
    }
}

/// One item of `process_many`: `(url, body)`, `(url, body, content_type)`,
/// or a dict with `url` and `body` (or `html`), optionally `content_type`, `status`, `headers`.
fn page_of(item: &Bound<'_, PyAny>) -> PyResult<PageIn> {
    if let Ok(t) = item.cast::<PyTuple>() {
        let content_type = match t.len() {
            2 => None,
            3 => t.get_item(2)?.extract()?,
            n => {
                return Err(PyValueError::new_err(format!(
                    "a page tuple is (url, body[, content_type]), not {n} items"
                )))
            }
        };
        return Ok(PageIn {
            url: t.get_item(0)?.extract()?,
            body: body_of(&t.get_item(1)?)?,
            content_type,
            status: None,
            headers: Vec::new(),
        });
    }
    let d = item
        .cast::<PyDict>()
        .map_err(|_| PyTypeError::new_err("a page is a (url, body) tuple or a dict"))?;
    let url = d
        .get_item("url")?
        .ok_or_else(|| PyValueError::new_err("a page dict needs `url`"))?;
    let body = match d.get_item("body")? {
        Some(b) => b,
        None => d
            .get_item("html")?
            .ok_or_else(|| PyValueError::new_err("a page dict needs `body` or `html`"))?,
    };
    Ok(PageIn {
        url: url.extract()?,
        body: body_of(&body)?,
        content_type: match d.get_item("content_type")? {
            Some(c) if !c.is_none() => Some(c.extract()?),
            _ => None,
        },
        status: match d.get_item("status")? {
            Some(s) if !s.is_none() => Some(s.extract()?),
            _ => None,
        },
        headers: headers_of(d.get_item("headers")?.as_ref())?,
    })
}

fn from_json(py: Python<'_>, text: &str) -> PyResult<Py<PyAny>> {
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

/// A whole file's JSON lines and its run's summary, made with the GIL
/// released: the lines as strings, the summary as a dict.
fn lines_and_summary(
    py: Python<'_>,
    run: impl FnOnce() -> anyhow::Result<(Vec<String>, String)> + Send,
) -> PyResult<(Vec<String>, Py<PyAny>)> {
    let (lines, summary) = py.detach(run).map_err(value_error)?;
    Ok((lines, from_json(py, &summary)?))
}

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Judges pages: `Pipeline(config=None, labels=None, public_key=None, content=False)`.
///
/// `config`: a TOML file (keys as in docs/configuration.md); `labels`: labeled-set files
/// (`.cslab`, signed, or text lists); `public_key`: the hub's ed25519 public
/// key, 64 hex digits or a file holding them — required for signed sets,
/// whose signatures are checked on load; `content`: every verdict carries the
/// extracted main content (`content`). Safe to share between threads.
#[pyclass(frozen, module = "crawlsieve._native")]
struct Pipeline {
    inner: Arc<crawlsieve_core::Pipeline>,
    max_bytes: usize,
}

#[pymethods]
impl Pipeline {
    #[new]
    #[pyo3(signature = (config=None, labels=None, public_key=None, content=false, dedup_signatures=false))]
    fn new(
        config: Option<PathBuf>,
        labels: Option<Vec<PathBuf>>,
        public_key: Option<String>,
        content: bool,
        dedup_signatures: bool,
    ) -> PyResult<Self> {
        let mut overrides: Vec<(&str, config::Value)> = Vec::new();
        if content {
            overrides.push(("output.content", true.into()));
        }
        if let Some(key) = &public_key {
            let name = if std::path::Path::new(key).is_file() {
                "labels.public_key_file"
            } else {
                "labels.public_key"
            };
            overrides.push((name, key.clone().into()));
        }
        let mut settings =
            crawlsieve_core::Settings::load(config.as_deref(), &overrides).map_err(value_error)?;
        settings.labels.files.extend(labels.unwrap_or_default());
        settings.dedup.signatures_only = dedup_signatures;
        let max_bytes = settings.input.max_page_bytes;
        let inner = crawlsieve_core::Pipeline::new(settings).map_err(value_error)?;
        Ok(Pipeline {
            inner: Arc::new(inner),
            max_bytes,
        })
    }

    /// The verdict on one page, as a dict (the JSONL schema).
    #[pyo3(signature = (url, body, content_type=None, status=None, headers=None))]
    fn process(
        &self,
        py: Python<'_>,
        url: String,
        body: &Bound<'_, PyAny>,
        content_type: Option<String>,
        status: Option<u16>,
        headers: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let page = PageIn {
            url,
            body: body_of(body)?,
            content_type,
            status,
            headers: headers_of(headers)?,
        };
        let json =
            py.detach(|| serde_json::to_string(&self.inner.process(&page.page(self.max_bytes))));
        from_json(py, &json.map_err(value_error)?)
    }

    /// Verdicts on many pages, in their order, judged by `threads` threads
    /// (default: one per core) with the GIL released. Each page is a
    /// `(url, body)` tuple or a dict (`url`, `body` or `html`, `content_type`, `status`).
    #[pyo3(signature = (pages, threads=None))]
    fn process_many(
        &self,
        py: Python<'_>,
        pages: &Bound<'_, PyAny>,
        threads: Option<usize>,
    ) -> PyResult<Vec<Py<PyAny>>> {
        let pages: Vec<PageIn> = pages
            .try_iter()?
            .map(|item| page_of(&item?))
            .collect::<PyResult<_>>()?;
        let threads = threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .clamp(1, pages.len().max(1));
        let texts = py.detach(|| self.judge_all(&pages, threads));
        texts
            .iter()
            .map(|t| from_json(py, t.as_ref().map_err(value_error)?))
            .collect()
    }

    /// The main content and metadata of one HTML page, as a dict: `title`,
    /// `author`, `date`, `language`, `page_type`, `words`, `text`, `markdown`, …
    /// (the fields of `crawlsieve extract --format json`).
    #[pyo3(signature = (html, url=None))]
    fn extract(
        &self,
        py: Python<'_>,
        html: &Bound<'_, PyAny>,
        url: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        let page = PageIn {
            url: url.unwrap_or_default(),
            body: body_of(html)?,
            content_type: None,
            status: None,
            headers: Vec::new(),
        };
        let json = py.detach(|| -> Result<String, String> {
            let doc = self
                .inner
                .extractor()
                .document(&page.page(self.max_bytes), true)
                .map_err(|e| e.to_string())?;
            serde_json::to_string(&doc).map_err(|e| e.to_string())
        });
        from_json(py, &json.map_err(value_error)?)
    }

    /// Counts the chunks and sampled shingles of one input file (WARC, JSONL,
    /// HTML or text; or a directory) as `crawlsieve labels count` does, added
    /// up by (chunk, site) and dealt into `ranges` key ranges:
    /// `([(range, blob), ...], {"documents", "failed"})`, each blob packed
    /// records (20-byte SHA-1, then little-endian u64 site key and count) in
    /// hash order. Blind discovery sends each range's blobs to one task, which
    /// adds them up exactly (`add_up`).
    #[pyo3(signature = (path, ranges=1, threads=1))]
    fn count_file(
        &self,
        py: Python<'_>,
        path: String,
        ranges: u32,
        threads: usize,
    ) -> PyResult<RangeCounts> {
        let c = py
            .detach(|| corpus::count_file(&self.inner, &path, threads, ranges))
            .map_err(value_error)?;
        let stats = PyDict::new(py);
        stats.set_item("documents", c.documents)?;
        stats.set_item("failed", c.failed)?;
        let ranges = c
            .ranges
            .iter()
            .map(|(r, blob)| (*r, PyBytes::new(py, blob).unbind()))
            .collect();
        Ok((ranges, stats.into_any().unbind()))
    }

    /// Judges every page of one input file as `crawlsieve scan` does (an
    /// unreadable record or file is an `error` verdict): `(verdicts, summary)`,
    /// the verdicts as JSON lines in input order, the summary as a dict. Site
    /// flags are left out: they need every page of a site, not one file's.
    #[pyo3(signature = (path, threads=1))]
    fn judge_file(
        &self,
        py: Python<'_>,
        path: String,
        threads: usize,
    ) -> PyResult<(Vec<String>, Py<PyAny>)> {
        lines_and_summary(py, || corpus::judge_file(&self.inner, &path, threads))
    }

    /// The estimated Jaccard similarity at or above which pages are near
    /// duplicates (`dedup.threshold`).
    #[getter]
    fn dedup_threshold(&self) -> f64 {
        self.inner.settings().dedup.threshold
    }

    /// The batch-deduplication signature of every page of one input file kept
    /// or flagged with content, as `crawlsieve dedup --signatures-only` writes
    /// them: `(signatures, summary)`, JSON lines and a dict. The Pipeline must
    /// be made with `dedup_signatures=True`.
    #[pyo3(signature = (path, threads=1))]
    fn dedup_signatures_file(
        &self,
        py: Python<'_>,
        path: String,
        threads: usize,
    ) -> PyResult<(Vec<String>, Py<PyAny>)> {
        lines_and_summary(py, || corpus::signatures_file(&self.inner, &path, threads))
    }

    /// Blind discovery's last step, as `crawlsieve labels discover` takes it:
    /// totals added up by hash (`add_up`'s records: SHA-1, count, distinct
    /// sites), the threshold (kept: seen more than `threshold` times) and the
    /// stop chunks applied once, the set signed with the ed25519 key file `key`
    /// and written to `output`. With `propose_stop`, frequent chunks seen on at
    /// least `stop_min_sites` sites are written there for review. Returns what
    /// was found.
    #[pyo3(signature = (totals, threshold, name, key, output, version=1, propose_stop=None, stop_min_sites=100))]
    #[allow(clippy::too_many_arguments)]
    fn discover_set(
        &self,
        py: Python<'_>,
        totals: &[u8],
        threshold: u64,
        name: String,
        key: PathBuf,
        output: PathBuf,
        version: u64,
        propose_stop: Option<PathBuf>,
        stop_min_sites: u64,
    ) -> PyResult<Py<PyAny>> {
        let request = corpus::SetRequest {
            threshold,
            name: &name,
            version,
            key: &key,
            output: &output,
            propose_stop: propose_stop.as_deref(),
            stop_min_sites,
        };
        let made = py
            .detach(|| corpus::discover_set(&self.inner, totals, &request))
            .map_err(value_error)?;
        let d = PyDict::new(py);
        d.set_item("keys", made.keys)?;
        d.set_item("chunks_read", made.chunks_read)?;
        d.set_item("stop_chunks_skipped", made.stop_chunks_skipped)?;
        d.set_item("stop_candidates", made.stop_candidates)?;
        Ok(d.into_any().unbind())
    }
}

impl Pipeline {
    /// Each page's verdict as JSON, in input order; threads take the next
    /// page as they finish (pages differ in cost by orders of magnitude).
    fn judge_all(&self, pages: &[PageIn], threads: usize) -> Vec<serde_json::Result<String>> {
        let next = AtomicUsize::new(0);
        let mut done: Vec<(usize, serde_json::Result<String>)> = std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(|| {
                        let mut out = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(p) = pages.get(i) else { break out };
                            let v = self.inner.process(&p.page(self.max_bytes));
                            out.push((i, serde_json::to_string(&v)));
                        }
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().expect("a judging thread panicked"))
                .collect()
        });
        done.sort_unstable_by_key(|(i, _)| *i);
        done.into_iter().map(|(_, t)| t).collect()
    }
}

/// The files a list of inputs names, directories walked in order as the
/// binary walks them: WARC, JSONL and HTML files, and with `text` plain-text
/// documents too (what `labels` reads). A path that does not exist is an error.
#[pyfunction]
#[pyo3(signature = (paths, text=false))]
fn expand_inputs(paths: Vec<String>, text: bool) -> PyResult<Vec<String>> {
    let expanded = if text {
        crawlsieve_core::input::sources::expand_documents(&paths)
    } else {
        crawlsieve_core::input::sources::expand_inputs(&paths)
    };
    expanded.map_err(value_error)
}

/// Adds up one key range's count blobs (from `count_file`, every file's
/// blob of that range) exactly: per chunk the occurrences summed and the
/// distinct sites counted; the chunks seen more than `threshold` times, as
/// packed records (20-byte SHA-1, little-endian u64 count and sites) in hash
/// order, for `Pipeline.discover_set`.
#[pyfunction]
fn add_up(py: Python<'_>, blobs: Vec<Vec<u8>>, threshold: u64) -> PyResult<Py<PyBytes>> {
    let slices: Vec<&[u8]> = blobs.iter().map(Vec::as_slice).collect();
    let out = py
        .detach(|| crawlsieve_core::crawl::discovery::count::add_up(&slices, threshold))
        .map_err(value_error)?;
    Ok(PyBytes::new(py, &out).unbind())
}

/// Clusters the signature lines of a whole crawl (`dedup_signatures_file`'s,
/// from every file) as `crawlsieve dedup --from-signatures` does:
/// `(clusters, keep)`, the clusters as JSON lines and the pages to keep as
/// `(id, url)` pairs, each in order. `siblings`: `together` or `apart`.
#[pyfunction]
#[pyo3(signature = (signatures, threshold=0.5, siblings="together"))]
fn dedup_clusters(
    py: Python<'_>,
    signatures: Vec<String>,
    threshold: f64,
    siblings: &str,
) -> PyResult<corpus::Clusters> {
    py.detach(|| corpus::clusters(&signatures, threshold, siblings))
        .map_err(value_error)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Pipeline>()?;
    m.add_function(wrap_pyfunction!(expand_inputs, m)?)?;
    m.add_function(wrap_pyfunction!(add_up, m)?)?;
    m.add_function(wrap_pyfunction!(dedup_clusters, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
