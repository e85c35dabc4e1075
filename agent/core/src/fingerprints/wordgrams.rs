//! Word n-grams of running text, across line and block breaks: the evidence
//! short labeled items (benchmark questions, quotations) are found with.
//!
//! Paragraph chunks and sampled shingles are sized for articles: an item of
//! twenty words re-wrapped into short lines, or set inside a long paragraph
//! of the page's own, leaves no whole chunk and one or two sampled shingles.
//! Every n-gram of the page's words in order, whatever the page's blocks, is
//! what finds it; the item side (`labels::items`) keeps every n-gram of each
//! item, less the common ones.
//!
//! Specification, version [`GRAM_VERSION`]:
//! 1. the text's words are those of the shingles (`shingles::words`: runs of
//!    letters and digits; each character of an unspaced script is a word),
//!    line and block breaks being no more than spaces;
//! 2. each word is normalised as a chunk is (`chunks::normalise`: NFKC, full
//!    case folding — lower-casing, for ASCII) and split into words again (a
//!    ligature or a compatibility character may become several);
//! 3. a word's hash is XXH3-64 of its normalised UTF-8 bytes;
//! 4. the words, in order, are one sequence: a gram is `fmix64(Σ wᵢ·Pⁿ⁻¹⁻ⁱ mod 2⁶⁴)` over each run of [`N`] words
//!    (`P` below), so each gram costs O(1) however long `n` is.

use super::chunks::normalise;
use super::shingles::{unspaced, words};
use xxhash_rust::xxh3::xxh3_64;

/// Bumped whenever the specification above changes; item sets record it.
pub const GRAM_VERSION: u8 = 1;
/// Words per gram: chosen by measurement (docs/labels.md, "Item sets").
pub const N: usize = 8;
/// The rolling hash's base: odd, so multiplying by it loses no bit.
const P: u64 = 0x9e37_79b9_7f4a_7c15;

/// The word hashes of `text`, appended to `out` (`buf` is scratch space).
///
/// Every word of a page's whole text is hashed, so the common case is read
/// eight bytes at a time where they are ASCII letters and digits
/// ([`alnum_prefix`]), else a byte at a time, and folded as it is read:
/// ASCII, and the letters below U+0900 (Latin, Greek, Cyrillic, Armenian,
/// Hebrew, Arabic) whose normalised form is one letter ([`folded`]). Any
/// other stretch, up to the next ASCII separator (always a word boundary),
/// takes the specification's path: [`words`], then [`normalise`] a word.
pub fn word_hashes(text: &str, buf: &mut String, out: &mut Vec<u64>) {
    hash_words(text, buf, out, |_| {}, |_| {});
}

/// The shingles' words (`shingles`, steps 1 and 2) of a normalised chunk
/// (`chunks::normalise`), read by the fast path where they are the same
/// words (`hash_words`): most text, ASCII and the Latin, Greek, Cyrillic,
/// Hebrew and Arabic letters among it. `false` (and nothing added) where
/// they may not be: the shingler reads that chunk itself.
pub fn shingle_words(normalised: &str, out: &mut Vec<u64>) -> bool {
    let (from, mut alike) = (out.len(), true);
    hash_words(
        normalised,
        &mut String::new(),
        out,
        |_| {},
        |_| alike = false,
    );
    if !alike {
        out.truncate(from);
    }
    alike
}

/// The words of a page's whole text, hashed once: what its items are looked
/// for in, and where each begins, so that a paragraph of the content takes
/// its shingle words from here instead of reading them again
/// ([`PageWords::within`]).
#[derive(Debug, Default)]
pub struct PageWords {
    /// The visible text's word hashes, then the hidden text's.
    pub hashes: Vec<u64>,
    /// Where each of the visible text's words begins (a byte offset).
    starts: Vec<u32>,
    /// Where the visible text holds a character its words may be read
    /// otherwise by the shingles (`hash_words`), ascending.
    unlike: Vec<u32>,
    buf: String,
}

