//! Streaming discovery's messages: an agent's batch of counts dealt into key
//! ranges (one slice per partition of the count topic), and the announcement
//! a discoverer makes when a key crosses the threshold.
//!
//! **Key ranges, not key hashes.** A record goes to the partition its hash's
//! first 32 bits fall in, scaled to the partition count (`slot`). Records in
//! a batch are sorted by hash, so each partition's slice is one contiguous
//! run of the batch, already sorted: cutting a batch costs one pass, and a
//! discoverer splits a slice into finer ranges (its state's parts) the same
//! way. Each key lives in exactly one partition, so per-partition totals are
//! the exact totals, however many discoverers share the partitions.
//!
//! A slice is a count file (`count`'s format, header and records) carrying
//! the key `AGENT/BATCH/PARTITIONS`: which agent's batch it is (taken once
//! per partition, as the hub takes a batch once) and how many partitions it
//! was dealt into — a topic whose partition count changed would put a key in
//! two ranges, so a slice dealt for another count is refused.
//!
//! **Signed slices.** Anyone who may write to the count topic may write any
//! agent id in a key; the broker authenticates the connection, not the key.
//! An agent with a signing key signs each slice (key and bytes) and puts the
//! signature in the record's `crawlsieve-signature` header; a discoverer
//! given each agent's public key takes a slice only when the key's agent
//! signed it, so an agent's share of a key (`running`) is its own.

use super::count::{self, Count};
use crate::fingerprints::chunks::Hash;
use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};

/// The largest message on the count and state topics: a slice, a state part.
pub const MAX_MESSAGE: usize = 16 * 1024 * 1024;

/// The topic agents publish the counts of set `set` to.
pub fn count_topic(set: &str) -> String {
    format!("crawlsieve.counts.{set}")
}

/// The compacted topic discoverers keep their state of set `set` in.
pub fn state_topic(set: &str) -> String {
    format!("crawlsieve.counts.{set}.state")
}

/// The compacted topic of set `set`'s discovered keys (the hub reads it).
pub fn discovered_topic(set: &str) -> String {
    format!("crawlsieve.discovered.{set}")
}

/// Which of `n` ranges a hash falls in (monotone in the hash).
pub fn slot(hash: &Hash, n: u64) -> u64 {
    (u32::from_be_bytes([hash[0], hash[1], hash[2], hash[3]]) as u64 * n) >> 32
}

/// A slice's message key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SliceKey {
    pub agent: String,
    pub batch: u64,
    pub partitions: u32,
}

impl SliceKey {
    pub fn encode(&self) -> String {
        format!("{}/{}/{}", self.agent, self.batch, self.partitions)
    }

    pub fn parse(key: &[u8]) -> anyhow::Result<SliceKey> {
        let text = std::str::from_utf8(key).map_err(|_| anyhow::anyhow!("key is not UTF-8"))?;
        let mut it = text.split('/');
        let (Some(agent), Some(batch), Some(partitions), None) =
            (it.next(), it.next(), it.next(), it.next())
        else {
            anyhow::bail!("key `{text}` is not AGENT/BATCH/PARTITIONS");
        };
        anyhow::ensure!(
            crate::labels::protocol::valid_agent_id(agent),
            "key `{text}`: agent is 1-64 of A-Z a-z 0-9 . _ -"
        );
        let batch: u64 = batch
            .parse()
            .ok()
            .filter(|&b| b > 0)
            .ok_or_else(|| anyhow::anyhow!("key `{text}`: a batch number from 1"))?;
        let partitions: u32 = partitions
            .parse()
            .ok()
            .filter(|&p| p > 0)
            .ok_or_else(|| anyhow::anyhow!("key `{text}`: a partition count from 1"))?;
        Ok(SliceKey {
            agent: agent.to_string(),
            batch,
            partitions,
        })
    }
}

/// The record header that carries a slice's signature (64 bytes).
pub const SIGNATURE_HEADER: &str = "crawlsieve-signature";

/// What a slice's signature covers: a domain tag, so a signature made for
/// anything else never passes for a slice, then the message key and bytes.
fn signed(key: &[u8], slice: &[u8]) -> Vec<u8> {
    let mut m = Vec::with_capacity(24 + key.len() + slice.len());
    m.extend_from_slice(b"crawlsieve count slice\0");
    m.extend_from_slice(&(key.len() as u32).to_le_bytes());
    m.extend_from_slice(key);
    m.extend_from_slice(slice);
    m
}

/// A slice's signature by its agent's key.
pub fn sign(signing: &SigningKey, key: &[u8], slice: &[u8]) -> [u8; 64] {
    signing.sign(&signed(key, slice)).to_bytes()
}

