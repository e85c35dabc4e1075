//! Hidden style similarity (Urvoy et al., seed 003): pages made by the same
//! template or generator, found by their markup rather than their words.
//!
//! Chunk and shingle matching catch copied *text*; a link farm or a spun
//! site writes new words into the same skeleton, which they miss. Each page
//! gets a 128-dimension min-sampled fingerprint of its HTML noise
//! (`fingerprints::style`, opt-in in verdicts as `style_fp`: the per-page part), and `crawlsieve styles`
//! ranks a crawl against one page (`rank`, §4.1) or clusters it (`cluster`,
//! §3.4) in bounded memory (`store`).

pub mod cluster;
pub mod rank;
pub mod store;

pub use crate::fingerprints::style::{fingerprint, Fingerprint, STYLE_VERSION};
