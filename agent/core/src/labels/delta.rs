//! Deltas between two versions of a labeled set: the keys added and removed,
//! and the signed header of the version they produce.
//!
//! ```text
//! magic        8 bytes  "CSLDELTA"
//! format       u16      2 (1 is still read: no SimHash lists)
//! from_version u64
//! header_len   u32, then the target file's header bytes
//! added        u64 count, then keys ascending
//! removed      u64 count, then keys ascending
//! added        u64 count, then SimHashes ascending      (format 2)
//! removed      u64 count, then SimHashes ascending      (format 2)
//! item section u64 length, then the target file's item section whole (format 3)
//! signature    64 bytes: the target file's signature
//! ```
//! An item set's items travel whole in each delta: they are identities and
//! ordered grams, not a sorted key list, and an item set is small beside the
//! article sets a delta is for (docs/labels.md, "Item sets").
//! A delta is not signed itself: applying it rebuilds the target file byte
//! for byte, and the target file's signature is checked. A wrong or tampered
//! delta therefore fails exactly like a tampered file.

use super::file::{self, FileError, SetFile};

pub const MAGIC: &[u8; 8] = b"CSLDELTA";
const FORMAT: u16 = 3;

/// Why a delta could not be applied.
#[derive(Debug, thiserror::Error)]
pub enum DeltaError {
    #[error("not a delta (bad magic or format)")]
    Magic,
    #[error("truncated delta")]
    Truncated,
    #[error("delta is from version {delta} but the current version is {current}")]
    Base { delta: u64, current: u64 },
    #[error("delta is for set `{delta}`, not `{current}`")]
    Name { delta: String, current: String },
    #[error("delta does not produce the set it claims: {0}")]
    Result(String),
    #[error(transparent)]
    File(#[from] FileError),
}

/// Values in `b` and not in `a`, and in `a` and not in `b` (both ascending).
fn differences(a: impl Iterator<Item = u64>, b: impl Iterator<Item = u64>) -> [Vec<u64>; 2] {
    let (mut added, mut removed) = (Vec::new(), Vec::new());
    let mut a = a.peekable();
    let mut b = b.peekable();
    loop {
        match (a.peek().copied(), b.peek().copied()) {
            (Some(x), Some(y)) if x == y => {
                a.next();
                b.next();
            }
            (Some(x), Some(y)) if x < y => {
                removed.push(x);
                a.next();
            }
            (Some(_), Some(y)) | (None, Some(y)) => {
                added.push(y);
                b.next();
            }
            (Some(x), None) => {
                removed.push(x);
                a.next();
            }
            (None, None) => break,
        }
    }
    [added, removed]
}

/// The delta from `from` to `to` (both parsed files of the same set).
pub fn diff(from: &SetFile, to: &SetFile) -> Vec<u8> {
    let [added, removed] = differences(from.keys(), to.keys());
    let [sim_added, sim_removed] = differences(from.simhashes(), to.simhashes());
    let header = to.header_bytes();
    let mut out = Vec::with_capacity(64 + header.len() + 8 * (added.len() + removed.len()));
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&from.header.version.to_le_bytes());
    out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    out.extend_from_slice(header);
    for list in [&added, &removed, &sim_added, &sim_removed] {
        out.extend_from_slice(&(list.len() as u64).to_le_bytes());
        for k in list.iter() {
            out.extend_from_slice(&k.to_le_bytes());
        }
    }
    let items = to.item_bytes();
    out.extend_from_slice(&(items.len() as u64).to_le_bytes());
    out.extend_from_slice(items);
    out.extend_from_slice(&to.signature());
    out
}

/// `current` with `added` merged in and `removed` taken out (all ascending);
/// removing a value that is not there is an error.
fn patched(
    current: impl Iterator<Item = u64>,
    added: &[u64],
    removed: &[u64],
    capacity: usize,
) -> Result<Vec<u64>, DeltaError> {
    let mut out = Vec::with_capacity((capacity + added.len()).saturating_sub(removed.len()));
    let mut rem = removed.iter().peekable();
    let mut add = added.iter().peekable();
    for k in current {
        if let Some(&&r) = rem.peek().filter(|&&&r| r < k) {
            return Err(DeltaError::Result(format!(
                "removes {r:016x}, which is not in the set"
            )));
        }
        while let Some(&&a) = add.peek().filter(|&&&a| a < k) {
            out.push(a);
            add.next();
        }
        if rem.peek().is_some_and(|&&r| r == k) {
            rem.next();
            continue;
        }
        out.push(k);
    }
    out.extend(add);
    if rem.next().is_some() {
        return Err(DeltaError::Result(
            "removes a value that is not in the set".into(),
        ));
    }
    Ok(out)
}

