//! `[neighborhoods]`: when a site's pages make it a bad neighborhood, and
//! where the state and the site flags are kept.

use serde::Deserialize;
use std::path::PathBuf;

/// `[neighborhoods]`: bad-neighborhood detection (see `neighborhoods`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NeighborhoodSettings {
    pub enabled: bool,
    pub min_pages: u32,
    /// Fixed badness threshold; 0 = mean + one standard deviation.
    pub threshold: f64,
    pub min_badness: f64,
    /// The moving threshold never rises above this: a neighborhood this bad is bad
    /// however many others are.
    pub max_threshold: f64,
    pub sweep_every: u64,
    /// Where the state is saved at the end of a run and restored from at the start.
    #[serde(default)]
    pub snapshot: Option<PathBuf>,
    /// Heritrix crawl.log-format file that site flags are appended to.
    #[serde(default)]
    pub flag_log: Option<PathBuf>,
}

impl NeighborhoodSettings {
    pub(crate) fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.max_threshold > 0.0 && self.max_threshold <= 1.0,
            "configuration: key `neighborhoods.max_threshold`: must be in (0, 1]"
        );
        anyhow::ensure!(
            self.min_pages >= 1,
            "configuration: key `neighborhoods.min_pages`: must be at least 1"
        );
        anyhow::ensure!(
            (0.0..=1.0).contains(&self.threshold),
            "configuration: key `neighborhoods.threshold`: must be in [0, 1] (0 = mean + one standard deviation)"
        );
        anyhow::ensure!(
            (0.0..=1.0).contains(&self.min_badness),
            "configuration: key `neighborhoods.min_badness`: must be in [0, 1]"
        );
        anyhow::ensure!(
            self.sweep_every >= 1,
            "configuration: key `neighborhoods.sweep_every`: must be at least 1"
        );
        Ok(())
    }
}
