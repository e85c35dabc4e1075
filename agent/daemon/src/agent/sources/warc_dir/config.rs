use super::WarcDir;
use crate::agent::sources::{Place, Source};
use serde::Deserialize;
use std::path::PathBuf;
use std::time::Duration;

/// `kind = "warc_dir"`: a directory the crawler writes WARC files into: each
/// `*.warc` / `*.warc.gz` is read as it grows, every record once (in-progress
/// names such as Heritrix's `.open` are ignored); progress is checkpointed so
/// a restart neither skips nor repeats a record.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub path: PathBuf,
    /// Checkpoint file (default: `.crawlsieve-checkpoint.json` in the directory).
    #[serde(default)]
    pub checkpoint: Option<PathBuf>,
    #[serde(default = "default_poll")]
    pub poll_seconds: u64,
    /// A file unchanged this long is whole: done once it ends on a whole
    /// record; a record it still ends inside is read as broken.
    #[serde(default = "default_settle")]
    pub settle_seconds: u64,
}

fn default_poll() -> u64 {
    5
}

fn default_settle() -> u64 {
    30
}

impl Config {
    /// The directory exists: a typo fails at start-up, not as a source
    /// retrying forever.
    pub fn check(&self, index: usize) -> anyhow::Result<()> {
        let path = &self.path;
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => Ok(()),
            Ok(_) => anyhow::bail!(
                "configuration: key `agent.sources[{index}].path`: {} is not a directory",
                path.display()
            ),
            Err(e) => anyhow::bail!(
                "configuration: key `agent.sources[{index}].path`: {}: {e} (relative paths are from the working directory)",
                path.display()
            ),
        }
    }

    pub fn build(&self, _at: &Place) -> anyhow::Result<Box<dyn Source>> {
        Ok(Box::new(WarcDir {
            dir: self.path.clone(),
            checkpoint: self.checkpoint.clone(),
            poll: Duration::from_secs(self.poll_seconds.max(1)),
            settle: Duration::from_secs(self.settle_seconds),
        }))
    }
}
