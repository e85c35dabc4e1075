//! Fingerprints of a crawl, in bounded memory.
//!
//! A fingerprint is 512 bytes: a million pages is half a gigabyte. The store
//! keeps them in memory up to a budget and past it in an unlinked temporary
//! file read at offsets (the page cache does the rest), so clustering a crawl
//! holds, per page, only what it must: an offset to the page's URL and site
//! (8 bytes), the union-find parent and degree (8 bytes), and one probe's
//! sort array at a time (8 bytes).

use crate::fingerprints::style::{Fingerprint, M};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

const FP_BYTES: usize = M * 4;

/// A page in the store: its URL and registered domain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRef {
    pub url: String,
    pub site: Option<String>,
}

/// Fingerprints and their pages, appended once, then read by index.
pub struct Store {
    budget_fps: usize,
    dir: std::path::PathBuf,
    memory: Vec<Fingerprint>,
    spilled: Option<Spill>,
    meta: Meta,
    len: usize,
}

struct Spill {
    writer: Option<BufWriter<File>>,
    file: File,
}

/// URLs and sites: one `url\tsite\n` line each in an unlinked file, with the
/// offsets in memory.
struct Meta {
    writer: Option<BufWriter<File>>,
    file: File,
    offsets: Vec<u64>,
    end: u64,
}

impl Store {
    /// A store holding up to `memory_bytes` of fingerprints in memory;
    /// spill files go to `dir` (unlinked at once: nothing stays behind).
    pub fn new(dir: &Path, memory_bytes: usize) -> anyhow::Result<Store> {
        let file = tempfile::tempfile_in(dir)
            .map_err(|e| anyhow::anyhow!("spill directory {}: {e}", dir.display()))?;
        Ok(Store {
            budget_fps: (memory_bytes / FP_BYTES).max(1),
            dir: dir.to_path_buf(),
            memory: Vec::new(),
            spilled: None,
            meta: Meta {
                writer: Some(BufWriter::new(file.try_clone()?)),
                file,
                offsets: Vec::new(),
                end: 0,
            },
            len: 0,
        })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the fingerprints went to disk.
    pub fn spilled(&self) -> bool {
        self.spilled.is_some()
    }

    pub fn push(&mut self, fp: &Fingerprint, page: &PageRef) -> anyhow::Result<usize> {
        let line = format!(
            "{}\t{}\n",
            page.url.replace(['\t', '\n'], " "),
            page.site.as_deref().unwrap_or("")
        );
        self.meta.offsets.push(self.meta.end);
        self.meta.end += line.len() as u64;
        self.meta
            .writer
            .as_mut()
            .expect("store is still being filled")
            .write_all(line.as_bytes())?;
        if self.spilled.is_none() && self.memory.len() >= self.budget_fps {
            let file = tempfile::tempfile_in(&self.dir)?;
            let mut writer = BufWriter::new(file.try_clone()?);
            for fp in self.memory.drain(..) {
                writer.write_all(&fp.to_bytes())?;
            }
            self.memory = Vec::new();
            self.spilled = Some(Spill {
                writer: Some(writer),
                file,
            });
        }
        match &mut self.spilled {
            Some(s) => s
                .writer
                .as_mut()
                .expect("store is still being filled")
                .write_all(&fp.to_bytes())?,
            None => self.memory.push(fp.clone()),
        }
        self.len += 1;
        Ok(self.len - 1)
    }

    /// Ends the filling: what was written becomes readable.
    pub fn seal(&mut self) -> anyhow::Result<()> {
        if let Some(mut w) = self.meta.writer.take() {
            w.flush()?;
        }
        if let Some(s) = &mut self.spilled {
            if let Some(mut w) = s.writer.take() {
                w.flush()?;
            }
        }
        Ok(())
    }

    /// The fingerprint of page `i` (after `seal`).
    pub fn fingerprint(&self, i: usize) -> anyhow::Result<Fingerprint> {
        match &self.spilled {
            None => Ok(self.memory[i].clone()),
            Some(s) => {
                let mut buf = [0u8; FP_BYTES];
                s.file.read_exact_at(&mut buf, (i * FP_BYTES) as u64)?;
                Ok(Fingerprint::from_bytes(&buf).expect("fixed size"))
            }
        }
    }

    /// Every fingerprint in order, with its index (one sequential read).
    pub fn scan(&self, mut f: impl FnMut(usize, &Fingerprint)) -> anyhow::Result<()> {
        match &self.spilled {
            None => {
                for (i, fp) in self.memory.iter().enumerate() {
                    f(i, fp);
                }
            }
            Some(s) => {
                let mut chunk = vec![0u8; FP_BYTES * 2048];
                let mut i = 0;
                while i < self.len {
                    let n = (self.len - i).min(2048);
                    s.file
                        .read_exact_at(&mut chunk[..n * FP_BYTES], (i * FP_BYTES) as u64)?;
                    for k in 0..n {
                        let fp = Fingerprint::from_bytes(&chunk[k * FP_BYTES..(k + 1) * FP_BYTES])
                            .expect("fixed size");
                        f(i + k, &fp);
                    }
                    i += n;
                }
            }
        }
        Ok(())
    }

    /// The URL and site of page `i` (after `seal`).
    pub fn page(&self, i: usize) -> anyhow::Result<PageRef> {
        let start = self.meta.offsets[i];
        let end = self
            .meta
            .offsets
            .get(i + 1)
            .copied()
            .unwrap_or(self.meta.end);
        let mut buf = vec![0u8; (end - start) as usize];
        self.meta.file.read_exact_at(&mut buf, start)?;
        let line = String::from_utf8_lossy(&buf);
        let line = line.trim_end_matches('\n');
        let (url, site) = line.split_once('\t').unwrap_or((line, ""));
        Ok(PageRef {
            url: url.to_string(),
            site: (!site.is_empty()).then(|| site.to_string()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spilled_and_in_memory_read_the_same() {
        let dir = std::env::temp_dir();
        let fps: Vec<Fingerprint> = (0..50)
            .map(|i| {
                crate::fingerprints::style::fingerprint(
                    format!("<div class=\"c{i}\"><p>text {i}, more.</p></div>")
                        .repeat(3)
                        .as_bytes(),
                )
            })
            .collect();
        for budget in [1 << 20, FP_BYTES * 7] {
            let mut store = Store::new(&dir, budget).unwrap();
            for (i, fp) in fps.iter().enumerate() {
                let page = PageRef {
                    url: format!("https://e{i}.com/x\ty"),
                    site: (i % 2 == 0).then(|| format!("e{i}.com")),
                };
                store.push(fp, &page).unwrap();
            }
            store.seal().unwrap();
            assert_eq!(store.spilled(), budget < 1 << 20);
            for (i, fp) in fps.iter().enumerate() {
                assert_eq!(&store.fingerprint(i).unwrap(), fp);
                let p = store.page(i).unwrap();
                assert_eq!(p.url, format!("https://e{i}.com/x y"));
                assert_eq!(p.site.is_some(), i % 2 == 0);
            }
            let mut seen = 0;
            store
                .scan(|i, fp| {
                    assert_eq!(fp, &fps[i]);
                    seen += 1;
                })
                .unwrap();
            assert_eq!(seen, fps.len());
        }
    }
}
