//! `[labels]`: the copy rules' thresholds, the set files to load, the key
//! they are verified with, and the hub an agent follows.

use super::keys;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// `[labels]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelSettings {
    /// Ratio rule (A&H's contains): matched chunks / eligible chunks.
    pub flag_threshold: f64,
    /// Ratio rule on shingles: matched / sampled shingles of the page ...
    pub shingle_threshold: f64,
    /// ... counted only on pages with at least this many sampled shingles.
    pub shingle_min: u32,
    /// Absolute rule: this many characters of labeled chunks on the page flag it, whatever the ratio.
    pub evidence_chars: u32,
    /// Absolute rule: this many labeled shingles (sampled) on the page flag it, whatever the ratio.
    pub evidence_shingles: u32,
    /// Near-duplicate rule: a labeled page's SimHash within this many bits (0 = off, at most 3).
    pub near_duplicate_bits: u32,
    /// Spun rule (DSpin's immutables): matched / sampled immutable grams of the page ...
    pub spun_threshold: f64,
    /// ... with matches in at least this share of the page's five parts ...
    pub spun_spread: f64,
    /// ... and at least this many of its immutable grams labeled.
    pub spun_min_matched: u32,
    /// Labeled-set files to load: signed binary files or hex text lists.
    #[serde(default)]
    pub files: Vec<PathBuf>,
    /// The hub's ed25519 public key, 64 hex digits (signed files and hub updates are checked with it).
    #[serde(default)]
    pub public_key: Option<String>,
    /// ... or a file holding it.
    #[serde(default)]
    pub public_key_file: Option<PathBuf>,
    /// Follow labeled sets published by a hub.
    #[serde(default)]
    pub hub: Option<HubFollowSettings>,
    /// Origin sites added to a set without rebuilding it, by set name
    /// (mirrors and syndication partners an operator trusts): their pages
    /// are judged the original, as the set's own origin's are.
    #[serde(default)]
    pub origins: BTreeMap<String, Vec<String>>,
    /// `[labels.items]`: when a page contains an item of an item set.
    pub items: ItemSettings,
}

/// `[labels.items]`: the rule a page contains an item by (`labeled_item`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemSettings {
    /// At least this many of the item's word 8-grams, in its order ...
    pub min_grams: u32,
    /// ... and at least this share of its question's grams.
    pub min_share: f64,
    /// Items a verdict names (`items`); `items_found` counts them all.
    pub listed: usize,
}

impl ItemSettings {
    pub fn rule(&self) -> super::items::ItemRule {
        super::items::ItemRule {
            min_grams: self.min_grams,
            min_share: self.min_share,
        }
    }
}

/// `[labels.hub]`: where an agent follows labeled-set versions from
/// (`crawlsieve-daemon`'s `agent::follow`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HubFollowSettings {
    /// The hub's base URL, e.g. `http://127.0.0.1:7600`.
    pub url: String,
    /// Names of the sets to follow.
    pub sets: Vec<String>,
    /// A file holding the bearer token, when the hub protects reads
    /// (else the `CRAWLSIEVE_HUB_READ_TOKEN` environment variable, if set).
    #[serde(default)]
    pub token_file: Option<PathBuf>,
    /// With an https:// hub: trust only the certificates in this PEM file (a
    /// private CA, a self-signed hub); unset: the system's roots.
    #[serde(default)]
    pub ca_file: Option<PathBuf>,
    /// Where the current version of each set is kept (deltas apply to it;
    /// a restart starts from it). Default: `crawlsieve-labels` in the temp directory.
    #[serde(default)]
    pub cache_dir: Option<PathBuf>,
    /// How long one long-poll for a new version waits, in seconds.
    #[serde(default = "default_wait")]
    pub wait_seconds: u64,
    /// How long start-up waits for the first version of every set, in seconds.
    #[serde(default = "default_start_timeout")]
    pub start_timeout_seconds: u64,
}

fn default_wait() -> u64 {
    30
}

fn default_start_timeout() -> u64 {
    30
}

impl LabelSettings {
    /// `labels.origins`, parsed; a mistake names the key.
    pub fn added_origins(&self) -> anyhow::Result<Vec<(String, super::origin::Origins)>> {
        self.origins
            .iter()
            .map(|(name, sites)| {
                let o = super::origin::Origins::new(sites).map_err(|e| {
                    anyhow::anyhow!("configuration: key `labels.origins.{name}`: {e}")
                })?;
                Ok((name.clone(), o))
            })
            .collect()
    }

    /// The configured public key, if any.
    pub fn public_key(&self) -> anyhow::Result<Option<ed25519_dalek::VerifyingKey>> {
        match (&self.public_key, &self.public_key_file) {
            (Some(_), Some(_)) => {
                anyhow::bail!("configuration: keys `labels.public_key` and `labels.public_key_file`: set one, not both")
            }
            (Some(hex), None) => keys::parse_public(hex)
                .map(Some)
                .map_err(|e| anyhow::anyhow!("configuration: key `labels.public_key`: {e}")),
            (None, Some(path)) => keys::read_public(path)
                .map(Some)
                .map_err(|e| anyhow::anyhow!("configuration: key `labels.public_key_file`: {e}")),
            (None, None) => Ok(None),
        }
    }
}

impl LabelSettings {
    pub(crate) fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.flag_threshold > 0.0 && self.flag_threshold <= 1.0,
            "configuration: key `labels.flag_threshold`: must be in (0, 1]"
        );
        anyhow::ensure!(
            self.shingle_threshold > 0.0 && self.shingle_threshold <= 1.0,
            "configuration: key `labels.shingle_threshold`: must be in (0, 1]"
        );
        anyhow::ensure!(
            self.spun_threshold > 0.0 && self.spun_threshold <= 1.0,
            "configuration: key `labels.spun_threshold`: must be in (0, 1]"
        );
        anyhow::ensure!(
            (0.0..=1.0).contains(&self.spun_spread),
            "configuration: key `labels.spun_spread`: must be in [0, 1]"
        );
        anyhow::ensure!(
            self.near_duplicate_bits <= crate::fingerprints::simhash::MAX_DISTANCE,
            "configuration: key `labels.near_duplicate_bits`: must be at most 3 (the banded tables find every page within 3 bits, not beyond)"
        );
        anyhow::ensure!(
            self.items.min_grams >= 2,
            "configuration: key `labels.items.min_grams`: must be at least 2 (one gram is a quotation of {} words)",
            crate::fingerprints::wordgrams::N
        );
        anyhow::ensure!(
            self.items.min_share > 0.0 && self.items.min_share <= 1.0,
            "configuration: key `labels.items.min_share`: must be in (0, 1]"
        );
        self.added_origins()?;
        let public = self.public_key()?;
        if let Some(hub) = &self.hub {
            anyhow::ensure!(
                hub.url.starts_with("http://") || hub.url.starts_with("https://"),
                "configuration: key `labels.hub.url`: must be an http:// or https:// URL"
            );
            anyhow::ensure!(
                !hub.sets.is_empty(),
                "configuration: key `labels.hub.sets`: name at least one set"
            );
            anyhow::ensure!(
                public.is_some(),
                "configuration: key `labels.hub`: following a hub needs `labels.public_key` or `labels.public_key_file` (updates are verified)"
            );
            anyhow::ensure!(
                (1..=300).contains(&hub.wait_seconds),
                "configuration: key `labels.hub.wait_seconds`: must be in 1..=300"
            );
        }
        Ok(())
    }
}
