//! Letter-trigram profiles of 72 languages, scored as naive Bayes.
//!
//! whatlang, the fast first pass, knows 69 languages; text in a language it
//! does not know comes out as a *reliable* neighbour (Kazakh as Belarusian or
//! Russian, Malay as Indonesian, Xhosa as Zulu: bench/HISTORY.md, "Language").
//! These profiles are the second opinion that knows those languages: each
//! language's 4,000 most probable letter trigrams with their probabilities,
//! taken from lingua-rs's models (Apache-2.0, learnt from the Leipzig corpora;
//! `bench/langmodel` builds `rules/languages.tsv.gz` from them). lingua's own
//! detector reads its full models at 5–40 ms a page from a 290 MB binary; this
//! table is 1.1 MB gzipped and scores a 1 KB sample in tens of microseconds.
//!
//! Scoring is linear in the sample: one hash lookup per trigram, then its
//! row of the script's languages added at once (`Table`). A trigram a
//! language's profile lacks costs that language its `floor` (the profile's
//! least likely trigram, one nat worse).

use rustc_hash::FxHashMap;
use std::sync::OnceLock;

const PROFILES: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../rules/languages.tsv.gz"
));

/// A language of the profiles.
#[derive(Debug)]
pub struct Profile {
    /// ISO 639-3, as whatlang spells it where whatlang knows the language.
    pub code: &'static str,
    /// The script its trigrams are written in.
    pub script: whatlang::Script,
    /// What a trigram outside the profile costs (centinats).
    floor: u32,
}

/// The profiles, indexed by trigram, one table per script.
pub struct Profiles {
    langs: Vec<Profile>,
    tables: Vec<Table>,
    /// Per script, the letters its languages write (a bitset over
    /// the Basic Multilingual Plane).
    alphabets: Vec<(whatlang::Script, Box<[u64]>)>,
}

/// The trigrams of one script's languages as dense rows: per trigram, what
/// it adds to each language's cost (its cost less the language's floor; 0
/// where the language's profile lacks it). A sample is scored only among
/// its script's languages, and an English trigram is in 41 of the 49 Latin
/// profiles on average: a row added with SIMD costs a fraction of that many
/// (language, cost) postings walked one by one.
struct Table {
    script: whatlang::Script,
    /// The languages, as indices into `Profiles::langs`, ascending.
    langs: Vec<usize>,
    /// Trigram (three chars packed) → its row.
    index: FxHashMap<u64, u32>,
    /// `langs.len()` entries a row, in centinats, each < 0 or 0 (absent).
    rows: Vec<i16>,
}

/// The best and the second-best language of a sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    pub best: usize,
    /// The three best languages, best first (`top[0] == Some(best)`).
    pub top: [Option<usize>; 3],
    /// How much more likely the best is than the runner-up, per trigram, in
    /// nats (0 when only one language was a candidate).
    pub margin: f64,
    /// Trigrams read.
    pub trigrams: usize,
    /// The share of the sample's letters in the script's alphabet: low when
    /// much of the sample is in another script (a page half English, half
    /// Urdu scored among the Latin-script languages).
    pub in_script: f64,
    /// The share of the sample's trigrams in the best language's profile.
    pub fit: f64,
    /// What `top`'s languages cost, nats per trigram (as [`Reading::cost`]).
    pub costs: [f64; 3],
}

impl Scored {
    /// How the sample reads under `code`'s profile, where `code` is one of
    /// the three best.
    pub fn reading(&self, profiles: &Profiles, code: &str) -> Option<Reading> {
        let i = self
            .top
            .iter()
            .position(|l| l.is_some_and(|l| profiles.langs[l].code == code))?;
        Some(Reading {
            cost: self.costs[i],
            trigrams: self.trigrams,
        })
    }
}

/// A text under one language's profile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    /// Nats per trigram.
    pub cost: f64,
    /// Trigrams read.
    pub trigrams: usize,
}

