//! Shingles: evidence of copying that survives edits.
//!
//! A chunk's SHA-1 (seed 001) changes when one word of its paragraph
//! changes. Word k-shingles — every run of `k` consecutive words — change only
//! around the edit: one changed word costs `k` shingles and leaves the rest of
//! the paragraph matchable (Najork, seed 000, uses the same k-grams). Shingles
//! are sampled by hash so a labeled set holds a fixed fraction of them, and
//! the same text yields the same sample on every machine.
//!
//! The same shingles give each page a 64-bit SimHash (Charikar; seed 002's
//! lecture): similar pages get fingerprints that differ in few bits, which the
//! labeled set's banded tables find without comparing against every page.
//!
//! # Specification, version 1 (part of the labeled-set format)
//!
//! Input: the normalised text of every chunk that is not a stop chunk
//! (`chunks`, normalisation v1), one chunk at a time — shingles never span
//! two paragraphs, so deleting or reordering paragraphs leaves the others'
//! shingles intact.
//!
//! 1. **Words.** Scan the normalised text by Unicode scalar value. A character
//!    of a script written without spaces (Han, Hiragana, Katakana, Thai, Lao,
//!    Khmer, Myanmar, Tibetan — [`unspaced`]) is a word by itself. Any other
//!    character for which Rust's `char::is_alphanumeric` holds (Unicode
//!    `Alphabetic` or `Numeric`) extends the current word. Everything else —
//!    spaces, punctuation, symbols, marks that are not alphabetic — ends it.
//!    So `"it's 3.5 km"` has the words `it`, `s`, `3`, `5`, `km`: punctuation
//!    edits do not change shingles.
//! 2. **Word hash**: XXH3-64 (seed 0) of the word's UTF-8 bytes.
//! 3. **Shingle hash**: XXH3-64 (seed 0) of the `k` consecutive word hashes,
//!    each as 8 little-endian bytes, concatenated (`8k` bytes). A chunk of
//!    fewer than `k` words has no shingle.
//! 4. **Sample**: a shingle is kept when its hash is divisible by `sample`.
//!    A page's sampled shingles are a set (duplicates count once).
//! 5. **SimHash**: over *every* shingle of the page (before sampling, with
//!    repeats), count for each bit position `b` (0 = least significant) +1
//!    when bit `b` of the shingle hash is set and −1 when not; bit `b` of the
//!    fingerprint is 1 when the count is > 0. A page without shingles has no
//!    SimHash.
//!
//! Version 1 fixes `k` = [`K`] and `sample` = [`SAMPLE`] (chosen by
//! measurement, docs/benchmarks.md); a labeled set records both and is
//! refused when they differ from this build's.

use xxhash_rust::xxh3::xxh3_64;

/// Bumped whenever the specification above changes.
pub const SHINGLE_VERSION: u8 = 1;
/// Words per shingle.
pub const K: usize = 6;
/// One shingle in `SAMPLE` is kept (by hash).
pub const SAMPLE: u64 = 4;

/// Whether `c` belongs to a script written without spaces between words: each
/// such character is a word of its own.
#[inline]
pub fn unspaced(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF     // Thai, Lao
        | 0x0F00..=0x0FFF   // Tibetan
        | 0x1000..=0x109F   // Myanmar
        | 0x1780..=0x17FF   // Khmer
        | 0x19E0..=0x19FF   // Khmer symbols
        | 0x2E80..=0x2FDF   // CJK radicals, Kangxi radicals
        | 0x3040..=0x30FF   // Hiragana, Katakana
        | 0x3100..=0x312F   // Bopomofo
        | 0x31F0..=0x31FF   // Katakana extensions
        | 0x3400..=0x4DBF   // CJK extension A
        | 0x4E00..=0x9FFF   // CJK unified ideographs
        | 0xA9E0..=0xA9FF   // Myanmar extended-B
        | 0xAA60..=0xAA7F   // Myanmar extended-A
        | 0xF900..=0xFAFF   // CJK compatibility ideographs
        | 0xFF66..=0xFF9F   // half-width Katakana (NFKC maps most, not all)
        | 0x20000..=0x3134F // CJK extensions B–G
    )
}

/// Calls `word` with each word of `text` (step 1 of the specification).
#[inline]
pub fn words(text: &str, mut word: impl FnMut(&str)) {
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if c.is_ascii() {
            // The common case, without the Unicode tables.
            if c.is_ascii_alphanumeric() {
                start.get_or_insert(i);
            } else if let Some(s) = start.take() {
                word(&text[s..i]);
            }
        } else if unspaced(c) {
            if let Some(s) = start.take() {
                word(&text[s..i]);
            }
            word(&text[i..i + c.len_utf8()]);
        } else if crate::letters::is_alphanumeric(c) {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            word(&text[s..i]);
        }
    }
    if let Some(s) = start {
        word(&text[s..]);
    }
}

