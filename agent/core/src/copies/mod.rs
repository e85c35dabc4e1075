//! Copies: whether a page's content was copied from a labeled set — its
//! fingerprints (`fingerprints`) against the sets (`labels`), and the rules
//! that turn what they share into a decision.
//!
//! - `evidence`: whole content, chunks, shingles and SimHash against the
//!   labeled sets; each rule named in the verdict when it fires.

pub mod evidence;
