//! A third opinion for languages crawlsieve does not know: langid.py's naive
//! Bayes model over byte n-grams of 97 languages (Lui and Baldwin, ACL 2012;
//! BSD licence; `rules/langid.bin.gz`, exported by `bench/build_langid.py`
//! from the pinned PyPI release).
//!
//! The trigram profiles and whatlang cover the 75 languages of lingua's
//! data; text in a close relative they lack (Galician, Occitan, Aragonese,
//! Breton, Luxembourgish, Faroese, Kyrgyz, Malagasy…) scores as its
//! neighbour (Spanish, Catalan, Kazakh…). langid.py knows many of those. It
//! only vetoes here: when it is sure the text is a language outside
//! crawlsieve's codes, the page's language is `unknown` rather than a
//! neighbour's code (docs/languages.md).
//!
//! Classification is langid.py's: its features are byte n-grams (one to
//! four bytes; the model file holds them as langid.py does, a DFA whose
//! states emit the n-grams ending there, read back into lookup tables at
//! load); a feature seen n times adds n times its log-probability row to the
//! class priors; the best class wins, its probability normalised over all
//! classes. Linear in the sample: at most four lookups a byte.

use std::sync::OnceLock;

const MODEL: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../rules/langid.bin.gz"
));

/// The model, as `bench/build_langid.py` lays it out.
pub struct Model {
    /// ISO 639-1 codes, in the model's class order.
    pub classes: Vec<String>,
    /// The features' byte n-grams, read back from the DFA at load.
    ngrams: Ngrams,
    prior: Vec<f32>,
    /// Row per feature, a log-probability per class.
    weights: Vec<f32>,
    /// The outsiders' classes, and their weights as a row per feature (the
    /// veto reads these for every page: contiguous, 21 floats a feature).
    outsider_classes: Vec<usize>,
    /// Their ISO 639-3 codes, in the same order.
    outsider_codes: Vec<&'static str>,
    outsider_weights: Vec<f32>,
    /// The weights again as a column per class (a class's column is 30 KB:
    /// the few columns of the decided language stay in cache).
    columns: Vec<f32>,
    features_n: usize,
    /// A reported code (ISO 639-3, macrolanguages too) → its classes.
    by_code: std::collections::HashMap<&'static str, Vec<usize>>,
}

/// The least margin (nats per feature occurrence over the runner-up) for
/// langid to name one of its own languages. Its probabilities are those of
/// naive Bayes, 0.99+ on nearly every page, so they cannot tell a sure answer
/// from a guess among relatives; the margin can. Chosen on the development
/// half of `../shared/data/langid` (75 languages, none of them langid's
/// own, so every name given there is wrong): the names it gave there
/// (Bengali as Assamese, German as Luxembourgish) had margins of at most
/// 0.023; 0.025 names none of them (bench/HISTORY.md, "Language: langid
/// names its own languages").
const NAMING_MARGIN: f64 = 0.025;

/// What crawlsieve makes of one of langid's classes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Class {
    /// A language whatlang or the profiles know (ISO 639-3): langid only
    /// checks their decision.
    Known(&'static str),
    /// A language only langid knows (ISO 639-3; `kur` is the macrolanguage,
    /// langid's Kurdish is mostly Kurmanji) and the script it is written in:
    /// langid names it when it is sure.
    Outsider(&'static str, &'static str),
}

use Class::{Known, Outsider};

