//! The CPU-bound pipeline on N worker threads, fed through a bounded queue:
//! when the queue is full, `submit` says so at once and the source pushes
//! back (HTTP 503), so memory stays flat however fast pages are offered.

use crawlsieve_core::input::page::Input;
use crawlsieve_core::pipeline::Pipeline;
use crawlsieve_core::verdict::Verdict;
use crossbeam_channel::{bounded, Sender, TrySendError};
use std::sync::Arc;
use tokio::sync::oneshot;

struct Job {
    input: Input,
    reply: oneshot::Sender<Verdict>,
}

pub struct Pool {
    tx: Sender<Job>,
}

impl Pool {
    pub fn new(pipeline: Arc<Pipeline>, workers: usize, queue: usize) -> anyhow::Result<Self> {
        let (tx, rx) = bounded::<Job>(queue.max(1));
        for i in 0..workers.max(1) {
            let rx = rx.clone();
            let pipeline = pipeline.clone();
            std::thread::Builder::new()
                .name(format!("worker-{i}"))
                .spawn(move || {
                    for job in rx {
                        let _ = job.reply.send(pipeline.process_input(&job.input));
                    }
                })?;
        }
        Ok(Pool { tx })
    }

    /// Queues a page; gives it back when the queue is full (push back).
    pub fn submit(&self, input: Input) -> Result<oneshot::Receiver<Verdict>, Box<Input>> {
        let (reply, rx) = oneshot::channel();
        match self.tx.try_send(Job { input, reply }) {
            Ok(()) => Ok(rx),
            Err(TrySendError::Full(job)) | Err(TrySendError::Disconnected(job)) => {
                Err(Box::new(job.input))
            }
        }
    }
}
