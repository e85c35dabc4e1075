//! The wiring: sources → worker threads → sinks, with bounded channels
//! between them so memory stays flat however fast the input is. Verdicts
//! leave in input order (a small reorder buffer, bounded by the channels),
//! so a scan's output is deterministic whatever the thread count.

use crate::input::page::Input;
use crate::input::sources::{Source, SourceStats};
use crate::labels::LabeledSets;
use crate::output::Sink;
use crate::pipeline::Pipeline;
use crate::summary::Summary;
use crate::verdict::Verdict;
use crossbeam_channel::bounded;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

/// Called with the running summary after every verdict (progress display).
pub type Progress<'a> = dyn FnMut(&Summary) + 'a;

/// Runs every source to the end through `workers` pipeline threads into `sink`.
pub fn run(
    pipeline: Arc<Pipeline>,
    sources: Vec<Box<dyn Source>>,
    sink: &mut dyn Sink,
    workers: usize,
    mut tracker: Option<&mut crate::neighborhoods::tracker::Tracker>,
    progress: &mut Progress<'_>,
) -> anyhow::Result<Summary> {
    let workers = workers.max(1);
    let started = Instant::now();
    // Each page travels with the labeled-set snapshot taken when it was handed
    // out, in input order (see `Pipeline::process_input_with`).
    let (page_tx, page_rx) = bounded::<(u64, Input, Arc<LabeledSets>)>(workers * 8);
    let labels = pipeline.labels().clone();
    let (verdict_tx, verdict_rx) = bounded::<(u64, Verdict)>(workers * 8);

    let reader = std::thread::Builder::new()
        .name("sources".into())
        .spawn(move || {
            let mut stats = SourceStats::default();
            let mut seq = 0u64;
            for mut source in sources {
                let name = source.name();
                let mut emit = |input: Input| {
                    page_tx
                        .send((seq, input, labels.load_full()))
                        .map_err(|_| anyhow::anyhow!("pipeline stopped"))?;
                    seq += 1;
                    Ok(())
                };
                if let Err(e) = source.run(&mut emit, &mut stats) {
                    if e.to_string() == "pipeline stopped" {
                        break;
                    }
                    tracing::warn!(source = %name, error = %e, "input failed");
                    stats.failures.push(format!("{e}"));
                }
            }
            (seq, stats)
        })?;

    let mut handles = Vec::with_capacity(workers);
    for i in 0..workers {
        let rx = page_rx.clone();
        let tx = verdict_tx.clone();
        let pipeline = pipeline.clone();
        handles.push(
            std::thread::Builder::new()
                .name(format!("worker-{i}"))
                .spawn(move || {
                    for (seq, input, labels) in rx {
                        let verdict = pipeline.process_input_with(&input, &labels);
                        if tx.send((seq, verdict)).is_err() {
                            break;
                        }
                    }
                })?,
        );
    }
    drop(page_rx);
    drop(verdict_tx);

    let mut summary = Summary::default();
    let mut next = 0u64;
    let mut waiting: BTreeMap<u64, Verdict> = BTreeMap::new();
    let mut sink_error = None;
    for (seq, verdict) in verdict_rx.iter() {
        waiting.insert(seq, verdict);
        while let Some(v) = waiting.remove(&next) {
            next += 1;
            summary.count(&v);
            let sent = sink.send(&v).and_then(|_| match tracker.as_deref_mut() {
                Some(t) => t.observe(&v)?.iter().try_for_each(|f| sink.send_flag(f)),
                None => Ok(()),
            });
            if let Err(e) = sent {
                sink_error = Some(e);
                break;
            }
            progress(&summary);
        }
        if sink_error.is_some() {
            break;
        }
    }
    // On a sink error, dropping the receiver stops the workers, then the reader.
    drop(verdict_rx);
    for h in handles {
        let _ = h.join();
    }
    let (pages_in, stats) = reader
        .join()
        .map_err(|_| anyhow::anyhow!("source thread panicked"))?;
    if let Some(e) = sink_error {
        return Err(e.context("writing verdicts"));
    }
    if let Some(t) = tracker {
        for f in t.finish()? {
            sink.send_flag(&f)?;
        }
    }
    sink.flush()?;
    summary.pages_in = pages_in;
    summary.add_source(stats);
    summary.finish(started.elapsed());
    anyhow::ensure!(
        summary.pages_in == summary.verdicts_out,
        "{} pages came in but {} verdicts went out",
        summary.pages_in,
        summary.verdicts_out
    );
    Ok(summary)
}
