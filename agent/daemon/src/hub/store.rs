//! The hub's store: every version of every set, one file each, on disk.
//!
//! `DIR/NAME/000000000042.cslab`. Files are written to a temporary name and
//! renamed, so a crash never leaves a half-written version behind, and the
//! store is rebuilt from the directory listing at start.

use crawlsieve_core::labels::file::{self, Header, SetFile};
use crawlsieve_core::labels::protocol::CountsInfo;
pub use crawlsieve_core::labels::protocol::SetInfo;
use ed25519_dalek::SigningKey;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Every stored version of every set.
pub struct Store {
    dir: PathBuf,
    sets: Mutex<BTreeMap<String, BTreeMap<u64, SetInfo>>>,
}

pub use crawlsieve_core::labels::protocol::valid_name;

/// A set as published: keys and SimHashes (each strictly ascending), the
/// minimum chunk length they were made with, and whether they hold shingles.
#[derive(Debug, Clone)]
pub struct Upload {
    pub contents: file::Contents,
    pub min_chars: u32,
    pub shingles: bool,
    /// Its keys include immutable grams (a set built with them, format 4).
    pub immutables: bool,
    /// The set's origin sites, in their normal form (none for a blind set).
    pub origins: Vec<String>,
}

impl Store {
    /// Opens (or creates) a store, reading every version's header.
    pub fn open(dir: &Path) -> anyhow::Result<Self> {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("store {}: {e}", dir.display()))?;
        let mut sets: BTreeMap<String, BTreeMap<u64, SetInfo>> = BTreeMap::new();
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().to_string();
            if !entry.file_type()?.is_dir() || !valid_name(&name) {
                continue;
            }
            for f in std::fs::read_dir(entry.path())? {
                let path = f?.path();
                if path.extension().and_then(|e| e.to_str()) != Some("cslab") {
                    continue;
                }
                let bytes = std::fs::read(&path)?;
                let parsed = SetFile::parse(&bytes)
                    .map_err(|e| anyhow::anyhow!("store file {}: {e}", path.display()))?;
                let mut info = info(&parsed.header, bytes.len());
                info.counts = match std::fs::read(sidecar(&path)) {
                    Ok(json) => Some(serde_json::from_slice(&json).map_err(|e| {
                        anyhow::anyhow!("store file {}: {e}", sidecar(&path).display())
                    })?),
                    Err(_) => None,
                };
                sets.entry(name.clone())
                    .or_default()
                    .insert(info.version, info);
            }
        }
        Ok(Store {
            dir: dir.to_path_buf(),
            sets: Mutex::new(sets),
        })
    }

    /// Where a stored version lives.
    pub fn path(&self, name: &str, version: u64) -> PathBuf {
        self.dir.join(name).join(format!("{version:012}.cslab"))
    }

    /// What version `version` of `name` holds, when it is stored.
    pub fn info(&self, name: &str, version: u64) -> Option<SetInfo> {
        let sets = self.sets.lock().expect("store lock");
        sets.get(name)?.get(&version).cloned()
    }

    /// The delta from stored version `from` to stored version `to`, as a
    /// file: made once, the first time it is asked for, then served as it is
    /// (both versions never change, so neither does their delta). Callers
    /// make one at a time (`Hub::deltas`). Deltas live beside the versions,
    /// in `deltas/`, which `open` does not read.
    pub fn delta(&self, name: &str, from: u64, to: u64) -> anyhow::Result<PathBuf> {
        let path = self
            .dir
            .join(name)
            .join("deltas")
            .join(format!("{from:012}-{to:012}.csdelta"));
        if path.is_file() {
            return Ok(path);
        }
        let (old, new) = (self.read(name, from)?, self.read(name, to)?);
        let bytes =
            crawlsieve_core::labels::delta::diff(&SetFile::parse(&old)?, &SetFile::parse(&new)?);
        std::fs::create_dir_all(path.parent().expect("has a parent"))?;
        crawlsieve_core::durable::replace(&path, &bytes, true)?;
        Ok(path)
    }

    /// Latest version of every set.
    pub fn list(&self) -> Vec<SetInfo> {
        let sets = self.sets.lock().expect("store lock");
        sets.values()
            .filter_map(|v| v.values().next_back().cloned())
            .collect()
    }

    /// Latest version of `name`.
    pub fn latest(&self, name: &str) -> Option<SetInfo> {
        let sets = self.sets.lock().expect("store lock");
        sets.get(name)?.values().next_back().cloned()
    }

    /// Whether `name` has version `version` stored.
    pub fn has(&self, name: &str, version: u64) -> bool {
        let sets = self.sets.lock().expect("store lock");
        sets.get(name).is_some_and(|v| v.contains_key(&version))
    }

    /// The bytes of a stored version.
    pub fn read(&self, name: &str, version: u64) -> std::io::Result<Vec<u8>> {
        std::fs::read(self.path(name, version))
    }

    /// Stores an upload as the next version of `name`, signed with `key`.
    /// Callers serialise publishes.
    pub fn publish(
        &self,
        name: &str,
        upload: &Upload,
        key: &SigningKey,
        counts: Option<CountsInfo>,
    ) -> anyhow::Result<SetInfo> {
        let version = self.latest(name).map_or(1, |i| i.version + 1);
        let mut header = Header::new(
            name,
            version,
            upload.contents.keys.len() as u64,
            upload.min_chars,
        );
        header.simhashes = upload.contents.simhashes.len() as u64;
        header.origins = upload.origins.clone();
        if !upload.shingles {
            header.shingle_version = 0;
        }
        if upload.immutables {
            header = header.with_immutables();
        }
        let bytes = file::encode(&header, &upload.contents, key);
        let dir = self.dir.join(name);
        std::fs::create_dir_all(&dir)?;
        let path = self.path(name, version);
        // The counts it came from first: a version on disk without its
        // sidecar would be served as if made by hand.
        if let Some(counts) = &counts {
            crawlsieve_core::durable::replace(
                &sidecar(&path),
                &serde_json::to_vec_pretty(counts)?,
                true,
            )?;
        }
        // On the disk before it is announced: agents may fetch it at once.
        crawlsieve_core::durable::replace(&path, &bytes, true)?;
        let mut info = info(&header, bytes.len());
        info.counts = counts;
        self.sets
            .lock()
            .expect("store lock")
            .entry(name.to_string())
            .or_default()
            .insert(version, info.clone());
        Ok(info)
    }
}

/// `000000000042.counts.json` beside `000000000042.cslab`: which counts a
/// discovered version came from.
fn sidecar(version: &Path) -> PathBuf {
    version.with_extension("counts.json")
}

fn info(h: &Header, bytes: usize) -> SetInfo {
    SetInfo {
        name: h.name.clone(),
        version: h.version,
        entries: h.entries,
        created: h.created,
        bytes: bytes as u64,
        min_chars: h.min_chars,
        simhashes: h.simhashes,
        shingle_version: h.shingle_version,
        origins: h.origins.clone(),
        counts: None,
    }
}
