//! What the corpus rule sets (`filters.rules`) cost: in the default pipeline
//! on real pages, and on text alone.
//!
//! ```sh
//! cargo run --release -p crawlsieve-bench --example corpus_rules [HTML_DIR] [ROUNDS]
//! ```
//!
//! 1. The default pipeline over the pages in memory, one core, with no rule
//!    set, each set alone and all four; the rounds interleaved, medians
//!    reported, and each set's cost as a share of the pipeline's time.
//! 2. Each set alone on the pages' extracted text (what `bench/corpus_filters.py`
//!    gives datatrove's filters, whose CPU seconds it prints): seconds for
//!    all texts and MB/s.

#[path = "common.rs"]
mod common;

use crawlsieve_core::filters::{self, RuleSet};
use crawlsieve_core::input::page::Page;
use crawlsieve_core::{Pipeline, Settings};
use std::path::PathBuf;
use std::time::Instant;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args.first().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/data/extraction/wcxb-dev/dev/html")
    });
    let rounds: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(5);
    let mut files = Vec::new();
    common::walk(&dir, &mut files);
    files.sort();
    let bodies: Vec<Vec<u8>> = files.iter().filter_map(|f| common::load(f)).collect();
    let pages: Vec<Page> = bodies
        .iter()
        .enumerate()
        .map(|(i, b)| Page::new(format!("http://bench.example/{i}"), &b[..]))
        .collect();
    let mb = bodies.iter().map(Vec::len).sum::<usize>() as f64 / 1e6;
    println!("{}: {} pages, {mb:.1} MB", dir.display(), pages.len());

    let variants: Vec<(&str, Vec<RuleSet>)> = std::iter::once(("none", vec![]))
        .chain(RuleSet::ALL.iter().map(|s| (s.name(), vec![*s])))
        .chain(std::iter::once(("all four", RuleSet::ALL.to_vec())))
        .collect();
    let pipelines: Vec<Pipeline> = variants
        .iter()
        .map(|(_, rules)| {
            let mut s = Settings::defaults();
            s.filters.rules = rules.clone();
            Pipeline::new(s)
        })
        .collect::<anyhow::Result<_>>()?;
    // `text` as a third argument: part 2 alone (for a profiler).
    let text_only = args.get(2).is_some_and(|a| a == "text");
    let mut times = vec![Vec::new(); variants.len()];
    for _ in 0..if text_only { 0 } else { rounds } {
        for (i, p) in pipelines.iter().enumerate() {
            let t = Instant::now();
            for page in &pages {
                std::hint::black_box(p.process(page));
            }
            times[i].push(t.elapsed().as_secs_f64());
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let base = if text_only {
        1.0
    } else {
        median(&mut times[0].clone())
    };
    println!("1. the default pipeline, median of {rounds} interleaved rounds (min–max)");
    for (i, (name, _)) in variants.iter().enumerate().filter(|_| !text_only) {
        let (lo, hi) = (
            times[i].iter().cloned().fold(f64::MAX, f64::min),
            times[i].iter().cloned().fold(0.0, f64::max),
        );
        let m = median(&mut times[i]);
        println!(
            "   {name:18} {m:.3} s ({lo:.3}–{hi:.3})  {:.0} MB/s  cost {:+.1} %",
            mb / m,
            (m / base - 1.0) * 100.0
        );
    }

    let texts: Vec<String> = pages
        .iter()
        .filter_map(|p| pipelines[0].extractor().extract(p).ok())
        .map(|e| e.content)
        .filter(|t| !t.is_empty())
        .collect();
    let text_mb = texts.iter().map(String::len).sum::<usize>() as f64 / 1e6;
    println!(
        "2. text alone: {} texts, {text_mb:.1} MB; best of {rounds}",
        texts.len()
    );
    let mut best = f64::MAX;
    for _ in 0..rounds {
        let t = Instant::now();
        for text in &texts {
            std::hint::black_box(filters::words::words(text));
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "   {:18} {best:.3} s  {:.0} MB/s  {:.1} µs a text",
        "(words alone)",
        text_mb / best,
        best * 1e6 / texts.len() as f64
    );
    for set in RuleSet::ALL {
        let mut s = Settings::defaults().filters;
        s.rules = vec![set];
        let mut best = f64::MAX;
        for _ in 0..rounds {
            let t = Instant::now();
            for text in &texts {
                std::hint::black_box(filters::rule(text, &s));
            }
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "   {:18} {best:.3} s  {:.0} MB/s  {:.1} µs a text",
            set.name(),
            text_mb / best,
            best * 1e6 / texts.len() as f64
        );
    }
    Ok(())
}
