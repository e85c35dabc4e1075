//! `[language]` in the configuration, and the thresholds the detectors
//! read from it.

use super::known::is_known;
use super::udhr;
use serde::Deserialize;

/// The least margin (nats per trigram) for the declarations to veto a code
/// or name a language: chosen on the development half of
/// `../shared/data/langid` (bench/HISTORY.md, "Language: the declarations").
pub const UDHR_MARGIN: f64 = 0.15;

/// See [`Thresholds::words_margin`] (bench/HISTORY.md, "Language: words").
pub const WORDS_MARGIN: f64 = 0.25;

/// See [`Thresholds::declaration_words`] (bench/HISTORY.md, "Language: the
/// declarations' words").
pub const DECLARATION_WORDS: f64 = 3.0;

/// See [`Thresholds::novelty_margin`] (bench/HISTORY.md, "Language: the
/// profiles' own cut").
pub const NOVELTY_MARGIN: f64 = 0.8;

/// See [`Thresholds::fasttext_probability`] (bench/HISTORY.md, "Language:
/// a general-domain detector's doubt").
pub const FASTTEXT_PROBABILITY: f64 = 0.1;

/// See [`Thresholds::alphabet_share`] (bench/HISTORY.md, "Language: the
/// alphabets").
pub const ALPHABET_SHARE: f64 = 0.02;

/// `[language]`: what is detected, how sure it must be, what is kept.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum UnknownLanguage {
    Keep,
    Drop,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LanguageSettings {
    pub allow: Vec<String>,
    pub min_confidence: f64,
    pub min_margin: f64,
    /// How sure langid's model must be that a page is in one of the 21
    /// languages only it knows to veto the other detectors' code, and to
    /// name that language (docs/languages.md).
    pub outsider_probability: f64,
    /// Whether langid names the languages only it knows where it vetoes the
    /// other detectors or they found no code (docs/languages.md).
    pub outsider_codes: bool,
    /// How much better a page must read as the declaration of a language
    /// mistaken for the decided one to veto that code (docs/languages.md).
    pub udhr_margin: f64,
    /// How many more of a page's words than its language's own declaration
    /// has must be outside that language's 20,000 most frequent to veto the
    /// code where a relative reads close (docs/languages.md).
    pub words_margin: f64,
    /// Where the decided code has no word list: how many times more of a
    /// page's words must be in a relative's declaration only than in the
    /// code's only to veto the code (docs/languages.md).
    pub declaration_words: f64,
    /// How much worse (nats per trigram) than any page of real text in the
    /// decided language a page must read under its profile for the code to
    /// be vetoed (docs/languages.md).
    pub novelty_margin: f64,
    /// The least probability fastText's lid.176 must give the decided code
    /// for it to stand (docs/languages.md).
    pub fasttext_probability: f64,
    /// The least share of a page's letters foreign to the decided
    /// language's alphabet that vetoes the code (docs/languages.md).
    pub alphabet_share: f64,
    /// The declarations the fourth check reads: the shipped table, or one
    /// built by `bench/build_udhr.py` (docs/languages.md).
    #[serde(default)]
    pub declarations: DeclarationsTable,
    pub unknown: UnknownLanguage,
    pub sample_bytes: usize,
}

impl LanguageSettings {
    /// The page's language from `text` (its first `sample_bytes`), by these
    /// settings' thresholds: the one call every path that names a page's
    /// language makes (judging, matchable chunks, `extract`'s documents).
    pub fn detect(&self, text: &str) -> super::Detected {
        super::detect(text, self.sample_bytes, self.thresholds())
    }

    pub fn thresholds(&self) -> Thresholds {
        Thresholds {
            min_confidence: self.min_confidence,
            min_margin: self.min_margin,
            outsider_probability: self.outsider_probability,
            outsider_codes: self.outsider_codes,
            udhr_margin: self.udhr_margin,
            words_margin: self.words_margin,
            declaration_words: self.declaration_words,
            novelty_margin: self.novelty_margin,
            fasttext_probability: self.fasttext_probability,
            alphabet_share: self.alphabet_share,
            declarations: self.declarations,
        }
    }
}

/// `language.declarations`: which table of declarations the fourth check
/// reads. Empty (the default): the one built into the binary. A path: a
/// table in the same format, read once when the configuration is — a
/// missing or malformed file fails start-up with the key and the reason.
#[derive(Clone, Copy, Default)]
pub struct DeclarationsTable(Option<&'static udhr::Declarations>);

impl DeclarationsTable {
    pub fn get(self) -> &'static udhr::Declarations {
        self.0.unwrap_or_else(udhr::Declarations::shipped)
    }
}

impl std::fmt::Debug for DeclarationsTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            None => f.write_str("DeclarationsTable(shipped)"),
            Some(_) => f.write_str("DeclarationsTable(from a file)"),
        }
    }
}

/// Two settings read the same table when they hold the same one (a path is
/// read once, so the same path gives the same table).
impl PartialEq for DeclarationsTable {
    fn eq(&self, other: &Self) -> bool {
        match (self.0, other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => std::ptr::eq(a, b),
            _ => false,
        }
    }
}

impl<'de> Deserialize<'de> for DeclarationsTable {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let path = String::deserialize(d)?;
        if path.is_empty() {
            return Ok(DeclarationsTable(None));
        }
        udhr::Declarations::from_file(&path)
            .map(|t| DeclarationsTable(Some(t)))
            .map_err(|e| serde::de::Error::custom(format!("{e:#}")))
    }
}