/// Checks that `signature` is `public`'s over the slice.
pub fn verify(
    public: &VerifyingKey,
    key: &[u8],
    slice: &[u8],
    signature: Option<&[u8]>,
) -> anyhow::Result<()> {
    let signature = signature.ok_or_else(|| anyhow::anyhow!("the slice is not signed"))?;
    let signature = Signature::from_slice(signature)
        .map_err(|_| anyhow::anyhow!("the slice's signature is not 64 bytes"))?;
    public
        .verify(&signed(key, slice), &signature)
        .map_err(|_| anyhow::anyhow!("the slice's signature is not its agent's"))
}

/// A count file read from memory and checked as the hub checks a batch
/// (`count::check`): its min_chars and records.
pub fn read(bytes: &[u8]) -> anyhow::Result<(u32, Vec<Count>)> {
    let min_chars = count::read_header(bytes).map_err(|e| anyhow::anyhow!(e))?;
    let body = &bytes[count::HEADER_LEN..];
    anyhow::ensure!(
        body.len() % count::RUN_RECORD == 0,
        "a record is cut off ({} bytes after the header)",
        body.len()
    );
    let mut out = Vec::with_capacity(body.len() / count::RUN_RECORD);
    for (i, rec) in body.chunks_exact(count::RUN_RECORD).enumerate() {
        let c = Count {
            hash: rec[..20].try_into().expect("20"),
            count: u64::from_le_bytes(rec[20..28].try_into().expect("8")),
            sites: u64::from_le_bytes(rec[28..36].try_into().expect("8")),
        };
        count::check_record(out.last().map(|l: &Count| &l.hash), &c, i as u64 + 1)
            .map_err(|e| anyhow::anyhow!(e))?;
        out.push(c);
    }
    Ok((min_chars, out))
}

/// A batch (a count file's bytes) dealt into `partitions` slices, each a
/// count file with the batch's min_chars; every partition gets one, empty
/// or not, so each partition sees every batch number of an agent.
pub fn split(batch: &[u8], partitions: u32) -> anyhow::Result<Vec<Vec<u8>>> {
    anyhow::ensure!(partitions > 0, "no partitions to deal a batch into");
    let (min_chars, records) = read(batch)?;
    let mut out: Vec<Vec<u8>> = (0..partitions)
        .map(|_| count::header(min_chars).to_vec())
        .collect();
    for c in &records {
        let buf = &mut out[slot(&c.hash, partitions as u64) as usize];
        buf.extend_from_slice(&c.hash);
        buf.extend_from_slice(&c.count.to_le_bytes());
        buf.extend_from_slice(&c.sites.to_le_bytes());
    }
    Ok(out)
}

/// Checks that a slice's records all lie in `partition` of `partitions`.
pub fn check_range(records: &[Count], partition: u32, partitions: u32) -> anyhow::Result<()> {
    // Sorted, so the ends decide.
    for c in [records.first(), records.last()].into_iter().flatten() {
        let s = slot(&c.hash, partitions as u64);
        anyhow::ensure!(
            s == partition as u64,
            "a record of range {s} in partition {partition} (of {partitions})"
        );
    }
    Ok(())
}

/// A key that crossed the threshold, as the discoverer announces it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Announcement {
    /// The key's total when it crossed.
    pub count: Count,
    pub min_chars: u32,
    pub threshold: u64,
}

const ANNOUNCEMENT_FORMAT: u8 = 1;
const ANNOUNCEMENT_LEN: usize = 1 + 20 + 8 + 8 + 4 + 8;

impl Announcement {
    /// Its message: the key is the hash (the topic is compacted by it).
    pub fn encode(&self) -> [u8; ANNOUNCEMENT_LEN] {
        let mut b = [0u8; ANNOUNCEMENT_LEN];
        b[0] = ANNOUNCEMENT_FORMAT;
        b[1..21].copy_from_slice(&self.count.hash);
        b[21..29].copy_from_slice(&self.count.count.to_le_bytes());
        b[29..37].copy_from_slice(&self.count.sites.to_le_bytes());
        b[37..41].copy_from_slice(&self.min_chars.to_le_bytes());
        b[41..49].copy_from_slice(&self.threshold.to_le_bytes());
        b
    }

