//! The letters a language is written with: a page written with letters its
//! decided language never uses is not in that language.
//!
//! Every other check weighs the page against trigrams, words or a model's
//! probabilities, and a close relative no table holds can read well under
//! them all: Shan and Mon as Burmese, Venda as Tsonga, Inari Sami as
//! Northern Sami, Scottish Gaelic as Irish. Yet each writes letters its
//! relative does not — Shan's ၵ ႁ, Venda's ṱ ḓ ḽ, Inari Sami's â ä, Gaelic's
//! grave accents — and an alphabet is something a language's text cannot
//! hide.
//!
//! `rules/alphabets.tsv` (written by `bench/build_alphabets.py`) holds, per
//! code, its letters and marks, lower case and canonically decomposed (ṱ is
//! t and U+032D however the page spells it): Unicode CLDR's main exemplars
//! for its locale and what its declaration's fitting half writes. Letters
//! are counted only in the 256-code-point pages the alphabet has letters
//! in, so English words on a Burmese page do not count; a mark counts with
//! the letter before it. And a floor: the most foreign letters any page of
//! the language's real text had (Maori's English loans, Turkish pages in a
//! mis-decoded charset), so a code is vetoed only well above what its own
//! text does.

use rustc_hash::FxHashMap;
use std::sync::OnceLock;
use unicode_normalization::char::{decompose_canonical, is_combining_mark};

const TABLE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../rules/alphabets.tsv"
));

/// How far above its floor a code's page must be to be vetoed: the floors
/// are maxima over a few dozen pages, and a language's next page may
/// have a few more loans.
pub const FLOOR_MARGIN: f64 = 1.5;

/// The least letters a sample needs to be judged: on a line or two a name
/// or a loan is a large share.
pub const MIN_LETTERS: usize = 200;

/// The least foreign letters a sample needs to be vetoed: on a short page
/// one foreign name is a large share.
pub const MIN_FOREIGN: usize = 10;

/// An ASCII character that is not a letter, or a Latin letter on a page
/// whose alphabet is not Latin.
const NOT_COUNTED: u8 = 0;
/// A letter of the alphabet.
const KNOWN: u8 = 1;
/// A letter the alphabet's script has and the alphabet does not.
const FOREIGN: u8 = 2;

/// One language's letters.
pub struct Alphabet {
    /// Each ASCII character's class (`NOT_COUNTED`, `KNOWN`, `FOREIGN`),
    /// either case: most of most pages is ASCII.
    ascii: [u8; 128],
    /// The rest of the alphabet, sorted.
    other: Vec<char>,
    /// The 256-code-point pages with a letter of the alphabet.
    pages: Vec<u32>,
    floor: f64,
}

impl Alphabet {
    fn has(&self, c: char) -> bool {
        if c.is_ascii() {
            self.ascii[c as usize] == KNOWN
        } else {
            self.other.binary_search(&c).is_ok()
        }
    }

    /// How many of the sample's counted letters and marks are not in the
    /// alphabet, and how many were counted (`share` in
    /// `bench/build_alphabets.py`, which sets the floors, counts the same).
    pub fn foreign(&self, sample: &str) -> (usize, usize) {
        let (mut counted, mut foreign) = (0usize, 0usize);
        let mut in_scope = false;
        let bytes = sample.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            // ASCII by table, without decoding: most of most pages.
            let b = bytes[i];
            if b < 0x80 {
                let class = self.ascii[b as usize];
                in_scope = class == KNOWN || class == FOREIGN;
                counted += in_scope as usize;
                foreign += (class == FOREIGN) as usize;
                i += 1;
                continue;
            }
            let Some(c) = sample[i..].chars().next() else {
                break;
            };
            i += c.len_utf8();
            for l in c.to_lowercase() {
                decompose_canonical(l, |d| {
                    if is_combining_mark(d) {
                        if !in_scope {
                            return;
                        }
                    } else if crate::letters::is_alphabetic(d) {
                        in_scope = self.has(d) || self.pages.contains(&(d as u32 >> 8));
                        if !in_scope {
                            return;
                        }
                    } else {
                        in_scope = false;
                        return;
                    }
                    counted += 1;
                    foreign += !self.has(d) as usize;
                });
            }
        }
        (foreign, counted)
    }
}

