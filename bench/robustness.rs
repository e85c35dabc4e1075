//! Robustness of page and neighborhood detection to mutation (seed 001
//! §5.3–5.4), on real pages.
//!
//! Real pages from a directory (WCXB dev by default) are extracted with the
//! pipeline. The first SOURCE pages are the labeled source (their chunks,
//! whole contents, sampled shingles and SimHashes are the labeled set, as
//! `labels build` makes it). Copier sites republish the source pages after a
//! controlled mutation — chunks added (paragraphs of other real pages),
//! deleted, or modified (one word changed, chunks picked with replacement) —
//! in multiples of the mean chunks per page (cpp). Untouched real sites are
//! mixed in. Every page goes through the same pipeline and neighborhood
//! tracking as `crawlsieve scan` (default settings), and we measure how many
//! copier pages are flagged, how many copier neighborhoods are flagged, and
//! how many untouched pages and neighborhoods are (false flags).
//!
//! Run: cargo run --release -p crawlsieve-bench --example robustness -- [DIR]

mod common;

use common::{load, walk, Rng};
use crawlsieve_core::fingerprints::simhash::SimhashIndex;
use crawlsieve_core::labels::{compact::CompactSet, key, LabeledSet, LabeledSets, LabelsHandle};
use crawlsieve_core::neighborhoods::Neighborhoods;
use crawlsieve_core::{Kind, Page, Pipeline, Settings};
use std::path::PathBuf;
use std::sync::Arc;

const SOURCE: usize = 40;
const COPIER_SITES: usize = 4;
const PAGES_PER_SITE: usize = 10;
const UNTOUCHED_SITES: usize = 20;
const RUNS: u64 = 3;
/// The page badness threshold of the paper's mutation experiments (§5.3, Figures 4–6).
const PAPER_PAGE_THRESHOLD: f64 = 0.144;

fn html(paragraphs: &[String]) -> String {
    let mut s = String::from("<html><head><title>copy</title></head><body><article>");
    for p in paragraphs {
        s.push_str("<p>");
        s.push_str(&html_escape::encode_text(p));
        s.push_str("</p>");
    }
    s.push_str("</article></body></html>");
    s
}

#[derive(Default, Clone, Copy)]
struct Outcome {
    copier_pages: u32,
    copier_flagged: u32,
    copier_badness: f64,
    /// Copier pages judged for copying (not dropped by a filter, e.g. too short after deletions).
    copier_judged: u32,
    copier_hoods: u32,
    copier_hoods_bad: u32,
    untouched_pages: u32,
    untouched_flagged: u32,
    untouched_hoods: u32,
    untouched_hoods_bad: u32,
}

