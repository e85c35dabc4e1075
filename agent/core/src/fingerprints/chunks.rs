//! Chunks: the content's paragraphs, normalised and hashed (seed 001 §3.1).
//!
//! The normalisation is part of the labeled-set format: a set built on one
//! machine must match on every other, so it is specified exactly (docs/algorithms.md,
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
//! identity on ASCII, and folding is ASCII lower-casing), and so do
//! paragraphs whose other characters are each their own normal form below
//! U+0800 or in general punctuation (`fold_by_table`: a table made from
//! the same crates at first use).

use crate::fingerprints::shingles::Shingler;
use caseless::Caseless;
use serde::Deserialize;
use sha1::{Digest, Sha1};
use std::borrow::Cow;
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// `[chunks]`: which chunks are matched.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChunkSettings {
    pub min_chars: u32,
}

/// Bumped whenever the normalisation changes; labeled sets record it.
pub const NORMALISATION_VERSION: u8 = 1;

/// A SHA-1 digest.
pub type Hash = [u8; 20];

/// Writes the normalised form of `paragraph` into `out` (cleared first).
pub fn normalise(paragraph: &str, out: &mut String) {
    out.clear();
    if paragraph.is_ascii() {
        // NFKC is the identity on ASCII and folding is lower-casing: copy the
        // words, then lower-case the result in one pass.
        collapse(paragraph, out);
        out.make_ascii_lowercase();
        return;
    }
    if let Some(folded) = fold_by_table(paragraph) {
        return collapse(&folded, out);
    }
    // Most text is NFKC already (the quick check says so without
    // normalising), and most of its characters are ASCII: both shortcuts skip
    // work without changing the result.
    let nfkc: Cow<str> = if is_nfkc_quick(paragraph.chars()) == IsNormalized::Yes {
        Cow::Borrowed(paragraph)
    } else {
        Cow::Owned(paragraph.nfkc().collect())
    };
    let folded = fold(&nfkc);
    if is_nfkc_quick(folded.chars()) == IsNormalized::Yes {
        collapse(&folded, out);
    } else {
        collapse(&folded.nfkc().collect::<String>(), out);
    }
}

/// Steps 1–3 for a paragraph whose characters are all in `TABLE_RANGES`
/// (below U+0800, general punctuation and currency signs, CJK and Hangul),
/// each its own normal form: Latin, Greek, Cyrillic, Hebrew, Arabic,
/// Chinese, Japanese and Korean text with typographic quotes and dashes,
/// most of the pages that are not ASCII.
/// Character by character from a table; `None` for any other paragraph,
/// which takes the general path.
///
/// Why it is the same: a character whose NFKC quick check is Yes and whose
/// combining class is 0 neither changes nor combines with its neighbours,
/// so NFKC leaves a string of them as it is; folding maps each alone; and
/// where each fold is again such a character, the second NFKC changes
/// nothing either. The spaces whose NFKC is U+0020 (U+00A0, U+2000 to
/// U+200A, U+202F, U+205F; a space combines with nothing) are the other
/// entries. `folds_like_the_general_path` holds this for every entry.
fn fold_by_table(text: &str) -> Option<String> {
    let table = table_folds();
    fold_runs(text, |c, folded| {
        folded.push(table[table_index(c)?]?);
        Some(())
    })
}

