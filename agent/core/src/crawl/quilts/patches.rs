//! Step 2 of a quilt job (once per partition, on any machine): merge the
//! partition's grams files of every machine and keep the patch grams — those
//! in more than one and at most `m` documents (`1 < |docs_k(g)| ≤ m`, seed
//! 000 §2) — with their documents.
//!
//! The grams files are each sorted, so this is a k-way merge that holds one
//! record per file and one gram's documents (at most m kept; a gram of more
//! is counted and skipped as it streams past).

use super::files::{GramsReader, Header, PatchesWriter};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::{Path, PathBuf};

/// What step 2 found in one partition.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct PatchStats {
    /// Distinct grams.
    pub grams: u64,
    /// Grams of one document only.
    pub unique: u64,
    /// Patch grams (written).
    pub patch: u64,
    /// Grams of more than m documents.
    pub common: u64,
}

/// The grams files of one partition of one job, and the patches file's
/// header: each machine's files once, all of one k and partition.
fn open_partition(inputs: &[PathBuf], m: u32) -> anyhow::Result<(Vec<GramsReader>, Header)> {
    let mut readers: Vec<GramsReader> = Vec::new();
    let mut first: Option<(Header, &PathBuf)> = None;
    for p in inputs {
        let r = GramsReader::open(p)?;
        if let Some((h, q)) = &first {
            anyhow::ensure!(
                (h.k, h.partition, h.partitions) == (r.header.k, r.header.partition, r.header.partitions),
                "{} is k {} partition {} of {}, {} is k {} partition {} of {}: merge one partition of one job at a time",
                p.display(), r.header.k, r.header.partition, r.header.partitions,
                q.display(), h.k, h.partition, h.partitions
            );
        } else {
            first = Some((r.header.clone(), p));
        }
        readers.push(r);
    }
    let mut machines: Vec<String> = readers
        .iter()
        .flat_map(|r| r.header.machines.iter().cloned())
        .collect();
    machines.sort();
    if let Some(w) = machines.windows(2).find(|w| w[0] == w[1]) {
        anyhow::bail!("two grams files of machine {:?} in one partition", w[0]);
    }
    let header = Header {
        m,
        machines,
        ..first.expect("inputs are not empty").0
    };
    Ok((readers, header))
}

/// Merges `inputs` (grams files of one partition, from any number of
/// machines) into the patches file `output`.
pub fn patches(inputs: &[PathBuf], m: u32, output: &Path) -> anyhow::Result<PatchStats> {
    anyhow::ensure!(!inputs.is_empty(), "no grams files");
    anyhow::ensure!(
        m >= 2,
        "m is at least 2 (a patch gram is in more than one document)"
    );
    let (mut readers, header) = open_partition(inputs, m)?;
    let mut out = PatchesWriter::create(output, &header)?;
    let mut heap = BinaryHeap::with_capacity(readers.len());
    for (i, r) in readers.iter_mut().enumerate() {
        if let Some(rec) = r.next_record()? {
            heap.push(Reverse((rec, i)));
        }
    }
    let mut stats = PatchStats::default();
    let mut gram = None;
    let mut docs: Vec<u64> = Vec::new();
    let mut df = 0u64;
    let mut close = |gram: u64, docs: &mut Vec<u64>, df: u64, stats: &mut PatchStats| {
        stats.grams += 1;
        match df {
            1 => stats.unique += 1,
            n if n > m as u64 => stats.common += 1,
            _ => {
                stats.patch += 1;
                return out.write(gram, docs);
            }
        }
        Ok(())
    };
    while let Some(Reverse(((g, d), i))) = heap.pop() {
        if let Some(r) = readers[i].next_record()? {
            heap.push(Reverse((r, i)));
        }
        if gram != Some(g) {
            if let Some(prev) = gram {
                close(prev, &mut docs, df, &mut stats)?;
            }
            gram = Some(g);
            docs.clear();
            df = 0;
        }
        // Records are sorted by (gram, doc): a repeated document (the same
        // page read twice) is adjacent and counts once.
        if docs.last() == Some(&d) {
            continue;
        }
        df += 1;
        if docs.len() <= m as usize {
            docs.push(d);
        }
    }
    if let Some(prev) = gram {
        close(prev, &mut docs, df, &mut stats)?;
    }
    out.finish()?;
    Ok(stats)
}