/// langid's classes (ISO 639-1) and the ISO 639-3 codes crawlsieve reports.
const CODES: &[(&str, Class)] = &[
    ("af", Known("afr")),
    ("am", Known("amh")),
    ("an", Outsider("arg", "Latin")),
    ("ar", Known("ara")),
    ("as", Outsider("asm", "Bengali")),
    ("az", Known("aze")),
    ("be", Known("bel")),
    ("bg", Known("bul")),
    ("bn", Known("ben")),
    ("br", Outsider("bre", "Latin")),
    ("bs", Known("bos")),
    ("ca", Known("cat")),
    ("cs", Known("ces")),
    ("cy", Known("cym")),
    ("da", Known("dan")),
    ("de", Known("deu")),
    ("dz", Outsider("dzo", "Tibetan")),
    ("el", Known("ell")),
    ("en", Known("eng")),
    ("eo", Known("epo")),
    ("es", Known("spa")),
    ("et", Known("est")),
    ("eu", Known("eus")),
    ("fa", Known("pes")),
    ("fi", Known("fin")),
    ("fo", Outsider("fao", "Latin")),
    ("fr", Known("fra")),
    ("ga", Known("gle")),
    ("gl", Outsider("glg", "Latin")),
    ("gu", Known("guj")),
    ("he", Known("heb")),
    ("hi", Known("hin")),
    ("hr", Known("hrv")),
    ("ht", Outsider("hat", "Latin")),
    ("hu", Known("hun")),
    ("hy", Known("hye")),
    ("id", Known("ind")),
    ("is", Known("isl")),
    ("it", Known("ita")),
    ("ja", Known("jpn")),
    ("jv", Known("jav")),
    ("ka", Known("kat")),
    ("kk", Known("kaz")),
    ("km", Known("khm")),
    ("kn", Known("kan")),
    ("ko", Known("kor")),
    ("ku", Outsider("kur", "Latin")),
    ("ky", Outsider("kir", "Cyrillic")),
    ("la", Known("lat")),
    ("lb", Outsider("ltz", "Latin")),
    ("lo", Outsider("lao", "Lao")),
    ("lt", Known("lit")),
    ("lv", Known("lav")),
    ("mg", Outsider("mlg", "Latin")),
    ("mk", Known("mkd")),
    ("ml", Known("mal")),
    ("mn", Known("mon")),
    ("mr", Known("mar")),
    ("ms", Known("msa")),
    ("mt", Outsider("mlt", "Latin")),
    ("nb", Known("nob")),
    ("ne", Known("nep")),
    ("nl", Known("nld")),
    ("nn", Known("nno")),
    ("no", Known("nor")),
    ("oc", Outsider("oci", "Latin")),
    ("or", Known("ori")),
    ("pa", Known("pan")),
    ("pl", Known("pol")),
    ("ps", Outsider("pus", "Arabic")),
    ("pt", Known("por")),
    ("qu", Outsider("que", "Latin")),
    ("ro", Known("ron")),
    ("ru", Known("rus")),
    ("rw", Outsider("kin", "Latin")),
    ("se", Outsider("sme", "Latin")),
    ("si", Known("sin")),
    ("sk", Known("slk")),
    ("sl", Known("slv")),
    ("sq", Known("sqi")),
    ("sr", Known("srp")),
    ("sv", Known("swe")),
    ("sw", Known("swa")),
    ("ta", Known("tam")),
    ("te", Known("tel")),
    ("th", Known("tha")),
    ("tl", Known("tgl")),
    ("tr", Known("tur")),
    ("ug", Outsider("uig", "Arabic")),
    ("uk", Known("ukr")),
    ("ur", Known("urd")),
    ("vi", Known("vie")),
    ("vo", Outsider("vol", "Latin")),
    ("wa", Outsider("wln", "Latin")),
    ("xh", Known("xho")),
    ("zh", Known("cmn")),
    ("zu", Known("zul")),
];

/// What the model says of a text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Guess {
    /// Index into `Model::classes`.
    pub class: usize,
    /// Its probability among the 97 classes.
    pub probability: f64,
    /// How much more likely it is than the runner-up, in nats per feature
    /// occurrence read (0 with fewer than two classes or no feature).
    pub margin: f64,
}