impl PageWords {
    /// Hashes the words of `visible`, then of `hidden` (`hashes` runs on
    /// from one to the other, as items are looked for).
    pub fn read(&mut self, visible: &str, hidden: &str) {
        let PageWords {
            hashes,
            starts,
            unlike,
            buf,
        } = self;
        hashes.clear();
        starts.clear();
        unlike.clear();
        let (starts, unlike) = (|at| starts.push(at as u32), |at| unlike.push(at as u32));
        hash_words(visible, buf, hashes, starts, unlike);
        hash_words(hidden, buf, hashes, |_| {}, |_| {});
    }

    /// The shingle words of the paragraph `visible[s..e]`, where they are
    /// the same words: a paragraph bounded by ASCII separators (no word of
    /// the page runs into it or out of it) whose characters the shingles
    /// read alike (ASCII, the letters of [`folded`] and most separators:
    /// `hash_words`). `None` otherwise.
    pub fn within(&self, visible: &str, s: usize, e: usize) -> Option<&[u64]> {
        let bytes = visible.as_bytes();
        let bound = |i: usize| bytes.get(i).is_none_or(|b| BYTES[*b as usize] == SEPARATOR);
        let fits = s <= e && e <= bytes.len() && (s == 0 || bound(s - 1)) && bound(e);
        let at = self.unlike.partition_point(|&a| (a as usize) < s);
        if !fits || self.unlike.get(at).is_some_and(|&a| (a as usize) < e) {
            return None;
        }
        let lo = self.starts.partition_point(|&a| (a as usize) < s);
        let hi = self.starts.partition_point(|&a| (a as usize) < e);
        Some(&self.hashes[lo..hi])
    }

    /// A huge page's buffers are not kept for the thread's next pages.
    pub fn shrink(&mut self, keep: usize) {
        if self.hashes.capacity() > keep {
            *self = PageWords::default();
        }
    }
}

/// [`word_hashes`], calling `start_at` with where each word begins.
///
/// `unlike_shingles` is called where the text holds a character that may
/// make the words differ from the shingles' of the same text normalised
/// whole (`shingles`, step 1 after `chunks::normalise`): one that only the
/// specification's path reads, or a separator whose normal form composes
/// with its neighbours or holds a letter ([`folded`]'s `SEP_APART`). A text
/// without one has the shingles' words.
#[inline(always)]
fn hash_words(
    text: &str,
    buf: &mut String,
    out: &mut Vec<u64>,
    mut start_at: impl FnMut(usize),
    mut unlike_shingles: impl FnMut(usize),
) {
    let (bytes, table) = (text.as_bytes(), folded());
    // Room for an eight-byte store past the longest word kept.
    let mut word = [0u8; LONGEST + 8];
    let mut i = 0;
    while i < bytes.len() {
        if BYTES[bytes[i] as usize] == SEPARATOR {
            i += 1;
            continue;
        }
        let start = i;
        let (len, end, slow) = fold_word(text, i, table, &mut word);
        i = end;
        if slow || len > LONGEST {
            i = any_script(text, start, buf, out, &mut start_at);
            if !text.as_bytes()[start..i].is_ascii() {
                unlike_shingles(start);
            }
        } else if len > 0 {
            out.push(xxh3_64(&word[..len]));
            start_at(start);
        } else {
            // A separator that is not ASCII: one character.
            let c = text[i..].chars().next().expect("a character starts here");
            if table.get(c as usize) != Some(&SEP) {
                unlike_shingles(i);
            }
            i += c.len_utf8();
        }
    }
}

/// The longest word folded in place; a longer one takes the specification's path.
const LONGEST: usize = 128;

