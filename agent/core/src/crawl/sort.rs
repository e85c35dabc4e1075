//! External sorting of fixed-size records: the tool that keeps exact
//! corpus-wide computations (quilt detection) in bounded memory.
//!
//! Records are held in memory up to a budget, then sorted and spilled as a
//! run to an anonymous temporary file (unlinked at creation, so a crash
//! leaves nothing behind); `finish` merges the runs k-way. Memory: the
//! budget plus one 64 KB buffer per run. Equal records stay (callers group
//! or de-duplicate as they read).
//!
//! Not the `extsort` crate: 0.5 compiles `skeptic` (a README-test tool and
//! its dependencies) into every build as a build dependency, and names its
//! segment files `0`, `1`, … directly inside a given directory, so two
//! sorters sharing a spill directory overwrite each other.

/// How many values two ascending slices share (each value counted once
/// per pair of equal elements), in one merge pass.
pub fn intersection_len(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};

/// A record of a fixed number of bytes, ordered as the sort should order it.
pub trait Record: Ord + Copy {
    const LEN: usize;
    fn put(&self, out: &mut Vec<u8>);
    fn get(bytes: &[u8]) -> Self;
}

impl Record for (u64, u64) {
    const LEN: usize = 16;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
        out.extend_from_slice(&self.1.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        (le(&b[..8]), le(&b[8..16]))
    }
}

impl Record for (u64, u64, u64) {
    const LEN: usize = 24;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
        out.extend_from_slice(&self.1.to_le_bytes());
        out.extend_from_slice(&self.2.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        (le(&b[..8]), le(&b[8..16]), le(&b[16..24]))
    }
}

pub fn le(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().expect("8 bytes"))
}

/// Sorts records within a memory budget, spilling sorted runs.
pub struct Sorter<R: Record> {
    dir: PathBuf,
    capacity: usize,
    buffer: Vec<R>,
    runs: Vec<File>,
    pushed: u64,
}

impl<R: Record> Sorter<R> {
    /// `budget_bytes` bounds the records held before a spill; runs go to `dir`.
    pub fn new(dir: &Path, budget_bytes: usize) -> anyhow::Result<Self> {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("spill directory {}: {e}", dir.display()))?;
        Ok(Sorter {
            dir: dir.to_path_buf(),
            capacity: (budget_bytes / std::mem::size_of::<R>().max(1)).max(64),
            buffer: Vec::new(),
            runs: Vec::new(),
            pushed: 0,
        })
    }

    pub fn push(&mut self, r: R) -> anyhow::Result<()> {
        self.buffer.push(r);
        self.pushed += 1;
        if self.buffer.len() >= self.capacity {
            self.spill()?;
        }
        Ok(())
    }

    /// Records pushed so far.
    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// Runs spilled so far.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    fn spill(&mut self) -> anyhow::Result<()> {
        self.buffer.sort_unstable();
        let file = tempfile::tempfile_in(&self.dir)
            .map_err(|e| anyhow::anyhow!("spill file in {}: {e}", self.dir.display()))?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        let mut bytes = Vec::with_capacity(R::LEN);
        for r in &self.buffer {
            bytes.clear();
            r.put(&mut bytes);
            w.write_all(&bytes)?;
        }
        let mut file = w.into_inner().map_err(|e| e.into_error())?;
        file.rewind()?;
        self.runs.push(file);
        self.buffer.clear();
        Ok(())
    }

    /// Every record pushed, in order.
    pub fn finish(mut self) -> anyhow::Result<Sorted<R>> {
        if self.runs.is_empty() {
            self.buffer.sort_unstable();
            let mem = std::mem::take(&mut self.buffer).into_iter();
            return Ok(Sorted {
                mem: Some(mem),
                readers: Vec::new(),
                heap: BinaryHeap::new(),
            });
        }
        if !self.buffer.is_empty() {
            self.spill()?;
        }
        let mut readers: Vec<_> = std::mem::take(&mut self.runs)
            .into_iter()
            .map(|f| BufReader::with_capacity(64 << 10, f))
            .collect();
        let mut heap = BinaryHeap::with_capacity(readers.len());
        for (i, r) in readers.iter_mut().enumerate() {
            if let Some(rec) = read::<R>(r)? {
                heap.push(Reverse((rec, i)));
            }
        }
        Ok(Sorted {
            mem: None,
            readers,
            heap,
        })
    }
}

/// Reads one record; `None` at a clean end of file.
pub fn read<R: Record>(r: &mut impl Read) -> io::Result<Option<R>> {
    let mut buf = [0u8; 64];
    let rec = &mut buf[..R::LEN];
    Ok(fill(r, rec)?.then(|| R::get(rec)))
}

/// Fills `rec`: false at a clean end of input, an error on a partial record.
pub fn fill(r: &mut impl Read, rec: &mut [u8]) -> io::Result<bool> {
    let mut got = 0;
    while got < rec.len() {
        match r.read(&mut rec[got..])? {
            0 if got == 0 => return Ok(false),
            0 => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "truncated record",
                ))
            }
            n => got += n,
        }
    }
    Ok(true)
}

/// The records of a [`Sorter`], in order.
pub struct Sorted<R: Record> {
    mem: Option<std::vec::IntoIter<R>>,
    readers: Vec<BufReader<File>>,
    heap: BinaryHeap<Reverse<(R, usize)>>,
}

impl<R: Record> Iterator for Sorted<R> {
    type Item = io::Result<R>;

    fn next(&mut self) -> Option<io::Result<R>> {
        if let Some(mem) = &mut self.mem {
            return mem.next().map(Ok);
        }
        let Reverse((rec, i)) = self.heap.pop()?;
        match read::<R>(&mut self.readers[i]) {
            Ok(Some(next)) => self.heap.push(Reverse((next, i))),
            Ok(None) => {}
            Err(e) => return Some(Err(e)),
        }
        Some(Ok(rec))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spilled_runs_merge_into_one_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Sorter::<(u64, u64)>::new(dir.path(), 1).unwrap();
        let mut expected = Vec::new();
        for i in 0..5000u64 {
            let r = ((i * 7919) % 1009, i % 3);
            expected.push(r);
            s.push(r).unwrap();
        }
        assert!(s.runs() > 10);
        expected.sort_unstable();
        let got: Vec<_> = s.finish().unwrap().map(|r| r.unwrap()).collect();
        assert_eq!(got, expected);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "runs are unlinked"
        );

        let mut small = Sorter::<(u64, u64, u64)>::new(dir.path(), 1 << 20).unwrap();
        for i in (0..10u64).rev() {
            small.push((i, 0, i)).unwrap();
        }
        let got: Vec<_> = small.finish().unwrap().map(|r| r.unwrap().0).collect();
        assert_eq!(got, (0..10).collect::<Vec<_>>());
    }
}
