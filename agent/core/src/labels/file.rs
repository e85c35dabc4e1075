//! The labeled-set file: one named, versioned set, signed with ed25519.
//!
//! ```text
//! magic        8 bytes  "CSLABELS"
//! format       u16      4 with immutables, else 3 with origin sites, else 2
//!                       (1 is still read: no shingle fields, no SimHashes)
//! hash_kind    u8       1 = sha1-64: a key is the first 8 bytes of the chunk's
//!                       SHA-1 (docs/algorithms.md, "Chunk normalisation"), read big-endian
//! normalisation u8      chunks::NORMALISATION_VERSION the keys were made with
//! min_chars    u32      chunks shorter than this were not hashed
//! version      u64      the set's version; the hub makes it grow by one per publish
//! created      i64      Unix seconds
//! entries      u64      number of keys
//! name_len     u16, name (UTF-8)
//! -- format 2 --
//! shingle_version u8    shingles::SHINGLE_VERSION of the shingle keys; 0 = none
//! shingle_k    u8       words per shingle
//! shingle_sample u16    one shingle in this many was kept
//! simhashes    u64      number of page SimHashes
//! -- format 3 --
//! origins      u16      number of origin sites, then each: u16 length, UTF-8
//!                       (a registered domain, or a URL prefix with scheme)
//! -- format 4 --
//! immutable_version u8  immutables::IMMUTABLE_VERSION of the immutable keys; 0 = none
//! immutable_k  u8       immutables per gram
//! immutable_sample u16  one gram in this many was kept
//! dictionary   u16      version of the mutables dictionary (rules/mutables.tsv.gz)
//! -- format 5 --
//! item_version u8       wordgrams::GRAM_VERSION of the item grams; 0 = no items
//! item_n       u8       words per item gram
//! items        u64      number of items
//! item_bytes   u64      length of the item section
//! -- all --
//! keys         entries × u64, strictly ascending
//! simhashes    simhashes × u64, strictly ascending (format 2)
//! item section item_bytes (format 5; `items::ItemTable`, carried as bytes here)
//! signature    64 bytes: ed25519 over every byte above
//! ```
//! All integers little-endian. The keys are chunk keys, sampled shingle
//! hashes and sampled immutable grams in one sorted list: both are uniform 64-bit hashes from different
//! functions, a page looks each kind up separately, and one list keeps the
//! compact in-memory set, deltas and counting unchanged. Keys are sorted so
//! that two versions differ by a merge (deltas), the in-memory set is built
//! in one streaming pass, and the file of a given set of keys is
//! byte-for-byte reproducible.

use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};

pub const MAGIC: &[u8; 8] = b"CSLABELS";
/// The newest format this build writes (for an item set; a set with
/// immutables is written in format 4, one without in format 3 when it names
/// its origin, else in format 2, so older builds read every set that needs
/// nothing newer); it reads every format from 1.
pub const FORMAT: u16 = 5;
/// Origin sites a set may name, and the longest one.
pub const MAX_ORIGINS: usize = 4096;
pub const MAX_ORIGIN_LEN: usize = 2048;
/// `hash_kind` of sha1-64 keys.
pub const SHA1_64: u8 = 1;
const SIGNATURE_LEN: usize = 64;

