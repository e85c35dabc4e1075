//! The files a quilt job exchanges between its steps (and machines).
//!
//! - **Docs table** (`NAME.docs.jsonl`): a header line
//!   `{"quilt_docs":1,"grams_version":1,"k":5,"name":NAME}`, then one line per page:
//!   `{"doc":"<16 hex>","url":…,"site":…,"grams":n}` — `grams` is
//!   `|grams_k(d)|`, the denominator of the patch fraction.
//! - **Grams file** (`NAME.pI-of-P.grams`): `"CSQGRAMS"`, u16 format (1), u8
//!   grams version, u8 k, u32 partition, u32 partitions, the machine's name
//!   (u16 count 1, u16 length, UTF-8); then `(gram, doc)`
//!   records (u64 each, little-endian), sorted. A gram lives in partition
//!   `gram % partitions`, so each partition is complete on its own.
//! - **Patches file** (`pI-of-P.patches`): `"CSQPATCH"`, u16 format (1), u8
//!   grams version, u8 k, u32 m, u32 partition, u32 partitions, the names of
//!   the machines merged (u16 count, then u16 length + UTF-8 each); then one
//!   record per patch gram: gram u64, n u32, then its `n` docs (u64 each).
//!
//! A doc key is XXH3-64 of the page's URL, a newline and its content, so the
//! same page read on two machines is one document, and pages need no central
//! numbering. Two distinct pages share a key with probability n²/2⁶⁵ (10⁻⁸
//! for a million pages).

use super::grams::GRAMS_VERSION;
use crate::crawl::sort::{le, Record};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

pub const GRAMS_MAGIC: &[u8; 8] = b"CSQGRAMS";
pub const PATCHES_MAGIC: &[u8; 8] = b"CSQPATCH";
const FORMAT: u16 = 1;

/// The key of a page (see the module docs).
pub fn doc_key(url: &str, content: &str) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(url.as_bytes());
    h.update(b"\n");
    h.update(content.as_bytes());
    h.digest()
}

/// One line of a docs table.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct DocLine {
    #[serde(with = "hex_key")]
    pub doc: u64,
    pub url: String,
    pub site: Option<String>,
    pub grams: u32,
}

mod hex_key {
    pub fn serialize<S: serde::Serializer>(k: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{k:016x}"))
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let s: String = serde::Deserialize::deserialize(d)?;
        u64::from_str_radix(&s, 16).map_err(serde::de::Error::custom)
    }
}

#[derive(serde::Serialize, serde::Deserialize)]
struct DocsHeader {
    quilt_docs: u32,
    grams_version: u8,
    k: u8,
    /// The machine (step-1 run) that wrote it.
    name: String,
}

/// Writes a docs table.
pub struct DocsWriter {
    w: BufWriter<File>,
}

impl DocsWriter {
    pub fn create(path: &Path, k: u8, name: &str) -> anyhow::Result<Self> {
        let f = File::create(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let mut w = BufWriter::new(f);
        let header = DocsHeader {
            quilt_docs: 1,
            grams_version: GRAMS_VERSION,
            k,
            name: name.to_string(),
        };
        serde_json::to_writer(&mut w, &header)?;
        w.write_all(b"\n")?;
        Ok(DocsWriter { w })
    }

    pub fn write(&mut self, d: &DocLine) -> anyhow::Result<()> {
        serde_json::to_writer(&mut self.w, d)?;
        self.w.write_all(b"\n")?;
        Ok(())
    }

    pub fn finish(mut self) -> anyhow::Result<()> {
        Ok(self.w.flush()?)
    }
}

/// Reads a docs table: every line; returns its k and the machine's name.
pub fn read_docs(path: &Path, mut line: impl FnMut(DocLine)) -> anyhow::Result<(u8, String)> {
    let err = |e: &dyn std::fmt::Display| anyhow::anyhow!("docs table {}: {e}", path.display());
    let mut r = BufReader::new(File::open(path).map_err(|e| err(&e))?);
    let mut first = String::new();
    r.read_line(&mut first).map_err(|e| err(&e))?;
    let header: DocsHeader =
        serde_json::from_str(&first).map_err(|_| err(&"not a quilt docs table (bad header)"))?;
    check_version(header.grams_version).map_err(|e| err(&e))?;
    for (n, l) in r.lines().enumerate() {
        let l = l.map_err(|e| err(&e))?;
        if l.is_empty() {
            continue;
        }
        let d: DocLine =
            serde_json::from_str(&l).map_err(|e| err(&format!("line {}: {e}", n + 2)))?;
        line(d);
    }
    Ok((header.k, header.name))
}

fn check_version(v: u8) -> Result<(), String> {
    if v == GRAMS_VERSION {
        Ok(())
    } else {
        Err(format!(
            "grams version {v} differs from this build's {GRAMS_VERSION}"
        ))
    }
}

/// What a grams or patches file says of itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub k: u8,
    /// Patches files only (0 in grams files).
    pub m: u32,
    pub partition: u32,
    pub partitions: u32,
    /// The machines whose grams it holds: one for a grams file, every
    /// merged one (sorted) for a patches file — so that step 3 can tell a
    /// partition merged without one machine's file from a complete one.
    pub machines: Vec<String>,
}

