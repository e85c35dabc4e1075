//! Pages from the WARC files a crawler writes into a directory.
//!
//! Crawlers write WARC files while they fetch, in one of three ways, and the
//! source follows each: under a temporary name renamed when the file is
//! closed (Heritrix's `*.warc.gz.open`; such names are never read), in place
//! (wget, wpull: the file grows record by record), or elsewhere and then
//! moved in (Browsertrix). A file is read as far as it holds whole records
//! and read on from there as it grows; it is *done* once it has not changed
//! for `settle` and ends on a whole record. A record the file still ends
//! inside after `settle` is read as broken (its `error` verdict, an input
//! problem in the log), so a crawler that died mid-record cannot hold the
//! source. A done file that grows again is read on from where it stopped.
//!
//! The checkpoint keeps, per file, where reading goes on (`Resume`: the
//! offset of the last whole record's end, or of the gzip member being read
//! and how many of its records are done), saved only past pages whose
//! verdicts are delivered: a restart, even after SIGKILL, neither skips nor
//! repeats a record.

mod config;

pub use config::Config;

use super::{supervise, Ended, Run};
use crate::agent::feed::drive;
use crawlsieve_core::input::page::Input;
use crawlsieve_core::input::sources::warc::{self, End, Resume};
use crawlsieve_core::input::sources::{Limits, SourceStats};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The directory a WARC-dir source watches.
#[derive(Debug, Clone)]
pub struct WarcDir {
    pub dir: PathBuf,
    /// Default: `.crawlsieve-checkpoint.json` in `dir`.
    pub checkpoint: Option<PathBuf>,
    /// How often the directory is listed.
    pub poll: Duration,
    /// A file unchanged this long is whole: done, or its cut-off tail broken.
    pub settle: Duration,
}

/// How far each file was read.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Checkpoint {
    #[serde(default)]
    files: BTreeMap<String, FileState>,
    /// The checkpoint of versions before reading on (files done, the file in
    /// progress with its records delivered): read once, written no more.
    #[serde(default, skip_serializing)]
    done: Vec<String>,
    #[serde(default, skip_serializing)]
    current: Option<(String, u64)>,
}

#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
struct FileState {
    /// Where reading goes on.
    at: Resume,
    /// Unchanged for `settle` and ending on a whole record.
    done: bool,
}

impl Checkpoint {
    fn load(path: &Path, dir: &Path) -> anyhow::Result<Checkpoint> {
        let mut cp: Checkpoint = match std::fs::read(path) {
            Ok(b) => serde_json::from_slice(&b)
                .map_err(|e| anyhow::anyhow!("checkpoint {}: {e}", path.display()))?,
            Err(_) => return Ok(Checkpoint::default()),
        };
        // The old form said a file was done, not how far: its size now.
        for name in std::mem::take(&mut cp.done) {
            let size = std::fs::metadata(dir.join(&name)).map_or(0, |m| m.len());
            let at = Resume {
                offset: size,
                skip: 0,
            };
            cp.files.insert(name, FileState { at, done: true });
        }
        if let Some((name, records)) = cp.current.take() {
            let at = Resume {
                offset: 0,
                skip: records,
            };
            cp.files.insert(name, FileState { at, done: false });
        }
        Ok(cp)
    }

    /// Replaced whole, never torn (a torn one would stop the source). With
    /// `sync`, durably: after a machine crash the checkpoint is the last one
    /// synced (an older one only repeats pages). Without, it survives the
    /// agent's death (SIGKILL, a panic) but not the machine's.
    fn save(&self, path: &Path, sync: bool) -> anyhow::Result<()> {
        crawlsieve_core::durable::replace(path, &serde_json::to_vec(self)?, sync)?;
        Ok(())
    }
}

/// The names a crawler gives its finished WARC and ARC files (`.warc`,
/// `.arc`, plain, `.gz` or `.lz4`). Temporary names (`.open`, `.tmp`,
/// `.part`) and hidden files do not end so, or are left out.
pub fn is_warc(name: &str) -> bool {
    !name.starts_with('.')
        && crawlsieve_core::input::sources::warc::Container::from_name(name).is_some()
}

/// Every WARC file of `dir`, read as it grows, until the agent stops.
/// An unreadable directory or checkpoint is retried under `supervise`.
impl super::Source for WarcDir {
    fn run(self: Box<Self>, run: Run) -> futures::future::BoxFuture<'static, ()> {
        Box::pin(warc_dir(run, *self))
    }
}

pub async fn warc_dir(run: Run, warc_dir: WarcDir) {
    supervise(run, move |run| warc_dir_once(run, warc_dir.clone())).await
}

/// What one listing saw of a file.
struct Seen {
    size: u64,
    /// Unchanged for `settle`.
    quiet: bool,
}

