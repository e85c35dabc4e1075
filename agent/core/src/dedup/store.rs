//! The index of pages seen, kept in redb: an embedded, pure-Rust B-tree
//! store (one file, ACID commits, read-only opening, no C++ to build).
//!
//! Three tables and the parameters:
//! - `digests`: the first 16 bytes of a content's SHA-1 → the page that
//!   holds it first;
//! - `bands`: an LSH band key → the first page with it;
//! - `pages`: a page's number → its sketch (one byte per MinHash value), its
//!   id and URL (what a verdict's `duplicate_of` names);
//! - `meta`: the signature's bands, rows and version (an index is refused by
//!   a configuration or build with others), and the pages held.
//!
//! Writes collect in memory and go to the file together (`commit`, every
//! `COMMIT_EVERY` pages or `COMMIT_AFTER`, and at the end): one durable
//! commit a page would cost more than judging it. Look-ups read the
//! collected writes first. A process killed loses what it collected since
//! its last commit (at most a second's pages): their copies seen later are
//! kept again, never wrongly called duplicates.

use crate::fingerprints::minhash::MINHASH_VERSION;
use redb::{
    Database, ReadOnlyDatabase, ReadTransaction, ReadableDatabase, ReadableTable, TableDefinition,
};
use rustc_hash::FxHashMap;
use std::path::Path;

const DIGESTS: TableDefinition<u128, u64> = TableDefinition::new("digests");
const BANDS: TableDefinition<u64, u64> = TableDefinition::new("bands");
const PAGES: TableDefinition<u64, &[u8]> = TableDefinition::new("pages");
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");

/// Pages whose entries are written to the file in one commit, at most.
pub const COMMIT_EVERY: usize = 2000;
/// What is collected goes to the file at least this often: a long-running
/// agent, seeing few pages, keeps little that a crash would lose.
pub const COMMIT_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// A page the index names: its sketch, id and URL.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub sketch: Vec<u8>,
    pub id: String,
    pub url: String,
}

impl Entry {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(self.sketch.len() + self.id.len() + self.url.len() + 3);
        b.extend_from_slice(&(self.sketch.len() as u16).to_le_bytes());
        b.extend_from_slice(&self.sketch);
        b.extend_from_slice(self.id.as_bytes());
        b.push(0);
        b.extend_from_slice(self.url.as_bytes());
        b
    }

    pub(crate) fn decode(b: &[u8]) -> Option<Entry> {
        let n = u16::from_le_bytes(b.get(..2)?.try_into().ok()?) as usize;
        let sketch = b.get(2..2 + n)?.to_vec();
        let rest = std::str::from_utf8(b.get(2 + n..)?).ok()?;
        let (id, url) = rest.split_once('\0')?;
        Some(Entry {
            sketch,
            id: id.to_string(),
            url: url.to_string(),
        })
    }
}

enum Db {
    Write(Database),
    Read(ReadOnlyDatabase),
}

impl Db {
    fn begin_read(&self) -> Result<ReadTransaction, redb::TransactionError> {
        match self {
            Db::Write(db) => db.begin_read(),
            Db::Read(db) => db.begin_read(),
        }
    }
}

/// What is written since the last commit.
#[derive(Default)]
struct Pending {
    digests: FxHashMap<u128, u64>,
    bands: FxHashMap<u64, u64>,
    pages: FxHashMap<u64, Entry>,
}

/// One index: this crawl's (written) or an earlier one's (read-only).
pub struct Store {
    db: Db,
    pending: Pending,
    /// Pages held, committed or not: the next page's number.
    pages: u64,
    rows: usize,
    bands: usize,
    committed: std::time::Instant,
}

fn fail(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("{e}")
}