/// What a labeled-set file says about itself.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Header {
    pub name: String,
    pub version: u64,
    /// Unix seconds.
    pub created: i64,
    pub entries: u64,
    pub hash_kind: u8,
    pub normalisation: u8,
    pub min_chars: u32,
    /// The file format the header was read from or will be written in.
    #[serde(default = "format_1")]
    pub format: u16,
    /// `shingles::SHINGLE_VERSION` of the shingle keys (0: the set has none).
    #[serde(default)]
    pub shingle_version: u8,
    #[serde(default)]
    pub shingle_k: u8,
    #[serde(default)]
    pub shingle_sample: u16,
    /// Page SimHashes, after the keys.
    #[serde(default)]
    pub simhashes: u64,
    /// The sites the set's content comes from (format 3): registered domains
    /// (`example.org`, every host under it) or URL prefixes
    /// (`https://example.org/blog/`). Their pages are the originals, not
    /// copies (`labeled_origin`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub origins: Vec<String>,
    /// `immutables::IMMUTABLE_VERSION` of the immutable keys (format 4; 0:
    /// the set has none, and finds no spun copies).
    #[serde(default)]
    pub immutable_version: u8,
    #[serde(default)]
    pub immutable_k: u8,
    #[serde(default)]
    pub immutable_sample: u16,
    /// The mutables dictionary's version the immutables were taken with.
    #[serde(default)]
    pub dictionary: u16,
    /// `wordgrams::GRAM_VERSION` of the item grams (format 5; 0: not an item set).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub item_version: u8,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub item_n: u8,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub items: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub item_bytes: u64,
}

fn is_zero<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

fn format_1() -> u16 {
    1
}

/// Why a labeled-set file was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FileError {
    #[error("not a labeled-set file (bad magic)")]
    Magic,
    #[error("labeled-set format {0} is not supported (this build reads format {FORMAT})")]
    Format(u16),
    #[error("truncated: {0}")]
    Truncated(&'static str),
    #[error("set name is not UTF-8")]
    Name,
    #[error("unknown hash kind {0}")]
    HashKind(u8),
    #[error("normalisation version {0} differs from this build's {1}: keys would never match")]
    Normalisation(u8, u8),
    #[error("shingles v{0} (k = {1}, 1 in {2}) differ from this build's v{3} (k = {4}, 1 in {5}): shingles would never match")]
    Shingles(u8, u8, u16, u8, u8, u16),
    #[error("immutables v{0} (k = {1}, 1 in {2}, dictionary {3}) differ from this build's v{4} (k = {5}, 1 in {6}, dictionary {7}): spun copies would never match")]
    Immutables(u8, u8, u16, u16, u8, u8, u16, u16),
    #[error("keys are not strictly ascending at entry {0}")]
    Order(u64),
    #[error("origin sites: {0}")]
    Origins(&'static str),
    #[error("item grams v{0} of {1} words: this build makes v{2}, of 4 to 16 words; items would never match")]
    ItemGrams(u8, u8, u8),
    #[error("item section: {0}")]
    Items(&'static str),
    #[error("{0} bytes after the signature")]
    Trailing(usize),
    #[error("signature does not verify with the configured public key")]
    Signature,
}

/// A parsed (not yet verified) labeled-set file, borrowing its bytes.
#[derive(Debug)]
pub struct SetFile<'a> {
    pub header: Header,
    /// The header bytes (everything before the keys).
    header_bytes: &'a [u8],
    keys: &'a [u8],
    simhashes: &'a [u8],
    items: &'a [u8],
    signed: &'a [u8],
    signature: &'a [u8],
}

/// The time a set is made: `SOURCE_DATE_EPOCH` when set (the
/// reproducible-builds convention), so the same inputs and key give the same
/// bytes wherever a set is built (ed25519 signatures are deterministic) —
/// what shows that a distributed build equals a one-machine one; else now.
fn created_now() -> i64 {
    std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|v| v.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0)
        })
}