/// How many bytes `b` begins with that are ASCII, read eight at a time.
#[inline(always)]
fn ascii_prefix(b: &[u8]) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = b.chunks_exact(8);
    let mut at = 0;
    for w in &mut words {
        let high = u64::from_le_bytes(w.try_into().expect("eight bytes")) & HIGH;
        if high != 0 {
            return at + (high.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + words
        .remainder()
        .iter()
        .position(|b| !b.is_ascii())
        .unwrap_or(words.remainder().len())
}

/// The ranges `table_folds` covers, one after the other: Latin to Arabic;
/// general punctuation and currency signs; CJK punctuation, kana and the
/// unified ideographs (Chinese and Japanese pages, whose paragraphs took the
/// general path character by character: 2 MB of CJK text took 5.5 times a
/// page of Latin text of the same size); Hangul syllables.
const TABLE_RANGES: [std::ops::Range<u32>; 4] =
    [0x80..0x800, 0x2000..0x20D0, 0x3000..0xA000, 0xAC00..0xD7B0];

/// Where a character's entry is in `table_folds`; `None` outside it.
#[inline(always)]
fn table_index(c: char) -> Option<usize> {
    let u = c as u32;
    let mut offset = 0;
    for r in &TABLE_RANGES {
        if u < r.start {
            return None;
        }
        if u < r.end {
            return Some((u - r.start + offset) as usize);
        }
        offset += r.end - r.start;
    }
    None
}

/// Per character of `TABLE_RANGES`, what `fold_by_table` writes for it;
/// `None` where it takes the general path.
fn table_folds() -> &'static [Option<char>] {
    static TABLE: std::sync::OnceLock<Vec<Option<char>>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        use unicode_normalization::char::canonical_combining_class;
        let stable = |c: char| {
            canonical_combining_class(c) == 0
                && is_nfkc_quick(std::iter::once(c)) == IsNormalized::Yes
        };
        TABLE_RANGES
            .iter()
            .flat_map(|r| r.clone())
            .map(|u| {
                let c = char::from_u32(u)?;
                if c.is_whitespace() && c.nfkc().eq([' ']) {
                    return Some(' ');
                }
                let mut fold = std::iter::once(c).default_case_fold();
                match (fold.next(), fold.next()) {
                    (Some(f), None) if stable(c) && stable(f) => Some(f),
                    _ => None,
                }
            })
            .collect()
    })
}

/// Full default case folding. Runs of ASCII are copied at once and
/// lower-cased together at the end: folding's output is lower-case, so
/// lower-casing its ASCII again changes nothing.
fn fold(text: &str) -> String {
    fold_runs(text, |c, folded| {
        folded.extend(std::iter::once(c).default_case_fold());
        Some(())
    })
    .expect("every character folds")
}

/// Case folding's shared loop: runs of ASCII copied at once and lower-cased
/// together at the end, every other character written by `fold_char`
/// (`None` from it ends the loop with `None`).
fn fold_runs(
    text: &str,
    mut fold_char: impl FnMut(char, &mut String) -> Option<()>,
) -> Option<String> {
    let mut folded = String::with_capacity(text.len() + text.len() / 8);
    let mut rest = text;
    while !rest.is_empty() {
        let ascii = ascii_prefix(rest.as_bytes());
        folded.push_str(&rest[..ascii]);
        rest = &rest[ascii..];
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            fold_char(c, &mut folded)?;
            rest = chars.as_str();
        }
    }
    folded.make_ascii_lowercase();
    Some(folded)
}

/// Appends the words of `text` to `out`, one U+0020 between them: every run
/// of `White_Space` characters (Rust's `char::is_whitespace`) is one space,
/// none at either end.
fn collapse(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    if spaced_once(bytes) {
        // What the HTML pass writes: words and single spaces. Nothing to do.
        return push_word(text, out);
    }
    let mut word: Option<usize> = None;
    let mut i = 0;
    while i < bytes.len() {
        let space = match bytes[i] {
            b'\t'..=b'\r' | b' ' => 1,
            // The lead bytes of the non-ASCII White_Space characters
            // (U+0085, U+00A0, U+1680, U+2000–U+205F, U+3000); any other
            // byte starts or continues a character that is not a space.
            0xC2 | 0xE1 | 0xE2 | 0xE3 => match text[i..].chars().next() {
                Some(c) if c.is_whitespace() => c.len_utf8(),
                _ => 0,
            },
            _ => 0,
        };
        if space == 0 {
            word.get_or_insert(i);
            i += 1;
            continue;
        }
        if let Some(start) = word.take() {
            push_word(&text[start..i], out);
        }
        i += space;
    }
    if let Some(start) = word {
        push_word(&text[start..], out);
    }
}