impl Model {
    /// The shipped model, read once.
    pub fn shipped() -> &'static Model {
        static SHIPPED: OnceLock<Model> = OnceLock::new();
        SHIPPED.get_or_init(|| {
            let raw = super::gunzip_shipped(MODEL, "rules/langid.bin.gz");
            Model::parse(&raw)
                .expect("rules/langid.bin.gz is a langid model")
                .0
        })
    }

    /// The model, and the DFA it came with (which only the tests keep).
    fn parse(raw: &[u8]) -> Option<(Model, Dfa)> {
        let (classes, features_n, dfa, prior, weights) = read(raw)?;
        let ngrams = Ngrams::from_dfa(&dfa, features_n)?;
        let classes_n = classes.len();
        let (outsider_classes, outsider_codes): (Vec<usize>, Vec<&'static str>) = classes
            .iter()
            .enumerate()
            .filter_map(|(i, c)| match class_of(c)? {
                Outsider(three, _) => Some((i, three)),
                Known(_) => None,
            })
            .unzip();
        let outsider_weights = weights
            .chunks_exact(classes_n)
            .flat_map(|row| outsider_classes.iter().map(move |&k| row[k]))
            .collect();
        let columns = (0..classes_n)
            .flat_map(|k| weights.chunks_exact(classes_n).map(move |row| row[k]))
            .collect();
        let by_code = classes_by_code(&classes);
        Some((
            Model {
                by_code,
                classes,
                ngrams,
                prior,
                weights,
                outsider_classes,
                outsider_codes,
                outsider_weights,
                columns,
                features_n,
            },
            dfa,
        ))
    }

    /// The language outside crawlsieve's codes that `text` is in rather than
    /// `decided` (ISO 639-3), when langid is sure of it: of `decided`'s
    /// classes and the outsiders, an outsider is the most probable with at
    /// least `min_probability` among them. `None` when `decided` is not one
    /// of langid's languages (nothing to compare) or it holds.
    pub fn outsider(&self, text: &[u8], decided: &str, min_probability: f64) -> Option<&str> {
        let ours = self.by_code.get(decided)?;
        let o = self.outsider_classes.len();
        let mut scores: Vec<f64> = self
            .outsider_classes
            .iter()
            .chain(ours)
            .map(|&k| self.prior[k] as f64)
            .collect();
        let mut sums = vec![0f32; o + ours.len()];
        let fs = self.features_n;
        let mut occurrences = 0f64;
        self.each_feature(text, |f, n| {
            occurrences += n as f64;
            let row = &self.outsider_weights[f * o..(f + 1) * o];
            for (r, &x) in sums.iter_mut().zip(row) {
                *r += n * x;
            }
            for (r, &k) in sums[o..].iter_mut().zip(ours) {
                *r += n * self.columns[k * fs + f];
            }
        });
        for (s, r) in scores.iter_mut().zip(&sums) {
            *s += *r as f64;
        }
        let g = best(&scores, occurrences);
        (g.class < o && g.probability >= min_probability)
            .then(|| self.classes[self.outsider_classes[g.class]].as_str())
    }

    /// The language only langid knows that `text` is in, when langid is sure
    /// of it among all its 97 languages: its ISO 639-3 code and how sure,
    /// 0.5..1 (its margin over the runner-up, scaled as the profiles' is:
    /// naive Bayes probabilities are 1.0 on nearly every page).
    /// `None` when the most probable language is one crawlsieve's other
    /// detectors know, or is less probable than `min_probability`.
    ///
    /// The veto above compares an outsider with the decided language only;
    /// naming one takes more: Asturian is an outsider against Spanish, but
    /// it is not Galician either, and here Galician must beat every language,
    /// Spanish and Portuguese too, to be named. The cost (every class's
    /// column) is paid only on pages the veto or the other detectors left
    /// without a code.
    pub fn named_outsider(&self, text: &[u8], min_probability: f64) -> Option<(&'static str, f64)> {
        let g = self.classify(text);
        if g.probability < min_probability || g.margin < NAMING_MARGIN {
            return None;
        }
        let i = self.outsider_classes.iter().position(|&k| k == g.class)?;
        // As the profiles' confidence: the margin over twice the least one.
        let confidence = (g.margin / (2.0 * NAMING_MARGIN)).min(1.0);
        Some((self.outsider_codes[i], confidence))
    }

    /// The languages only langid knows: ISO 639-3 code and script.
    pub fn outsiders() -> impl Iterator<Item = (&'static str, &'static str)> {
        CODES.iter().filter_map(|&(_, c)| match c {
            Outsider(three, script) => Some((three, script)),
            Known(_) => None,
        })
    }

    /// Calls `each(feature, times)` for every feature of `text`, in the order
    /// first seen: every byte n-gram of `text` that is a feature, counted.
    fn each_feature(&self, text: &[u8], mut each: impl FnMut(usize, f32)) {
        let mut times = vec![0u16; self.features_n];
        let mut seen: Vec<u16> = Vec::with_capacity(256);
        self.ngrams.each(text, |f| {
            let t = &mut times[f as usize];
            if *t == 0 {
                seen.push(f);
            }
            *t = t.saturating_add(1);
        });
        // In feature order, as langid.py's dot product sums them: the same
        // floats whatever order the text shows them in.
        seen.sort_unstable();
        for &f in &seen {
            each(f as usize, times[f as usize] as f32);
        }
    }

    /// The most probable class of `text`.
    pub fn classify(&self, text: &[u8]) -> Guess {
        let all: Vec<usize> = (0..self.classes.len()).collect();
        self.classify_among(text, &all)
    }

    /// The most probable of `classes` (indices into `Model::classes`) for
    /// `text`; `Guess::class` is an index into `classes`, its probability
    /// normalised over them. The cost is one column per class given.
    fn classify_among(&self, text: &[u8], classes: &[usize]) -> Guess {
        let all = self.classes.len();
        let mut scores: Vec<f64> = classes.iter().map(|&k| self.prior[k] as f64).collect();
        let mut sums = vec![0f32; classes.len()];
        let mut occurrences = 0f64;
        self.each_feature(text, |f, n| {
            occurrences += n as f64;
            let w = &self.weights[f * all..(f + 1) * all];
            for (r, &k) in sums.iter_mut().zip(classes) {
                *r += n * w[k];
            }
        });
        for (s, r) in scores.iter_mut().zip(&sums) {
            *s += *r as f64;
        }
        best(&scores, occurrences)
    }
}