fn main() -> anyhow::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("../shared/data/extraction/wcxb-dev"));
    let base = Pipeline::new(Settings::defaults())?;
    let min_chars = Settings::defaults().chunks.min_chars as usize;
    let mut files = Vec::new();
    walk(&dir, &mut files);
    files.sort();
    // Real pages with at least 3 matchable paragraphs, as their content paragraphs.
    let mut docs: Vec<Vec<String>> = Vec::new();
    for f in &files {
        let Some(body) = load(f) else { continue };
        let Ok(x) = base
            .extractor()
            .extract(&Page::new("http://load.example/", &body[..]))
        else {
            continue;
        };
        let paras: Vec<String> = x.content.split('\n').map(str::to_string).collect();
        if paras
            .iter()
            .filter(|p| p.chars().count() >= min_chars)
            .count()
            >= 3
        {
            docs.push(paras);
        }
        if docs.len() >= SOURCE + UNTOUCHED_SITES * PAGES_PER_SITE + 200 {
            break;
        }
    }
    anyhow::ensure!(
        docs.len() > SOURCE + UNTOUCHED_SITES * PAGES_PER_SITE,
        "not enough pages in {}",
        dir.display()
    );
    let (source, rest) = docs.split_at(SOURCE);
    let (untouched, filler_docs) = rest.split_at(UNTOUCHED_SITES * PAGES_PER_SITE);
    let filler: Vec<&String> = filler_docs
        .iter()
        .flatten()
        .filter(|p| p.chars().count() >= min_chars)
        .collect();

    // The labeled set: the source pages' chunks and whole contents.
    let mut keys = Vec::new();
    let mut simhashes = Vec::new();
    let mut cpp = 0.0;
    for d in source {
        let m = base.matchable_text(&d.join("\n\n"));
        cpp += m.chunks.len() as f64;
        keys.extend(m.chunks.iter().map(key));
        keys.extend(m.whole.iter().map(key));
        // What `labels build` puts in a set: sampled shingles and the page's SimHash too.
        keys.extend_from_slice(&m.shingles);
        simhashes.extend(m.simhash);
    }
    cpp /= source.len() as f64;
    keys.sort_unstable();
    keys.dedup();
    let set = LabeledSet {
        name: "source".into(),
        version: "source@1".into(),
        number: 1,
        set: CompactSet::from_sorted(keys.iter().copied())?,
        simhashes: SimhashIndex::new(&simhashes),
        origins: Default::default(),
        immutables: false,
        items: None,
    };
    let sets = LabeledSets::empty()
        .with_set(Arc::new(set))
        .map_err(anyhow::Error::msg)?;
    let pipeline = Pipeline::with_labels(Settings::defaults(), LabelsHandle::new(sets))?;
    println!(
        "{} real pages from {}: {} labeled source pages ({} keys), {} untouched pages on {} sites, {} copier sites × {} pages; \
         mean matchable chunks per source page (cpp) = {:.1}; {} runs per point",
        docs.len(),
        dir.display(),
        source.len(),
        keys.len(),
        untouched.len(),
        UNTOUCHED_SITES,
        COPIER_SITES,
        PAGES_PER_SITE,
        cpp,
        RUNS
    );

    let multiples = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0];
    let mut false_pages = (0u32, 0u32);
    let mut false_hoods = (0u32, 0u32);
    for kind in ["add", "delete", "modify"] {
        println!("\n{kind}: chunks changed per page (× cpp) → copier pages flagged (any copy rule), their mean badness (1 for a flagged page, else its containment), copier neighborhoods flagged; untouched pages / neighborhoods flagged");
        println!(
            "{:>6} {:>7} {:>8} {:>14} {:>10} {:>16} {:>12} {:>12}",
            "× cpp",
            "chunks",
            "judged",
            "pages flagged",
            "badness",
            "hoods flagged",
            "false pages",
            "false hoods"
        );
        let mut page_tol = None;
        let mut paper_tol = None;
        let mut hood_tol = None;
        for &m in &multiples {
            let k = (m * cpp).round() as usize;
            let mut total = Outcome::default();
            for run in 0..RUNS {
                let mut rng = Rng(run * 1000 + k as u64 + kind.len() as u64 * 7);
                let o = one_run(&pipeline, source, untouched, &filler, kind, k, &mut rng);
                total.copier_pages += o.copier_pages;
                total.copier_flagged += o.copier_flagged;
                total.copier_badness += o.copier_badness;
                total.copier_judged += o.copier_judged;
                total.copier_hoods += o.copier_hoods;
                total.copier_hoods_bad += o.copier_hoods_bad;
                total.untouched_pages += o.untouched_pages;
                total.untouched_flagged += o.untouched_flagged;
                total.untouched_hoods += o.untouched_hoods;
                total.untouched_hoods_bad += o.untouched_hoods_bad;
            }
            let pf = total.copier_flagged as f64 / total.copier_pages.max(1) as f64;
            let hf = total.copier_hoods_bad as f64 / total.copier_hoods.max(1) as f64;
            let mean_badness = total.copier_badness / total.copier_pages.max(1) as f64;
            if pf >= 0.5 {
                page_tol = Some(m);
            }
            if mean_badness >= PAPER_PAGE_THRESHOLD {
                paper_tol = Some(m);
            }
            if hf >= 0.5 {
                hood_tol = Some(m);
            }
            false_pages.0 += total.untouched_flagged;
            false_pages.1 += total.untouched_pages;
            false_hoods.0 += total.untouched_hoods_bad;
            false_hoods.1 += total.untouched_hoods;
            println!(
                "{m:>6.1} {k:>7} {:>7.0}% {:>13.0}% {mean_badness:>10.3} {:>15.0}% {:>12} {:>12}",
                total.copier_judged as f64 * 100.0 / total.copier_pages.max(1) as f64,
                pf * 100.0,
                hf * 100.0,
                format!("{}/{}", total.untouched_flagged, total.untouched_pages),
                format!("{}/{}", total.untouched_hoods_bad, total.untouched_hoods)
            );
        }
        let show = |t: Option<f64>| t.map_or("< 0.5".to_string(), |m| format!("{m:.1}"));
        println!(
            "{kind}: detected up to {} × cpp for pages (≥ 50 % flagged), {} × cpp by the paper's criterion (mean badness ≥ {PAPER_PAGE_THRESHOLD}), {} × cpp for neighborhoods (≥ 50 % flagged) (largest tested: {:.1})",
            show(page_tol),
            show(paper_tol),
            show(hood_tol),
            multiples[multiples.len() - 1]
        );
    }
    println!(
        "\nfalse flags on untouched sites over all runs: pages {}/{} ({:.2} %), neighborhoods {}/{} ({:.2} %)",
        false_pages.0,
        false_pages.1,
        false_pages.0 as f64 * 100.0 / false_pages.1.max(1) as f64,
        false_hoods.0,
        false_hoods.1,
        false_hoods.0 as f64 * 100.0 / false_hoods.1.max(1) as f64
    );
    println!(
        "paper (seed 001 §5.3–5.4, cpp = 48): pages 1.8–4.5 × cpp, neighborhoods 4.4–5.4 × cpp"
    );
    Ok(())
}

