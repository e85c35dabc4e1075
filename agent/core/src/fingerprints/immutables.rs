//! Immutables: evidence of copying that survives spinning (DSpin; Zhang,
//! Wang and Voelker, NDSS 2014).
//!
//! A spinner rewrites an article by swapping the words its synonym
//! dictionary knows — every one of them, in the setting spinners ship with —
//! so chunks, shingles and SimHash, which key on the copied words, miss the
//! copy. The words the dictionary does *not* know (names, numbers, most
//! function words, rare and technical terms) survive every spin, in order:
//! the page's **immutables**. Two spins of one article share them; two
//! unrelated articles share few runs of them.
//!
//! DSpin scores a pair by the share of immutables they share as a *set*
//! (each repeat made distinct by a suffix). On real articles that is leaky:
//! unrelated articles share most of their "the#1 … of#40", and a spinner
//! whose dictionary differs from ours (ours decides what is immutable; theirs
//! what changes) brings most spins under DSpin's 75 %. Immutables **in
//! order**, as k-grams, separate: unrelated articles share at most 2.6 % of
//! their immutable 4-grams, while a full spin by a thesaurus we do not ship
//! keeps 14.5 % of them or more (5th percentile; bench/HISTORY.md, "Spun
//! content"). A word the foreign spinner puts in that our dictionary does
//! not know breaks only the grams around it.
//!
//! # Specification, version 1 (part of the labeled-set format, format 4)
//!
//! 1. **Words**: the word hashes of the shingle specification (steps 1–2,
//!    `shingles`) of every chunk that is not a stop chunk, in page order,
//!    across chunks — a spinner keeps short paragraphs short, and a page of
//!    one-line paragraphs still has runs of immutables.
//! 2. **Dictionary**: the words a spinner can replace in the page's language
//!    (`rules/mutables.tsv.gz`, its `version` recorded in the set), each
//!    hashed as in step 1. A language without one gives no immutables.
//! 3. **Immutables**: the words whose hash is not in the dictionary, in order.
//! 4. **Grams**: every [`K`] consecutive immutables of which at least
//!    [`ANCHORS`] are not among the language's common words (its 100 most
//!    frequent, and every one-character word; the table's `CODE.common`
//!    line). Runs of function words ("of the and the") are in every article:
//!    a labeled set of many articles holds most of them, and an unrelated
//!    page would match it on them alone.
//! 5. **Gram hash**: XXH3-64 with seed [`SEED`] of the gram's word hashes,
//!    each as 8 little-endian bytes.
//! 6. **Sample**: a gram is kept when its hash is divisible by [`SAMPLE`];
//!    a repeat of a kept gram is not kept again. A labeled set holds a
//!    page's kept grams, ascending; a page being judged keeps them in page
//!    order (first occurrences), so where they match can be told (`spread`).

use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::OnceLock;
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

/// Bumped whenever the specification above changes.
pub const IMMUTABLE_VERSION: u8 = 1;
/// Immutables per gram: 4 measured best of 2–4 (bench/HISTORY.md).
pub const K: usize = 4;
/// One gram in `SAMPLE` is kept (by hash).
pub const SAMPLE: u64 = 2;
/// Words of a gram that must not be common.
pub const ANCHORS: usize = 2;
/// Seeds the gram hash, so a gram never equals a shingle of the same words.
pub const SEED: u64 = 0x5350_554e_5f49_4d4d; // "SPUN_IMM"

const SHIPPED: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../rules/mutables.tsv.gz"
));

/// The mutable words of the languages that have a dictionary.
pub struct Dictionary {
    /// `version` of `rules/mutables.tsv.gz`: labeled sets record it.
    pub version: u16,
    by_language: FxHashMap<String, Language>,
}

/// One language's word lists, by word hash.
#[derive(Debug, Default)]
pub struct Language {
    /// Words a spinner can replace.
    pub mutable: FxHashSet<u64>,
    /// Words too common to anchor a gram.
    pub common: FxHashSet<u64>,
}

