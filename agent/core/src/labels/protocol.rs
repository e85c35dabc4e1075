//! What the hub and the agents exchange, besides the set files themselves
//! (`file`), deltas (`delta`) and count files (`count`): the names a set may
//! have, the HTTP paths (`paths`), the metadata of a set version as
//! `GET /v1/sets/{name}` and the long-poll serve it, and the headers and
//! answers of `POST /v1/counts/{set}`. It lives with the sets, below both
//! sides, so that neither the hub nor a follower imports the other; the one
//! HTTP client over it is the daemon's `hub_client`.

/// Whether `name` may name a set. Set names are path components (of URLs and
/// of the hub's store): keep them boring.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-_.".contains(&b))
        && !name.starts_with('.')
}

/// The hub's HTTP paths: the routes its server declares and the paths its
/// clients ask for, from one place.
pub mod paths {
    /// `GET`: every set's latest metadata.
    pub const SETS: &str = "/v1/sets";
    /// `GET`: a set's latest metadata; `POST`: publish its next version.
    pub const SET: &str = "/v1/sets/{name}";
    /// `GET [?version=N]`: the signed file (immutable with `version`).
    pub const FULL: &str = "/v1/sets/{name}/full";
    /// `GET ?from=N&to=M`: a signed delta.
    pub const DELTA: &str = "/v1/sets/{name}/delta";
    /// `GET ?after=N&wait=S`: long-poll for a version past `after`.
    pub const NEXT: &str = "/v1/sets/{name}/next";
    /// `POST`: merge the agents' counts now (a blind set).
    pub const DISCOVER: &str = "/v1/sets/{name}/discover";
    /// `POST`: one batch of one agent's counts.
    pub const COUNTS: &str = "/v1/counts/{name}";

    fn of(route: &str, name: &str) -> String {
        route.replace("{name}", name)
    }

    pub fn set(name: &str) -> String {
        of(SET, name)
    }

    pub fn full(name: &str, version: u64) -> String {
        format!("{}?version={version}", of(FULL, name))
    }

    pub fn delta(name: &str, from: u64, to: u64) -> String {
        format!("{}?from={from}&to={to}", of(DELTA, name))
    }

    pub fn next(name: &str, after: u64, wait_seconds: u64) -> String {
        format!("{}?after={after}&wait={wait_seconds}", of(NEXT, name))
    }

    pub fn counts(name: &str) -> String {
        of(COUNTS, name)
    }
}

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
    /// The set's origin sites (its file's header): pages there are the originals.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub origins: Vec<String>,
    /// For a blind set the hub discovers from agents' counts: which counts
    /// went into this version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<CountsInfo>,
}

/// The header that names the agent sending a batch of counts
/// (`POST /v1/counts/{set}`): a stable id, 1-64 of `A-Z a-z 0-9 . _ -`.
pub const AGENT_HEADER: &str = "x-crawlsieve-agent";
/// The header that numbers an agent's batch of counts. The hub keeps every
/// `(agent, batch)` it took, so a batch sent again (a retry after a lost
/// answer, an agent restarted before it heard back) is not counted twice.
pub const BATCH_HEADER: &str = "x-crawlsieve-batch";

/// Whether `id` may name an agent (it becomes part of a file name on the hub).
pub fn valid_agent_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

/// Batches of counts, per agent, as inclusive ranges of batch numbers
/// (agents number their batches 1, 2, 3…, so a long-running agent's whole
/// history is one range).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Batches(pub std::collections::BTreeMap<String, Vec<(u64, u64)>>);

impl Batches {
    pub fn contains(&self, agent: &str, batch: u64) -> bool {
        self.0
            .get(agent)
            .is_some_and(|r| r.iter().any(|&(lo, hi)| (lo..=hi).contains(&batch)))
    }

    /// Adds one batch, joining it to the ranges it touches.
    pub fn insert(&mut self, agent: &str, batch: u64) {
        let ranges = self.0.entry(agent.to_string()).or_default();
        ranges.push((batch, batch));
        ranges.sort_unstable();
        let mut joined: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
        for &(lo, hi) in ranges.iter() {
            match joined.last_mut() {
                Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
                _ => joined.push((lo, hi)),
            }
        }
        *ranges = joined;
    }

    /// Batches in all.
    pub fn len(&self) -> u64 {
        self.0
            .values()
            .flat_map(|r| r.iter().map(|&(lo, hi)| hi - lo + 1))
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Which counts went into a version of a blind set that the hub discovered
/// itself (`GET /v1/sets/{name}` carries it as `counts`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CountsInfo {
    /// The merged total's generation (one per merge that took new batches).
    pub generation: u64,
    /// Every batch added into the total, per agent.
    pub batches: Batches,
    /// Chunk and shingle occurrences in the total.
    pub occurrences: u64,
    /// Distinct chunks and shingles in the total.
    pub distinct: u64,
    /// Kept: seen more than this many times, not stop chunks.
    pub threshold: u64,
    /// One agent added at most this much to a key's count (`hub --agent-cap`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_cap: Option<u64>,
}

/// The hub's answer to a batch of counts.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CountsReceipt {
    pub set: String,
    pub agent: String,
    pub batch: u64,
    /// True when the hub had this batch already (nothing was added).
    pub duplicate: bool,
    /// Distinct chunks and shingles in the batch.
    pub distinct: u64,
    pub occurrences: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_join_into_ranges() {
        let mut b = Batches::default();
        for n in [1, 2, 4, 3, 7] {
            b.insert("a", n);
        }
        b.insert("b", 1);
        assert_eq!(b.0["a"], vec![(1, 4), (7, 7)]);
        assert!(b.contains("a", 3) && !b.contains("a", 5) && !b.contains("c", 1));
        assert_eq!(b.len(), 6);
        b.insert("a", 4);
        assert_eq!(b.len(), 6, "a batch taken twice counts once");
    }

    #[test]
    fn agent_ids_are_boring() {
        assert!(valid_agent_id("agent-1.eu_west"));
        for bad in ["", ".hidden", "a/b", "a b", "ä", &"x".repeat(65)] {
            assert!(!valid_agent_id(bad), "{bad:?}");
        }
    }
}