impl Profiles {
    /// The shipped profiles, parsed once.
    pub fn shipped() -> &'static Profiles {
        static SHIPPED: OnceLock<Profiles> = OnceLock::new();
        SHIPPED.get_or_init(|| {
            Profiles::parse(&super::shipped_text(PROFILES, "rules/languages.tsv.gz"))
        })
    }

    fn parse(text: &str) -> Profiles {
        let mut langs: Vec<Profile> = Vec::new();
        let mut by_trigram: FxHashMap<u64, Vec<(u8, u16)>> = FxHashMap::default();
        let mut alphabets: Vec<(whatlang::Script, Box<[u64]>)> = Vec::new();
        for line in text.lines() {
            if let Some(head) = line.strip_prefix('#') {
                let mut fields = head.split('\t');
                let (code, script, letters) = (
                    fields.next().unwrap_or_default(),
                    fields.next().unwrap_or_default(),
                    fields.next().unwrap_or_default(),
                );
                let script = whatlang::Script::all()
                    .iter()
                    .copied()
                    .find(|s| s.name() == script)
                    .unwrap_or(whatlang::Script::Latin);
                let shared = match alphabets.iter().position(|(s, _)| *s == script) {
                    Some(i) => &mut alphabets[i].1,
                    None => {
                        alphabets.push((script, vec![0u64; 1024].into_boxed_slice()));
                        &mut alphabets.last_mut().expect("just pushed").1
                    }
                };
                for c in letters.chars() {
                    set(shared, c as u32);
                }
                langs.push(Profile {
                    code: Box::leak(code.to_string().into_boxed_str()),
                    script,
                    floor: 0,
                });
                continue;
            }
            let (trigram, cost) = line.split_once('\t').expect("trigram\\tcost");
            let cost: u16 = cost.parse().expect("a cost");
            let lang = langs.len() - 1;
            langs[lang].floor = langs[lang].floor.max(cost as u32 + 100);
            let key = pack(&mut trigram.chars()).expect("three chars");
            by_trigram.entry(key).or_default().push((lang as u8, cost));
        }
        let tables = tables(&langs, by_trigram);
        Profiles {
            langs,
            tables,
            alphabets,
        }
    }

    pub fn langs(&self) -> &[Profile] {
        &self.langs
    }

    /// Whether the profiles know the language `code`.
    pub fn knows(&self, code: &str) -> bool {
        self.langs.iter().any(|l| l.code == code)
    }

    /// How `text` reads under `code`'s profile alone (its script's letters
    /// only, as [`Profiles::score`] reads them); `None` when no profile is
    /// `code`'s or the text has no trigram in its script.
    pub fn reading(&self, text: &str, code: &str) -> Option<Reading> {
        let lang = self.langs.iter().position(|l| l.code == code)?;
        let script = self.langs[lang].script;
        let table = self.tables.iter().find(|t| t.script == script)?;
        let k = table.langs.iter().position(|&l| l == lang)?;
        let (_, alphabet) = self.alphabets.iter().find(|(s, _)| *s == script)?;
        let mut sums = Sums::new(table, text.len().min(Sums::BLOCK));
        for_each_trigram(text, |c| has(alphabet, c), |key| sums.push(key));
        sums.flush();
        if sums.trigrams == 0 {
            return None;
        }
        let total = sums.found[k] + sums.trigrams as i64 * self.langs[lang].floor as i64;
        Some(Reading {
            cost: total as f64 / 100.0 / sums.trigrams as f64,
            trigrams: sums.trigrams,
        })
    }

    /// Scores `text` among the languages written in `script`; `None` when
    /// none is, or the text has no trigram.
    pub fn score(&self, text: &str, script: whatlang::Script) -> Option<Scored> {
        let table = self.tables.iter().find(|t| t.script == script)?;
        let width = table.langs.len();
        let alphabet: &[u64] = self
            .alphabets
            .iter()
            .find(|(s, _)| *s == script)
            .map(|(_, bits)| &bits[..])?;
        // A trigram ends at each letter at most: a 1 KB sample needs 1 K keys, not a block.
        let mut sums = Sums::new(table, text.len().min(Sums::BLOCK));
        let (mut letters, mut in_script) = (0usize, 0usize);
        for_each_trigram(
            text,
            |c| {
                letters += 1;
                let inside = has(alphabet, c);
                in_script += inside as usize;
                inside
            },
            |key| sums.push(key),
        );
        sums.flush();
        let Sums {
            trigrams,
            found,
            hits,
            ..
        } = sums;
        if trigrams == 0 {
            return None;
        }
        let total = |k: usize| found[k] + trigrams as i64 * self.langs[table.langs[k]].floor as i64;
        // (total, language, its place in the table) over the script's languages.
        let mut ranked: Vec<(i64, usize, usize)> =
            (0..width).map(|k| (total(k), table.langs[k], k)).collect();
        let n = ranked.len().min(3);
        ranked.select_nth_unstable(n - 1);
        ranked[..n].sort_unstable();
        ranked.truncate(n);
        let margin = match ranked.get(1) {
            Some(second) => (second.0 - ranked[0].0) as f64 / 100.0 / trigrams as f64,
            None => 0.0,
        };
        Some(Scored {
            best: ranked[0].1,
            top: [
                Some(ranked[0].1),
                ranked.get(1).map(|r| r.1),
                ranked.get(2).map(|r| r.1),
            ],
            margin,
            trigrams,
            in_script: in_script as f64 / letters.max(1) as f64,
            fit: hits[ranked[0].2] as f64 / trigrams as f64,
            costs: [0, 1, 2].map(|i| {
                ranked
                    .get(i)
                    .map_or(0.0, |r| r.0 as f64 / 100.0 / trigrams as f64)
            }),
        })
    }
}