/// The file's fields, checked: class names, the feature count, the n-gram
/// DFA, the class priors and the weights.
#[allow(clippy::type_complexity)]
fn read(raw: &[u8]) -> Option<(Vec<String>, usize, Dfa, Vec<f32>, Vec<f32>)> {
    let mut at = 0usize;
    let mut take = |n: usize| -> Option<&[u8]> {
        let s = raw.get(at..at.checked_add(n)?)?;
        at += n;
        Some(s)
    };
    if take(8)? != b"CSLANGID" {
        return None;
    }
    let u16_at = |b: &[u8]| u16::from_le_bytes([b[0], b[1]]);
    let u32_at = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    if u16_at(take(2)?) != 1 {
        return None;
    }
    let classes_n = u16_at(take(2)?) as usize;
    let features_n = u32_at(take(4)?) as usize;
    let states = u32_at(take(4)?) as usize;
    let mut classes = Vec::with_capacity(classes_n);
    for _ in 0..classes_n {
        let len = take(1)?[0] as usize;
        classes.push(String::from_utf8(take(len)?.to_vec()).ok()?);
    }
    let next: Vec<u16> = take(states * 256 * 2)?
        .chunks_exact(2)
        .map(u16_at)
        .collect();
    let offsets: Vec<u32> = take((states + 1) * 4)?
        .chunks_exact(4)
        .map(u32_at)
        .collect();
    let emitted = *offsets.last()? as usize;
    let features: Vec<u16> = take(emitted * 2)?.chunks_exact(2).map(u16_at).collect();
    let f32s = |b: &[u8]| -> Vec<f32> {
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let prior = f32s(take(classes_n * 4)?);
    let weights = f32s(take(features_n * classes_n * 4)?);
    let sound = next.iter().all(|&s| (s as usize) < states)
        && features.iter().all(|&f| (f as usize) < features_n)
        && offsets.windows(2).all(|w| w[0] <= w[1]);
    if !sound {
        return None;
    }
    Some((
        classes,
        features_n,
        Dfa {
            next,
            offsets,
            features,
        },
        prior,
        weights,
    ))
}

/// A two-letter class's code: one of crawlsieve's, or an outsider.
fn class_of(c: &str) -> Option<Class> {
    CODES.iter().find(|(two, _)| *two == c).map(|&(_, k)| k)
}

/// The classes of each code crawlsieve knows, its macrolanguages' included.
fn classes_by_code(classes: &[String]) -> std::collections::HashMap<&'static str, Vec<usize>> {
    let mut by_code: std::collections::HashMap<&'static str, Vec<usize>> = Default::default();
    for (i, c) in classes.iter().enumerate() {
        let Some(Known(three)) = class_of(c) else {
            continue;
        };
        by_code.entry(three).or_default().push(i);
        for m in super::MACROLANGUAGES
            .iter()
            .filter(|m| m.members.contains(&three))
        {
            by_code.entry(m.code).or_default().push(i);
        }
    }
    by_code
}

