//! Step 1 of a quilt job (on every machine that holds part of the crawl):
//! each page's grams, as `(gram, doc)` records sorted within a memory budget
//! and written to one grams file per partition, and the docs table.

use super::files::{self, DocLine, DocsWriter, Header};
use crate::crawl::sort::Sorter;
use std::path::{Path, PathBuf};

/// What step 1 wrote.
#[derive(Debug, Default, Clone)]
pub struct Collected {
    pub pages: u64,
    /// Pages of fewer than k words (in the docs table, never a quilt or a source).
    pub without_grams: u64,
    /// `(gram, doc)` records: Σ |grams_k(d)|.
    pub records: u64,
    /// Sorted runs spilled to disk, over all partitions.
    pub runs: usize,
    pub docs_table: PathBuf,
    pub grams_files: Vec<PathBuf>,
}

pub struct Collector {
    k: u8,
    sorters: Vec<Sorter<(u64, u64)>>,
    docs: DocsWriter,
    out: Collected,
    dir: PathBuf,
    name: String,
}

impl Collector {
    /// Files go to `dir` as `NAME.docs.jsonl` and `NAME.pI-of-P.grams`;
    /// sorted runs to `spill`. `memory_bytes` is shared by the partitions.
    pub fn new(
        dir: &Path,
        name: &str,
        k: u8,
        partitions: u32,
        memory_bytes: usize,
        spill: &Path,
    ) -> anyhow::Result<Self> {
        anyhow::ensure!(partitions >= 1, "partitions is at least 1");
        anyhow::ensure!(k >= 1, "k is at least 1");
        anyhow::ensure!(
            !name.is_empty() && name.len() <= 255,
            "a machine's name is 1 to 255 bytes"
        );
        std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
        let per = memory_bytes / partitions as usize;
        let sorters = (0..partitions)
            .map(|_| Sorter::new(spill, per))
            .collect::<anyhow::Result<_>>()?;
        let docs_table = dir.join(format!("{name}.docs.jsonl"));
        Ok(Collector {
            k,
            sorters,
            docs: DocsWriter::create(&docs_table, k, name)?,
            out: Collected {
                docs_table,
                ..Default::default()
            },
            dir: dir.to_path_buf(),
            name: name.to_string(),
        })
    }

    /// The k this collector's grams are made with.
    pub fn k(&self) -> usize {
        self.k as usize
    }

    /// One page: its line of the docs table and its distinct grams.
    pub fn add(&mut self, doc: &DocLine, grams: &[u64]) -> anyhow::Result<()> {
        self.out.pages += 1;
        if grams.is_empty() {
            self.out.without_grams += 1;
        }
        self.docs.write(doc)?;
        let p = self.sorters.len() as u64;
        for &g in grams {
            self.sorters[(g % p) as usize].push((g, doc.doc))?;
        }
        self.out.records += grams.len() as u64;
        Ok(())
    }

    pub fn finish(mut self) -> anyhow::Result<Collected> {
        self.docs.finish()?;
        let partitions = self.sorters.len() as u32;
        for (i, sorter) in self.sorters.into_iter().enumerate() {
            self.out.runs += sorter.runs();
            let path = self
                .dir
                .join(format!("{}.p{i}-of-{partitions}.grams", self.name));
            let header = Header {
                k: self.k,
                m: 0,
                partition: i as u32,
                partitions,
                machines: vec![self.name.clone()],
            };
            files::write_grams(&path, &header, sorter.finish()?)?;
            self.out.grams_files.push(path);
        }
        Ok(self.out)
    }
}