/// The alphabets, by code.
pub struct Alphabets {
    by_code: FxHashMap<String, Alphabet>,
}

impl Alphabets {
    /// The shipped alphabets, parsed once.
    pub fn shipped() -> &'static Alphabets {
        static SHIPPED: OnceLock<Alphabets> = OnceLock::new();
        SHIPPED.get_or_init(|| {
            Alphabets::parse(TABLE)
                .expect("rules/alphabets.tsv is a table of code, floor, locales, letters")
        })
    }

    fn parse(text: &str) -> Option<Alphabets> {
        let mut by_code = FxHashMap::default();
        for mut cols in super::rows(text) {
            let code = cols.next()?.to_string();
            let floor: f64 = cols.next()?.parse().ok()?;
            let _locales = cols.next()?;
            let (mut letters, mut other, mut pages) = ([false; 128], Vec::new(), Vec::new());
            for c in cols.next()?.chars() {
                if c.is_ascii() {
                    letters[c as usize] = true;
                } else {
                    other.push(c);
                }
                if !is_combining_mark(c) && !pages.contains(&(c as u32 >> 8)) {
                    pages.push(c as u32 >> 8);
                }
            }
            other.sort_unstable();
            let latin = pages.contains(&0);
            let ascii = std::array::from_fn(|b| {
                let c = b as u8 as char;
                if !c.is_ascii_alphabetic() {
                    NOT_COUNTED
                } else if letters[c.to_ascii_lowercase() as usize] {
                    KNOWN
                } else if latin {
                    FOREIGN
                } else {
                    NOT_COUNTED
                }
            });
            let alphabet = Alphabet {
                ascii,
                other,
                pages,
                floor,
            };
            by_code.insert(code, alphabet);
        }
        Some(Alphabets { by_code })
    }

    /// `code`'s alphabet, if it has one (not the Han, kana or Hangul
    /// languages: a page's rare characters are not foreign).
    pub fn get(&self, code: &str) -> Option<&Alphabet> {
        self.by_code.get(code)
    }

    /// Whether `sample` has more letters foreign to `code`'s alphabet than
    /// `min_share` and [`FLOOR_MARGIN`] times the most its real text had.
    /// `false` without an alphabet or with fewer than [`MIN_LETTERS`].
    pub fn is_foreign(&self, code: &str, sample: &str, min_share: f64) -> bool {
        self.get(code).is_some_and(|a| {
            let (foreign, counted) = a.foreign(sample);
            counted >= MIN_LETTERS
                && foreign >= MIN_FOREIGN
                && foreign as f64 > counted as f64 * min_share.max(a.floor * FLOOR_MARGIN)
        })
    }

    /// The codes with an alphabet.
    pub fn codes(&self) -> impl Iterator<Item = &str> {
        self.by_code.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_parses_and_the_floors_are_shares() {
        let a = Alphabets::shipped();
        assert!(a.codes().count() >= 100);
        assert!(TABLE
            .lines()
            .filter(|l| !l.starts_with('#'))
            .all(|l| l.split('\t').count() == 4));
        assert!(a.by_code.values().all(|x| (0.0..1.0).contains(&x.floor)));
        // No row for the languages written in Han or Hangul.
        assert!(a.get("cmn").is_none() && a.get("kor").is_none());
    }

    #[test]
    fn composed_and_decomposed_letters_count_alike() {
        let tso = Alphabets::shipped().get("tso").unwrap();
        // Venda's ṱ, precomposed and as t with a circumflex below.
        let composed = tso.foreign("vhuṱhu");
        assert_eq!(composed, tso.foreign("vhut\u{32d}hu"));
        assert_eq!(composed, (1, 7));
    }

    #[test]
    fn letters_of_another_script_are_not_counted() {
        let mya = Alphabets::shipped().get("mya").unwrap();
        // Latin on a Burmese page: not Burmese's letters to judge.
        assert_eq!(mya.foreign("Facebook Twitter"), (0, 0));
        let eng = Alphabets::shipped().get("eng").unwrap();
        assert_eq!(eng.foreign("Москва"), (0, 0));
    }
}