impl LanguageSettings {
    pub(crate) fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            (0.0..=1.0).contains(&self.min_confidence),
            "configuration: key `language.min_confidence`: must be in [0, 1]"
        );
        anyhow::ensure!(
            (0.0..=5.0).contains(&self.min_margin),
            "configuration: key `language.min_margin`: must be in [0, 5] (nats per trigram)"
        );
        anyhow::ensure!(
            self.outsider_probability == 0.0 || (0.5..=1.0).contains(&self.outsider_probability),
            "configuration: key `language.outsider_probability`: must be 0 (off) or in [0.5, 1]"
        );
        anyhow::ensure!(
            (0.0..=5.0).contains(&self.udhr_margin),
            "configuration: key `language.udhr_margin`: must be in [0, 5] (nats per trigram; 0 turns the check off)"
        );
        anyhow::ensure!(
            (0.0..=1.0).contains(&self.words_margin),
            "configuration: key `language.words_margin`: must be in [0, 1] (a share of words; 0 turns the check off)"
        );
        anyhow::ensure!(
            self.declaration_words == 0.0
                || (1.0..=100.0).contains(&self.declaration_words),
            "configuration: key `language.declaration_words`: must be 0 (off) or in [1, 100] (a ratio of word counts)"
        );
        anyhow::ensure!(
            (0.0..=5.0).contains(&self.novelty_margin),
            "configuration: key `language.novelty_margin`: must be in [0, 5] (nats per trigram; 0 turns the check off)"
        );
        anyhow::ensure!(
            (0.0..0.5).contains(&self.fasttext_probability),
            "configuration: key `language.fasttext_probability`: must be in [0, 0.5) (a probability; 0 turns the check off)"
        );
        anyhow::ensure!(
            (0.0..0.5).contains(&self.alphabet_share),
            "configuration: key `language.alphabet_share`: must be in [0, 0.5) (a share of letters; 0 turns the check off)"
        );
        anyhow::ensure!(
            self.sample_bytes >= 64,
            "configuration: key `language.sample_bytes`: must be at least 64"
        );
        for code in &self.allow {
            anyhow::ensure!(
                is_known(code),
                "configuration: key `language.allow`: `{code}` is not an ISO 639-3 code of a language crawlsieve detects (e.g. eng, deu, fra, kaz; README, \"Languages\")"
            );
        }
        Ok(())
    }
}

/// How sure the detectors must be (`[language]` in the config).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// whatlang's confidence, 0..1.
    pub min_confidence: f64,
    /// The profiles' margin (nats per trigram over the runner-up) for them to
    /// name a language whatlang does not know, or to stand against whatlang.
    pub min_margin: f64,
    /// langid's probability for one of the languages only it knows: against
    /// the decided code, it vetoes that code; among all of langid's
    /// languages, it names that language. 0: langid is not run.
    pub outsider_probability: f64,
    /// Whether langid may name its own languages (otherwise it only vetoes),
    /// and the declarations theirs.
    pub outsider_codes: bool,
    /// How much better (nats per trigram) a page must read as the
    /// declaration of a language mistaken for the decided one than as the
    /// decided language's own, for that code to be vetoed ([`udhr`]); and
    /// how clearly a named outsider must lead to be named. 0: not run.
    pub udhr_margin: f64,
    /// Where a language mistaken for the decided one reads close to it
    /// (better by less than `udhr_margin`, or worse by under
    /// `WORDS_REACH`): how much larger than in the decided
    /// language's own declaration the share of the page's words outside
    /// that language's 20,000 most frequent must be for the code to be
    /// vetoed ([`words`](super::words)). 0: not run.
    pub words_margin: f64,
    /// For a decided code without a word list: how many times more of the
    /// page's words must be in the declaration of a language mistaken for
    /// it (and not in the code's) than the other way round for the code to
    /// be vetoed ([`udhr::declared_rival`]). 0: not run.
    pub declaration_words: f64,
    /// How much worse (nats per trigram) than the most costly page of real
    /// text in the decided language (`rules/novelty.tsv`) a page must read
    /// under that language's profile for the code to be vetoed
    /// ([`novelty`](super::novelty)). 0: not run.
    pub novelty_margin: f64,
    /// The least probability lid.176 ([`fasttext`](super::fasttext)) must
    /// give the decided code, where it has the language, for the code to
    /// stand. 0: not run.
    pub fasttext_probability: f64,
    /// The least share of the sample's letters outside the decided
    /// language's alphabet ([`alphabets`](super::alphabets)) that vetoes
    /// the code, where that is above its floor. 0: not run.
    pub alphabet_share: f64,
    /// The declarations table ([`udhr`]).
    pub declarations: DeclarationsTable,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            min_confidence: 0.0,
            min_margin: 0.12,
            outsider_probability: 0.9,
            outsider_codes: true,
            udhr_margin: UDHR_MARGIN,
            words_margin: WORDS_MARGIN,
            declaration_words: DECLARATION_WORDS,
            novelty_margin: NOVELTY_MARGIN,
            fasttext_probability: FASTTEXT_PROBABILITY,
            alphabet_share: ALPHABET_SHARE,
            declarations: DeclarationsTable::default(),
        }
    }
}