/// Keys added and removed, as counts (for logs and metrics).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Applied {
    pub added: u64,
    pub removed: u64,
}

/// A delta's fields, read in order (`write` says the layout).
struct Parsed {
    header_bytes: Vec<u8>,
    header: file::Header,
    /// Keys added and removed, SimHashes added and removed.
    lists: [Vec<u64>; 4],
    items: Vec<u8>,
    signature: [u8; 64],
}

/// Reads a delta's fields; running out of bytes is `Truncated`.
struct Fields<'a> {
    delta: &'a [u8],
    at: usize,
}

impl<'a> Fields<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], DeltaError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.delta.len())
            .ok_or(DeltaError::Truncated)?;
        let s = &self.delta[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u64(&mut self) -> Result<u64, DeltaError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8")))
    }

    /// A length-prefixed list of u64s.
    fn list(&mut self) -> Result<Vec<u64>, DeltaError> {
        let n = usize::try_from(self.u64()?).map_err(|_| DeltaError::Truncated)?;
        let bytes = self.take(n.checked_mul(8).ok_or(DeltaError::Truncated)?)?;
        Ok(bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8")))
            .collect())
    }
}

/// Reads `delta`'s fields, checking that it applies to `current` (its set,
/// its version) as soon as its header says.
fn parse(delta: &[u8], current: &SetFile) -> Result<Parsed, DeltaError> {
    let mut f = Fields { delta, at: 0 };
    if f.take(8)? != MAGIC {
        return Err(DeltaError::Magic);
    }
    let format = u16::from_le_bytes(f.take(2)?.try_into().expect("2"));
    if !(1..=FORMAT).contains(&format) {
        return Err(DeltaError::Magic);
    }
    let from_version = f.u64()?;
    let header_len = u32::from_le_bytes(f.take(4)?.try_into().expect("4")) as usize;
    let header_bytes = f.take(header_len)?.to_vec();
    let (header, used) = file::Header::decode(&header_bytes)?;
    if used != header_bytes.len() {
        return Err(DeltaError::Result("header length".into()));
    }
    if header.name != current.header.name {
        return Err(DeltaError::Name {
            delta: header.name,
            current: current.header.name.clone(),
        });
    }
    if from_version != current.header.version {
        return Err(DeltaError::Base {
            delta: from_version,
            current: current.header.version,
        });
    }
    let mut lists = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    let count = if format == 1 { 2 } else { 4 };
    for list in lists.iter_mut().take(count) {
        *list = f.list()?;
    }
    let items = if format >= 3 {
        let n = usize::try_from(f.u64()?).map_err(|_| DeltaError::Truncated)?;
        f.take(n)?.to_vec()
    } else {
        Vec::new()
    };
    let signature: [u8; 64] = f.take(64)?.try_into().expect("64");
    if f.at != delta.len() {
        return Err(DeltaError::Truncated);
    }
    Ok(Parsed {
        header_bytes,
        header,
        lists,
        items,
        signature,
    })
}