/// A sample's trigrams summed over one table: per language, the costs of the
/// trigrams its profile has (less its floor) and how many it has.
///
/// Keys are taken in blocks and each block is summed in two short loops,
/// the rows looked up, then added. Each probe and row is a likely cache miss
/// once a page's own bytes have gone through the cache; in short loops with
/// nothing between them the CPU has many misses in flight at once, instead
/// of one per trip through the decoding and the adding. The sums are
/// integers: the same in any order.
struct Sums<'t> {
    table: &'t Table,
    keys: Vec<u64>,
    rows: Vec<u32>,
    /// Per language, in i32 for twice the SIMD lanes of i64: a block adds at
    /// most `BLOCK` × 1,400 centinats, then it is folded into `found`.
    block: Vec<i32>,
    found: Vec<i64>,
    hits: Vec<i32>,
    trigrams: usize,
}

impl<'t> Sums<'t> {
    const BLOCK: usize = 4096;

    /// `keys`: how many keys to make room for at first (at most `BLOCK` are held).
    fn new(table: &'t Table, keys: usize) -> Self {
        let width = table.langs.len();
        Sums {
            table,
            keys: Vec::with_capacity(keys),
            rows: Vec::with_capacity(keys),
            block: vec![0; width],
            found: vec![0; width],
            hits: vec![0; width],
            trigrams: 0,
        }
    }

    fn push(&mut self, key: u64) {
        self.keys.push(key);
        if self.keys.len() == Self::BLOCK {
            self.flush();
        }
    }

    fn flush(&mut self) {
        let (table, width) = (self.table, self.table.langs.len());
        self.trigrams += self.keys.len();
        self.rows.clear();
        self.rows.extend(
            self.keys
                .drain(..)
                .filter_map(|k| table.index.get(&k).copied()),
        );
        for &r in &self.rows {
            let row = &table.rows[r as usize * width..(r as usize + 1) * width];
            // Vectorised by the compiler: equal lengths, no bounds checks.
            for ((b, h), &c) in self.block.iter_mut().zip(self.hits.iter_mut()).zip(row) {
                *b += c as i32;
                *h += (c != 0) as i32;
            }
        }
        for (b, f) in self.block.iter_mut().zip(self.found.iter_mut()) {
            *f += std::mem::take(b) as i64;
        }
    }
}

