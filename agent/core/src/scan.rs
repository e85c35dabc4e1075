//! The wiring: sources → worker threads → sinks, with bounded channels
//! between them so memory stays flat however fast the input is. Verdicts
//! leave in input order (a small reorder buffer, bounded by the channels),
//! so a scan's output is deterministic whatever the thread count.

use crate::input::page::Input;
use crate::input::sources::{Source, SourceStats};
use crate::labels::{LabeledSets, LabelsHandle};
use crate::neighborhoods::tracker::Tracker;
use crate::output::Sink;
use crate::pipeline::Pipeline;
use crate::summary::Summary;
use crate::verdict::Verdict;
use crossbeam_channel::{bounded, Receiver, Sender};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

/// Called with the running summary after every verdict (progress display).
pub type Progress<'a> = dyn FnMut(&Summary) + 'a;

/// A page on its way to a worker: its place in the input, and the
/// labeled-set snapshot taken when it was handed out, in input order (see
/// `Pipeline::process_input_with`).
type Job = (u64, Input, Arc<LabeledSets>);

/// Runs every source to the end through `workers` pipeline threads into `sink`.
pub fn run(
    pipeline: Arc<Pipeline>,
    sources: Vec<Box<dyn Source>>,
    sink: &mut dyn Sink,
    workers: usize,
    mut tracker: Option<&mut Tracker>,
    progress: &mut Progress<'_>,
) -> anyhow::Result<Summary> {
    let workers = workers.max(1);
    let started = Instant::now();
    let (page_tx, page_rx) = bounded::<Job>(workers * 8);
    let (verdict_tx, verdict_rx) = bounded::<(u64, Verdict)>(workers * 8);
    // Revisit records take the verdicts of the captures they repeat: those
    // of earlier runs' verdict files, and those this run writes before them.
    let input = &pipeline.settings().input;
    let mut captures = crate::revisits::Captures::new(input.revisit_memory);
    for path in &input.revisit_verdicts {
        captures
            .read_verdicts(path)
            .map_err(|e| anyhow::anyhow!("input.revisit_verdicts: {e}"))?;
    }
    let mut seen = crate::dedup::Seen::open(&pipeline.settings().dedup)?;
    let reader = read(sources, page_tx, pipeline.labels().clone())?;
    let handles = (0..workers)
        .map(|i| judge(i, &pipeline, page_rx.clone(), verdict_tx.clone()))
        .collect::<std::io::Result<Vec<_>>>()?;
    drop(page_rx);
    drop(verdict_tx);
    let (mut summary, sink_error) = write(
        &verdict_rx,
        sink,
        Stages {
            tracker: tracker.as_deref_mut(),
            captures: &mut captures,
            seen: seen.as_mut(),
        },
        progress,
    );
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
    if let Some(seen) = &mut seen {
        seen.flush()
            .map_err(|e| e.context("writing the index of pages seen"))?;
        summary.dedup = Some(seen.stats);
    }
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

/// The reader thread: every source in turn, each page numbered in input
/// order; a source that fails is counted and the next one read. Returns the
/// pages handed out and what the sources read besides.
fn read(
    sources: Vec<Box<dyn Source>>,
    page_tx: Sender<Job>,
    labels: LabelsHandle,
) -> std::io::Result<JoinHandle<(u64, SourceStats)>> {
    std::thread::Builder::new()
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
        })
}

/// Worker thread `i`: judges pages until the pages run out or nobody
/// takes verdicts any more.
fn judge(
    i: usize,
    pipeline: &Arc<Pipeline>,
    rx: Receiver<Job>,
    tx: Sender<(u64, Verdict)>,
) -> std::io::Result<JoinHandle<()>> {
    let pipeline = pipeline.clone();
    std::thread::Builder::new()
        .name(format!("worker-{i}"))
        .spawn(move || {
            for (seq, input, labels) in rx {
                let verdict = pipeline.process_input_with(&input, &labels);
                if tx.send((seq, verdict)).is_err() {
                    break;
                }
            }
        })
}

/// What a verdict passes through, in input order, before it is written.
struct Stages<'a> {
    tracker: Option<&'a mut Tracker>,
    captures: &'a mut crate::revisits::Captures,
    seen: Option<&'a mut crate::dedup::Seen>,
}

/// Writes the verdicts in input order (holding those that come early), with
/// the site flags each one raises; stops at the first sink error.
fn write(
    verdict_rx: &Receiver<(u64, Verdict)>,
    sink: &mut dyn Sink,
    stages: Stages<'_>,
    progress: &mut Progress<'_>,
) -> (Summary, Option<anyhow::Error>) {
    let Stages {
        mut tracker,
        captures,
        mut seen,
    } = stages;
    let mut summary = Summary::default();
    let mut next = 0u64;
    let mut waiting: BTreeMap<u64, Verdict> = BTreeMap::new();
    for (seq, verdict) in verdict_rx.iter() {
        waiting.insert(seq, verdict);
        while let Some(mut v) = waiting.remove(&next) {
            next += 1;
            if v.revisit_of.is_some() {
                captures.resolve(&mut v);
            } else {
                captures.remember(&v);
            }
            if let Some(seen) = seen.as_deref_mut() {
                seen.check(&mut v);
            }
            summary.count(&v);
            let sent = sink.send(&v).and_then(|_| match tracker.as_deref_mut() {
                Some(t) => t.observe(&v)?.iter().try_for_each(|f| sink.send_flag(f)),
                None => Ok(()),
            });
            if let Err(e) = sent {
                return (summary, Some(e));
            }
            progress(&summary);
        }
    }
    (summary, None)
}
