//! The substantive-text filters (Zhang et al.'s DSpin, §V-B, the filters a
//! page passes before it is worth matching): visible text at all, the site's
//! content tag where a rule names one, enough words of main content, not
//! mostly links. The thresholds are `[filters]`; the content tag comes from
//! the per-site rules (`rules/sites.toml`, `[[site]]`).
//!
//! A page one of them rejects is dropped with the filter's reason. Language
//! is judged after them, on the content they let through (`language`).

use crate::analyse::Analysis;
use crate::extract::Content;
use crate::verdict::{Reason, RuleFailure as Failure};
use serde::Deserialize;

/// Why a page carries no substantive text, or `None` when it does. The
/// order is the reasons' precedence: the first that holds is given.
pub fn reject(analysis: &Analysis, content: &Content, settings: &FilterSettings) -> Option<Reason> {
    if analysis.words == 0 {
        Some(Reason::NoVisibleText)
    } else if analysis.content_tag == Some(false) {
        Some(Reason::NoContentTag)
    } else if content.words < settings.min_words {
        Some(Reason::TooShort)
    } else if link_density(content) >= settings.max_link_density {
        Some(Reason::LinkDense)
    } else {
        None
    }
}

/// Links per word of the main content (0 where it has no words).
pub fn link_density(content: &Content) -> f64 {
    if content.words > 0 {
        content.links as f64 / content.words as f64
    } else {
        0.0
    }
}

/// `[filters]`: the thresholds of the filters above.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilterSettings {
    pub min_words: u32,
    pub max_link_density: f64,
    /// The corpus rule sets to run, in order (none by default).
    pub rules: Vec<RuleSet>,
    pub gopher_repetition: gopher_repetition::GopherRepetition,
    pub gopher_quality: gopher_quality::GopherQuality,
    pub c4: c4::C4,
    pub fineweb: fineweb::FineWeb,
    /// What a page says about its use for AI training (`opt_out.rs`).
    #[serde(default)]
    pub opt_out: opt_out::OptOutSettings,
    /// Block and allow lists of URLs (`urls.rs`).
    #[serde(default)]
    pub urls: urls::UrlSettings,
}

impl FilterSettings {
    pub(crate) fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.max_link_density > 0.0,
            "configuration: key `filters.max_link_density`: must be greater than 0"
        );
        for (i, set) in self.rules.iter().enumerate() {
            anyhow::ensure!(
                !self.rules[..i].contains(set),
                "configuration: key `filters.rules`: `{}` is named twice",
                set.name()
            );
        }
        for g in self
            .gopher_repetition
            .top_n_grams
            .iter()
            .chain(&self.gopher_repetition.dup_n_grams)
        {
            anyhow::ensure!(
                g.0 >= 1,
                "configuration: key `filters.gopher_repetition`: an n-gram's n must be at least 1"
            );
        }
        Ok(())
    }
}

pub mod c4;
pub mod fineweb;
pub mod gopher_quality;
pub mod gopher_repetition;
pub mod opt_out;
pub mod tokenizer;
pub mod urls;
pub mod words;

/// `[n, share]` of an n-gram rule.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct NGramShare(pub usize, pub f64);

/// The corpus rule sets by name, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub enum RuleSet {
    GopherRepetition,
    GopherQuality,
    C4,
    Fineweb,
}

impl TryFrom<String> for RuleSet {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| {
                let names: Vec<_> = Self::ALL.iter().map(|s| s.name()).collect();
                format!(
                    "unknown rule set `{name}`; the rule sets are {}",
                    names.join(", ")
                )
            })
    }
}

impl RuleSet {
    pub const ALL: [RuleSet; 4] = [
        RuleSet::GopherRepetition,
        RuleSet::GopherQuality,
        RuleSet::C4,
        RuleSet::Fineweb,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RuleSet::GopherRepetition => "gopher_repetition",
            RuleSet::GopherQuality => "gopher_quality",
            RuleSet::C4 => "c4",
            RuleSet::Fineweb => "fineweb",
        }
    }

    /// The verdict's reason for a page this set drops.
    pub fn reason(self) -> Reason {
        match self {
            RuleSet::GopherRepetition => Reason::GopherRepetition,
            RuleSet::GopherQuality => Reason::GopherQuality,
            RuleSet::C4 => Reason::C4,
            RuleSet::Fineweb => Reason::Fineweb,
        }
    }
}

/// What the rule sets made of a page's text.
#[derive(Debug, Default)]
pub struct Ruled {
    /// The first rule failed, with its set's reason.
    pub failed: Option<(Reason, Failure)>,
    /// The text C4 kept (`None`: C4 did not run).
    pub text: Option<String>,
    /// Lines C4 removed.
    pub lines_removed: u32,
}

/// Runs the configured rule sets in order on a page's text (its content, one
/// paragraph a line, or a text input as given), each on what the previous
/// left: C4 removes lines, as FineWeb's pipeline does before its own rules.
/// The words are split once for the sets between two C4 runs.
pub fn rule(text: &str, settings: &FilterSettings) -> Ruled {
    let mut out = Ruled::default();
    let sets = &settings.rules;
    let mut i = 0;
    while i < sets.len() {
        let c4 = {
            let now: &str = out.text.as_deref().unwrap_or(text);
            let mut words = Words::new(now);
            while i < sets.len() && sets[i] != RuleSet::C4 {
                let result = match sets[i] {
                    RuleSet::GopherRepetition => settings.gopher_repetition.check(now, &mut words),
                    RuleSet::GopherQuality => settings.gopher_quality.check(now, words.all()),
                    _ => settings.fineweb.check(now, &mut words),
                };
                if let Err(f) = result {
                    out.failed = Some(failed(sets[i], f));
                    return out;
                }
                i += 1;
            }
            if i == sets.len() {
                break;
            }
            settings.c4.check(now)
        };
        match c4 {
            Ok(kept) => {
                out.lines_removed += kept.removed;
                out.text = Some(kept.text);
            }
            Err(f) => {
                out.failed = Some(failed(RuleSet::C4, f));
                return out;
            }
        }
        i += 1;
    }
    out
}

/// A text's words (`words::words`), split at most once, when a rule set
/// first needs them: FineWeb's rules need only their number, and only where
/// a bound from the text's whitespace does not decide.
pub struct Words<'a> {
    text: &'a str,
    words: Option<Vec<&'a str>>,
}

impl<'a> Words<'a> {
    pub fn new(text: &'a str) -> Words<'a> {
        Words { text, words: None }
    }

    pub fn all(&mut self) -> &[&'a str] {
        let text = self.text;
        self.words.get_or_insert_with(|| words::words(text))
    }

    /// A bound the number of words is at least: the runs between whitespace
    /// (each is one word or more), or the words where they are split already.
    pub fn at_least(&self) -> usize {
        match &self.words {
            Some(w) => w.len(),
            None => words::spans(self.text),
        }
    }
}

fn failed(set: RuleSet, mut f: Failure) -> (Reason, Failure) {
    f.set = set.name().to_string();
    (set.reason(), f)
}