/// One table per script from the (language, cost) postings of every trigram.
fn tables(langs: &[Profile], by_trigram: FxHashMap<u64, Vec<(u8, u16)>>) -> Vec<Table> {
    let mut tables: Vec<Table> = Vec::new();
    for (i, l) in langs.iter().enumerate() {
        match tables.iter_mut().find(|t| t.script == l.script) {
            Some(t) => t.langs.push(i),
            None => tables.push(Table {
                script: l.script,
                langs: vec![i],
                index: FxHashMap::default(),
                rows: Vec::new(),
            }),
        }
    }
    // Position of each language in its script's table.
    let mut at = vec![(0usize, 0usize); langs.len()];
    for (t, table) in tables.iter().enumerate() {
        for (k, &l) in table.langs.iter().enumerate() {
            at[l] = (t, k);
        }
    }
    // Sorted: the same tables whatever order the hash map gives.
    let mut keys: Vec<u64> = by_trigram.keys().copied().collect();
    keys.sort_unstable();
    for key in keys {
        for &(lang, cost) in &by_trigram[&key] {
            let (t, k) = at[lang as usize];
            let table = &mut tables[t];
            let width = table.langs.len();
            let next = table.index.len() as u32;
            let r = *table.index.entry(key).or_insert(next) as usize;
            if r == next as usize {
                table.rows.resize(table.rows.len() + width, 0);
            }
            let delta = cost as i64 - langs[lang as usize].floor as i64;
            table.rows[r * width + k] =
                i16::try_from(delta).expect("costs are centinats below 327 nats");
        }
    }
    for t in &mut tables {
        t.rows.shrink_to_fit();
    }
    tables
}

/// Calls `f` with every trigram inside a word of `text`, lowercased (as
/// lingua counts them: letters only, no trigram across a word boundary).
/// `keep` sees every letter; one it refuses (a letter of another script)
/// ends the word, so a mixed page is scored on its main script's words.
fn for_each_trigram(text: &str, mut keep: impl FnMut(u32) -> bool, mut f: impl FnMut(u64)) {
    let mut window = [0u32; 3];
    let mut run = 0usize;
    for c in text.chars() {
        if !is_letter(c) {
            run = 0;
            continue;
        }
        // Lowercase without allocating: the first char of the mapping (all
        // letters of these languages lowercase to one char, but for İ).
        let c = if c.is_ascii() {
            c.to_ascii_lowercase()
        } else {
            c.to_lowercase().next().unwrap_or(c)
        } as u32;
        if !keep(c) {
            run = 0;
            continue;
        }
        window = [window[1], window[2], c];
        run += 1;
        if run >= 3 {
            f(key(window));
        }
    }
}

/// A letter as lingua's models count them (`\p{L}`): vowel signs and other
/// combining marks split words, so Hindi or Tamil trigrams are read the way
/// they were counted.
#[inline]
fn is_letter(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    crate::letters::is_alphabetic(c) && !unicode_normalization::char::is_combining_mark(c)
}

fn set(bits: &mut [u64], c: u32) {
    if c < 0x10000 {
        bits[(c >> 6) as usize] |= 1 << (c & 63);
    }
}

fn has(bits: &[u64], c: u32) -> bool {
    c < 0x10000 && bits[(c >> 6) as usize] & (1 << (c & 63)) != 0
}

fn key(w: [u32; 3]) -> u64 {
    ((w[0] as u64) << 42) | ((w[1] as u64) << 21) | w[2] as u64
}