/// A mutables table this build cannot read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DictionaryError {
    #[error("line {0}: no tab")]
    NoTab(usize),
    #[error("line {0}: version is not a number")]
    Version(usize),
    #[error("line {0}: unknown key {1}")]
    Key(usize, String),
    #[error("no version line")]
    NoVersion,
}

impl Dictionary {
    /// The shipped dictionary, unpacked on first use (English: 57,220 words, about 1 MB).
    pub fn shipped() -> &'static Dictionary {
        static SHIPPED_DICTIONARY: OnceLock<Dictionary> = OnceLock::new();
        SHIPPED_DICTIONARY.get_or_init(|| {
            let mut raw = Vec::new();
            std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(SHIPPED), &mut raw)
                .expect("rules/mutables.tsv.gz is gzip");
            let text = String::from_utf8(raw).expect("rules/mutables.tsv.gz is UTF-8");
            Dictionary::parse(&text).expect("rules/mutables.tsv.gz is a table of word lists")
        })
    }

    /// Parses the table (`bench/build_mutables.py` says its format).
    pub fn parse(text: &str) -> Result<Dictionary, DictionaryError> {
        let mut version = None;
        let mut by_language = FxHashMap::default();
        for (n, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.is_empty() {
                continue;
            }
            let (key, words) = line.split_once('\t').ok_or(DictionaryError::NoTab(n + 1))?;
            if key == "version" {
                version = Some(words.parse().map_err(|_| DictionaryError::Version(n + 1))?);
                continue;
            }
            let set: FxHashSet<u64> = words
                .split(' ')
                .filter(|w| !w.is_empty())
                .map(|w| xxh3_64(w.as_bytes()))
                .collect();
            match key.split_once('.') {
                Some((code, "common")) => {
                    by_language
                        .entry(code.to_string())
                        .or_insert_with(Language::default)
                        .common = set
                }
                Some(_) => return Err(DictionaryError::Key(n + 1, key.to_string())),
                None => {
                    by_language
                        .entry(key.to_string())
                        .or_insert_with(Language::default)
                        .mutable = set
                }
            }
        }
        Ok(Dictionary {
            version: version.ok_or(DictionaryError::NoVersion)?,
            by_language,
        })
    }

    /// The word lists of language `code` (ISO 639-3).
    pub fn language(&self, code: &str) -> Option<&Language> {
        self.by_language.get(code)
    }

    /// For a page of unknown language: the dictionary that knows the most
    /// of its words (at least a third of them), if any.
    pub fn likeliest(&self, words: &[u64]) -> Option<&Language> {
        self.by_language
            .values()
            .map(|l| (words.iter().filter(|w| l.mutable.contains(w)).count(), l))
            .filter(|&(known, _)| known * 3 >= words.len() && known > 0)
            .max_by_key(|&(known, _)| known)
            .map(|(_, l)| l)
    }

    /// The languages with a dictionary, sorted.
    pub fn languages(&self) -> Vec<&str> {
        let mut codes: Vec<&str> = self.by_language.keys().map(String::as_str).collect();
        codes.sort_unstable();
        codes
    }
}

/// The page's kept immutable grams, in page order (first occurrences).
pub fn grams(words: &[u64], language: &Language) -> Vec<u64> {
    let mut window = [0u8; 8 * K];
    // Bit i: the i-th newest immutable of the window is an anchor.
    let mut anchors = 0u32;
    let mut filled = 0usize;
    let mut out = Vec::new();
    let mut seen = FxHashSet::default();
    for &w in words {
        if language.mutable.contains(&w) {
            continue;
        }
        // The window holds the last K immutables, oldest first.
        window.copy_within(8.., 0);
        window[8 * (K - 1)..].copy_from_slice(&w.to_le_bytes());
        anchors = (anchors << 1 | u32::from(!language.common.contains(&w))) & ((1 << K) - 1);
        filled += 1;
        if filled >= K && anchors.count_ones() as usize >= ANCHORS {
            let h = xxh3_64_with_seed(&window, SEED);
            if h % SAMPLE == 0 && seen.insert(h) {
                out.push(h);
            }
        }
    }
    out
}

