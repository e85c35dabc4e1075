//! JSON lines to a file rotated by size: when the file reaches
//! `rotate_bytes`, it is renamed to `NAME.<unix-ms>.jsonl` and a new one is
//! started. Every line is written whole and flushed before the send counts.

use crate::sinks::Sink;
use futures::future::BoxFuture;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;

pub struct RotatingJsonl {
    path: PathBuf,
    rotate_bytes: u64,
    state: Mutex<(File, u64)>,
}

impl RotatingJsonl {
    pub fn open(path: PathBuf, rotate_bytes: u64) -> anyhow::Result<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let file = open(&path)?;
        let len = file.metadata()?.len();
        Ok(RotatingJsonl {
            path,
            rotate_bytes: rotate_bytes.max(1),
            state: Mutex::new((file, len)),
        })
    }

    /// Appends one line (`payload` has no newline).
    pub fn send(&self, payload: &[u8]) -> anyhow::Result<()> {
        let mut st = self.state.lock().expect("jsonl lock");
        let mut line = Vec::with_capacity(payload.len() + 1);
        line.extend_from_slice(payload);
        line.push(b'\n');
        st.0.write_all(&line)?;
        st.0.flush()?;
        st.1 += line.len() as u64;
        if st.1 >= self.rotate_bytes {
            let ms = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis())
                .unwrap_or(0);
            let stem = self.path.with_extension("");
            let rotated = PathBuf::from(format!("{}.{ms}.jsonl", stem.display()));
            std::fs::rename(&self.path, &rotated)?;
            *st = (open(&self.path)?, 0);
        }
        Ok(())
    }

    pub fn flush(&self) -> anyhow::Result<()> {
        let st = self.state.lock().expect("jsonl lock");
        st.0.sync_data()?;
        Ok(())
    }
}

impl Sink for RotatingJsonl {
    fn send<'a>(
        &'a self,
        _key: &'a str,
        _id: &'a str,
        payload: &'a [u8],
    ) -> BoxFuture<'a, anyhow::Result<()>> {
        let written = RotatingJsonl::send(self, payload);
        Box::pin(std::future::ready(written))
    }

    fn flush(&self) -> anyhow::Result<()> {
        RotatingJsonl::flush(self)
    }
}

fn open(path: &PathBuf) -> anyhow::Result<File> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| anyhow::anyhow!("jsonl sink {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotates_by_size_and_keeps_every_line() {
        let dir = tempfile::tempdir().unwrap();
        let s = RotatingJsonl::open(dir.path().join("v.jsonl"), 100).unwrap();
        for i in 0..50 {
            s.send(format!("{{\"n\":{i}}}").as_bytes()).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let mut lines = 0;
        let mut files = 0;
        for e in std::fs::read_dir(dir.path()).unwrap() {
            files += 1;
            lines += std::fs::read_to_string(e.unwrap().path())
                .unwrap()
                .lines()
                .count();
        }
        assert_eq!(lines, 50);
        assert!(files > 3);
    }
}