    pub fn decode(b: &[u8]) -> anyhow::Result<Announcement> {
        anyhow::ensure!(
            b.len() == ANNOUNCEMENT_LEN && b[0] == ANNOUNCEMENT_FORMAT,
            "not an announcement ({} bytes, format {:?})",
            b.len(),
            b.first()
        );
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8"));
        Ok(Announcement {
            count: Count {
                hash: b[1..21].try_into().expect("20"),
                count: u64_at(21),
                sites: u64_at(29),
            },
            min_chars: u32::from_le_bytes(b[37..41].try_into().expect("4")),
            threshold: u64_at(41),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::discovery::count::{CountReader, Counter};

    fn batch(dir: &std::path::Path, n: u32) -> Vec<u8> {
        let mut c = Counter::new(dir, 1 << 20).unwrap();
        for i in 0..n {
            let h = crate::fingerprints::chunks::hash(&i.to_string());
            for s in 0..=(i % 3) as u64 {
                c.add(h, s).unwrap();
            }
        }
        let path = dir.join("b.cscounts");
        c.finish(&path, 40).unwrap();
        std::fs::read(path).unwrap()
    }

    #[test]
    fn slices_are_contiguous_ranges_that_add_up_to_the_batch() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = batch(dir.path(), 5000);
        let (min_chars, all) = read(&bytes).unwrap();
        assert_eq!(min_chars, 40);
        let slices = split(&bytes, 7).unwrap();
        assert_eq!(slices.len(), 7);
        let mut again = Vec::new();
        for (p, s) in slices.iter().enumerate() {
            let (m, records) = read(s).unwrap();
            assert_eq!(m, 40);
            assert!(!records.is_empty(), "5000 keys reach every one of 7 ranges");
            check_range(&records, p as u32, 7).unwrap();
            assert!(check_range(&records, (p as u32 + 1) % 7, 7).is_err());
            again.extend(records);
        }
        assert_eq!(again, all);
        // The slice is a count file the file reader takes too.
        std::fs::write(dir.path().join("s"), &slices[3]).unwrap();
        let mut r = CountReader::open(&dir.path().join("s")).unwrap();
        assert!(r.next_count().unwrap().is_some());
    }

    #[test]
    fn bad_slices_and_keys_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = batch(dir.path(), 10);
        assert!(read(&bytes[..bytes.len() - 1]).is_err(), "cut off");
        assert!(read(b"CSCOUNTX").is_err());
        let mut swapped = bytes.clone();
        let h = count::HEADER_LEN;
        let (a, b) = (
            swapped[h..h + 36].to_vec(),
            swapped[h + 36..h + 72].to_vec(),
        );
        swapped[h..h + 36].copy_from_slice(&b);
        swapped[h + 36..h + 72].copy_from_slice(&a);
        assert!(read(&swapped)
            .unwrap_err()
            .to_string()
            .contains("out of order"));
        let k = SliceKey {
            agent: "crawler-1".into(),
            batch: 7,
            partitions: 4,
        };
        assert_eq!(SliceKey::parse(k.encode().as_bytes()).unwrap(), k);
        for bad in ["a/0/4", "a/1/0", "a/1", "a b/1/4", "a/1/4/5", "a/x/4"] {
            assert!(SliceKey::parse(bad.as_bytes()).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_slice_passes_only_with_its_agents_signature_over_its_key_and_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let slice = batch(dir.path(), 10);
        let agent = SigningKey::from_bytes(&[7; 32]);
        let other = SigningKey::from_bytes(&[8; 32]);
        let key = b"crawler-1/1/4";
        let sig = sign(&agent, key, &slice);
        let public = agent.verifying_key();
        verify(&public, key, &slice, Some(&sig)).unwrap();
        assert!(verify(&public, key, &slice, None).is_err(), "unsigned");
        assert!(
            verify(&public, key, &slice, Some(&sig[..63])).is_err(),
            "short"
        );
        let forged = sign(&other, key, &slice);
        assert!(
            verify(&public, key, &slice, Some(&forged)).is_err(),
            "another key"
        );
        assert!(
            verify(&public, b"crawler-1/2/4", &slice, Some(&sig)).is_err(),
            "another batch"
        );
        let mut more = slice.clone();
        more.extend_from_slice(&[0; 36]);
        assert!(
            verify(&public, key, &more, Some(&sig)).is_err(),
            "other bytes"
        );
    }

    #[test]
    fn announcements_round_trip() {
        let a = Announcement {
            count: Count {
                hash: crate::fingerprints::chunks::hash("x"),
                count: 12,
                sites: 3,
            },
            min_chars: 40,
            threshold: 10,
        };
        assert_eq!(Announcement::decode(&a.encode()).unwrap(), a);
        assert!(Announcement::decode(&a.encode()[..48]).is_err());
    }
}