impl Header {
    /// The header's bytes, as they start the file.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(48 + self.name.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.format.to_le_bytes());
        out.push(self.hash_kind);
        out.push(self.normalisation);
        out.extend_from_slice(&self.min_chars.to_le_bytes());
        out.extend_from_slice(&self.version.to_le_bytes());
        out.extend_from_slice(&self.created.to_le_bytes());
        out.extend_from_slice(&self.entries.to_le_bytes());
        out.extend_from_slice(&(self.name.len() as u16).to_le_bytes());
        out.extend_from_slice(self.name.as_bytes());
        if self.format >= 2 {
            out.push(self.shingle_version);
            out.push(self.shingle_k);
            out.extend_from_slice(&self.shingle_sample.to_le_bytes());
            out.extend_from_slice(&self.simhashes.to_le_bytes());
        }
        if self.format >= 3 {
            out.extend_from_slice(&(self.origins.len() as u16).to_le_bytes());
            for o in &self.origins {
                out.extend_from_slice(&(o.len() as u16).to_le_bytes());
                out.extend_from_slice(o.as_bytes());
            }
        }
        if self.format >= 4 {
            out.push(self.immutable_version);
            out.push(self.immutable_k);
            out.extend_from_slice(&self.immutable_sample.to_le_bytes());
            out.extend_from_slice(&self.dictionary.to_le_bytes());
        }
        if self.format >= 5 {
            out.push(self.item_version);
            out.push(self.item_n);
            out.extend_from_slice(&self.items.to_le_bytes());
            out.extend_from_slice(&self.item_bytes.to_le_bytes());
        }
        out
    }

    /// Parses a header from the start of `bytes`; returns it and its length.
    pub fn decode(bytes: &[u8]) -> Result<(Header, usize), FileError> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(8, "magic")? != MAGIC {
            return Err(FileError::Magic);
        }
        let format = u16::from_le_bytes(r.array("format")?);
        if !(1..=FORMAT).contains(&format) {
            return Err(FileError::Format(format));
        }
        let hash_kind = r.take(1, "hash kind")?[0];
        let normalisation = r.take(1, "normalisation")?[0];
        let min_chars = u32::from_le_bytes(r.array("min_chars")?);
        let version = u64::from_le_bytes(r.array("version")?);
        let created = i64::from_le_bytes(r.array("created")?);
        let entries = u64::from_le_bytes(r.array("entries")?);
        let name_len = u16::from_le_bytes(r.array("name length")?) as usize;
        let name = std::str::from_utf8(r.take(name_len, "name")?)
            .map_err(|_| FileError::Name)?
            .to_string();
        if hash_kind != SHA1_64 {
            return Err(FileError::HashKind(hash_kind));
        }
        let mut header = Header {
            name,
            version,
            created,
            entries,
            hash_kind,
            normalisation,
            min_chars,
            format,
            shingle_version: 0,
            shingle_k: 0,
            shingle_sample: 0,
            simhashes: 0,
            origins: Vec::new(),
            immutable_version: 0,
            immutable_k: 0,
            immutable_sample: 0,
            dictionary: 0,
            item_version: 0,
            item_n: 0,
            items: 0,
            item_bytes: 0,
        };
        if format >= 2 {
            header.shingle_version = r.take(1, "shingle version")?[0];
            header.shingle_k = r.take(1, "shingle k")?[0];
            header.shingle_sample = u16::from_le_bytes(r.array("shingle sample")?);
            header.simhashes = u64::from_le_bytes(r.array("simhashes")?);
        }
        if format >= 3 {
            let n = u16::from_le_bytes(r.array("origin count")?) as usize;
            if n > MAX_ORIGINS {
                return Err(FileError::Origins("too many"));
            }
            for _ in 0..n {
                let len = u16::from_le_bytes(r.array("origin length")?) as usize;
                let o = std::str::from_utf8(r.take(len, "origin")?)
                    .map_err(|_| FileError::Origins("not UTF-8"))?;
                header.origins.push(o.to_string());
            }
        }
        if format >= 4 {
            header.immutable_version = r.take(1, "immutable version")?[0];
            header.immutable_k = r.take(1, "immutable k")?[0];
            header.immutable_sample = u16::from_le_bytes(r.array("immutable sample")?);
            header.dictionary = u16::from_le_bytes(r.array("dictionary")?);
        }
        if format >= 5 {
            header.item_version = r.take(1, "item version")?[0];
            header.item_n = r.take(1, "item n")?[0];
            header.items = u64::from_le_bytes(r.array("items")?);
            header.item_bytes = u64::from_le_bytes(r.array("item bytes")?);
        }
        Ok((header, r.at))
    }

    /// A header for a new set made by this build.
    pub fn new(name: &str, version: u64, entries: u64, min_chars: u32) -> Header {
        Header {
            name: name.to_string(),
            version,
            created: created_now(),
            entries,
            hash_kind: SHA1_64,
            normalisation: crate::fingerprints::chunks::NORMALISATION_VERSION,
            min_chars,
            format: FORMAT,
            shingle_version: crate::fingerprints::shingles::SHINGLE_VERSION,
            shingle_k: crate::fingerprints::shingles::K as u8,
            shingle_sample: crate::fingerprints::shingles::SAMPLE as u16,
            simhashes: 0,
            origins: Vec::new(),
            immutable_version: 0,
            immutable_k: 0,
            immutable_sample: 0,
            dictionary: 0,
            item_version: 0,
            item_n: 0,
            items: 0,
            item_bytes: 0,
        }
    }

    /// Whether the set holds items (format 5).
    pub fn has_items(&self) -> bool {
        self.item_version != 0
    }

    /// Whether the set's item grams were made the way this build makes them
    /// (any `n` from 4 to 16 words: the set says which).
    pub fn check_items(&self) -> Result<(), FileError> {
        use crate::fingerprints::wordgrams::GRAM_VERSION;
        if self.item_version == 0
            || (self.item_version == GRAM_VERSION && (4..=16).contains(&self.item_n))
        {
            Ok(())
        } else {
            Err(FileError::ItemGrams(
                self.item_version,
                self.item_n,
                GRAM_VERSION,
            ))
        }
    }

    /// This header, saying its keys include immutable grams made by this build.
    pub fn with_immutables(mut self) -> Header {
        use crate::fingerprints::immutables::{Dictionary, IMMUTABLE_VERSION, K, SAMPLE};
        self.immutable_version = IMMUTABLE_VERSION;
        self.immutable_k = K as u8;
        self.immutable_sample = SAMPLE as u16;
        self.dictionary = Dictionary::shipped().version;
        self
    }

    /// Whether the set's immutable keys were made the way this build makes
    /// them (a set without immutables always is).
    pub fn check_immutables(&self) -> Result<(), FileError> {
        use crate::fingerprints::immutables::{Dictionary, IMMUTABLE_VERSION, K, SAMPLE};
        let ours = (
            IMMUTABLE_VERSION,
            K as u8,
            SAMPLE as u16,
            Dictionary::shipped().version,
        );
        let theirs = (
            self.immutable_version,
            self.immutable_k,
            self.immutable_sample,
            self.dictionary,
        );
        if theirs.0 == 0 || theirs == ours {
            Ok(())
        } else {
            Err(FileError::Immutables(
                theirs.0, theirs.1, theirs.2, theirs.3, ours.0, ours.1, ours.2, ours.3,
            ))
        }
    }

    /// Whether the set's shingle keys were made the way this build makes
    /// them (a set without shingles always is).
    pub fn check_shingles(&self) -> Result<(), FileError> {
        use crate::fingerprints::shingles::{K, SAMPLE, SHINGLE_VERSION};
        let ours = (SHINGLE_VERSION, K as u8, SAMPLE as u16);
        let theirs = (self.shingle_version, self.shingle_k, self.shingle_sample);
        if theirs.0 == 0 || theirs == ours {
            Ok(())
        } else {
            Err(FileError::Shingles(
                theirs.0, theirs.1, theirs.2, ours.0, ours.1, ours.2,
            ))
        }
    }
}

