//! A single HTML file (plain or gzip): one page, its URL `file://<path>`.

use super::{maybe_gz, read_capped, Emit, Limits, Source, SourceStats};
use crate::input::page::{Broken, Input, Origin, Page};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;

pub struct HtmlFileSource {
    path: PathBuf,
    limits: Limits,
}

impl HtmlFileSource {
    pub fn new(path: PathBuf, limits: Limits) -> Self {
        HtmlFileSource { path, limits }
    }
}

impl Source for HtmlFileSource {
    fn name(&self) -> String {
        self.path.display().to_string()
    }

    fn run(&mut self, emit: &mut Emit<'_>, stats: &mut SourceStats) -> anyhow::Result<()> {
        let name = self.path.display().to_string();
        let url = match std::fs::canonicalize(&self.path) {
            Ok(abs) => url::Url::from_file_path(&abs)
                .map(|u| u.to_string())
                .unwrap_or_else(|_| name.clone()),
            Err(_) => name.clone(),
        };
        stats.bytes += std::fs::metadata(&self.path).map(|m| m.len()).unwrap_or(0);
        let file = std::fs::File::open(&self.path).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        let r = maybe_gz(Box::new(BufReader::with_capacity(1 << 16, file)))?;
        read_one(r, &name, &url, &self.limits, emit, stats)
    }
}

/// Reads one whole page from a stream.
pub fn read_one(
    mut r: impl BufRead,
    name: &str,
    url: &str,
    limits: &Limits,
    emit: &mut Emit<'_>,
    _stats: &mut SourceStats,
) -> anyhow::Result<()> {
    let origin = Origin::File {
        file: name.to_string(),
    };
    let input = match read_capped(&mut r, limits.max_page_bytes) {
        Ok((body, truncated)) => {
            let mut page = Page::new(url.to_string(), body).with_origin(origin);
            page.truncated = truncated;
            Input::Page(page)
        }
        Err(e) => Input::Broken(Broken {
            url: Some(url.to_string()),
            origin,
            reason: format!("unreadable input: {e}"),
        }),
    };
    emit(input)
}
