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
use super::shingles::words;
use xxhash_rust::xxh3::xxh3_64;

/// Bumped whenever the specification above changes; item sets record it.
pub const GRAM_VERSION: u8 = 1;
/// Words per gram: chosen by measurement (docs/labels.md, "Item sets").
pub const N: usize = 8;
/// The rolling hash's base: odd, so multiplying by it loses no bit.
const P: u64 = 0x9e37_79b9_7f4a_7c15;

/// The word hashes of `text`, appended to `out` (`buf` is scratch space).
pub fn word_hashes(text: &str, buf: &mut String, out: &mut Vec<u64>) {
    let mut lower = [0u8; 64];
    words(text, |w| {
        if w.is_ascii() {
            out.push(ascii_hash(w.as_bytes(), &mut lower));
            return;
        }
        normalise(w, buf);
        words(buf, |n| out.push(xxh3_64(n.as_bytes())));
    });
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

    fn all(text: &str, n: usize) -> Vec<u64> {
        let (mut buf, mut w, mut out) = (String::new(), Vec::new(), Vec::new());
        word_hashes(text, &mut buf, &mut w);
        grams(&w, n, |_, g| out.push(g));
        out
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
    }
}
