//! A fifth opinion, in words: the 20,000 most frequent words of the
//! languages that others are mistaken for (`rules/words.tsv.gz`, built by
//! `bench/build_words.py` from the PyPI package `wordfreq`).
//!
//! The declarations' check ([`super::udhr`]) compares letter trigrams. A
//! close relative — Crimean Tatar for Turkish, Asturian for Spanish,
//! Maithili for Hindi, Friulian for Italian — shares most of its letters'
//! company with the language it is taken for, and reads better than it by
//! less than the check's margin. Its words are another matter: half of a
//! Crimean Tatar page's words are outside Turkish's 20,000 most frequent, a
//! fifth of a Turkish page's. So where a relative reads close to the decided
//! language (better, or barely worse), the page's words are looked up in
//! that language's list; a page with far more of them outside than the
//! language's own declaration has is not in that language.
//!
//! Each list is a hash set built the first time a page needs it (20,000
//! words, about 0.5 MB); a page costs one hash and one probe per word of its
//! sample, and only pages a relative reads close to pay it.

use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use std::hash::Hasher;
use std::sync::OnceLock;

const LISTS: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../rules/words.tsv.gz"
));

/// The least words a sample needs for its share outside a list to mean
/// anything: a few sentences.
pub const MIN_WORDS: usize = 30;

/// The word lists, by code.
pub struct Words {
    lists: FxHashMap<String, List>,
}

struct List {
    /// The share of the language's own declaration's words outside the list:
    /// what text in the language itself has (more for Finnish and Turkish,
    /// whose words take many forms, than for English).
    baseline: f64,
    words: String,
    set: OnceLock<FxHashSet<u64>>,
}

impl Words {
    /// The shipped lists, unpacked on first use.
    pub fn shipped() -> &'static Words {
        static WORDS: OnceLock<Words> = OnceLock::new();
        WORDS.get_or_init(|| {
            let text = super::shipped_text(LISTS, "rules/words.tsv.gz");
            Words::parse(&text).expect("rules/words.tsv.gz is a table of word lists")
        })
    }

    fn parse(text: &str) -> Option<Words> {
        let mut lists = FxHashMap::default();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let mut cols = line.splitn(3, '\t');
            let code = cols.next()?.to_string();
            let baseline = cols.next()?.parse().ok()?;
            let words = cols.next()?.to_string();
            lists.insert(
                code,
                List {
                    baseline,
                    words,
                    set: OnceLock::new(),
                },
            );
        }
        Some(Words { lists })
    }

    /// Whether `code` has a list.
    pub fn has(&self, code: &str) -> bool {
        self.lists.contains_key(code)
    }

    /// How far the share of `sample`'s words outside `code`'s list exceeds
    /// the share its own declaration has. `None` without a list for `code`
    /// or with fewer than [`MIN_WORDS`] words.
    pub fn excess(&self, sample: &str, code: &str) -> Option<f64> {
        let list = self.lists.get(code)?;
        let set = list.set.get_or_init(|| {
            let mut set = FxHashSet::default();
            for_each_word(&list.words, |h| {
                set.insert(h);
            });
            set
        });
        let (mut words, mut outside) = (0usize, 0usize);
        for_each_word(sample, |h| {
            words += 1;
            outside += !set.contains(&h) as usize;
        });
        (words >= MIN_WORDS).then(|| outside as f64 / words as f64 - list.baseline)
    }
}

/// Calls `f` with the hash of every word of `text` of two characters or more
/// that does not start with a capital, lower-cased: a run of letters and the
/// marks on them (as `bench/build_words.py` reads the lists and the
/// declarations). Capitalised words are mostly names, which no list of
/// frequent words holds in any language: a page of authors' names is not
/// in another language for it.
pub(super) fn for_each_word(text: &str, mut f: impl FnMut(u64)) {
    let mut h = FxHasher::default();
    let (mut len, mut capital) = (0usize, false);
    for c in text.chars().chain(std::iter::once(' ')) {
        if crate::letters::is_alphabetic(c) || unicode_normalization::char::is_combining_mark(c) {
            if len == 0 {
                capital = c.is_uppercase();
            }
            for l in c.to_lowercase() {
                h.write_u32(l as u32);
            }
            len += 1;
        } else if len > 0 {
            if len >= 2 && !capital {
                f(h.finish());
            }
            h = FxHasher::default();
            len = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_lists_load_and_tell_turkish_from_crimean_tatar() {
        let words = Words::shipped();
        assert!(words.has("tur") && words.has("spa") && words.has("eng"));
        // The declaration's second kilobyte (the first is the list's own
        // baseline) in Turkish and in Crimean Tatar.
        let declaration = super::super::udhr::second_kilobyte;
        let t = words.excess(&declaration("tur"), "tur").unwrap();
        let c = words.excess(&declaration("crh"), "tur").unwrap();
        assert!(c > t + 0.2, "Turkish {t:.2}, Crimean Tatar {c:.2}");
        assert_eq!(words.excess("kısa bir metin", "tur"), None);
        assert_eq!(words.excess(&declaration("tur"), "xxx"), None);
    }

    #[test]
    fn words_are_runs_of_letters_and_their_marks_lower_cased() {
        let mut seen = Vec::new();
        for_each_word("A Bc, bc! x-yz हिन्दी 42 Name", |h| {
            seen.push(h)
        });
        let one = |w: &str| {
            let mut v = Vec::new();
            for_each_word(w, |h| v.push(h));
            v[0]
        };
        assert_eq!(seen, vec![one("bc"), one("yz"), one("हिन्दी")]);
    }
}