/// Folds the word of `text` that starts at `i` into `word` (`table`:
/// [`folded`], looked up once a text): its length (past [`LONGEST`]: too
/// long to keep), where it ends, and whether it holds a character only the
/// specification's path can fold.
#[inline(always)]
fn fold_word(
    text: &str,
    mut i: usize,
    table: &[u16],
    word: &mut [u8; LONGEST + 8],
) -> (usize, usize, bool) {
    let bytes = text.as_bytes();
    let mut len = 0;
    while i < bytes.len() {
        if len <= LONGEST {
            if let Some(eight) = bytes.get(i..i + 8) {
                let eight = u64::from_le_bytes(eight.try_into().expect("8 bytes"));
                let k = alnum_prefix(eight);
                if k > 0 {
                    // Letters and digits lower-cased: `| 0x20` is both.
                    word[len..len + 8].copy_from_slice(&(eight | LOWER).to_le_bytes());
                    (len, i) = (len + k, i + k);
                    if k == 8 {
                        continue;
                    }
                }
            }
        }
        let Some(&byte) = bytes.get(i) else { break };
        let b = BYTES[byte as usize];
        if b == SEPARATOR {
            break;
        }
        if b != NOT_ASCII {
            if let Some(w) = word.get_mut(len) {
                *w = b;
            }
            (len, i) = (len + 1, i + 1);
            continue;
        }
        let c = text[i..].chars().next().expect("a character starts here");
        match table.get(c as usize).copied().unwrap_or(SLOW) {
            SEP | SEP_APART => break,
            SLOW => return (len, i, true),
            f => {
                let f = char::from_u32(u32::from(f)).expect("a folded letter");
                if len + f.len_utf8() <= LONGEST {
                    f.encode_utf8(&mut word[len..]);
                }
                (len, i) = (len + f.len_utf8(), i + c.len_utf8());
            }
        }
    }
    (len, i, false)
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;
const LOWER: u64 = 0x2020_2020_2020_2020;

/// How many of the eight bytes of `x` (little-endian: the first byte is the
/// lowest), from the first, are ASCII letters or digits. Each byte is
/// compared by carry-free additions (SWAR): `x + (0x80 − lo)` has its top
/// bit set when `x ≥ lo`, `x + (0x7F − hi)` when `x > hi`.
#[inline]
fn alnum_prefix(x: u64) -> usize {
    let seven = x & !HIGH;
    let within = |v: u64, lo: u64, hi: u64| (v + ONES * (0x80 - lo)) & !(v + ONES * (0x7F - hi));
    let digits = within(seven, b'0' as u64, b'9' as u64);
    let letters = within(seven | LOWER, b'a' as u64, b'z' as u64);
    let alnum = (digits | letters) & !x & HIGH;
    ((!alnum & HIGH).trailing_zeros() / 8) as usize
}

/// A byte's part in a word: an ASCII letter or digit stands for itself
/// lower-cased; the rest of ASCII separates words; a byte of a non-ASCII
/// character is looked up as a character.
const BYTES: [u8; 256] = {
    let mut t = [SEPARATOR; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c >= 0x80 {
            t[b] = NOT_ASCII;
        } else if c.is_ascii_alphanumeric() {
            t[b] = c.to_ascii_lowercase();
        }
        b += 1;
    }
    t
};
const SEPARATOR: u8 = 0;
const NOT_ASCII: u8 = 0x80;

/// [`folded`]'s marks: the character takes the specification's path, or
/// separates words.
const SLOW: u16 = 0;
const SEP: u16 = 1;
/// A separator here, which the shingles, normalising a whole paragraph
/// before splitting it, may not read as one (a combining mark composes with
/// the letter before it; `½` holds digits).
const SEP_APART: u16 = 2;

/// For each character below U+2070: what it is in a word, by the
/// specification applied to it alone — a separator, the one letter or
/// digit it normalises to, or [`SLOW`]. Letters are taken below U+0900
/// only, and never a combining mark: there a word's normal form is its
/// characters' normal forms side by side (no two of them compose), which
/// is what makes folding a character at a time right. Separators are taken
/// up to the general punctuation (dashes, curly quotes, spaces).
pub fn folded() -> &'static [u16] {
    static TABLE: std::sync::OnceLock<Vec<u16>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut buf = String::new();
        (0..0x2070u32)
            .map(|cp| {
                let Some(c) = char::from_u32(cp) else {
                    return SLOW;
                };
                if cp < 0x80 || unspaced(c) {
                    return SLOW;
                }
                if !crate::letters::is_alphanumeric(c) {
                    // A mark composes with some letters before it, not with
                    // others: never alike whatever the test below says.
                    if unicode_normalization::char::is_combining_mark(c) {
                        return SEP_APART;
                    }
                    normalise(&format!("a{c}a"), &mut buf);
                    let mut split = Vec::new();
                    words(&buf, |w| split.push(w == "a"));
                    return if split == [true, true] {
                        SEP
                    } else {
                        SEP_APART
                    };
                }
                if cp >= 0x900 || unicode_normalization::char::is_combining_mark(c) {
                    return SLOW;
                }
                // Between two letters: a character whose normal form
                // begins with a space (U+037A) splits its word.
                normalise(&format!("a{c}a"), &mut buf);
                let mut one = buf.chars();
                match (one.next(), one.next(), one.next(), one.next()) {
                    (Some('a'), Some(f), Some('a'), None)
                        if crate::letters::is_alphanumeric(f)
                            && (f as u32) < 0x1_0000
                            && f as u32 > 1 =>
                    {
                        f as u16
                    }
                    _ => SLOW,
                }
            })
            .collect()
    })
}

