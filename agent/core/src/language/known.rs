//! The codes a page may get: every detector's languages, the
//! macrolanguages, each code's name and how sure crawlsieve is of it
//! (`crawlsieve languages`).

use super::profiles::Profiles;
use super::{langid, udhr};

/// An ISO 639-3 macrolanguage whose members the detectors tell apart only
/// on clear text (Malay and Indonesian read alike; so do Croatian and
/// Bosnian, Bokmål and Nynorsk).
#[derive(Debug)]
pub struct Macrolanguage {
    pub code: &'static str,
    pub members: &'static [&'static str],
}

/// The macrolanguages a page may be given when its members are too close
/// to call. `msa` is also Standard Malay's code in the profiles (as in
/// lingua), which the macrolanguage includes.
pub const MACROLANGUAGES: &[Macrolanguage] = &[
    Macrolanguage {
        code: "msa",
        members: &["msa", "ind"],
    },
    Macrolanguage {
        code: "hbs",
        members: &["hrv", "bos", "srp"],
    },
    Macrolanguage {
        code: "nor",
        members: &["nob", "nno"],
    },
];

/// The macrolanguage both `a` and `b` belong to, if any.
pub(super) fn macrolanguage(a: &str, b: &str) -> Option<&'static Macrolanguage> {
    MACROLANGUAGES
        .iter()
        .find(|m| m.members.contains(&a) && m.members.contains(&b))
}

/// A code a page may get: its script and which detectors know it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Known {
    pub code: &'static str,
    pub script: &'static str,
    /// `both`, `whatlang`, `profiles`, or `macrolanguage of a, b`.
    pub by: String,
    /// Its English name (ISO 639-3).
    pub name: &'static str,
    /// How sure crawlsieve is of it: the share of the 1 KB pages of its
    /// declaration's held-apart half that get it (`0.97`), and how many
    /// pages that is; `None` where the declarations do not have it.
    pub right: Option<(&'static str, u32)>,
}

/// Every code's name and measured right share (`rules/language_names.tsv`,
/// written by `bench/languages_udhr.py --names-out`).
const NAMES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../rules/language_names.tsv"
));

/// `code`'s name and right share from [`NAMES`]; the code itself and `None`
/// for a code the table lacks (a test keeps the table complete).
fn described(code: &str) -> (&'static str, Option<(&'static str, u32)>) {
    NAMES
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|cols| cols.len() == 4 && cols[0] == code)
        .map(|cols| {
            let pages = cols[3].parse().unwrap_or(0);
            let right = (cols[2] != "-" && pages > 0).then_some((cols[2], pages));
            (cols[1], right)
        })
        .unwrap_or(("", None))
}

impl Known {
    fn new(code: &'static str, script: &'static str, by: String) -> Known {
        let (name, right) = described(code);
        Known {
            code,
            script,
            by,
            name,
            right,
        }
    }
}

/// Every code a page may get (`crawlsieve languages`), sorted by code.
pub fn known() -> Vec<Known> {
    let profiles = Profiles::shipped();
    let mut out: Vec<Known> = Vec::new();
    for script in whatlang::Script::all() {
        for lang in script.langs() {
            if out.iter().any(|k| k.code == lang.code()) {
                continue;
            }
            let by = if profiles.knows(lang.code()) {
                "both"
            } else {
                "whatlang"
            };
            out.push(Known::new(lang.code(), script.name(), by.to_string()));
        }
    }
    for p in profiles.langs() {
        if !out.iter().any(|k| k.code == p.code) {
            out.push(Known::new(p.code, p.script.name(), "profiles".to_string()));
        }
    }
    for (code, script) in langid::Model::outsiders() {
        out.push(Known::new(code, script, "langid".to_string()));
    }
    for (code, script) in udhr::Declarations::named_languages() {
        if !out.iter().any(|k| k.code == code) {
            out.push(Known::new(code, script, "declarations".to_string()));
        }
    }
    for m in MACROLANGUAGES {
        let by = format!("macrolanguage of {}", m.members.join(", "));
        match out.iter_mut().find(|k| k.code == m.code) {
            Some(k) => k.by = format!("{}; {by}", k.by),
            None => out.push(Known::new(m.code, "Latin", by)),
        }
    }
    out.sort();
    out
}

/// Whether a detector can give `code` (for validating the allow-list).
pub fn is_known(code: &str) -> bool {
    whatlang::Lang::from_code(code).is_some()
        || Profiles::shipped().knows(code)
        || MACROLANGUAGES.iter().any(|m| m.code == code)
        || langid::Model::outsiders().any(|(c, _)| c == code)
        || udhr::Declarations::named_languages().any(|(c, _)| c == code)
}
