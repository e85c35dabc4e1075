//! A text as the declarations read it: letter trigrams inside words,
//! without the marks a writer may leave out.

/// Letter trigrams inside words, lower-cased, read without diacritics:
/// letters are decomposed (NFD) and their diacritics skipped, so text
/// with and without tone marks, or with precomposed and combining accents,
/// reads alike (Yoruba on the web is often written either way; its
/// declaration marks every tone). Both sides of every comparison are read
/// this way. The vowel signs and viramas of Brahmic scripts are combining
/// marks too, but letters: they are kept ([`optional_mark`]).
pub(super) fn trigrams(text: &str, mut f: impl FnMut(u64)) {
    let mut reader = Reader::default();
    for c in text.chars() {
        if c.is_ascii() {
            // No marks, no decomposition, one-byte case: the common case, cheaply.
            let letter = c
                .is_ascii_alphabetic()
                .then(|| c.to_ascii_lowercase() as u32);
            if let Some(key) = reader.step(letter) {
                f(key);
            }
        } else {
            unicode_normalization::char::decompose_canonical(c, |d| {
                let mark = unicode_normalization::char::is_combining_mark(d);
                if mark && optional_mark(d) {
                    return;
                }
                let letter = (mark || crate::letters::is_alphabetic(d) || d == TSHEG)
                    .then(|| d.to_lowercase().next().unwrap_or(d) as u32);
                if let Some(key) = reader.step(letter) {
                    f(key);
                }
            });
        }
    }
}

/// Tibetan's syllable mark: it separates syllables, not words (which
/// Tibetan does not mark); read as a break, a 1 KB page gave the
/// declarations a dozen trigrams.
const TSHEG: char = '\u{0F0B}';

/// Combining marks a writer may leave out without changing the word: the
/// diacritics and tone marks of Latin, Greek and Cyrillic text, Arabic
/// harakat, Hebrew points. Others — the vowel signs and viramas of
/// Devanagari, Bengali, Myanmar, Tibetan, ... — are the word's letters:
/// skipped, a 1 KB page of Hindi or Shan gave the declarations 1–30
/// trigrams, too few to be checked at all.
fn optional_mark(c: char) -> bool {
    matches!(c,
        '\u{0300}'..='\u{036F}'
        | '\u{0483}'..='\u{0489}'
        | '\u{0591}'..='\u{05C7}'
        | '\u{0610}'..='\u{061A}'
        | '\u{064B}'..='\u{065F}'
        | '\u{0670}'
        | '\u{06D6}'..='\u{06ED}'
        | '\u{1AB0}'..='\u{1AFF}'
        | '\u{1DC0}'..='\u{1DFF}'
        | '\u{20D0}'..='\u{20FF}'
        | '\u{FE20}'..='\u{FE2F}')
}

/// The last three letters of the word being read.
#[derive(Default)]
struct Reader {
    window: [u32; 3],
    run: usize,
}

impl Reader {
    /// Reads a letter (lower-cased) or a word break (`None`); the trigram
    /// that letter ends, if any.
    fn step(&mut self, letter: Option<u32>) -> Option<u64> {
        let Some(c) = letter else {
            self.run = 0;
            return None;
        };
        self.window = [self.window[1], self.window[2], c];
        self.run += 1;
        let [a, b, c] = self.window;
        (self.run >= 3).then_some(((a as u64) << 42) | ((b as u64) << 21) | c as u64)
    }
}
