//! A single HTML file (plain or gzip): one page, its URL `file://<path>`.

use super::{maybe_gz, read_capped_sized, Emit, Limits, Source, SourceStats};
use crate::input::page::{Broken, Input, Origin, Page};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
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
        let mut file =
            std::fs::File::open(&self.path).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        // Only a regular file can be measured and read again from its
        // start: a pipe (`scan <(zcat page.html.gz)`) is read as it comes.
        let expected = match file.metadata() {
            Ok(m) if m.is_file() => {
                let expected = expected_size(&mut file).unwrap_or(0);
                file.rewind().map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
                expected
            }
            _ => 0,
        };
        let r = maybe_gz(Box::new(BufReader::with_capacity(1 << 16, file)))?;
        read_one(r, &name, &url, &self.limits, expected, emit)
    }
}

/// The bytes a file holds once read: its length, or for gzip the size its
/// trailer states (of the last member, modulo 4 GiB: a hint for the
/// buffer, not a limit, and capped by the reader at the page limit).
fn expected_size(file: &mut std::fs::File) -> std::io::Result<usize> {
    let len = file.metadata()?.len();
    file.rewind()?;
    let mut magic = [0u8; 2];
    if len < 18 || file.read_exact(&mut magic).is_err() || magic != [0x1f, 0x8b] {
        return Ok(len as usize);
    }
    let mut trailer = [0u8; 4];
    file.seek(SeekFrom::End(-4))?;
    file.read_exact(&mut trailer)?;
    // A trailer is the file's word: no more than deflate's widest ratio.
    let most = len.saturating_mul(1032);
    Ok(u64::from(u32::from_le_bytes(trailer)).min(most) as usize)
}

/// Reads one whole page from a stream, expected to be `expected` bytes (0:
/// not known).
pub fn read_one(
    mut r: impl BufRead,
    name: &str,
    url: &str,
    limits: &Limits,
    expected: usize,
    emit: &mut Emit<'_>,
) -> anyhow::Result<()> {
    let origin = Origin::File {
        file: name.to_string(),
    };
    let input = match read_capped_sized(&mut r, limits.max_page_bytes, expected) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn size_of(bytes: &[u8]) -> usize {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(bytes).unwrap();
        expected_size(&mut file).unwrap()
    }

    #[test]
    fn a_file_is_expected_at_its_size_a_gzip_file_at_its_trailers_within_reason() {
        let page = "<p>words</p>".repeat(1000);
        assert_eq!(size_of(page.as_bytes()), page.len());
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(page.as_bytes()).unwrap();
        let mut gz = gz.finish().unwrap();
        assert_eq!(size_of(&gz), page.len());
        // A trailer that claims 4 GiB of a small file is not believed.
        let at = gz.len() - 4;
        gz[at..].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(size_of(&gz), gz.len() * 1032);
        assert_eq!(size_of(b""), 0);
    }
}