/// langid.py ships its features as a DFA (Aho–Corasick over byte n-grams):
/// a state per n-gram prefix, 256 next states each, 4.7 MB for its 9,118
/// states. Every byte read is a step to a random place in that table — a
/// cache miss in a pipeline that does other work between pages — while the
/// features themselves are 7,480 n-grams of at most four bytes. Looked up
/// by the n-grams ending at each byte, in tables of a few hundred KB, the
/// same features come out in a fraction of the time.
struct Ngrams {
    /// A single byte's feature, or `NONE`.
    single: Box<[u16; 256]>,
    /// Longer n-grams by length (index 0: two bytes), the bytes packed
    /// big-endian into a u32.
    longer: Vec<rustc_hash::FxHashMap<u32, u16>>,
}

const NONE: u16 = u16::MAX;

/// langid.py's features are byte 1- to 4-grams; a model with longer ones is
/// not one this reads.
const MAX_NGRAM: usize = 4;

impl Ngrams {
    /// Each feature's n-gram: the shortest input that reaches a state
    /// emitting it (in an Aho–Corasick automaton a state's shortest input is
    /// its trie string; a feature is emitted first by the state whose string
    /// it is, and by states of longer strings ending in it after that).
    fn from_dfa(dfa: &Dfa, features_n: usize) -> Option<Ngrams> {
        let states = dfa.offsets.len() - 1;
        let mut string: Vec<Option<Vec<u8>>> = vec![None; states];
        string[0] = Some(Vec::new());
        let mut queue = std::collections::VecDeque::from([0usize]);
        let mut ngram: Vec<Option<Vec<u8>>> = vec![None; features_n];
        while let Some(s) = queue.pop_front() {
            let w = string[s].clone().expect("queued states have a string");
            let (from, to) = (dfa.offsets[s] as usize, dfa.offsets[s + 1] as usize);
            for &f in &dfa.features[from..to] {
                // Breadth first: the first state to emit a feature has the shortest string.
                ngram[f as usize].get_or_insert_with(|| w.clone());
            }
            if w.len() == MAX_NGRAM {
                continue;
            }
            for b in 0..256usize {
                let t = dfa.next[(s << 8) | b] as usize;
                if string[t].is_none() {
                    let mut longer = w.clone();
                    longer.push(b as u8);
                    string[t] = Some(longer);
                    queue.push_back(t);
                }
            }
        }
        if string.iter().any(|w| w.is_none()) {
            // A state deeper than `MAX_NGRAM`, or one no input reaches.
            return None;
        }
        let mut single = Box::new([NONE; 256]);
        let mut longer = vec![rustc_hash::FxHashMap::default(); MAX_NGRAM - 1];
        for (f, g) in ngram.iter().enumerate() {
            match g.as_deref() {
                Some([b]) => single[*b as usize] = f as u16,
                Some(g) if (2..=MAX_NGRAM).contains(&g.len()) => {
                    let key = g.iter().fold(0u32, |k, &b| (k << 8) | b as u32);
                    longer[g.len() - 2].insert(key, f as u16);
                }
                // An emitted feature the shortest strings cannot spell: not
                // langid's automaton.
                Some(_) => return None,
                // A feature no state emits is never counted either way.
                None => {}
            }
        }
        Some(Ngrams { single, longer })
    }

