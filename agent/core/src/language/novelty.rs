//! The last check, for the languages no table holds: does the page read as
//! text in its language reads?
//!
//! Every other check compares the decided language with a rival: langid's
//! 21 languages, the declarations of ~480, the word lists of 18. A
//! language none of them holds has no rival to lose to, and a page in it
//! keeps its relative's code: Karelian as Finnish, Karakalpak as Kazakh,
//! Cape Verdean Creole as Portuguese (bench/HISTORY.md, "Language: every
//! declaration"). What such a page may not hide is how badly it reads
//! under the decided language's own profile: the profiles are learnt from
//! general text (lingua's Leipzig corpora), and a relative's page has more
//! trigrams the language never writes, or writes rarely. Not every
//! relative shows: Tahitian reads as well as Maori does under Maori's
//! profile.
//!
//! So each language with a profile has a cut (`rules/novelty.tsv`, written
//! by `bench/build_novelty.py`): the most a page of real text in it cost
//! under its profile, in nats per trigram, over two kinds of text it was
//! never learnt from — the development half of `../shared/data/langid`'s
//! sentences and the fitting half of its declaration, 1 KB pages. A page
//! that costs more than the cut plus `language.novelty_margin` is not read
//! as a page in that language is: `unknown`. The languages judged in the
//! benchmarks (the other halves, languages no table holds) are not in it.

use rustc_hash::FxHashMap;
use std::sync::OnceLock;

#[cfg(test)]
use super::profiles::Profiles;
use super::profiles::Reading;

const CUTS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../rules/novelty.tsv"
));

/// The least trigrams a sample needs to be judged: the cuts are the costs
/// of 1 KB pages (500–800 trigrams); on a sentence or two the mean cost of
/// text in the language itself spreads too far to say.
pub const MIN_TRIGRAMS: usize = 250;

/// The cuts, by code.
pub struct Novelty {
    cuts: FxHashMap<String, f64>,
}

impl Novelty {
    /// The shipped cuts, parsed once.
    pub fn shipped() -> &'static Novelty {
        static SHIPPED: OnceLock<Novelty> = OnceLock::new();
        SHIPPED.get_or_init(|| {
            Novelty::parse(CUTS).expect("rules/novelty.tsv is a table of code, cost, pages")
        })
    }

    fn parse(text: &str) -> Option<Novelty> {
        let mut cuts = FxHashMap::default();
        for mut cols in super::rows(text) {
            let code = cols.next()?.to_string();
            let cut: f64 = cols.next()?.parse().ok()?;
            cuts.insert(code, cut);
        }
        Some(Novelty { cuts })
    }

    /// Whether a page that reads as `reading` under `code`'s profile reads
    /// worse than any page of real text in `code` did, by more than
    /// `margin` (nats per trigram). `false` where `code` has no cut or the
    /// sample was too short to say.
    pub fn is_new(&self, code: &str, reading: Reading, margin: f64) -> bool {
        self.cuts
            .get(code)
            .is_some_and(|&cut| reading.trigrams >= MIN_TRIGRAMS && reading.cost > cut + margin)
    }

    /// The codes with a cut.
    pub fn codes(&self) -> impl Iterator<Item = &str> {
        self.cuts.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cut_is_a_profiles_language() {
        let n = Novelty::shipped();
        assert!(n.codes().count() >= 60);
        for code in n.codes() {
            assert!(Profiles::shipped().knows(code), "{code}");
        }
    }
}
