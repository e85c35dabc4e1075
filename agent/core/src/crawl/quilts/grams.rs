//! A page's k-grams (seed 000 §2): every run of `k` consecutive words of its
//! content, hashed.
//!
//! # Specification, version 1
//!
//! Input: the page's extracted content, paragraphs separated by `\n`.
//!
//! 1. Each paragraph is normalised as chunks are (`chunks::normalise`: NFKC,
//!    case folding, whitespace collapsed), then split into words as shingles
//!    split them (`shingles::words`: letters and digits; punctuation ends a
//!    word; each character of a script written without spaces is a word).
//! 2. The page is one sequence of words, paragraph after paragraph: the paper
//!    treats a document as one sequence of terms, so a gram may span two
//!    paragraphs.
//! 3. Word hash: XXH3-64 (seed 0) of the word's UTF-8 bytes. Gram hash:
//!    XXH3-64 (seed 0) of the `k` word hashes, each as 8 little-endian bytes.
//!    (With the same `k` these are the word shingles of `shingles`, not
//!    sampled, not cut at paragraphs.)
//! 4. `grams_k(d)` is the *set* of gram hashes: a gram repeated on a page
//!    counts once, as in the paper's definition. A page of fewer than `k`
//!    words has no grams.

use xxhash_rust::xxh3::xxh3_64;

/// Bumped whenever the specification above changes; written in every grams
/// and patches file, so files of different versions are never merged.
pub const GRAMS_VERSION: u8 = 1;

/// The distinct gram hashes of `content`, ascending.
pub fn grams(content: &str, k: usize) -> Vec<u64> {
    assert!(k >= 1, "k is at least 1");
    let mut words = Vec::new();
    let mut normalised = String::new();
    for paragraph in content.split('\n') {
        crate::fingerprints::chunks::normalise(paragraph, &mut normalised);
        crate::fingerprints::shingles::words(&normalised, |w| words.push(xxh3_64(w.as_bytes())));
    }
    if words.len() < k {
        return Vec::new();
    }
    let mut bytes = Vec::with_capacity(8 * k);
    let mut out: Vec<u64> = words
        .windows(k)
        .map(|w| {
            bytes.clear();
            for h in w {
                bytes.extend_from_slice(&h.to_le_bytes());
            }
            xxh3_64(&bytes)
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grams_are_a_set_that_ignores_case_punctuation_and_paragraphs() {
        let a = grams("The quick brown fox jumps.\nOver the lazy dog", 5);
        let b = grams("the QUICK brown, fox jumps over the lazy dog!", 5);
        assert_eq!(a, b);
        assert_eq!(a.len(), 5, "9 words, 5 grams");
        assert_eq!(
            grams("one two three four five one two three four five", 5).len(),
            5
        );
        assert!(grams("too short", 5).is_empty());
        // Pinned: the specification's hash of one gram, so that files from
        // other builds and machines merge.
        assert_eq!(grams("a b c d e", 5), vec![grams("A, B; C. D! E", 5)[0]]);
        assert_eq!(format!("{:016x}", grams("a b c d e", 5)[0]), PINNED);
    }

    // Computed independently: Python `xxhash.xxh3_64` over the five word hashes.
    const PINNED: &str = "68c5f751d2da9428";
}