    /// Calls `found(feature)` for every feature n-gram of `text`, by the
    /// position it ends at, shortest first (as the DFA emits them).
    #[inline]
    fn each(&self, text: &[u8], mut found: impl FnMut(u16)) {
        let mut window = 0u32;
        for (i, &b) in text.iter().enumerate() {
            window = (window << 8) | b as u32;
            let f = self.single[b as usize];
            if f != NONE {
                found(f);
            }
            for (n, table) in self.longer.iter().enumerate().take(i.min(MAX_NGRAM - 1)) {
                let len = n + 2;
                let key = if len == 4 {
                    window
                } else {
                    window & ((1u32 << (8 * len)) - 1)
                };
                if let Some(&f) = table.get(&key) {
                    found(f);
                }
            }
        }
    }
}

/// The automaton as the model file holds it.
struct Dfa {
    next: Vec<u16>,
    /// Per state, the range of `features` it emits.
    offsets: Vec<u32>,
    features: Vec<u16>,
}

/// The best of `scores` (log-probabilities), its probability normalised over
/// them: 1 / Σ exp(s_i − s_best), the log-sum-exp of langid.py's norm_probs.
fn best(scores: &[f64], occurrences: f64) -> Guess {
    let (class, &top) = scores
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .expect("at least one class");
    let total: f64 = scores.iter().map(|&s| (s - top).exp()).sum();
    let runner_up = scores
        .iter()
        .enumerate()
        .filter(|&(k, _)| k != class)
        .map(|(_, &s)| s)
        .fold(f64::NEG_INFINITY, f64::max);
    Guess {
        class,
        probability: 1.0 / total,
        margin: if runner_up.is_finite() && occurrences > 0.0 {
            (top - runner_up) / occurrences
        } else {
            0.0
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Feature counts as langid.py's DFA makes them.
    fn by_dfa(dfa: &Dfa, text: &[u8]) -> BTreeMap<u16, u32> {
        let mut out = BTreeMap::new();
        let mut state = 0usize;
        for &b in text {
            state = dfa.next[(state << 8) | b as usize] as usize;
            let (from, to) = (dfa.offsets[state] as usize, dfa.offsets[state + 1] as usize);
            for &f in &dfa.features[from..to] {
                *out.entry(f).or_default() += 1;
            }
        }
        out
    }

    fn by_ngrams(m: &Model, text: &[u8]) -> BTreeMap<u16, u32> {
        let mut out = BTreeMap::new();
        m.ngrams.each(text, |f| *out.entry(f).or_default() += 1);
        out
    }

    #[test]
    fn the_ngram_tables_count_what_the_dfa_counts() {
        let raw = super::super::gunzip_shipped(MODEL, "rules/langid.bin.gz");
        let (m, dfa) = Model::parse(&raw).unwrap();
        let mut texts: Vec<Vec<u8>> = [
            "The quick brown fox jumps over the lazy dog.",
            "A lingua galega é unha lingua romance falada principalmente en Galicia.",
            "Қазақстан Республикасы Орталық Азияның солтүстігінде орналасқан.",
            "日本語の文章と中文的句子，한국어 문장, ภาษาไทย, हिन्दी भाषा, العربية.",
            "",
            "a",
            "ab",
        ]
        .iter()
        .map(|t| t.as_bytes().to_vec())
        .collect();
        // Pseudo-random bytes and pseudo-random mixes of the texts' bytes.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let pool: Vec<u8> = texts.concat();
        for len in [1usize, 2, 3, 4, 5, 17, 512, 4096] {
            texts.push((0..len).map(|_| next() as u8).collect());
            texts.push(
                (0..len)
                    .map(|_| pool[next() as usize % pool.len()])
                    .collect(),
            );
        }
        let mut features = 0;
        for t in &texts {
            let want = by_dfa(&dfa, t);
            assert_eq!(by_ngrams(&m, t), want, "{:?}", String::from_utf8_lossy(t));
            features += want.len();
        }
        assert!(features > 1000, "the texts hit {features} features");
    }

    #[test]
    fn the_shipped_model_loads_and_tells_languages_apart() {
        let m = Model::shipped();
        assert_eq!((m.classes.len(), m.prior.len()), (97, 97));
        let code = |t: &str| m.classes[m.classify(t.as_bytes()).class].as_str();
        assert_eq!(
            code("The quick brown fox jumps over the lazy dog, and the dog did not mind at all."),
            "en"
        );
        // Pinned: langid.py 1.1.6 says the same of these (its `classify`).
        assert_eq!(code("A lingua galega é unha lingua romance falada principalmente en Galicia, onde é oficial xunto co castelán."), "gl");
        assert_eq!(
            code("O rato roeu a roupa do rei de Roma e a raíña, con rabia, rompeu o resto."),
            "an"
        );
        assert_eq!(
            code("Føroyskt er eitt norðurgermanskt mál, ið verður tosað í Føroyum."),
            "fo"
        );
        assert_eq!(code("Der schnelle braune Fuchs springt über den faulen Hund, und der Hund schläft weiter."), "de");
        let g = m.classify(
            "Lo pòble occitan parla una lenga romanica que se ditz occitan o lenga d'òc."
                .as_bytes(),
        );
        assert_eq!(m.classes[g.class], "oc");
        assert!(g.probability > 0.5 && g.probability <= 1.0, "{g:?}");
        // Galician is not one of crawlsieve's languages: as Spanish or
        // Portuguese it is vetoed; Spanish is not.
        let gl = "A lingua galega é unha lingua romance falada principalmente en Galicia, onde é oficial xunto co castelán.";
        assert_eq!(m.outsider(gl.as_bytes(), "por", 0.9), Some("gl"));
        assert_eq!(m.outsider(gl.as_bytes(), "spa", 0.9), Some("gl"));
        let es = "La lengua española es una lengua romance hablada principalmente en España y en América.";
        assert_eq!(m.outsider(es.as_bytes(), "spa", 0.9), None);
        assert_eq!(
            m.outsider(es.as_bytes(), "yor", 0.9),
            None,
            "not one of langid's"
        );
        for &(_, class) in CODES {
            match class {
                Known(t) => assert!(
                    super::super::is_known(t),
                    "{t} maps a langid class to a code crawlsieve lacks"
                ),
                // An outsider is a language neither other detector names:
                // langid's code must not shadow one of theirs.
                Outsider(t, _) => assert!(
                    whatlang::Lang::from_code(t).is_none()
                        && !super::super::Profiles::shipped().knows(t)
                        && !super::super::MACROLANGUAGES.iter().any(|m| m.code == t),
                    "{t} is an outsider the other detectors know"
                ),
            }
        }
        // Named only when langid is sure among all its languages.
        let gl = "A lingua galega é unha lingua romance falada principalmente en Galicia, onde é oficial xunto co castelán. Ten unha longa tradición literaria e fálana preto de tres millóns de persoas.";
        let named = m.named_outsider(gl.as_bytes(), 0.9);
        assert_eq!(named.map(|(c, _)| c), Some("glg"), "{named:?}");
        assert!(
            named.is_some_and(|(_, sure)| (0.5..=1.0).contains(&sure)),
            "{named:?}"
        );
        assert_eq!(
            m.named_outsider(es.as_bytes(), 0.9),
            None,
            "Spanish is not an outsider"
        );
        assert_eq!(Model::outsiders().count(), m.outsider_classes.len());
        // Empty and binary input: a class, never a panic.
        let _ = m.classify(b"x");
        let _ = m.classify(b"");
        let _ = m.classify(&[0xff, 0x00, 0xfe, 0x80]);
    }
}
