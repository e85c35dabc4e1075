//! Pages from the WARC files a crawler writes into a directory.

use super::{supervise, Ended, Run};
use crate::agent::feed::drive;
use crawlsieve_core::input::page::Input;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The directory a WARC-dir source watches.
#[derive(Debug, Clone)]
pub struct WarcDir {
    pub dir: PathBuf,
    /// Default: `.crawlsieve-checkpoint.json` in `dir`.
    pub checkpoint: Option<PathBuf>,
    /// How often the directory is listed when every file is done.
    pub poll: Duration,
}

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Checkpoint {
    /// Files processed to the end.
    done: Vec<String>,
    /// The file in progress and how many of its records were delivered.
    current: Option<(String, u64)>,
}

/// Durably: after a machine crash the checkpoint is the last one saved, whole
/// (an older one would only repeat pages; a torn one would stop the source).
fn save_checkpoint(path: &Path, c: &Checkpoint) -> anyhow::Result<()> {
    crawlsieve_core::durable::replace(path, &serde_json::to_vec(c)?, true)?;
    Ok(())
}

fn is_warc(name: &str) -> bool {
    name.ends_with(".warc") || name.ends_with(".warc.gz")
}

/// Every new WARC file of `dir`, once, in name order, until the agent stops.
/// An unreadable directory or checkpoint is retried under `supervise`.
pub async fn warc_dir(run: Run, warc_dir: WarcDir) {
    supervise(run, move |run| warc_dir_once(run, warc_dir.clone())).await
}

async fn warc_dir_once(run: Run, cfg: WarcDir) -> anyhow::Result<Ended> {
    let (agent, dir, poll, window) = (&run.agent, &cfg.dir, cfg.poll, run.window);
    let cp_path = cfg
        .checkpoint
        .clone()
        .unwrap_or_else(|| dir.join(".crawlsieve-checkpoint.json"));
    let mut cp: Checkpoint = match std::fs::read(&cp_path) {
        Ok(b) => serde_json::from_slice(&b)
            .map_err(|e| anyhow::anyhow!("checkpoint {}: {e}", cp_path.display()))?,
        Err(_) => Checkpoint::default(),
    };
    let limits = crawlsieve_core::input::sources::Limits {
        max_page_bytes: agent.max_page_bytes,
        html_content_types: agent.pipeline.settings().input.html_content_types.clone(),
    };
    while !run.stopping() {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map_err(|e| anyhow::anyhow!("agent source warc_dir {}: {e}", dir.display()))?
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| is_warc(n) && !cp.done.contains(n))
            .collect();
        names.sort();
        let Some(name) = names.into_iter().next() else {
            let mut s = run.stop.clone();
            let _ = tokio::time::timeout(poll, s.wait_for(|s| *s)).await;
            continue;
        };
        let skip = match &cp.current {
            Some((n, k)) if *n == name => *k,
            _ => 0,
        };
        let path = dir.join(&name);
        let (tx, mut rx) = tokio::sync::mpsc::channel::<Input>(window.max(1));
        let reader_limits = limits.clone();
        let reader_path = path.clone();
        let reader = tokio::task::spawn_blocking(move || -> anyhow::Result<()> {
            let mut source = crawlsieve_core::input::sources::open(
                &reader_path.to_string_lossy(),
                &reader_limits,
            )?;
            let mut stats = crawlsieve_core::input::sources::SourceStats::default();
            let mut seen = 0u64;
            source.run(
                &mut |input| {
                    seen += 1;
                    if seen <= skip {
                        return Ok(());
                    }
                    tx.blocking_send(input)
                        .map_err(|_| anyhow::anyhow!("stopped"))
                },
                &mut stats,
            )
        });
        let mut delivered = skip;
        let mut since_save = 0;
        let pages = futures::stream::poll_fn(|cx| rx.poll_recv(cx).map(|o| o.map(|i| (i, ()))));
        drive(
            agent,
            run.feed(),
            pages,
            |()| {
                delivered += 1;
                since_save += 1;
                if since_save >= 50 {
                    since_save = 0;
                    cp.current = Some((name.clone(), delivered));
                    if let Err(e) = save_checkpoint(&cp_path, &cp) {
                        tracing::error!(error = %e, "checkpoint not saved");
                    }
                }
            },
            run.stopped(),
        )
        .await;
        rx.close();
        let read = reader.await;
        let finished = !run.stopping();
        if let (true, Ok(Err(e))) = (finished, &read) {
            tracing::error!(file = %name, error = %e, "WARC file could not be read to the end; moving on");
        }
        if finished {
            cp.done.push(name.clone());
            cp.current = None;
            tracing::info!(file = %name, records = delivered, "WARC file done");
        } else {
            cp.current = Some((name.clone(), delivered));
        }
        save_checkpoint(&cp_path, &cp)?;
    }
    Ok(Ended::Stopped)
}
