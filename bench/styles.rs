//! Hidden style similarity on real pages (issue 16, seed 003).
//!
//! `bench/styles_corpus.py && cargo run --release -p crawlsieve-bench --example styles -- target/styles-corpus.jsonl ../shared/data/warc`
//!
//! 1. Every pair of pages, same registered domain vs different: ROC AUC of
//!    `Sim_b`, precision and recall at the paper's 20/128 and at other cuts.
//! 2. `Sim_b` against the exact Dice measure over the pages' full sets of
//!    32-byte noise parts (the paper's Figure 1), on every same-domain pair
//!    and a seeded sample of other pairs: binned means, mean absolute error,
//!    correlation.
//! 3. Procedure 2 (p = 20, t = 35) on the whole corpus: clusters, and pairs
//!    inside clusters that share a domain (domain is a lower bound on "same
//!    generator": one template serves many domains).
//! 4. Fingerprint cost: µs a page and MB/s, one core.

#[path = "common.rs"]
mod common;

use common::Rng;
use crawlsieve_core::crawl::styles::cluster::{self, Params};
use crawlsieve_core::crawl::styles::store::{PageRef, Store};
use crawlsieve_core::fingerprints::style::{fingerprint, for_each_part, Fingerprint, M};
use crawlsieve_core::input::page::Input;
use crawlsieve_core::input::sources::{self, Limits};
use std::time::Instant;

struct Page {
    site: Option<String>,
    html: String,
    fp: Fingerprint,
}