impl Store {
    /// Opens (or creates) the index at `path`; `None`: in memory, for this
    /// run only. Refused when it was made with other bands or rows.
    pub fn open(
        path: Option<&Path>,
        bands: usize,
        rows: usize,
        cache: usize,
    ) -> anyhow::Result<Store> {
        let mut builder = Database::builder();
        builder.set_cache_size(cache);
        let db = match path {
            Some(p) => builder.create(p).map_err(fail)?,
            None => builder
                .create_with_backend(redb::backends::InMemoryBackend::new())
                .map_err(fail)?,
        };
        let w = db.begin_write().map_err(fail)?;
        {
            let mut meta = w.open_table(META).map_err(fail)?;
            for (key, want) in [
                ("bands", bands),
                ("rows", rows),
                ("version", MINHASH_VERSION.into()),
            ] {
                let had = meta.get(key).map_err(fail)?.map(|v| v.value());
                match had {
                    None => {
                        meta.insert(key, want as u64).map_err(fail)?;
                    }
                    Some(had) if had == want as u64 => {}
                    Some(had) => anyhow::bail!("made with {key} = {had}, not {want}"),
                }
            }
            w.open_table(DIGESTS).map_err(fail)?;
            w.open_table(BANDS).map_err(fail)?;
            w.open_table(PAGES).map_err(fail)?;
        }
        w.commit().map_err(fail)?;
        let mut store = Store::with(Db::Write(db), bands, rows);
        store.pages = store.meta("pages")?.unwrap_or(0);
        Ok(store)
    }

    /// Opens an earlier crawl's index at `path`, never to write it. Its
    /// bands and rows are its own.
    pub fn open_read_only(path: &Path, cache: usize) -> anyhow::Result<Store> {
        let db = Database::builder()
            .set_cache_size(cache)
            .open_read_only(path)
            .map_err(fail)?;
        let mut store = Store::with(Db::Read(db), 0, 0);
        let get = |key| -> anyhow::Result<u64> {
            store
                .meta(key)?
                .ok_or_else(|| anyhow::anyhow!("not an index of pages seen (no `{key}`)"))
        };
        let (bands, rows, version) = (get("bands")?, get("rows")?, get("version")?);
        anyhow::ensure!(
            version == u64::from(MINHASH_VERSION),
            "made with signature version {version}, this build reads {MINHASH_VERSION}"
        );
        store.pages = store.meta("pages")?.unwrap_or(0);
        (store.bands, store.rows) = (bands as usize, rows as usize);
        Ok(store)
    }

    fn with(db: Db, bands: usize, rows: usize) -> Store {
        Store {
            db,
            pending: Pending::default(),
            pages: 0,
            rows,
            bands,
            committed: std::time::Instant::now(),
        }
    }

    fn meta(&self, key: &str) -> anyhow::Result<Option<u64>> {
        let r = self.db.begin_read().map_err(fail)?;
        let meta = r.open_table(META).map_err(fail)?;
        Ok(meta.get(key).map_err(fail)?.map(|v| v.value()))
    }

    /// The signature's shape: (bands, rows).
    pub fn shape(&self) -> (usize, usize) {
        (self.bands, self.rows)
    }

    /// Pages held.
    pub fn pages(&self) -> u64 {
        self.pages
    }

    /// The first page with this content digest.
    pub fn digest(&self, digest: u128) -> anyhow::Result<Option<u64>> {
        if let Some(&n) = self.pending.digests.get(&digest) {
            return Ok(Some(n));
        }
        let r = self.db.begin_read().map_err(fail)?;
        let t = r.open_table(DIGESTS).map_err(fail)?;
        Ok(t.get(digest).map_err(fail)?.map(|v| v.value()))
    }

    /// The first pages with each of these band keys (distinct, in band order).
    pub fn candidates(&self, keys: &[u64]) -> anyhow::Result<Vec<u64>> {
        let r = self.db.begin_read().map_err(fail)?;
        let t = r.open_table(BANDS).map_err(fail)?;
        let mut found = Vec::new();
        for k in keys {
            let n = match self.pending.bands.get(k) {
                Some(&n) => Some(n),
                None => t.get(*k).map_err(fail)?.map(|v| v.value()),
            };
            if let Some(n) = n.filter(|n| !found.contains(n)) {
                found.push(n);
            }
        }
        Ok(found)
    }

    /// The page numbered `n`.
    pub fn entry(&self, n: u64) -> anyhow::Result<Option<Entry>> {
        if let Some(e) = self.pending.pages.get(&n) {
            return Ok(Some(e.clone()));
        }
        let r = self.db.begin_read().map_err(fail)?;
        let t = r.open_table(PAGES).map_err(fail)?;
        let bytes = t.get(n).map_err(fail)?;
        Ok(bytes.and_then(|b| Entry::decode(b.value())))
    }