/// Accumulates a page's shingles chunk by chunk: the sample (for matching)
/// and the SimHash counts.
#[derive(Debug, Clone)]
pub struct Shingler {
    k: usize,
    sample: u64,
    /// The current chunk's word hashes, each as its 8 little-endian bytes:
    /// a shingle's input (step 3) is a slice of it, hashed where it lies.
    words: Vec<u8>,
    /// Every chunk's word hashes, in page order: the input of `immutables`
    /// (kept unless `keep_words(false)`).
    page_words: Vec<u64>,
    keep_words: bool,
    sampled: Vec<u64>,
    ones: Ones,
    /// The page's MinHash, when duplicates are looked for (`seen`).
    minhash: Option<super::minhash::MinHasher>,
}

impl Default for Shingler {
    fn default() -> Self {
        Self::new(K, SAMPLE)
    }
}

impl Shingler {
    /// A shingler with `k` words per shingle, keeping one in `sample`.
    pub fn new(k: usize, sample: u64) -> Self {
        assert!(k >= 1 && sample >= 1, "k and sample are at least 1");
        Shingler {
            k,
            sample,
            words: Vec::new(),
            page_words: Vec::new(),
            keep_words: true,
            sampled: Vec::new(),
            ones: Ones::default(),
            minhash: None,
        }
    }

    /// Adds one normalised chunk.
    pub fn add_chunk(&mut self, normalised: &str) {
        self.words.clear();
        let bytes = &mut self.words;
        let page_words = &mut self.page_words;
        let keep = self.keep_words;
        words(normalised, |w| {
            let h = xxh3_64(w.as_bytes());
            if keep {
                page_words.push(h);
            }
            bytes.extend_from_slice(&h.to_le_bytes())
        });
        self.shingle();
    }

    /// Adds one chunk by its word hashes (steps 1 and 2 done elsewhere, as
    /// `add_chunk` would do them: `fingerprints::wordgrams` reads the same
    /// words of most text faster, once for a page's items and shingles).
    pub fn add_words(&mut self, hashes: &[u64]) {
        self.words.clear();
        if self.keep_words {
            self.page_words.extend_from_slice(hashes);
        }
        self.words
            .extend(hashes.iter().flat_map(|h| h.to_le_bytes()));
        self.shingle();
    }

    /// Steps 3 to 5 over the current chunk's words.
    fn shingle(&mut self) {
        let width = 8 * self.k;
        if self.words.len() < width {
            return;
        }
        for at in (0..=self.words.len() - width).step_by(8) {
            let h = xxh3_64(&self.words[at..at + width]);
            self.ones.add(h);
            if let Some(m) = &mut self.minhash {
                m.add(h);
            }
            if h % self.sample == 0 {
                self.sampled.push(h);
            }
        }
    }

    /// The sampled shingles (ascending, distinct) and the SimHash (`None`
    /// without shingles). Resets the shingler for the next page.
    pub fn finish(&mut self) -> (Vec<u64>, Option<u64>) {
        let mut sampled = std::mem::take(&mut self.sampled);
        sampled.sort_unstable();
        sampled.dedup();
        let simhash = std::mem::take(&mut self.ones).simhash();
        (sampled, simhash)
    }

    /// Makes the page's MinHash of `hashes` values from every shingle too
    /// (`take_minhash`); `None`: none is made.
    pub fn minhash(&mut self, hashes: Option<usize>) {
        self.minhash = hashes.map(super::minhash::MinHasher::new);
    }

    /// The MinHash signature of the shingles added since the last call
    /// (`None` without shingles, or when none is made). Resets it.
    pub fn take_minhash(&mut self) -> Option<Vec<u32>> {
        self.minhash.as_mut().and_then(|m| m.finish())
    }

    /// Whether the page's word hashes are kept (`take_words`): a page judged
    /// against sets without immutables needs none.
    pub fn keep_words(&mut self, on: bool) {
        self.keep_words = on;
    }

    /// The word hashes of every chunk added since the last call, in order
    /// (`immutables`, step 1). Resets them.
    pub fn take_words(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.page_words)
    }
}

/// How often each of the 64 bit positions was set, over `total` hashes: the
/// SimHash bit is 1 when set more often than clear (the ±1 sum of step 5 is
/// > 0 exactly when 2·ones > total).
///
/// Counted bit-sliced: byte `i` of `lanes[j]` counts bit `8j + i`, so one
/// hash costs eight table look-ups and adds instead of 64; the byte lanes are
/// emptied into `ones` before they can overflow.
#[derive(Debug, Clone)]
struct Ones {
    lanes: [u64; 8],
    pending: u32,
    ones: [u32; 64],
    total: u64,
}

