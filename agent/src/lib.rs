//! crawlsieve: a streaming filter for web crawlers.
//!
//! For every fetched page, in one pass and a few milliseconds: does it carry
//! substantive text, what is its main content, which language, and was that
//! content copied from a labeled set of known content?
//!
//! ```no_run
//! use crawlsieve::{Page, Pipeline, Settings};
//! let pipeline = Pipeline::new(Settings::defaults()).unwrap();
//! let verdict = pipeline.process(&Page::new("https://example.com/", &b"<p>Hello</p>"[..]));
//! println!("{}", serde_json::to_string(&verdict).unwrap());
//! ```
//!
//! The modules follow the data flow: `sources` → `decode` → `analyse` →
//! `extract` → filters (in `pipeline`) → `chunks` → `stopchunks` / `labels`
//! → `verdict` → `neighborhoods` → `sinks`. `scan` wires them with threads
//! for files; `daemon` is the long-running agent (HTTP, NATS, Kafka, WARC
//! directory in; JSONL, NATS, Kafka out); `hub` serves labeled sets;
//! `report` and `crawllog` read verdict streams back.

pub mod analyse;
pub mod cdxj;
pub mod chunks;
pub mod corpus;
pub mod crawllog;
pub mod daemon;
pub mod decode;
pub mod durable;
pub mod extract;
pub mod http;
pub mod hub;
pub mod labels;
pub mod language;
pub mod neighborhoods;
pub mod page;
pub mod pipeline;
pub mod quilts;
pub mod report;
pub mod scan;
pub mod settings;
pub mod shingles;
pub mod shutdown;
pub mod sinks;
pub mod site;
pub mod sort;
pub mod sources;
pub mod stopchunks;
pub mod styles;
pub mod summary;
pub mod verdict;

pub use page::{Input, Origin, Page};
pub use pipeline::Pipeline;
pub use settings::Settings;
pub use verdict::{Kind, Reason, Verdict};