    /// Adds a page kept as the first of its content: its digest and band
    /// keys (those not held already) name it. Returns its number.
    pub fn add(&mut self, digest: Option<u128>, keys: &[u64], entry: Entry) -> anyhow::Result<u64> {
        let n = self.pages;
        self.pages += 1;
        if let Some(d) = digest {
            self.alias(d, n)?;
        }
        for &k in keys {
            if self.candidates(&[k])?.is_empty() {
                self.pending.bands.insert(k, n);
            }
        }
        self.pending.pages.insert(n, entry);
        self.commit_when_due().map(|_| n)
    }

    /// Names page `n` as the first holder of `digest` when none is yet (an
    /// exact copy of a near duplicate leads to the page it duplicates).
    pub fn alias(&mut self, digest: u128, n: u64) -> anyhow::Result<()> {
        if self.digest(digest)?.is_none() {
            self.pending.digests.insert(digest, n);
        }
        Ok(())
    }

    fn commit_when_due(&mut self) -> anyhow::Result<()> {
        if self.pending.pages.len() >= COMMIT_EVERY || self.committed.elapsed() >= COMMIT_AFTER {
            self.commit()?;
        }
        Ok(())
    }

    /// Writes what is collected to the file, durably.
    pub fn commit(&mut self) -> anyhow::Result<()> {
        let Db::Write(db) = &self.db else {
            return Ok(());
        };
        self.committed = std::time::Instant::now();
        let p = std::mem::take(&mut self.pending);
        let w = db.begin_write().map_err(fail)?;
        {
            let mut t = w.open_table(DIGESTS).map_err(fail)?;
            for (k, n) in &p.digests {
                t.insert(k, n).map_err(fail)?;
            }
            let mut t = w.open_table(BANDS).map_err(fail)?;
            for (k, n) in &p.bands {
                t.insert(k, n).map_err(fail)?;
            }
            let mut t = w.open_table(PAGES).map_err(fail)?;
            for (n, e) in &p.pages {
                t.insert(n, e.encode().as_slice()).map_err(fail)?;
            }
            let mut meta = w.open_table(META).map_err(fail)?;
            meta.insert("pages", self.pages).map_err(fail)?;
        }
        w.commit().map_err(fail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str) -> Entry {
        Entry {
            sketch: vec![1, 2, 3],
            id: id.into(),
            url: format!("http://example.com/{id}"),
        }
    }

    #[test]
    fn what_is_added_is_found_before_and_after_a_commit_and_after_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seen.redb");
        let mut s = Store::open(Some(&path), 20, 5, 1 << 20).unwrap();
        let n = s.add(Some(7), &[10, 11], entry("a")).unwrap();
        assert_eq!(s.digest(7).unwrap(), Some(n));
        assert_eq!(s.candidates(&[11, 12]).unwrap(), vec![n]);
        s.commit().unwrap();
        assert_eq!(s.entry(n).unwrap(), Some(entry("a")));
        drop(s);
        let s = Store::open_read_only(&path, 1 << 20).unwrap();
        assert_eq!((s.pages(), s.shape()), (1, (20, 5)));
        assert_eq!(s.digest(7).unwrap(), Some(0));
        assert_eq!(s.candidates(&[10]).unwrap(), vec![0]);
        drop(s);
        let refused = Store::open(Some(&path), 14, 8, 1 << 20).err().unwrap();
        assert!(refused.to_string().contains("bands = 20"), "{refused}");
    }

    #[test]
    fn the_first_page_keeps_its_keys() {
        let mut s = Store::open(None, 2, 1, 1 << 20).unwrap();
        let a = s.add(Some(1), &[5, 6], entry("a")).unwrap();
        let b = s.add(Some(1), &[6, 7], entry("b")).unwrap();
        assert_eq!(s.digest(1).unwrap(), Some(a));
        assert_eq!(s.candidates(&[6, 7]).unwrap(), vec![a, b]);
    }
}
