use super::RotatingJsonl;
use crate::sinks::{Component, Place, Sink};
use serde::Deserialize;
use std::path::PathBuf;
use std::sync::Arc;

/// `kind = "jsonl"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub path: PathBuf,
    #[serde(default = "default_rotate")]
    pub rotate_bytes: u64,
}

fn default_rotate() -> u64 {
    256 << 20
}

impl Component for Config {
    /// Opens the file; a path it cannot open fails at start-up, naming its key.
    async fn build(&self, at: &Place<'_>) -> anyhow::Result<Arc<dyn Sink>> {
        let sink = RotatingJsonl::open(self.path.clone(), self.rotate_bytes).map_err(|e| {
            anyhow::anyhow!(
                "configuration: key `agent.sinks[{}].path`: {}: {e:#} (relative paths are from the working directory)",
                at.index,
                self.path.display()
            )
        })?;
        Ok(Arc::new(sink))
    }
}
