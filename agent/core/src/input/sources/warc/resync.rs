//! Byte offsets and recovery: a reader that counts what it consumed (the
//! offset of every record and gzip member), and the scans that find the next
//! gzip member or WARC record after a corrupt one.

use std::io::{self, BufRead, Read};

/// A `BufRead` that counts the bytes consumed: record offsets.
pub struct Counting<R> {
    inner: R,
    pub pos: u64,
}

impl<R: BufRead> Counting<R> {
    pub fn new(inner: R) -> Self {
        Counting { inner, pos: 0 }
    }

    pub(super) fn consume_n(&mut self, n: usize) -> io::Result<()> {
        let available = self.inner.fill_buf()?.len();
        self.consume(n.min(available));
        Ok(())
    }
}

impl<R: BufRead> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counting<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, n: usize) {
        self.pos += n as u64;
        self.inner.consume(n);
    }
}

/// Advances to the next gzip member header (`1f 8b 08`); false at the end.
pub(super) fn skip_to_gzip_header<R: BufRead>(r: &mut Counting<R>) -> io::Result<bool> {
    skip_to(r, b"\x1f\x8b\x08")
}

/// Advances to the next line that starts a WARC record; false at the end.
/// The reader stands past the start of the broken record (at least its
/// first line was read), often right at the next record (a header whose
/// fields were wrong, a block of length 0): that one is taken.
pub(super) fn skip_to_warc_line<R: BufRead>(r: &mut Counting<R>) -> io::Result<bool> {
    if r.fill_buf()?.starts_with(b"WARC/") {
        return Ok(true);
    }
    let found = skip_to(r, b"\nWARC/")?;
    if found {
        r.consume(1);
    }
    Ok(found)
}

/// Advances to the next occurrence of `pattern` (not consuming it).
pub(super) fn skip_to<R: BufRead>(r: &mut Counting<R>, pattern: &[u8]) -> io::Result<bool> {
    let mut carry: Vec<u8> = Vec::new();
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(false);
        }
        // Search the carried tail of the last buffer plus this one.
        let mut window = carry.clone();
        window.extend_from_slice(&buf[..buf.len().min(pattern.len())]);
        if let Some(i) = find(&window, pattern) {
            if i >= carry.len() {
                r.consume(i - carry.len());
                return Ok(true);
            }
            // Starts in the carried tail, already consumed: the record is
            // lost; keep looking past it.
        }
        if let Some(i) = find(buf, pattern) {
            r.consume(i);
            return Ok(true);
        }
        let keep = pattern.len() - 1;
        let n = buf.len();
        carry = buf[n.saturating_sub(keep)..].to_vec();
        r.consume(n);
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
