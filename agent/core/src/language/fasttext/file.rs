//! lid.176's file, read field by field (fastText 0.9's format, version 12):
//! the arguments, the dictionary (words, labels, the surviving buckets), the
//! quantized input matrix and the dense output matrix. Only the shape
//! lid.176 has is accepted; anything else (a cut file, another model) is
//! `None`, not a misreading.

use super::buckets::{Codes, DSUB, NSUBQ};
use super::DIM;

const MAGIC: i32 = 793_712_314;

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

/// Reads a product quantizer's header and centroids, checking its shape.
fn quantizer(r: &mut Reader, dim: usize, nsubq: usize, dsub: usize) -> Option<Vec<f32>> {
    let shape = [r.i32()?, r.i32()?, r.i32()?, r.i32()?];
    (shape == [dim as i32, nsubq as i32, dsub as i32, dsub as i32]).then_some(())?;
    r.f32s(dim * 256)
}

/// What the file holds, borrowed from it where it can be.
pub(super) struct File<'a> {
    pub bucket: u32,
    pub minn: usize,
    pub maxn: usize,
    /// The words, in row order (row `i` is word `i`).
    pub words: Vec<&'a [u8]>,
    /// The labels without `__label__`, and their counts (most frequent first).
    pub labels: Vec<String>,
    pub counts: Vec<i64>,
    /// Each surviving bucket and its row.
    pub buckets: Vec<(u32, usize)>,
    row_codes: &'a [u8],
    norm_codes: &'a [u8],
    /// The sub-quantizers' centroids, `NSUBQ` × 256 × `DSUB`; the norms', 256.
    pub centroids: Vec<f32>,
    pub norms: Vec<f32>,
    /// The output matrix: a row of `DIM` per inner node of the tree.
    pub output: Vec<f32>,
}

impl<'a> File<'a> {
    pub fn read(b: &'a [u8]) -> Option<File<'a>> {
        let mut r = Reader { b, at: 0 };
        let (bucket, minn, maxn) = args(&mut r)?;
        let (words, labels, counts, buckets) = dictionary(&mut r)?;
        // The input matrix: quantized, norms quantized apart.
        (r.u8()? == 1 && r.u8()? == 1).then_some(())?;
        let m = usize::try_from(r.i64()?).ok()?;
        (usize::try_from(r.i64()?).ok()? == DIM).then_some(())?;
        (usize::try_from(r.i32()?).ok()? == m * NSUBQ && m >= words.len() + buckets.len())
            .then_some(())?;
        let row_codes = r.take(m * NSUBQ)?;
        let centroids = quantizer(&mut r, DIM, NSUBQ, DSUB)?;
        let norm_codes = r.take(m)?;
        let norms = quantizer(&mut r, 1, 1, 1)?;
        // The output matrix: dense, a row per inner node.
        (r.u8()? == 0).then_some(())?;
        let out_rows = usize::try_from(r.i64()?).ok()?;
        (usize::try_from(r.i64()?).ok()? == DIM && out_rows + 1 >= labels.len()).then_some(())?;
        let output = r.f32s(out_rows * DIM)?;
        (r.at == b.len()).then_some(File {
            bucket,
            minn,
            maxn,
            words,
            labels,
            counts,
            buckets,
            row_codes,
            norm_codes,
            centroids,
            norms,
            output,
        })
    }

    /// Row `row`'s codes: a centroid per sub-vector, then its norm's.
    pub fn codes_of(&self, row: usize) -> Codes {
        let mut c = [0; NSUBQ + 1];
        c[..NSUBQ].copy_from_slice(&self.row_codes[row * NSUBQ..(row + 1) * NSUBQ]);
        c[NSUBQ] = self.norm_codes[row];
        c
    }
}

/// The header and the arguments: the bucket count and the n-gram lengths,
/// after checking the model is what lid.176 is.
fn args(r: &mut Reader) -> Option<(u32, usize, usize)> {
    (r.i32()? == MAGIC && r.i32()? == 12).then_some(())?;
    // dim ws epoch minCount neg wordNgrams loss model bucket minn maxn
    // lrUpdateRate t
    let args: Vec<i32> = (0..12).map(|_| r.i32()).collect::<Option<_>>()?;
    r.take(8)?;
    let (dim, word_ngrams, loss) = (args[0], args[5], args[6]);
    // Only what lid.176 is: 16 dimensions, no word n-grams, a hierarchical
    // softmax (loss 1).
    (dim as usize == DIM && word_ngrams == 1 && loss == 1).then_some(())?;
    let bucket = u32::try_from(args[8]).ok().filter(|&b| b > 0)?;
    Some((
        bucket,
        usize::try_from(args[9]).ok()?,
        usize::try_from(args[10]).ok()?,
    ))
}

type Dictionary<'a> = (Vec<&'a [u8]>, Vec<String>, Vec<i64>, Vec<(u32, usize)>);

/// The words, the labels and their counts, the surviving buckets' rows.
fn dictionary<'a>(r: &mut Reader<'a>) -> Option<Dictionary<'a>> {
    let size = usize::try_from(r.i32()?).ok()?;
    let nwords = usize::try_from(r.i32()?).ok()?;
    let nlabels = usize::try_from(r.i32()?).ok()?;
    r.i64()?;
    let pruned = usize::try_from(r.i64()?).ok()?;
    let (mut words, mut labels, mut counts) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..size {
        let w = r.cstr()?;
        let count = r.i64()?;
        match r.u8()? {
            0 => words.push(w),
            _ => {
                let name = std::str::from_utf8(w).ok()?;
                labels.push(name.strip_prefix("__label__")?.to_string());
                counts.push(count);
            }
        }
    }
    (words.len() == nwords && labels.len() == nlabels && nlabels >= 2).then_some(())?;
    let mut buckets = Vec::with_capacity(pruned);
    for _ in 0..pruned {
        let (h, row) = (r.i32()?, usize::try_from(r.i32()?).ok()?);
        buckets.push((u32::try_from(h).ok()?, nwords + row));
    }
    Some((words, labels, counts, buckets))
}