fn write_header(w: &mut impl Write, magic: &[u8; 8], h: &Header) -> std::io::Result<()> {
    w.write_all(magic)?;
    w.write_all(&FORMAT.to_le_bytes())?;
    w.write_all(&[GRAMS_VERSION, h.k])?;
    if magic == PATCHES_MAGIC {
        w.write_all(&h.m.to_le_bytes())?;
    }
    w.write_all(&h.partition.to_le_bytes())?;
    w.write_all(&h.partitions.to_le_bytes())?;
    w.write_all(&(h.machines.len() as u16).to_le_bytes())?;
    for name in &h.machines {
        w.write_all(&(name.len() as u16).to_le_bytes())?;
        w.write_all(name.as_bytes())?;
    }
    Ok(())
}

fn read_u16(r: &mut impl Read) -> std::io::Result<u16> {
    let mut b = [0u8; 2];
    r.read_exact(&mut b)?;
    Ok(u16::from_le_bytes(b))
}

fn read_machines(r: &mut impl Read) -> std::io::Result<Vec<String>> {
    let n = read_u16(r)?;
    let mut names = Vec::with_capacity(n.min(1024) as usize);
    for _ in 0..n {
        let mut name = vec![0u8; read_u16(r)? as usize];
        r.read_exact(&mut name)?;
        names.push(String::from_utf8_lossy(&name).into_owned());
    }
    Ok(names)
}

fn read_header(r: &mut impl Read, magic: &[u8; 8], path: &Path) -> anyhow::Result<Header> {
    let what = if magic == GRAMS_MAGIC {
        "grams"
    } else {
        "patches"
    };
    let err = |e: &dyn std::fmt::Display| anyhow::anyhow!("{what} file {}: {e}", path.display());
    let mut head = [0u8; 12];
    r.read_exact(&mut head)
        .map_err(|_| err(&format!("not a {what} file (too short)")))?;
    if &head[..8] != magic || u16::from_le_bytes([head[8], head[9]]) != FORMAT {
        return Err(err(&format!("not a {what} file (bad magic or format)")));
    }
    check_version(head[10]).map_err(|e| err(&e))?;
    let mut u32s = [0u8; 12];
    let n = if magic == PATCHES_MAGIC { 12 } else { 8 };
    r.read_exact(&mut u32s[..n])
        .map_err(|_| err(&"truncated header"))?;
    let at = |i: usize| u32::from_le_bytes(u32s[i..i + 4].try_into().expect("4"));
    let (m, rest) = if magic == PATCHES_MAGIC {
        (at(0), 4)
    } else {
        (0, 0)
    };
    let machines = read_machines(r).map_err(|_| err(&"truncated header"))?;
    let h = Header {
        k: head[11],
        m,
        partition: at(rest),
        partitions: at(rest + 4),
        machines,
    };
    anyhow::ensure!(
        h.partitions >= 1 && h.partition < h.partitions && h.k >= 1,
        "{what} file {}: bad header {h:?}",
        path.display()
    );
    Ok(h)
}