/// Reads a file's fields in order; running out of bytes is `Truncated`,
/// naming the field (the header here, the item section in `items`).
pub(super) struct Reader<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) at: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], FileError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or(FileError::Truncated(what))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }
    pub(super) fn array<const N: usize>(
        &mut self,
        what: &'static str,
    ) -> Result<[u8; N], FileError> {
        Ok(self.take(N, what)?.try_into().expect("took N bytes"))
    }
}

/// What a set holds: keys (chunk keys and sampled shingles) and page
/// SimHashes, each strictly ascending.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Contents {
    pub keys: Vec<u64>,
    pub simhashes: Vec<u64>,
}

/// Writes a signed labeled-set file (`header.entries` and `header.simhashes`
/// are set from `contents`). A format-1 header can hold no SimHashes.
pub fn encode(header: &Header, contents: &Contents, key: &SigningKey) -> Vec<u8> {
    encode_with_items(header, contents, None, key)
}

/// An item section as a file holds it (`items::ItemTable::section` makes
/// one): the file format carries it without reading it.
pub struct ItemSection {
    pub bytes: Vec<u8>,
    /// Items in it.
    pub items: u64,
    /// Words a gram.
    pub gram_words: u8,
}

/// `encode`, for a set that may hold items (an item set is format 5).
pub fn encode_with_items(
    header: &Header,
    contents: &Contents,
    items: Option<&ItemSection>,
    key: &SigningKey,
) -> Vec<u8> {
    let mut header = header.clone();
    let section: &[u8] = items.map_or(&[], |s| &s.bytes);
    if let Some(s) = items {
        header.item_version = crate::fingerprints::wordgrams::GRAM_VERSION;
        header.item_n = s.gram_words;
        header.items = s.items;
    } else {
        header.item_version = 0;
        header.item_n = 0;
        header.items = 0;
    }
    header.item_bytes = section.len() as u64;
    // The oldest format that holds what the set has, so older builds read it.
    if header.format >= 2 {
        header.format = if items.is_some() {
            5
        } else if header.immutable_version != 0 {
            4
        } else if !header.origins.is_empty() {
            3
        } else {
            2
        };
    }
    assert!(
        header.format >= 3 || header.origins.is_empty(),
        "format {} names no origin",
        header.format
    );
    header.entries = contents.keys.len() as u64;
    header.simhashes = contents.simhashes.len() as u64;
    assert!(
        header.format >= 2 || contents.simhashes.is_empty(),
        "format 1 has no SimHashes"
    );
    let mut out = header.encode();
    push_u64s(&mut out, &contents.keys);
    push_u64s(&mut out, &contents.simhashes);
    out.extend_from_slice(section);
    let signature = key.sign(&out);
    out.extend_from_slice(&signature.to_bytes());
    out
}

