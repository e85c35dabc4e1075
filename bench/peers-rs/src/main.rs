//! `peers-rs rs-trafilatura LISTFILE`: extracts every page named in LISTFILE
//! (one path per line, plain or gzipped HTML) with rs-trafilatura, the pages
//! held in memory, best of two passes on one core; prints the same JSON
//! object as bench/throughput.py's Python peers.

use std::io::Read;
use std::time::Instant;

fn load(path: &str) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        out
    } else {
        raw
    }
}

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    assert!(
        args.len() == 3 && args[1] == "rs-trafilatura",
        "usage: peers-rs rs-trafilatura LISTFILE"
    );
    let list = std::fs::read_to_string(&args[2]).expect("the list file");
    let pages: Vec<(usize, String)> = list
        .lines()
        .filter(|l| !l.is_empty())
        .map(|p| {
            let raw = load(p);
            (raw.len(), String::from_utf8_lossy(&raw).into_owned())
        })
        .collect();
    let mut best = f64::INFINITY;
    let mut words = 0usize;
    for _ in 0..2 {
        let t = Instant::now();
        for (_, html) in &pages {
            // A page it cannot extract counts its time, like the Python peers'.
            if let Ok(r) = rs_trafilatura::extract(html) {
                words += r.content_text.split_whitespace().count();
            }
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    std::hint::black_box(words);
    let mb = pages.iter().map(|(n, _)| n).sum::<usize>() as f64 / 1e6;
    println!(
        "{}",
        serde_json::json!({
            "pages": pages.len(), "megabytes": mb, "seconds": best, "mb_per_s": mb / best,
            "pages_per_s": pages.len() as f64 / best, "peak_rss_mb": peak_rss_mb(),
        })
    );
}