/// Writes one partition's sorted `(gram, doc)` records.
pub fn write_grams(
    path: &Path,
    header: &Header,
    records: impl Iterator<Item = std::io::Result<(u64, u64)>>,
) -> anyhow::Result<u64> {
    let f = File::create(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let mut w = BufWriter::with_capacity(1 << 20, f);
    write_header(&mut w, GRAMS_MAGIC, header)?;
    let mut bytes = Vec::with_capacity(16);
    let mut n = 0;
    for r in records {
        bytes.clear();
        r?.put(&mut bytes);
        w.write_all(&bytes)?;
        n += 1;
    }
    w.flush()?;
    Ok(n)
}

/// Reads a grams file: its header, then records in order.
pub struct GramsReader {
    r: BufReader<File>,
    pub header: Header,
    path: PathBuf,
}

impl GramsReader {
    pub fn open(path: &Path) -> anyhow::Result<Self> {
        let f = File::open(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let mut r = BufReader::with_capacity(256 << 10, f);
        let header = read_header(&mut r, GRAMS_MAGIC, path)?;
        Ok(GramsReader {
            r,
            header,
            path: path.to_path_buf(),
        })
    }

    pub fn next_record(&mut self) -> anyhow::Result<Option<(u64, u64)>> {
        crate::crawl::sort::read(&mut self.r)
            .map_err(|e| anyhow::anyhow!("grams file {}: {e}", self.path.display()))
    }
}

/// Writes patch postings.
pub struct PatchesWriter {
    w: BufWriter<File>,
    pub written: u64,
}

impl PatchesWriter {
    pub fn create(path: &Path, header: &Header) -> anyhow::Result<Self> {
        let f = File::create(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let mut w = BufWriter::with_capacity(1 << 20, f);
        write_header(&mut w, PATCHES_MAGIC, header)?;
        Ok(PatchesWriter { w, written: 0 })
    }

    pub fn write(&mut self, gram: u64, docs: &[u64]) -> anyhow::Result<()> {
        self.w.write_all(&gram.to_le_bytes())?;
        self.w.write_all(&(docs.len() as u32).to_le_bytes())?;
        for d in docs {
            self.w.write_all(&d.to_le_bytes())?;
        }
        self.written += 1;
        Ok(())
    }

    pub fn finish(mut self) -> anyhow::Result<u64> {
        self.w.flush()?;
        Ok(self.written)
    }
}

/// Reads patch postings.
pub struct PatchesReader {
    r: BufReader<File>,
    pub header: Header,
    path: PathBuf,
    bytes: Vec<u8>,
}

impl PatchesReader {
    pub fn open(path: &Path) -> anyhow::Result<Self> {
        let f = File::open(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let mut r = BufReader::with_capacity(256 << 10, f);
        let header = read_header(&mut r, PATCHES_MAGIC, path)?;
        Ok(PatchesReader {
            r,
            header,
            path: path.to_path_buf(),
            bytes: Vec::new(),
        })
    }

    /// The next patch gram and its documents (into `docs`); false at the end.
    pub fn next_posting(&mut self, gram: &mut u64, docs: &mut Vec<u64>) -> anyhow::Result<bool> {
        let err = |e: &dyn std::fmt::Display| {
            anyhow::anyhow!("patches file {}: {e}", self.path.display())
        };
        let mut head = [0u8; 12];
        if !crate::crawl::sort::fill(&mut self.r, &mut head).map_err(|e| err(&e))? {
            return Ok(false);
        }
        let g = le(&head[..8]);
        let n = u32::from_le_bytes(head[8..12].try_into().expect("4")) as usize;
        // A posting holds at most m docs; anything larger is a corrupt file,
        // not a reason to allocate.
        if n > self.header.m as usize || n < 2 {
            return Err(err(&format!(
                "posting of {n} documents with m = {}",
                self.header.m
            )));
        }
        self.bytes.resize(8 * n, 0);
        self.r.read_exact(&mut self.bytes).map_err(|e| err(&e))?;
        *gram = g;
        docs.clear();
        docs.extend(self.bytes.chunks_exact(8).map(le));
        Ok(true)
    }
}
