//! Blind discovery's counting (Ardi & Heidemann §3.2): how often each chunk
//! and shingle occurs across a crawl, added up exactly wherever it was
//! counted, and the threshold applied once to the sum.
//!
//! - `count`: counting a corpus in bounded memory (sorted runs), count
//!   files, their merge by addition, and `discover` (the threshold);
//! - `totals`: a running total kept on disk that batches from many agents
//!   are merged into exactly once (the hub's store of a blind set);
//! - `running`: streaming discovery's in-memory totals for one key range,
//!   each key announced once as it crosses the threshold;
//! - `slices`: streaming discovery's messages (a batch dealt into key
//!   ranges, a crossing announced) and the topics they travel on.

pub mod count;
pub mod running;
pub mod shares;
pub mod slices;
pub mod totals;