fn push_u64s(out: &mut Vec<u8>, values: &[u64]) {
    out.reserve(values.len() * 8 + SIGNATURE_LEN);
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// Assembles a file from a header, its contents, its item section and a
/// signature made elsewhere (a delta carries the hub's signature of the file
/// it produces).
pub fn assemble(
    header_bytes: &[u8],
    contents: &Contents,
    items: &[u8],
    signature: &[u8; 64],
) -> Vec<u8> {
    let mut out = Vec::with_capacity(header_bytes.len());
    out.extend_from_slice(header_bytes);
    push_u64s(&mut out, &contents.keys);
    push_u64s(&mut out, &contents.simhashes);
    out.extend_from_slice(items);
    out.extend_from_slice(signature);
    out
}

impl<'a> SetFile<'a> {
    /// Parses the structure (header, sizes, key order); does not check the signature.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, FileError> {
        let (header, at) = Header::decode(bytes)?;
        let key_bytes = usize::try_from(header.entries)
            .ok()
            .and_then(|n| n.checked_mul(8))
            .ok_or(FileError::Truncated("keys"))?;
        let keys_end = at
            .checked_add(key_bytes)
            .filter(|&e| e <= bytes.len())
            .ok_or(FileError::Truncated("keys"))?;
        let simhashes_end = usize::try_from(header.simhashes)
            .ok()
            .and_then(|n| n.checked_mul(8))
            .and_then(|n| n.checked_add(keys_end))
            .filter(|&e| e <= bytes.len())
            .ok_or(FileError::Truncated("simhashes"))?;
        let items_end = usize::try_from(header.item_bytes)
            .ok()
            .and_then(|n| n.checked_add(simhashes_end))
            .filter(|&e| e <= bytes.len())
            .ok_or(FileError::Truncated("item section"))?;
        let sig_end = items_end + SIGNATURE_LEN;
        if sig_end > bytes.len() {
            return Err(FileError::Truncated("signature"));
        }
        if sig_end < bytes.len() {
            return Err(FileError::Trailing(bytes.len() - sig_end));
        }
        let file = SetFile {
            header,
            header_bytes: &bytes[..at],
            keys: &bytes[at..keys_end],
            simhashes: &bytes[keys_end..simhashes_end],
            items: &bytes[simhashes_end..items_end],
            signed: &bytes[..items_end],
            signature: &bytes[items_end..],
        };
        ascending(file.keys(), 0)?;
        ascending(file.simhashes(), file.header.entries)?;
        Ok(file)
    }

    /// Parses, checks that this build made its keys the same way (`check`)
    /// and verifies the signature.
    pub fn open(bytes: &'a [u8], public: &VerifyingKey) -> Result<Self, FileError> {
        let file = Self::parse(bytes)?;
        file.check()?;
        file.verify(public)?;
        Ok(file)
    }

    /// Whether this build normalises, shingles, samples immutables and makes
    /// item grams as the set was made: a set made otherwise would match
    /// nothing (or the wrong things). The hub checks uploads with it too.
    pub fn check(&self) -> Result<(), FileError> {
        let ours = crate::fingerprints::chunks::NORMALISATION_VERSION;
        if self.header.normalisation != ours {
            return Err(FileError::Normalisation(self.header.normalisation, ours));
        }
        self.header.check_shingles()?;
        self.header.check_immutables()?;
        self.header.check_items()
    }

    /// Checks the signature.
    pub fn verify(&self, public: &VerifyingKey) -> Result<(), FileError> {
        let signature = Signature::from_slice(self.signature).map_err(|_| FileError::Signature)?;
        public
            .verify(self.signed, &signature)
            .map_err(|_| FileError::Signature)
    }

    /// The keys, ascending.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = u64> + 'a {
        self.keys
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
    }

    /// The page SimHashes, ascending.
    pub fn simhashes(&self) -> impl ExactSizeIterator<Item = u64> + 'a {
        self.simhashes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
    }

    /// Keys and SimHashes, owned.
    pub fn contents(&self) -> Contents {
        Contents {
            keys: self.keys().collect(),
            simhashes: self.simhashes().collect(),
        }
    }

    pub fn header_bytes(&self) -> &'a [u8] {
        self.header_bytes
    }

    /// The item section's bytes (empty for a set without items).
    pub fn item_bytes(&self) -> &'a [u8] {
        self.items
    }

    pub fn signature(&self) -> [u8; 64] {
        self.signature.try_into().expect("64 bytes")
    }
}