fn pack(chars: &mut std::str::Chars) -> Option<u64> {
    let a = chars.next()? as u32;
    let b = chars.next()? as u32;
    let c = chars.next()? as u32;
    chars.next().is_none().then(|| key([a, b, c]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// The scoring written plainly: per candidate language, the sum over the
    /// sample's trigrams of its cost, or its floor where its profile lacks it.
    fn reference(p: &Profiles, text: &str, script: whatlang::Script) -> Option<Scored> {
        let raw = super::super::gunzip_shipped(PROFILES, "rules/languages.tsv.gz");
        let mut costs: Vec<HashMap<u64, i64>> = Vec::new();
        for line in std::str::from_utf8(&raw).unwrap().lines() {
            if line.starts_with('#') {
                costs.push(HashMap::new());
                continue;
            }
            let (t, c) = line.split_once('\t').unwrap();
            let key = pack(&mut t.chars()).unwrap();
            costs.last_mut().unwrap().insert(key, c.parse().unwrap());
        }
        let alphabet = &p.alphabets.iter().find(|(s, _)| *s == script)?.1;
        let (mut keys, mut letters, mut inside) = (Vec::new(), 0usize, 0usize);
        for_each_trigram(
            text,
            |c| {
                letters += 1;
                inside += has(alphabet, c) as usize;
                has(alphabet, c)
            },
            |k| keys.push(k),
        );
        if keys.is_empty() {
            return None;
        }
        let mut ranked: Vec<(i64, usize, usize)> = (0..p.langs.len())
            .filter(|&l| p.langs[l].script == script)
            .map(|l| {
                let floor = p.langs[l].floor as i64;
                let total = keys
                    .iter()
                    .map(|k| *costs[l].get(k).unwrap_or(&floor))
                    .sum();
                let hits = keys.iter().filter(|k| costs[l].contains_key(k)).count();
                (total, l, hits)
            })
            .collect();
        ranked.sort_unstable();
        let n = keys.len();
        Some(Scored {
            best: ranked[0].1,
            top: [0, 1, 2].map(|i| ranked.get(i).map(|r| r.1)),
            margin: ranked
                .get(1)
                .map_or(0.0, |s| (s.0 - ranked[0].0) as f64 / 100.0 / n as f64),
            trigrams: n,
            in_script: inside as f64 / letters.max(1) as f64,
            fit: ranked[0].2 as f64 / n as f64,
            costs: [0, 1, 2].map(|i| ranked.get(i).map_or(0.0, |r| r.0 as f64 / 100.0 / n as f64)),
        })
    }

    #[test]
    fn the_dense_rows_score_as_the_plain_sums() {
        let p = Profiles::shipped();
        let texts = [
            "The quick brown fox jumps over the lazy dog, and the dog did not mind at all.",
            "Der schnelle braune Fuchs springt über den faulen Hund.",
            "Bahasa Melayu ialah bahasa kebangsaan Malaysia dan salah satu bahasa rasmi Singapura.",
            "Қазақстан Республикасы Орталық Азияның солтүстігінде орналасқан мемлекет.",
            "Россия является крупнейшим государством мира по площади территории.",
            "हिन्दी भारत की राजभाषा है और यह देवनागरी लिपि में लिखी जाती है।",
            "زبان فارسی یکی از زبان‌های هندواروپایی است.",
            "Hayastan: Հայաստանի Հանրապետություն, mixed with English words here.",
            "a",
            "",
        ];
        let scripts = [
            whatlang::Script::Latin,
            whatlang::Script::Cyrillic,
            whatlang::Script::Devanagari,
            whatlang::Script::Arabic,
            whatlang::Script::Armenian,
        ];
        let mut compared = 0;
        for t in texts {
            for s in scripts {
                assert_eq!(p.score(t, s), reference(p, t, s), "{s:?}: {t}");
                compared += p.score(t, s).is_some() as usize;
            }
        }
        // Whole pages' worth: every text once more, joined.
        let joined = texts.join(" ").repeat(8);
        for s in scripts {
            assert_eq!(p.score(&joined, s), reference(p, &joined, s));
        }
        assert!(compared >= 9, "{compared} texts scored");
    }

    #[test]
    fn the_shipped_profiles_load_and_tell_neighbours_apart() {
        let p = Profiles::shipped();
        assert!(p.langs().len() >= 70, "{}", p.langs().len());
        assert!(p.knows("kaz") && p.knows("msa") && p.knows("eng") && !p.knows("xx"));
        let code = |t: &str, s| p.langs()[p.score(t, s).unwrap().best].code;
        let kk = "Қазақстан Республикасы Орталық Азияның солтүстігінде және Еуропаның шығысында орналасқан мемлекет. Астанасы Астана қаласы.";
        assert_eq!(code(kk, whatlang::Script::Cyrillic), "kaz");
        let ru = "Россия является крупнейшим государством мира по площади территории, которая простирается от Балтийского моря до Тихого океана.";
        assert_eq!(code(ru, whatlang::Script::Cyrillic), "rus");
        assert!(p.score("!!! 123", whatlang::Script::Latin).is_none());
        assert!(p.score("hello world", whatlang::Script::Hangul).is_none());
    }
}