/// The immutables of a page, for a labeled set: its kept grams, ascending.
pub fn signature(words: &[u64], language: &Language) -> Vec<u64> {
    let mut g = grams(words, language);
    g.sort_unstable();
    g
}

/// How evenly a page's matched grams cover it: of `PARTS` equal runs of its
/// grams in page order (fewer for a page with fewer grams), the share that
/// hold a match. A spin matches a little everywhere; a page that quotes one
/// paragraph matches all of it and nothing elsewhere.
pub const PARTS: usize = 5;

/// `spread` of the matched flags of a page's grams, in page order.
pub fn spread(matched: &[bool]) -> f64 {
    let n = matched.len();
    if n == 0 {
        return 0.0;
    }
    let parts = PARTS.min(n);
    let held = (0..parts)
        .filter(|&p| matched[p * n / parts..(p + 1) * n / parts].contains(&true))
        .count();
    held as f64 / parts as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprints::shingles::words;

    fn hashes(text: &str) -> Vec<u64> {
        let mut out = Vec::new();
        words(text, |w| out.push(xxh3_64(w.as_bytes())));
        out
    }

    #[test]
    fn the_shipped_dictionary_knows_english_synonyms_and_not_names() {
        let d = Dictionary::shipped();
        assert!(d.version >= 1);
        let eng = d.language("eng").expect("English");
        for w in ["big", "large", "house", "quickly", "buy"] {
            assert!(
                eng.mutable.contains(&xxh3_64(w.as_bytes())),
                "{w} is mutable"
            );
        }
        for w in ["the", "of", "obama", "2024", "kubernetes"] {
            assert!(
                !eng.mutable.contains(&xxh3_64(w.as_bytes())),
                "{w} is immutable"
            );
        }
        for w in ["the", "of", "a", "s"] {
            assert!(eng.common.contains(&xxh3_64(w.as_bytes())), "{w} is common");
        }
        assert!(d.language("xxx").is_none());
    }

    #[test]
    fn a_spin_keeps_the_grams_of_its_immutables() {
        let eng = Dictionary::shipped().language("eng").unwrap();
        let text = "the big house of john smith in 1984 was sold to the large firm of acme \
                    in london for 2 million pounds after the war and the fire of 1990 in the city; \
                    smith and acme settled in 1992 with kensington borough council and barclays";
        let spun = "the large home of john smith in 1984 was sold to the big company of acme \
                    in london for 2 million pounds after the war and the blaze of 1990 in the city; \
                    smith and acme settled in 1992 with kensington borough council and barclays";
        let a = signature(&hashes(text), eng);
        let b = signature(&hashes(spun), eng);
        assert!(!a.is_empty());
        assert_eq!(a, b, "only mutables changed");
        let other = signature(
            &hashes("an unrelated text of 2023 by jane doe in paris"),
            eng,
        );
        assert!(a.iter().all(|g| !other.contains(g)));
        // Runs of common words anchor nothing.
        assert!(grams(&hashes(&"of the and to in a for ".repeat(20)), eng).is_empty());
    }

    #[test]
    fn spread_tells_a_spin_from_a_quote() {
        let spin: Vec<bool> = (0..100).map(|i| i % 7 == 0).collect();
        let quote: Vec<bool> = (0..100).map(|i| (40..60).contains(&i)).collect();
        assert_eq!(spread(&spin), 1.0);
        assert!(spread(&quote) <= 0.4);
        assert_eq!(spread(&[]), 0.0);
        assert_eq!(spread(&[true, false]), 0.5);
    }

    #[test]
    fn parse_refuses_a_table_without_version() {
        assert!(Dictionary::parse("eng\ta b\n").is_err());
        let d = Dictionary::parse("# c\nversion\t7\neng\tbig large\neng.common\tthe\n").unwrap();
        assert_eq!(d.version, 7);
        assert_eq!(d.languages(), ["eng"]);
        assert_eq!(d.language("eng").unwrap().common.len(), 1);
        assert!(Dictionary::parse("version\t1\neng.rare\tx\n").is_err());
    }
}