/// Checks that `values` strictly ascend; `base` numbers the first for the error.
fn ascending(values: impl Iterator<Item = u64>, base: u64) -> Result<(), FileError> {
    let mut prev = None;
    for (i, v) in values.enumerate() {
        if prev.is_some_and(|p| p >= v) {
            return Err(FileError::Order(base + i as u64));
        }
        prev = Some(v);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(seed: u8) -> SigningKey {
        SigningKey::from_bytes(&[seed; 32])
    }

    #[test]
    fn round_trip_verify_and_tamper() {
        let header = Header::new("wikipedia", 3, 0, 100);
        let keys = [1u64, 5, 1 << 63];
        let contents = Contents {
            keys: keys.to_vec(),
            simhashes: vec![7, 9],
        };
        let bytes = encode(&header, &contents, &key(1));
        let file = SetFile::open(&bytes, &key(1).verifying_key()).unwrap();
        assert_eq!(file.header.name, "wikipedia");
        assert_eq!(file.header.version, 3);
        assert_eq!(file.header.entries, 3);
        assert_eq!(file.header.simhashes, 2);
        assert_eq!(file.keys().collect::<Vec<_>>(), keys);
        assert_eq!(file.contents(), contents);

        assert_eq!(
            SetFile::open(&bytes, &key(2).verifying_key()).unwrap_err(),
            FileError::Signature
        );
        let mut tampered = bytes.clone();
        let at = tampered.len() - 64 - 3;
        tampered[at] ^= 1;
        assert!(SetFile::open(&tampered, &key(1).verifying_key()).is_err());
        for cut in [0, 5, 20, bytes.len() - 70, bytes.len() - 1] {
            assert!(matches!(
                SetFile::parse(&bytes[..cut]),
                Err(FileError::Truncated(_) | FileError::Magic)
            ));
        }
        let unsorted = encode(&header, &keys_only(&[5, 1]), &key(1));
        assert_eq!(SetFile::parse(&unsorted).unwrap_err(), FileError::Order(1));
    }

    fn keys_only(keys: &[u64]) -> Contents {
        Contents {
            keys: keys.to_vec(),
            simhashes: vec![],
        }
    }

    #[test]
    fn format_1_files_still_load_and_other_shingles_are_refused() {
        let mut header = Header::new("old", 1, 0, 100);
        header.format = 1;
        let bytes = encode(&header, &keys_only(&[3, 4]), &key(1));
        let file = SetFile::open(&bytes, &key(1).verifying_key()).unwrap();
        assert_eq!(file.header.format, 1);
        assert_eq!(file.header.shingle_version, 0, "format 1 has no shingles");
        assert_eq!(file.keys().collect::<Vec<_>>(), [3, 4]);
        assert_eq!(file.simhashes().len(), 0);

        let mut other = Header::new("new", 1, 0, 100);
        other.shingle_k = 9;
        let bytes = encode(&other, &keys_only(&[3]), &key(1));
        assert!(matches!(
            SetFile::open(&bytes, &key(1).verifying_key()),
            Err(FileError::Shingles(..))
        ));
    }

    #[test]
    fn origins_are_format_3_and_sets_without_one_stay_format_2() {
        let mut header = Header::new("news", 1, 0, 100);
        let plain = encode(&header, &keys_only(&[3, 4]), &key(1));
        let file = SetFile::open(&plain, &key(1).verifying_key()).unwrap();
        assert_eq!(file.header.format, 2, "readable by builds before origins");
        assert!(file.header.origins.is_empty());

        header.origins = vec!["news.example.org".into(), "https://a.example/b/".into()];
        let bytes = encode(&header, &keys_only(&[3, 4]), &key(1));
        let file = SetFile::open(&bytes, &key(1).verifying_key()).unwrap();
        assert_eq!(file.header.format, 3);
        assert_eq!(file.header.origins, header.origins);
        assert_eq!(file.keys().collect::<Vec<_>>(), [3, 4]);
        let with = encode(&header.clone().with_immutables(), &keys_only(&[3]), &key(1));
        let file = SetFile::open(&with, &key(1).verifying_key()).unwrap();
        assert_eq!(file.header.format, 4);
        assert_eq!(file.header.origins, header.origins);
        assert_eq!(
            file.header.immutable_version,
            crate::fingerprints::immutables::IMMUTABLE_VERSION
        );
        let mut other = header.clone().with_immutables();
        other.dictionary += 1;
        let bytes = encode(&other, &keys_only(&[3]), &key(1));
        assert!(matches!(
            SetFile::open(&bytes, &key(1).verifying_key()),
            Err(FileError::Immutables(..))
        ));
        // Cut inside the origins: truncated, not a panic.
        let cut = Header::decode(&bytes[..file.header.encode().len() - 3]);
        assert!(matches!(cut, Err(FileError::Truncated(_))), "{cut:?}");
    }
}