/// The words of `text` from `from` (a word boundary) to the next ASCII
/// separator, by the specification; returns where it stopped.
/// `start` is called with where each word begins (a word that normalises
/// to several: where it begins, for each).
fn any_script(
    text: &str,
    from: usize,
    buf: &mut String,
    out: &mut Vec<u64>,
    start: &mut impl FnMut(usize),
) -> usize {
    let end = text.as_bytes()[from..]
        .iter()
        .position(|b| b.is_ascii() && !b.is_ascii_alphanumeric())
        .map_or(text.len(), |p| from + p);
    let mut lower = [0u8; 64];
    words(&text[from..end], |w| {
        let at = w.as_ptr() as usize - text.as_ptr() as usize;
        if w.is_ascii() {
            out.push(ascii_hash(w.as_bytes(), &mut lower));
            start(at);
            return;
        }
        normalise(w, buf);
        words(buf, |n| {
            out.push(xxh3_64(n.as_bytes()));
            start(at);
        });
    });
    end
}

/// XXH3 of an ASCII word lower-cased (what normalising it gives).
#[inline]
fn ascii_hash(w: &[u8], lower: &mut [u8; 64]) -> u64 {
    if w.len() > lower.len() {
        return xxh3_64(w.to_ascii_lowercase().as_slice());
    }
    let l = &mut lower[..w.len()];
    l.copy_from_slice(w);
    l.make_ascii_lowercase();
    xxh3_64(l)
}

/// Calls `gram(position, hash)` for every run of `n` words of `words`
/// (position: the index of its first word).
#[inline]
pub fn grams(words: &[u64], n: usize, mut gram: impl FnMut(usize, u64)) {
    if n == 0 || words.len() < n {
        return;
    }
    // P^(n-1): what the word leaving the window was multiplied by.
    let top = (1..n).fold(1u64, |p, _| p.wrapping_mul(P));
    let mut h = words[..n]
        .iter()
        .fold(0u64, |h, &w| h.wrapping_mul(P).wrapping_add(w));
    gram(0, fmix64(h));
    for i in n..words.len() {
        h = h
            .wrapping_sub(words[i - n].wrapping_mul(top))
            .wrapping_mul(P)
            .wrapping_add(words[i]);
        gram(i + 1 - n, fmix64(h));
    }
}