fn main() -> anyhow::Result<()> {
    let inputs: Vec<String> = std::env::args().skip(1).collect();
    anyhow::ensure!(!inputs.is_empty(), "usage: styles CORPUS.jsonl|DIR ...");
    let settings = crawlsieve_core::Settings::defaults();
    let limits = Limits::new(&settings.input);
    let mut pages: Vec<Page> = Vec::new();
    for input in sources::expand_inputs(&inputs)? {
        let mut source = sources::open(&input, &limits)?;
        let mut stats = sources::SourceStats::default();
        source.run(
            &mut |i| {
                if let Input::Page(p) = i {
                    let text = crawlsieve_core::input::decode::decode_page(&p);
                    pages.push(Page {
                        site: crawlsieve_core::input::site::registered_domain(&p.url),
                        html: text.text.into_owned(),
                        fp: Fingerprint([0; M]),
                    });
                }
                Ok(())
            },
            &mut stats,
        )?;
    }
    let bytes: usize = pages.iter().map(|p| p.html.len()).sum();
    println!("{} pages, {:.0} MB", pages.len(), bytes as f64 / 1e6);

    // 4. Cost (best of 3 passes).
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        for p in pages.iter_mut() {
            p.fp = fingerprint(p.html.as_bytes());
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "cost: {:.0} µs a page, {:.0} MB/s (best of 3 passes, one core)",
        best * 1e6 / pages.len() as f64,
        bytes as f64 / 1e6 / best
    );
    let filled: Vec<u32> = pages.iter().map(|p| p.fp.filled()).collect();
    let full = filled.iter().filter(|&&f| f == M as u32).count();
    println!(
        "filled dimensions: {} of {} pages fill all 128",
        full,
        pages.len()
    );

    // 1. All pairs.
    let mut same = [0u64; M + 1];
    let mut diff = [0u64; M + 1];
    for i in 0..pages.len() {
        for j in i + 1..pages.len() {
            let m = pages[i].fp.matched(&pages[j].fp) as usize;
            match (&pages[i].site, &pages[j].site) {
                (Some(a), Some(b)) if a == b => same[m] += 1,
                (Some(_), Some(_)) => diff[m] += 1,
                _ => {}
            }
        }
    }
    let (ns, nd) = (same.iter().sum::<u64>(), diff.iter().sum::<u64>());
    // AUC = P(same > diff) + ½ P(tie), from the two histograms.
    let mut below = 0u64;
    let mut auc = 0f64;
    for m in 0..=M {
        auc += same[m] as f64 * (below as f64 + diff[m] as f64 / 2.0);
        below += diff[m];
    }
    auc /= ns as f64 * nd as f64;
    println!("\npairs: {ns} same-domain, {nd} different-domain; ROC AUC {auc:.3}");
    println!("| cut (of 128) | same-domain pairs at or above (recall) | different-domain pairs at or above | precision |");
    println!("|---|---|---|---|");
    for cut in [10usize, 20, 35, 50, 64] {
        let s: u64 = same[cut..].iter().sum();
        let d: u64 = diff[cut..].iter().sum();
        println!(
            "| {cut} | {s} ({:.3}) | {d} ({:.5}) | {:.3} |",
            s as f64 / ns as f64,
            d as f64 / nd as f64,
            s as f64 / (s + d).max(1) as f64
        );
    }

    // 2. Against exact Dice.
    let mut rng = Rng(16);
    let mut pairs: Vec<(usize, usize, bool)> = Vec::new();
    for i in 0..pages.len() {
        for j in i + 1..pages.len() {
            if let (Some(a), Some(b)) = (&pages[i].site, &pages[j].site) {
                if a == b {
                    pairs.push((i, j, true));
                }
            }
        }
    }
    let same_pairs = pairs.len();
    while pairs.len() < same_pairs + 2000 {
        let (i, j) = (rng.below(pages.len()), rng.below(pages.len()));
        if i != j && pages[i].site != pages[j].site {
            pairs.push((i.min(j), i.max(j), false));
        }
    }
    // A few pairs with high similarity across domains (templates) are the
    // interesting middle of the curve: add the 300 most similar.
    let mut cross: Vec<(u32, usize, usize)> = Vec::new();
    for i in 0..pages.len() {
        for j in i + 1..pages.len() {
            if pages[i].site != pages[j].site {
                let m = pages[i].fp.matched(&pages[j].fp);
                if m >= 20 {
                    cross.push((m, i, j));
                }
            }
        }
    }
    cross.sort_unstable_by(|a, b| b.cmp(a));
    pairs.extend(cross.iter().take(300).map(|&(_, i, j)| (i, j, false)));
    let mut parts: std::collections::HashMap<usize, Vec<u64>> = Default::default();
    let mut set_of = |i: usize, pages: &[Page]| -> Vec<u64> {
        parts
            .entry(i)
            .or_insert_with(|| {
                let mut v = Vec::new();
                for_each_part(pages[i].html.as_bytes(), |h| v.push(h));
                v.sort_unstable();
                v.dedup();
                v
            })
            .clone()
    };
    let mut bins = vec![(0u64, 0f64, 0f64); 10];
    let (mut abs_err, mut abs_err_j, mut n) = (0f64, 0f64, 0f64);
    let (mut sx, mut sy, mut sxx, mut syy, mut sxy) = (0f64, 0f64, 0f64, 0f64, 0f64);
    for &(i, j, _) in &pairs {
        let (a, b) = (set_of(i, &pages), set_of(j, &pages));
        if a.is_empty() || b.is_empty() {
            continue;
        }
        let common = crawlsieve_core::crawl::sort::intersection_len(&a, &b);
        let dice = 2.0 * common as f64 / (a.len() + b.len()) as f64;
        let est = pages[i].fp.similarity(&pages[j].fp);
        let bin = ((dice * 10.0) as usize).min(9);
        bins[bin].0 += 1;
        bins[bin].1 += est;
        bins[bin].2 += est * est;
        abs_err += (est - dice).abs();
        let jaccard = common as f64 / (a.len() + b.len() - common) as f64;
        abs_err_j += (est - jaccard).abs();
        n += 1.0;
        sx += dice;
        sy += est;
        sxx += dice * dice;
        syy += est * est;
        sxy += dice * est;
    }
    let corr = (n * sxy - sx * sy) / ((n * sxx - sx * sx).sqrt() * (n * syy - sy * sy).sqrt());
    println!(
        "\nSim_b against exact Dice ({} pairs: {same_pairs} same-domain, 2000 random, 300 most similar across domains): mean |Sim_b − Dice| {:.3}, Pearson r {:.3}; mean |Sim_b − Jaccard| {:.3}",
        n as u64,
        abs_err / n,
        corr,
        abs_err_j / n
    );
    println!("| exact Dice | pairs | mean Sim_b | sd |");
    println!("|---|---|---|---|");
    for (b, &(c, s, ss)) in bins.iter().enumerate() {
        if c > 0 {
            let mean = s / c as f64;
            let sd = (ss / c as f64 - mean * mean).max(0.0).sqrt();
            println!(
                "| {:.1}–{:.1} | {c} | {mean:.3} | {sd:.3} |",
                b as f64 / 10.0,
                (b + 1) as f64 / 10.0
            );
        }
    }

    // 3. Procedure 2.
    let mut store = Store::new(&std::env::temp_dir(), 512 << 20)?;
    for p in &pages {
        store.push(
            &p.fp,
            &PageRef {
                url: String::new(),
                site: p.site.clone(),
            },
        )?;
    }
    store.seal()?;
    let t = Instant::now();
    let graph = cluster::components(&store, Params::PAPER)?;
    let mut of_cluster: Vec<u32> = vec![0; pages.len()];
    let clusters = cluster::clusters(&store, &graph, 2, 0, |p, c| {
        of_cluster[p] = c;
        Ok(())
    })?;
    let took = t.elapsed();
    let (mut in_same, mut in_pairs, mut same_found) = (0u64, 0u64, 0u64);
    for i in 0..pages.len() {
        for j in i + 1..pages.len() {
            let both = of_cluster[i] != 0 && of_cluster[i] == of_cluster[j];
            let sd = pages[i].site.is_some() && pages[i].site == pages[j].site;
            if both {
                in_pairs += 1;
                in_same += sd as u64;
            }
            same_found += (sd && both) as u64;
        }
    }
    let clustered = of_cluster.iter().filter(|&&c| c != 0).count();
    let multi = clusters.iter().filter(|c| c.sites > 1).count();
    println!(
        "\nProcedure 2 (p={} t={}): {} clusters ({} spanning several domains) hold {} of {} pages in {:.1} ms; {} checks, {} edges. Pairs inside clusters: {} ({:.3} share a domain); same-domain pairs inside one cluster: {:.3}",
        Params::PAPER.probes,
        Params::PAPER.check,
        clusters.len(),
        multi,
        clustered,
        pages.len(),
        took.as_secs_f64() * 1e3,
        graph.stats.checks,
        graph.stats.edges,
        in_pairs,
        in_same as f64 / in_pairs.max(1) as f64,
        same_found as f64 / ns as f64,
    );
    Ok(())
}
