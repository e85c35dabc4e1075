//! The labeled-set file: one named, versioned set, signed with ed25519.
//!
//! ```text
//! magic        8 bytes  "CSLABELS"
//! format       u16      1
//! hash_kind    u8       1 = sha1-64: a key is the first 8 bytes of the chunk's
//!                       SHA-1 (README, "Chunks"), read big-endian
//! normalisation u8      chunks::NORMALISATION_VERSION the keys were made with
//! min_chars    u32      chunks shorter than this were not hashed
//! version      u64      the set's version; the hub makes it grow by one per publish
//! created      i64      Unix seconds
//! entries      u64      number of keys
//! name_len     u16, name (UTF-8)
//! keys         entries × u64, strictly ascending
//! signature    64 bytes: ed25519 over every byte above
//! ```
//! All integers little-endian. Keys are sorted so that two versions differ by
//! a merge (deltas), the in-memory set is built in one streaming pass, and the
//! file of a given set of keys is byte-for-byte reproducible.

use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};

pub const MAGIC: &[u8; 8] = b"CSLABELS";
pub const FORMAT: u16 = 1;
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
    #[error("keys are not strictly ascending at entry {0}")]
    Order(u64),
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
    signed: &'a [u8],
    signature: &'a [u8],
}

impl Header {
    /// The header's bytes, as they start the file.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(48 + self.name.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT.to_le_bytes());
        out.push(self.hash_kind);
        out.push(self.normalisation);
        out.extend_from_slice(&self.min_chars.to_le_bytes());
        out.extend_from_slice(&self.version.to_le_bytes());
        out.extend_from_slice(&self.created.to_le_bytes());
        out.extend_from_slice(&self.entries.to_le_bytes());
        out.extend_from_slice(&(self.name.len() as u16).to_le_bytes());
        out.extend_from_slice(self.name.as_bytes());
        out
    }

    /// Parses a header from the start of `bytes`; returns it and its length.
    pub fn decode(bytes: &[u8]) -> Result<(Header, usize), FileError> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(8, "magic")? != MAGIC {
            return Err(FileError::Magic);
        }
        let format = u16::from_le_bytes(r.array("format")?);
        if format != FORMAT {
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
        Ok((
            Header {
                name,
                version,
                created,
                entries,
                hash_kind,
                normalisation,
                min_chars,
            },
            r.at,
        ))
    }

    /// A header for a new set made by this build.
    pub fn new(name: &str, version: u64, entries: u64, min_chars: u32) -> Header {
        Header {
            name: name.to_string(),
            version,
            created: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0),
            entries,
            hash_kind: SHA1_64,
            normalisation: crate::chunks::NORMALISATION_VERSION,
            min_chars,
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], FileError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or(FileError::Truncated(what))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], FileError> {
        Ok(self.take(N, what)?.try_into().expect("took N bytes"))
    }
}

/// Writes a signed labeled-set file. `keys` must be strictly ascending
/// (`header.entries` is set from them).
pub fn encode(header: &Header, keys: &[u64], key: &SigningKey) -> Vec<u8> {
    let mut header = header.clone();
    header.entries = keys.len() as u64;
    let mut out = header.encode();
    out.reserve(keys.len() * 8 + SIGNATURE_LEN);
    for k in keys {
        out.extend_from_slice(&k.to_le_bytes());
    }
    let signature = key.sign(&out);
    out.extend_from_slice(&signature.to_bytes());
    out
}

/// Assembles a file from a header, its keys and a signature made elsewhere
/// (a delta carries the hub's signature of the file it produces).
pub fn assemble(header_bytes: &[u8], keys: &[u64], signature: &[u8; 64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(header_bytes.len() + keys.len() * 8 + SIGNATURE_LEN);
    out.extend_from_slice(header_bytes);
    for k in keys {
        out.extend_from_slice(&k.to_le_bytes());
    }
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
        let sig_end = keys_end + SIGNATURE_LEN;
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
            signed: &bytes[..keys_end],
            signature: &bytes[keys_end..],
        };
        let mut prev = None;
        for (i, k) in file.keys().enumerate() {
            if prev.is_some_and(|p| p >= k) {
                return Err(FileError::Order(i as u64));
            }
            prev = Some(k);
        }
        Ok(file)
    }

    /// Parses, checks the normalisation version and verifies the signature.
    pub fn open(bytes: &'a [u8], public: &VerifyingKey) -> Result<Self, FileError> {
        let file = Self::parse(bytes)?;
        let ours = crate::chunks::NORMALISATION_VERSION;
        if file.header.normalisation != ours {
            return Err(FileError::Normalisation(file.header.normalisation, ours));
        }
        file.verify(public)?;
        Ok(file)
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

    pub fn header_bytes(&self) -> &'a [u8] {
        self.header_bytes
    }

    pub fn signature(&self) -> [u8; 64] {
        self.signature.try_into().expect("64 bytes")
    }
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
        let bytes = encode(&header, &keys, &key(1));
        let file = SetFile::open(&bytes, &key(1).verifying_key()).unwrap();
        assert_eq!(file.header.name, "wikipedia");
        assert_eq!(file.header.version, 3);
        assert_eq!(file.header.entries, 3);
        assert_eq!(file.keys().collect::<Vec<_>>(), keys);

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
        let unsorted = encode(&header, &[5, 1], &key(1));
        assert_eq!(SetFile::parse(&unsorted).unwrap_err(), FileError::Order(1));
    }
}
