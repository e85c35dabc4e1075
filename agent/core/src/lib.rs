//! crawlsieve's core: a page in, a verdict out, synchronously.
//!
//! For every fetched page, in one pass and a few milliseconds: does it carry
//! substantive text, what is its main content, which language, and was that
//! content copied from a labeled set of known content?
//!
//! ```no_run
//! use crawlsieve_core::{Page, Pipeline, Settings};
//! let pipeline = Pipeline::new(Settings::defaults()).unwrap();
//! let verdict = pipeline.process(&Page::new("https://example.com/", &b"<p>Hello</p>"[..]));
//! println!("{}", serde_json::to_string(&verdict).unwrap());
//! ```
//!
//! The modules follow a page's way: `input` (pages, decoding, sites, the file
//! sources) → `analyse` (one pass over the HTML) → `extract` (the main
//! content, the page's metadata) → `filters` → `language` → `fingerprints`
//! (chunks, stop chunks, shingles, SimHash) → `copies` (the fingerprints
//! against `labels`, the labeled sets) → `verdict` → `neighborhoods` (sites
//! judged by their pages) → `dedup` (content seen before) → `output` (where verdicts go, and the readers of
//! verdict streams). `pipeline` judges one page through them; `scan` runs it
//! over files on threads. The crawl-level analyses read many pages at once:
//! `styles`, `quilts`, `discovery` (counting chunks for blind sets), `corpus`
//! (an expert corpus for `labels build`), `report` (the HTML report of a
//! crawl's verdicts). `settings` puts every module's own section together.
//!
//! This crate has no async runtime and no broker or HTTP client in its
//! dependency tree: the long-running agent and the hub are `crawlsieve-daemon`,
//! the command line is `crawlsieve`.

pub mod analyse;
pub mod copies;
pub mod crawl;
pub mod dedup;
pub mod durable;
pub mod extract;
pub mod filters;
pub mod fingerprints;
pub mod input;
pub mod labels;
pub mod language;
pub mod letters;
pub mod neighborhoods;
pub mod output;
pub mod pipeline;
pub mod prefetch;
pub mod revisits;
pub mod scan;
pub mod settings;
pub mod settings_keys;
pub mod summary;
pub mod verdict;

pub use input::page::{Input, Origin, Page};
pub use pipeline::Pipeline;
pub use settings::Settings;
pub use verdict::{Kind, Reason, Verdict};
