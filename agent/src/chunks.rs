//! Chunks: the content's paragraphs, normalised and hashed (seed 001 §3.1).
//!
//! The normalisation is part of the labeled-set format: a set built on one
//! machine must match on every other, so it is specified exactly (README,
//! "Chunk normalisation"), versioned (`NORMALISATION_VERSION`), and done by
//! well-kept Unicode crates rather than locale-dependent library calls:
//!
//! 1. NFKC (`unicode-normalization`),
//! 2. full Unicode default case folding (`caseless`, CaseFolding.txt C+F),
//! 3. NFKC again (folding can leave a string that is not NFKC),
//! 4. every run of `White_Space` characters becomes one U+0020; leading and
//!    trailing whitespace is removed.
//!
//! The chunk hash is SHA-1 of the UTF-8 bytes of the result. The whole-content
//! hash is SHA-1 of all normalised chunks of the page joined with `\n`.
//! ASCII paragraphs take a fast path with the same result (NFKC is the
//! identity on ASCII, and folding is ASCII lower-casing).

use crate::shingles::Shingler;
use caseless::Caseless;
use sha1::{Digest, Sha1};
use std::borrow::Cow;
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// Bumped whenever the normalisation changes; labeled sets record it.
pub const NORMALISATION_VERSION: u8 = 1;

/// A SHA-1 digest.
pub type Hash = [u8; 20];

/// Writes the normalised form of `paragraph` into `out` (cleared first).
pub fn normalise(paragraph: &str, out: &mut String) {
    out.clear();
    if paragraph.is_ascii() {
        collapse(
            paragraph.bytes().map(|b| b.to_ascii_lowercase() as char),
            out,
        );
        return;
    }
    // Most text is NFKC already (the quick check says so without
    // normalising), and most of its characters are ASCII: both shortcuts skip
    // work without changing the result.
    let nfkc: Cow<str> = if is_nfkc_quick(paragraph.chars()) == IsNormalized::Yes {
        Cow::Borrowed(paragraph)
    } else {
        Cow::Owned(paragraph.nfkc().collect())
    };
    let mut folded = String::with_capacity(nfkc.len());
    for c in nfkc.chars() {
        if c.is_ascii() {
            folded.push(c.to_ascii_lowercase());
        } else {
            folded.extend(std::iter::once(c).default_case_fold());
        }
    }
    if is_nfkc_quick(folded.chars()) == IsNormalized::Yes {
        collapse(folded.chars(), out);
    } else {
        collapse(folded.nfkc(), out);
    }
}

fn collapse(chars: impl Iterator<Item = char>, out: &mut String) {
    let mut space = false;
    for c in chars {
        if c.is_whitespace() {
            space = !out.is_empty();
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
}

/// SHA-1 of a normalised chunk.
pub fn hash(normalised: &str) -> Hash {
    Sha1::digest(normalised.as_bytes()).into()
}

/// Lower-case hex of a hash.
pub fn to_hex(hash: &Hash) -> String {
    hex::encode(hash)
}

/// One chunk of a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    pub hash: Hash,
    /// Characters (Unicode scalar values) of the normalised chunk.
    pub chars: u32,
    /// In the stop-chunk filter: counted, never matched.
    pub stop: bool,
}

/// The chunks of a page, its whole-content hash, and the shingle evidence
/// of its chunks that are not stop chunks (`shingles`).
#[derive(Debug, Clone, Default)]
pub struct Chunks {
    pub chunks: Vec<Chunk>,
    pub whole: Hash,
    /// Sampled word shingles, ascending and distinct (`shingles` spec v1).
    pub shingles: Vec<u64>,
    /// SimHash of all the shingles; `None` when the content has none.
    pub simhash: Option<u64>,
}

/// Normalises and hashes every paragraph; `is_stop` says which are stop
/// chunks. Shingles are taken from the same normalised text, while it is at
/// hand, with the specification's parameters.
pub fn chunk<'a>(
    paragraphs: impl Iterator<Item = &'a str>,
    is_stop: impl Fn(&Hash) -> bool,
) -> Chunks {
    chunk_with(paragraphs, is_stop, &mut Shingler::default())
}

/// `chunk` with a given shingler (other `k` or sampling, for measurements).
pub fn chunk_with<'a>(
    paragraphs: impl Iterator<Item = &'a str>,
    is_stop: impl Fn(&Hash) -> bool,
    shingler: &mut Shingler,
) -> Chunks {
    let mut whole = Sha1::new();
    let mut normalised = String::new();
    let mut chunks = Vec::new();
    for (i, p) in paragraphs.enumerate() {
        normalise(p, &mut normalised);
        if i > 0 {
            whole.update(b"\n");
        }
        whole.update(normalised.as_bytes());
        let hash = hash(&normalised);
        let stop = normalised.is_empty() || is_stop(&hash);
        if !stop {
            shingler.add_chunk(&normalised);
        }
        chunks.push(Chunk {
            hash,
            chars: normalised.chars().count() as u32,
            stop,
        });
    }
    let (shingles, simhash) = shingler.finish();
    Chunks {
        chunks,
        whole: whole.finalize().into(),
        shingles,
        simhash,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(s: &str) -> String {
        let mut out = String::new();
        normalise(s, &mut out);
        out
    }

    #[test]
    fn normalisation() {
        assert_eq!(norm("  Hello,\t\n  World  "), "hello, world");
        // Full case folding: ß → ss; NFKC: the ﬁ ligature → fi, full-width → ASCII.
        assert_eq!(norm("Straße ﬁnal ＡＢＣ"), "strasse final abc");
        // NBSP and other Unicode spaces collapse.
        assert_eq!(norm("a\u{00A0}\u{2003} b"), "a b");
        // Composed and decomposed forms agree.
        assert_eq!(norm("Cafe\u{0301}"), norm("Café"));
        // ASCII fast path equals the general path.
        assert_eq!(norm("MiXeD Case"), "mixed case");
        // Folding that leaves a non-NFKC string is normalised again:
        // U+01F0 (ǰ) folds to j + U+030C, which NFKC composes back.
        assert_eq!(norm("\u{01F0}"), "\u{01F0}");
        assert_eq!(norm("ΣΊΣΥΦΟΣ"), "σίσυφοσ");
    }

    #[test]
    fn hashes_are_sha1_of_the_normalised_bytes() {
        // SHA-1("abc"), the FIPS 180 test vector.
        assert_eq!(
            to_hex(&hash("abc")),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        let c = chunk(["ABC", "  "].into_iter(), |_| false);
        assert_eq!(c.chunks[0].hash, hash("abc"));
        assert!(c.chunks[1].stop, "the empty chunk is always a stop chunk");
        assert_eq!(c.whole, hash("abc\n"));
    }
}