/// Applies `delta` to the file `current`, returning the target file's bytes.
/// The caller verifies the result's signature (`SetFile::open`).
pub fn apply(current: &SetFile, delta: &[u8]) -> Result<(Vec<u8>, Applied), DeltaError> {
    let Parsed {
        header_bytes,
        header,
        lists,
        items,
        signature,
    } = parse(delta, current)?;
    let [added, removed, sim_added, sim_removed] = lists;
    let keys = patched(
        current.keys(),
        &added,
        &removed,
        current.header.entries as usize,
    )?;
    let simhashes = patched(
        current.simhashes(),
        &sim_added,
        &sim_removed,
        current.header.simhashes as usize,
    )?;
    if keys.len() as u64 != header.entries || simhashes.len() as u64 != header.simhashes {
        return Err(DeltaError::Result(format!(
            "{} keys and {} SimHashes, the target has {} and {}",
            keys.len(),
            simhashes.len(),
            header.entries,
            header.simhashes
        )));
    }
    let out = file::assemble(
        &header_bytes,
        &file::Contents { keys, simhashes },
        &items,
        &signature,
    );
    Ok((
        out,
        Applied {
            added: (added.len() + sim_added.len()) as u64,
            removed: (removed.len() + sim_removed.len()) as u64,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::SigningKey;

    #[test]
    fn delta_produces_the_target_file() {
        let key = SigningKey::from_bytes(&[9; 32]);
        let contents = |keys: &[u64], simhashes: &[u64]| file::Contents {
            keys: keys.to_vec(),
            simhashes: simhashes.to_vec(),
        };
        let v1 = file::encode(
            &file::Header::new("s", 1, 0, 0),
            &contents(&[2, 4, 6, 8], &[100, 200]),
            &key,
        );
        let v2 = file::encode(
            &file::Header::new("s", 2, 0, 0),
            &contents(&[1, 4, 8, 9, 10], &[200, 300]),
            &key,
        );
        let (f1, f2) = (SetFile::parse(&v1).unwrap(), SetFile::parse(&v2).unwrap());
        let d = diff(&f1, &f2);
        let (out, applied) = apply(&f1, &d).unwrap();
        assert_eq!(out, v2);
        assert_eq!(
            applied,
            Applied {
                added: 4,
                removed: 3
            }
        );
        SetFile::open(&out, &key.verifying_key()).unwrap();

        // Wrong base, truncation, and a tampered key list.
        let f2p = SetFile::parse(&v2).unwrap();
        assert!(matches!(apply(&f2p, &d), Err(DeltaError::Base { .. })));
        assert!(apply(&f1, &d[..d.len() - 1]).is_err());
        // An added key changed (9 → 7: still in order, same count): the
        // rebuilt file is not the one the hub signed.
        let mut bad = d.clone();
        let at = bad.len() - 64 - 8 - (8 + 8) - (8 + 8) - 8 * 2 - 8 - 8 - 8;
        assert_eq!(bad[at], 9);
        bad[at] = 7;
        let (out, _) = apply(&f1, &bad).unwrap();
        assert_eq!(
            SetFile::open(&out, &key.verifying_key()).unwrap_err(),
            FileError::Signature
        );
    }

    #[test]
    fn an_item_set_delta_carries_its_items_whole() {
        use crate::labels::items::{Item, ItemTable};
        let key = SigningKey::from_bytes(&[9; 32]);
        let table = |ids: &[&str]| ItemTable {
            tasks: vec!["quiz".into()],
            items: ids
                .iter()
                .enumerate()
                .map(|(i, id)| Item {
                    task: 0,
                    id: id.to_string(),
                    words: 12,
                    question: 2,
                    grams: vec![(i as u64 + 1) << 8, ((i as u64 + 1) << 8) | 1, 7 << 40],
                })
                .collect(),
        };
        let (t1, t2) = (table(&["a", "b"]), table(&["a", "b", "c"]));
        let empty = file::Contents::default();
        let v1 = file::encode_with_items(
            &file::Header::new("q", 1, 0, 0),
            &empty,
            Some(&t1.section(8)),
            &key,
        );
        let v2 = file::encode_with_items(
            &file::Header::new("q", 2, 0, 0),
            &empty,
            Some(&t2.section(8)),
            &key,
        );
        let (f1, f2) = (SetFile::parse(&v1).unwrap(), SetFile::parse(&v2).unwrap());
        assert_eq!(f2.header.format, 5);
        assert_eq!(ItemTable::of(&f2).unwrap().unwrap(), t2);
        let (out, _) = apply(&f1, &diff(&f1, &f2)).unwrap();
        assert_eq!(out, v2);
        let opened = SetFile::open(&out, &key.verifying_key()).unwrap();
        assert_eq!(ItemTable::of(&opened).unwrap().unwrap().items.len(), 3);
        // A set without items stays in its older format, with no item section.
        let plain = file::encode(&file::Header::new("p", 1, 0, 0), &empty, &key);
        assert!(ItemTable::of(&SetFile::parse(&plain).unwrap())
            .unwrap()
            .is_none());
    }
}