/// Whether `text` has no space but single U+0020s between words: no control
/// space, no byte that may begin a non-ASCII space, no two spaces in a row,
/// none at either end. Written to run over whole vectors of bytes at once.
fn spaced_once(text: &[u8]) -> bool {
    let odd = text.iter().fold(0u8, |odd, &b| {
        odd | u8::from(b.wrapping_sub(b'\t') <= b'\r' - b'\t')
            | u8::from(b == 0xC2)
            | u8::from(b.wrapping_sub(0xE1) <= 2)
    });
    odd == 0
        && text.first() != Some(&b' ')
        && text.last() != Some(&b' ')
        && memchr::memmem::find(text, b"  ").is_none()
}

fn push_word(word: &str, out: &mut String) {
    if !out.is_empty() {
        out.push(' ');
    }
    out.push_str(word);
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

impl Chunk {
    /// Whether the chunk is matched against labeled sets and counted for
    /// discovery: not a stop chunk, and at least `min_chars` (`chunks.min_chars`).
    pub fn matchable(&self, min_chars: u32) -> bool {
        !self.stop && self.chars >= min_chars
    }
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
    /// The word hashes of the chunks that are not stop chunks, in page
    /// order (`immutables`, step 1).
    pub words: Vec<u64>,
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
    chunk_words(paragraphs, is_stop, shingler, |_, _, _| false)
}

/// `chunk_with`, where `words(i, normalised, out)` may give paragraph `i`'s
/// shingle words (their hashes, as `shingles` step 1 and 2 make them) into
/// `out` and return `true`: read faster, or already read for the page's
/// items. Otherwise (`false`) the shingler reads them from the text.
pub fn chunk_words<'a>(
    paragraphs: impl Iterator<Item = &'a str>,
    is_stop: impl Fn(&Hash) -> bool,
    shingler: &mut Shingler,
    mut words: impl FnMut(usize, &str, &mut Vec<u64>) -> bool,
) -> Chunks {
    let mut whole = Sha1::new();
    let mut normalised = String::new();
    let mut chunks = Vec::new();
    let mut known = Vec::new();
    for (i, p) in paragraphs.enumerate() {
        normalise(p, &mut normalised);
        if i > 0 {
            whole.update(b"\n");
        }
        whole.update(normalised.as_bytes());
        let hash = hash(&normalised);
        let stop = normalised.is_empty() || is_stop(&hash);
        if !stop {
            known.clear();
            if words(i, &normalised, &mut known) {
                shingler.add_words(&known);
            } else {
                shingler.add_chunk(&normalised);
            }
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
        words: shingler.take_words(),
    }
}

/// A sampled shingle as a chunk-hash-sized record (the counts the agent
/// makes for blind discovery and the keys of count files): its 8 bytes, then
/// 12 bytes of 0xFF, which a chunk's SHA-1 ends in with probability 2⁻⁹⁶.
pub fn shingle_record(shingle: u64) -> Hash {
    let mut h = [0xFF; 20];
    h[..8].copy_from_slice(&shingle.to_be_bytes());
    h
}

/// Whether a count-file record hash is a shingle's.
pub fn is_shingle_record(hash: &Hash) -> bool {
    hash[8..] == [0xFF; 12]
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

    /// The specification, character by character, as it reads (what
    /// `normalise` computed before its runs-at-once shortcuts).
    fn by_the_letter(paragraph: &str) -> String {
        let nfkc: String = paragraph.nfkc().collect();
        let folded: String = nfkc.chars().default_case_fold().collect();
        let mut out = String::new();
        let mut space = false;
        for c in folded.nfkc() {
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
        out
    }

    #[test]
    fn the_shortcuts_change_nothing() {
        // Characters where normalisation, folding and spacing interact:
        // every White_Space kind, combining marks, compatibility forms,
        // letters whose folding is long or leaves a non-NFKC string.
        const ALPHABET: &[char] = &[
            'a', 'Z', 'k', 'K', ' ', '\t', '\n', '\u{0B}', '\u{0C}', '\r', '\u{1C}', '\u{85}',
            '\u{A0}', '\u{1680}', '\u{2003}', '\u{2028}', '\u{205F}', '\u{3000}', '\u{301}',
            '\u{308}', '\u{30C}', '\u{A8}', 'é', 'É', 'ß', 'ẞ', 'Σ', 'ς', '\u{1F0}', '\u{212A}',
            'ﬁ', 'Ａ', 'Ⅻ', '①', 'İ', 'ŉ', 'ǅ', 'ᾈ', '가', '\u{1100}', '\u{1161}', 'Ω', '\u{2126}',
            '.', '-',
        ];
        as_the_letter_reads(ALPHABET, 24, 0x9E37_79B9_7F4A_7C15);
    }

    /// 20,000 strings of up to `longest - 1` characters drawn from `pool`
    /// (seeded), each normalised as the specification reads.
    fn as_the_letter_reads(pool: &[char], longest: u64, seed: u64) {
        let mut next = crate::fingerprints::xorshift(seed);
        let mut out = String::new();
        for _ in 0..20_000 {
            let len = next() % longest;
            let text: String = (0..len)
                .map(|_| pool[(next() % pool.len() as u64) as usize])
                .collect();
            normalise(&text, &mut out);
            assert_eq!(out, by_the_letter(&text), "{text:?}");
        }
    }

    #[test]
    fn folds_like_the_general_path() {
        // Every character of the table's ranges (and those around them)
        // alone, beside ASCII, doubled, and between letters with marks:
        // the table or the general path, whichever takes it, as the
        // specification reads.
        let mut out = String::new();
        let around = (0x80..0x800)
            .chain(0x1F00..0x2200)
            .chain(0x2F00..0xA100)
            .chain(0xAB00..0xD800);
        for c in around.clone().filter_map(char::from_u32) {
            for text in [
                format!("{c}"),
                format!("A{c}b"),
                format!("{c}{c}"),
                format!("\u{e9}{c}\u{c9}"),
                format!("x {c} Y"),
            ] {
                normalise(&text, &mut out);
                assert_eq!(out, by_the_letter(&text), "U+{:04X} in {text:?}", c as u32);
            }
        }
        // Strings of characters the table takes, and some it does not.
        let pool: Vec<char> = around
            .filter_map(char::from_u32)
            .step_by(3)
            .chain("aZ .\u{301}\u{A0}\u{85}".chars())
            .collect();
        as_the_letter_reads(&pool, 16, 0x2545_F491_4F6C_DD1D);
        let taken = table_folds().iter().flatten().count();
        assert!(taken > 40_000, "the table takes {taken} characters");
        for c in "äÄЖωא’“”–—€\u{A0}\u{2009}\u{3000}、。的一あア한".chars() {
            assert!(table_folds()[table_index(c).unwrap()].is_some(), "{c:?}");
        }
        assert_eq!(table_folds().len(), table_index('\u{D7AF}').unwrap() + 1);
        for c in [
            '\u{7F}', '\u{800}', '\u{1FFF}', '\u{20D0}', '\u{2FFF}', '\u{A000}', '\u{D7B0}',
        ] {
            assert_eq!(table_index(c), None, "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn ascii_prefixes() {
        for text in [
            "",
            "a",
            "abcdefgh",
            "abcdefghé",
            "é",
            "abcdefgé",
            "abcdefghijklmnoé",
        ] {
            let slow = text
                .bytes()
                .position(|b| !b.is_ascii())
                .unwrap_or(text.len());
            assert_eq!(ascii_prefix(text.as_bytes()), slow, "{text:?}");
        }
    }

    #[test]
    fn every_space_starts_with_a_byte_collapse_looks_at() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            if c.is_whitespace() {
                let mut buf = [0; 4];
                let mut out = String::new();
                collapse(&format!("a{}b", c.encode_utf8(&mut buf)), &mut out);
                assert_eq!(out, "a b", "U+{:04X}", c as u32);
            }
        }
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
