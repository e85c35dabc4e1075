//! JSONL verdicts to a file or stdout: the embedded default, no server needed.

use super::Sink;
use crate::verdict::Verdict;
use std::io::{BufWriter, Write};

pub struct JsonlSink {
    out: BufWriter<Box<dyn Write + Send>>,
}

impl JsonlSink {
    /// `-` or `None` is stdout; anything else a file, created or truncated.
    pub fn open(path: Option<&str>) -> anyhow::Result<Self> {
        let out: Box<dyn Write + Send> = match path {
            None | Some("-") => Box::new(std::io::stdout()),
            Some(p) => {
                Box::new(std::fs::File::create(p).map_err(|e| anyhow::anyhow!("output {p}: {e}"))?)
            }
        };
        Ok(JsonlSink {
            out: BufWriter::with_capacity(1 << 16, out),
        })
    }
}

impl Sink for JsonlSink {
    fn send(&mut self, verdict: &Verdict) -> anyhow::Result<()> {
        serde_json::to_writer(&mut self.out, verdict)?;
        self.out.write_all(b"\n")?;
        Ok(())
    }

    fn send_flag(&mut self, flag: &crate::verdict::SiteFlag) -> anyhow::Result<()> {
        serde_json::to_writer(&mut self.out, flag)?;
        self.out.write_all(b"\n")?;
        Ok(())
    }

    fn flush(&mut self) -> anyhow::Result<()> {
        self.out.flush()?;
        Ok(())
    }
}
