//! Quilted pages (Najork, seed 000): pages stitched together from patches of
//! text taken from several other pages.
//!
//! A page's k-grams ([`grams`]) that occur in more than one and at most `m`
//! documents are its *patch grams*; its *patch fraction* is their share of
//! its grams; its *sources* are a (greedy) minimal set of other pages whose
//! grams cover its patch grams. A page is (k, m, c, θ)-quilted when its patch
//! fraction is at least θ and it has at least c sources; the paper's pivot is
//! (5, 50, 4, 0.5).
//!
//! Exact, not sampled, in three steps that run in one process
//! (`crawlsieve quilts FILES`) or spread over machines:
//!
//! 1. [`collect`] — on each machine, over its part of the crawl: the docs
//!    table and one sorted grams file per partition (`gram % P`).
//! 2. [`patches`] — per partition, over every machine's grams file of that
//!    partition: the patch grams with their documents.
//! 3. [`cover`] — over every partition's patches and every docs table:
//!    patch fractions, covers, quilts (candidates split by key over workers).
//!
//! Memory is bounded by external sorting ([`crate::crawl::sort`]) in steps 1 and 3
//! and by the merge in step 2; step 3 also keeps a few dozen bytes per
//! document.

pub mod collect;
pub mod cover;
pub mod files;
pub mod grams;
pub mod patches;

/// The paper's pivot: words per gram.
pub const K: u8 = 5;
/// The paper's pivot: a patch gram is in at most this many documents.
pub const M: u32 = 50;
