//! What the benchmark examples share: a seeded generator and reading real pages.
#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};

/// SplitMix64: small, seeded, the same sequence on every machine.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The HTML files (`*.htm*`, plain or gzipped) below `dir`; a missing directory has none.
pub fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.to_string_lossy().contains(".htm") {
            out.push(p);
        }
    }
}

/// A file's bytes, gunzipped when its name ends in `.gz`.
pub fn load(p: &Path) -> Option<Vec<u8>> {
    let raw = std::fs::read(p).ok()?;
    if p.to_string_lossy().ends_with(".gz") {
        let mut v = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut v)
            .ok()?;
        Some(v)
    } else {
        Some(raw)
    }
}