fn one_run(
    pipeline: &Pipeline,
    source: &[Vec<String>],
    untouched: &[Vec<String>],
    filler: &[&String],
    kind: &str,
    k: usize,
    rng: &mut Rng,
) -> Outcome {
    let mut hoods = Neighborhoods::new(Settings::defaults().neighborhoods);
    let mut o = Outcome::default();
    let mut pages: Vec<(String, String, bool)> = Vec::new();
    for site in 0..COPIER_SITES {
        for p in 0..PAGES_PER_SITE {
            let mut paras = source[rng.below(source.len())].clone();
            common::mutate(&mut paras, kind, k, filler, false, rng);
            pages.push((
                format!("http://copier{site}.example/wiki/{p}.html"),
                html(&paras),
                true,
            ));
        }
    }
    for (i, d) in untouched.iter().enumerate() {
        let site = i % UNTOUCHED_SITES;
        pages.push((
            format!("http://site{site}.example/news/{i}.html"),
            html(d),
            false,
        ));
    }
    // Interleave, as a crawl would.
    for i in (1..pages.len()).rev() {
        pages.swap(i, rng.below(i + 1));
    }
    for (url, body, copier) in &pages {
        let v = pipeline.process(&Page::new(url.as_str(), body.as_bytes()));
        let flagged = v.verdict == Kind::Flag;
        if *copier {
            o.copier_pages += 1;
            o.copier_flagged += flagged as u32;
            o.copier_badness += Neighborhoods::contribution(&v).unwrap_or(0.0);
            o.copier_judged += Neighborhoods::contribution(&v).is_some() as u32;
        } else {
            o.untouched_pages += 1;
            o.untouched_flagged += flagged as u32;
        }
        hoods.observe_verdict(&v);
    }
    hoods.sweep();
    for (name, h) in hoods.iter() {
        if h.pages < hoods.min_pages() {
            continue;
        }
        if name.starts_with("copier") {
            o.copier_hoods += 1;
            o.copier_hoods_bad += h.bad as u32;
        } else {
            o.untouched_hoods += 1;
            o.untouched_hoods_bad += h.bad as u32;
        }
    }
    o
}
