//! What the hub and the agents that follow it exchange, besides the set files
//! themselves (`file`) and deltas (`delta`): the metadata of a set version
//! as `GET /v1/sets/{name}` and the long-poll serve it. It lives with the
//! sets, below both sides, so that neither the hub nor a follower imports
//! the other.

/// Latest metadata of a set, as the hub serves it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct SetInfo {
    pub name: String,
    pub version: u64,
    pub entries: u64,
    pub created: i64,
    pub bytes: u64,
    pub min_chars: u32,
    /// Labeled pages' SimHashes (near-duplicate tables).
    #[serde(default)]
    pub simhashes: u64,
    /// Shingles spec version of the shingle keys among `entries` (0: none).
    #[serde(default)]
    pub shingle_version: u8,
}