/// MurmurHash3's finaliser: a bijection that spreads every input bit over the
/// output, so the grams' top bits index a table evenly.
#[inline]
fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hashes(text: &str) -> Vec<u64> {
        let mut out = Vec::new();
        word_hashes(text, &mut String::new(), &mut out);
        out
    }

    /// The word hashes as the specification says: words, each normalised
    /// and split again, XXH3 of each.
    fn by_the_specification(text: &str) -> Vec<u64> {
        let (mut out, mut buf) = (Vec::new(), String::new());
        words(text, |w| {
            normalise(w, &mut buf);
            words(&buf.clone(), |n| out.push(xxh3_64(n.as_bytes())));
        });
        out
    }

    fn all(text: &str, n: usize) -> Vec<u64> {
        let (mut buf, mut w, mut out) = (String::new(), Vec::new(), Vec::new());
        word_hashes(text, &mut buf, &mut w);
        grams(&w, n, |_, g| out.push(g));
        out
    }

    /// The shingles' words of a normalised paragraph (their specification).
    fn by_the_shingles(paragraph: &str) -> Vec<u64> {
        let (mut buf, mut out) = (String::new(), Vec::new());
        normalise(paragraph, &mut buf);
        words(&buf, |w| out.push(xxh3_64(w.as_bytes())));
        out
    }

    #[test]
    fn a_paragraphs_words_read_once_for_the_page_are_its_shingle_words() {
        let paragraphs = [
            "First paragraph, plain ASCII: it's 3.5 km long.",
            "Zweiter Absatz mit Umlauten: Straße, Öl.",
            "Third\tone  with\r odd spaces and a VeryLongWordThatIsLongerThanTheOneHundredAndTwentyEightBytesTheFastPathKeepsInItsBufferSoItTakesTheSpecificationsPathInsteadOfTheEightByteReads!",
            "",
            "ﬁnal ASCII after a ligature",
            "東京 and ASCII",
            "x",
            "Café crème, naïve – “quoted” text",
            "e\u{301}tude: a combining mark",
        ];
        let text = paragraphs.join("\n");
        let mut page = PageWords::default();
        page.read(&text, "hidden words too");
        let mut all = Vec::new();
        word_hashes(&text, &mut String::new(), &mut all);
        word_hashes("hidden words too", &mut String::new(), &mut all);
        assert_eq!(page.hashes, all);
        let mut at = 0;
        let mut given = 0;
        for p in paragraphs {
            let (s, e) = (at, at + p.len());
            at = e + 1;
            let mut fast = Vec::new();
            if let Some(known) = page.within(&text, s, e) {
                assert_eq!(known, by_the_shingles(p), "{p:?}");
                given += 1;
            }
            let mut buf = String::new();
            normalise(p, &mut buf);
            if shingle_words(&buf, &mut fast) {
                assert_eq!(fast, by_the_shingles(p), "{p:?}");
            }
        }
        // The ASCII paragraphs (the empty one too) and the one of letters
        // and separators the fast path reads alike; not the others.
        assert_eq!(given, 5);
        // Every character below U+2070, beside ASCII and beside each other.
        let chars: Vec<char> = (0x80..0x2070u32).filter_map(char::from_u32).collect();
        for group in chars.chunks(5) {
            let run: String = group.iter().collect();
            let paragraphs = [
                format!("Ab{run}cD"),
                group.iter().map(|c| format!("x{c}Y ")).collect(),
                group.iter().map(|c| format!("{c}{c} é{c}")).collect(),
            ];
            let text = paragraphs.join("\n");
            page.read(&text, "");
            let mut at = 0;
            for p in &paragraphs {
                if let Some(known) = page.within(&text, at, at + p.len()) {
                    assert_eq!(known, by_the_shingles(p), "{p:?}");
                }
                at += p.len() + 1;
                let (mut buf, mut fast) = (String::new(), Vec::new());
                normalise(p, &mut buf);
                if shingle_words(&buf, &mut fast) {
                    assert_eq!(fast, by_the_shingles(p), "{p:?}");
                }
            }
        }
        // A range that cuts a word is not given.
        assert_eq!(page.within(&text, 1, 10), None);
        assert_eq!(page.within(&text, 0, 3), None);
    }

    #[test]
    fn rolling_equals_hashing_each_window_and_ignores_line_breaks() {
        let text = "One two, three FOUR five six seven eight nine ten eleven";
        let rewrapped = "one two three\nfour five six\n\nseven eight nine ten\neleven";
        assert_eq!(all(text, 8), all(rewrapped, 8));
        assert_eq!(all(text, 8).len(), 4);
        // Each rolled gram is the gram of its window computed afresh.
        let mut w = Vec::new();
        word_hashes(text, &mut String::new(), &mut w);
        for (i, g) in all(text, 8).into_iter().enumerate() {
            let mut alone = Vec::new();
            grams(&w[i..i + 8], 8, |_, g| alone.push(g));
            assert_eq!(alone, [g]);
        }
        assert!(all("too few words here", 8).is_empty());
        // Words are normalised as chunks are: case, compatibility forms, long words.
        let text = "Mixed-CASE Straße ﬁnal ＡＢＣ, 42;  tabs\tand a VeryLongWordThatIsLongerThanSixtyFourCharactersWithoutAnySpaceInItAtAll!";
        let (mut fast, mut slow, mut buf) = (Vec::new(), Vec::new(), String::new());
        word_hashes(text, &mut buf, &mut fast);
        normalise(text, &mut buf);
        words(&buf, |w| slow.push(xxh3_64(w.as_bytes())));
        assert_eq!(fast, slow);
        assert_ne!(all("a b c d e f g h", 8), all("a b c d e f h g", 8));
        // Scripts mixed within and between words, unspaced scripts, words at
        // the text's ends: the byte path gives the specification's hashes.
        for text in [
            "caféine Ünïcode naïve-ASCII 東京タワー abc東京 Þing ΣΊΣΥΦΟΣ x",
            "é",
            "a",
            "",
            "  ,; ",
            "tail ﬁ",
            "ﬁ head",
            "mid\u{0301}dle wörd",
            "ไทย and 中文mixed",
            "A".repeat(70).as_str(),
            "Ä".repeat(70).as_str(),
        ] {
            assert_eq!(hashes(text), by_the_specification(text), "{text:?}");
        }
        // Every ASCII byte, in words of every length about the eight-byte
        // reads and the longest word kept, at every alignment.
        let mut next = crate::fingerprints::xorshift(0x9e37_79b9_7f4a_7c15);
        for round in 0..4000 {
            let len = (next() % 300) as usize;
            let text: String = (0..len)
                .map(|_| match next() % 8 {
                    0 => char::from((next() % 128) as u8),
                    1 if round % 3 == 0 => 'é',
                    2 => ' ',
                    _ => char::from(b"aZ09@[`{/:mQ"[(next() % 12) as usize]),
                })
                .collect();
            let words_long = format!(
                "{} {} {}",
                "x".repeat(round % 140),
                "Y9".repeat(round % 70),
                text
            );
            for text in [text, words_long] {
                assert_eq!(hashes(&text), by_the_specification(&text), "{text:?}");
            }
        }
        // Every character of the table, alone and run together with its
        // neighbours and with ASCII, gives the specification's hashes.
        let chars: Vec<char> = (0x80..0x2070u32).filter_map(char::from_u32).collect();
        for group in chars.chunks(7) {
            let run: String = group.iter().collect();
            for text in [
                run.clone(),
                format!("Ab{run}cD {run}"),
                group.iter().map(|c| format!("x{c}Y ")).collect(),
            ] {
                assert_eq!(hashes(&text), by_the_specification(&text), "{text:?}");
            }
        }
    }
}
