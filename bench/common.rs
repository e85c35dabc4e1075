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

/// How a copier changes a labeled page (seed 001 §5.3): `k` times, add an
/// unrelated paragraph from `filler`, delete a paragraph, or change one word
/// of a random paragraph. With `keep_substance`, deletions stop short of the
/// last paragraph of 100+ characters (a copy that keeps nothing to match is
/// not a copy any more); without it they may empty the page, as in the paper.
pub fn mutate<S: AsRef<str>>(
    paragraphs: &mut Vec<String>,
    kind: &str,
    k: usize,
    filler: &[S],
    keep_substance: bool,
    rng: &mut Rng,
) {
    let p = paragraphs;
    match kind {
        "add" => {
            for _ in 0..k {
                let at = rng.below(p.len() + 1);
                p.insert(at, filler[rng.below(filler.len())].as_ref().to_string());
            }
        }
        "delete" => {
            let substantive = |s: &String| s.chars().count() >= 100;
            for _ in 0..k.min(p.len()) {
                let at = rng.below(p.len());
                if keep_substance
                    && substantive(&p[at])
                    && p.iter().filter(|s| substantive(s)).count() == 1
                {
                    continue;
                }
                p.remove(at);
            }
        }
        "modify" => {
            for _ in 0..k {
                let at = rng.below(p.len());
                let mut words: Vec<String> = p[at].split(' ').map(str::to_string).collect();
                let w = rng.below(words.len());
                words[w] = format!("zq{:x}", rng.next() % 0xfffff);
                p[at] = words.join(" ");
            }
        }
        other => panic!("unknown mutation {other}"),
    }
}