impl Default for Ones {
    fn default() -> Self {
        Ones {
            lanes: [0; 8],
            pending: 0,
            ones: [0; 64],
            total: 0,
        }
    }
}

/// `SPREAD[b]`: byte `i` is bit `i` of `b`.
static SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        while i < 8 {
            t[b] |= (((b >> i) & 1) as u64) << (8 * i);
            i += 1;
        }
        b += 1;
    }
    t
};

impl Ones {
    #[inline]
    fn add(&mut self, h: u64) {
        for (j, lane) in self.lanes.iter_mut().enumerate() {
            *lane += SPREAD[((h >> (8 * j)) & 0xFF) as usize];
        }
        self.total += 1;
        self.pending += 1;
        if self.pending == 255 {
            self.flush();
        }
    }

    fn flush(&mut self) {
        for (j, lane) in self.lanes.iter_mut().enumerate() {
            for i in 0..8 {
                self.ones[8 * j + i] += ((*lane >> (8 * i)) & 0xFF) as u32;
            }
            *lane = 0;
        }
        self.pending = 0;
    }

    fn simhash(mut self) -> Option<u64> {
        self.flush();
        (self.total > 0).then(|| {
            self.ones.iter().enumerate().fold(0u64, |f, (b, &n)| {
                f | (((2 * n as u64 > self.total) as u64) << b)
            })
        })
    }
}

/// Bits in which two SimHashes differ.
#[inline]
pub fn distance(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_words(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        words(s, |w| out.push(w.to_string()));
        out
    }

    #[test]
    fn words_ignore_punctuation_and_split_unspaced_scripts() {
        assert_eq!(
            all_words("it's 3.5 km, ok?"),
            ["it", "s", "3", "5", "km", "ok"]
        );
        assert_eq!(all_words("straße—café"), ["straße", "café"]);
        assert_eq!(
            all_words("東京タワー abc"),
            ["東", "京", "タ", "ワ", "ー", "abc"]
        );
        assert_eq!(all_words("ภาษาไทย"), ["ภ", "า", "ษ", "า", "ไ", "ท", "ย"]);
        assert!(all_words(" ,.; ").is_empty());
    }

    #[test]
    fn shingles_survive_a_one_word_edit_and_are_machine_independent() {
        let text = "the quick brown fox jumps over the lazy dog while the cat sleeps \
                    in the warm afternoon sun beside the old stone wall of the garden";
        let mut s = Shingler::new(6, 1);
        s.add_chunk(text);
        let (a, sim_a) = s.finish();
        let edited = text.replace("lazy", "sleepy");
        s.add_chunk(&edited);
        let (b, sim_b) = s.finish();
        let shared = a.iter().filter(|h| b.binary_search(h).is_ok()).count();
        // 26 words → 21 shingles; the edit touches 6 of them.
        assert_eq!(a.len(), 21);
        assert_eq!(shared, 15);
        let (sa, sb) = (sim_a.unwrap(), sim_b.unwrap());
        assert!(distance(sa, sb) < 20, "similar texts, close SimHashes");
        // Pinned: the specification's hashes must not change silently.
        assert_eq!(xxh3_64(b"abc"), 0x78af5f94892f3950);
        // Punctuation and case are not part of the shingles (case by normalisation).
        s.add_chunk(&text.replace(' ', ", "));
        assert_eq!(s.finish().0, a);
    }

    #[test]
    fn bit_sliced_simhash_equals_the_plus_minus_one_sums() {
        let mut x = 7u64;
        for n in [1usize, 3, 254, 255, 256, 1000] {
            let mut ones = Ones::default();
            let mut sums = [0i64; 64];
            for _ in 0..n {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let h = x ^ (x >> 29);
                ones.add(h);
                for (b, s) in sums.iter_mut().enumerate() {
                    *s += if (h >> b) & 1 == 1 { 1 } else { -1 };
                }
            }
            let want = sums
                .iter()
                .enumerate()
                .fold(0u64, |f, (b, &s)| f | (((s > 0) as u64) << b));
            assert_eq!(ones.simhash(), Some(want), "{n} hashes");
        }
        assert_eq!(Ones::default().simhash(), None);
    }

    #[test]
    fn sampling_keeps_about_one_in_sample_and_short_chunks_have_none() {
        let text: String = (0..4000).map(|i| format!("w{i} ")).collect();
        let mut s = Shingler::new(6, 4);
        s.add_chunk(&text);
        let (sampled, _) = s.finish();
        assert!((900..1100).contains(&sampled.len()), "{}", sampled.len());
        assert!(sampled.iter().all(|h| h % 4 == 0));
        s.add_chunk("too few words here");
        assert_eq!(s.finish(), (vec![], None));
    }
}
