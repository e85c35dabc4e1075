//! Neighborhoods inside a run: observe verdicts in order, write site flags
//! to the flag log, restore the state at start and save it at the end.

use super::{Neighborhoods, SiteFlag};
use crate::settings::NeighborhoodSettings;
use crate::verdict::Verdict;
use std::io::Write;
use std::path::PathBuf;

pub struct Tracker {
    pub hoods: Neighborhoods,
    flag_log: Option<std::fs::File>,
    snapshot: Option<PathBuf>,
    /// Site flags emitted in this run.
    pub flags: u64,
}

impl Tracker {
    /// `None` when neighborhoods are disabled. Restores the snapshot when it exists.
    pub fn from_settings(s: &NeighborhoodSettings) -> anyhow::Result<Option<Self>> {
        if !s.enabled {
            return Ok(None);
        }
        let hoods = match &s.snapshot {
            Some(path) if path.exists() => Neighborhoods::load(path, s.clone())?,
            _ => Neighborhoods::new(s.clone()),
        };
        let flag_log = match &s.flag_log {
            Some(path) => Some(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|e| {
                        anyhow::anyhow!("neighborhoods.flag_log {}: {e}", path.display())
                    })?,
            ),
            None => None,
        };
        Ok(Some(Tracker {
            hoods,
            flag_log,
            snapshot: s.snapshot.clone(),
            flags: 0,
        }))
    }

    fn log(&mut self, flags: &[SiteFlag]) -> anyhow::Result<()> {
        self.flags += flags.len() as u64;
        if let Some(f) = &mut self.flag_log {
            let mut text = String::new();
            for flag in flags {
                text.push_str(&crate::crawllog::flag_line(flag));
                text.push('\n');
            }
            // One write per batch: lines of concurrent writers never interleave.
            f.write_all(text.as_bytes())?;
        }
        Ok(())
    }

    /// Adds a verdict; returns the flags that changed (already in the flag log).
    pub fn observe(&mut self, v: &Verdict) -> anyhow::Result<Vec<SiteFlag>> {
        let flags = self.hoods.observe_verdict(v);
        if !flags.is_empty() {
            self.log(&flags)?;
        }
        Ok(flags)
    }

    /// End of a run: re-judge everything, log, save the snapshot.
    pub fn finish(&mut self) -> anyhow::Result<Vec<SiteFlag>> {
        let flags = self.hoods.sweep();
        self.log(&flags)?;
        if let Some(path) = &self.snapshot {
            self.hoods.save(path)?;
        }
        Ok(flags)
    }
}