async fn warc_dir_once(run: Run, cfg: WarcDir) -> anyhow::Result<Ended> {
    let dir = &cfg.dir;
    let cp_path = cfg
        .checkpoint
        .clone()
        .unwrap_or_else(|| dir.join(".crawlsieve-checkpoint.json"));
    let mut cp = Checkpoint::load(&cp_path, dir)?;
    let limits = Limits {
        max_page_bytes: run.agent.max_page_bytes,
        ..Limits::new(&run.agent.pipeline.settings().input)
    };
    // Sizes at which a file's tail was last found cut off: read again only
    // once it has grown (or settled), not at every listing.
    let mut cut_at_size: BTreeMap<String, u64> = BTreeMap::new();
    while !run.stopping() {
        let listing = list(dir, cfg.settle)?;
        cp.files.retain(|name, _| listing.contains_key(name));
        cut_at_size.retain(|name, _| listing.contains_key(name));
        for (name, seen) in &listing {
            if run.stopping() {
                break;
            }
            let state = cp.files.entry(name.clone()).or_default();
            if seen.size < state.at.offset {
                tracing::warn!(file = %name, size = seen.size, read_to = state.at.offset,
                    "WARC file is shorter than what was read of it: replaced; reading it from the start");
                *state = FileState::default();
            }
            let grown = seen.size > state.at.offset;
            let retry = cut_at_size.get(name) != Some(&seen.size) || seen.quiet;
            if !(grown && retry) {
                if seen.quiet && !grown && !state.done {
                    state.done = true;
                    tracing::info!(file = %name, bytes = seen.size, "WARC file done");
                    cp.save(&cp_path, true)?;
                }
                continue;
            }
            if state.done {
                tracing::info!(file = %name, from = state.at.offset, "WARC file grew after it was done; reading on");
                state.done = false;
            }
            // A file unchanged for `settle` is read to its end: a record it
            // still ends inside will never be finished.
            let tail = !seen.quiet;
            let (at, end) = read_file(&run, &cp_path, &mut cp, name, dir, tail, &limits).await?;
            if run.stopping() {
                break;
            }
            match end {
                End::CutOff => {
                    cut_at_size.insert(name.clone(), seen.size);
                }
                End::Whole => {
                    cut_at_size.remove(name);
                }
            }
            let state = cp.files.entry(name.clone()).or_default();
            state.at = at;
            if !tail && at.offset >= seen.size {
                state.done = true;
                tracing::info!(file = %name, bytes = seen.size, "WARC file done");
            }
            cp.save(&cp_path, true)?;
        }
        let mut s = run.stop.clone();
        let _ = tokio::time::timeout(cfg.poll, s.wait_for(|s| *s)).await;
    }
    Ok(Ended::Stopped)
}

/// The WARC files of `dir` with their sizes, by name.
fn list(dir: &Path, settle: Duration) -> anyhow::Result<BTreeMap<String, Seen>> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| anyhow::anyhow!("agent source warc_dir {}: {e}", dir.display()))?;
    let now = SystemTime::now();
    let mut out = BTreeMap::new();
    for entry in entries.flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if !is_warc(&name) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        if !meta.is_file() {
            continue;
        }
        let quiet = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age >= settle);
        out.insert(
            name,
            Seen {
                size: meta.len(),
                quiet,
            },
        );
    }
    Ok(out)
}

/// Reads `name` on from its checkpoint, judging and delivering each page;
/// the checkpoint moves past delivered pages only. Returns
/// where reading goes on and how the read ended; while the agent stops,
/// where the last delivered page left it.
async fn read_file(
    run: &Run,
    cp_path: &Path,
    cp: &mut Checkpoint,
    name: &str,
    dir: &Path,
    tail: bool,
    limits: &Limits,
) -> anyhow::Result<(Resume, End)> {
    let start = cp.files.get(name).map(|s| s.at).unwrap_or_default();
    let (tx, mut rx) = tokio::sync::mpsc::channel::<(Input, Resume)>(run.window.max(1));
    let path = dir.join(name);
    let limits = limits.clone();
    let reader = tokio::task::spawn_blocking(move || {
        let mut stats = SourceStats::default();
        let ended = warc::read_on(
            &path,
            start,
            tail,
            &limits,
            &mut |input, after| {
                tx.blocking_send((input, after))
                    .map_err(|_| anyhow::anyhow!("stopped"))
            },
            &mut stats,
        );
        (ended, stats)
    });
    let mut since_save = 0;
    let mut delivered = start;
    let pages = futures::stream::poll_fn(|cx| rx.poll_recv(cx));
    drive(
        &run.agent,
        run.feed(),
        pages,
        |after: Resume| {
            // After every page (the agent killed then repeats none), synced
            // every 50 (a machine crash repeats at most those).
            delivered = after;
            since_save += 1;
            cp.files.entry(name.to_string()).or_default().at = after;
            let sync = since_save % 50 == 0;
            if let Err(e) = cp.save(cp_path, sync) {
                tracing::error!(error = %e, "checkpoint not saved");
            }
        },
        run.stopped(),
    )
    .await;
    rx.close();
    let (ended, stats) = reader.await?;
    for failure in &stats.failures {
        tracing::warn!(file = %name, problem = %failure, "input problem");
    }
    if run.stopping() {
        return Ok((delivered, End::CutOff));
    }
    match ended {
        Ok(ended) => Ok(ended),
        Err(e) => {
            tracing::error!(file = %name, error = %e, "WARC file could not be read; trying again at the next listing");
            Ok((delivered, End::CutOff))
        }
    }
}

impl crate::agent::feed::Token for Resume {}
