//! The tokenizer against lol_html on real pages: the same analysis? how fast?
//!
//! `cargo run --release -p crawlsieve-bench --example parsers [DIR...]` (default: every HTML page
//! of ../shared/data/extraction). For each page both passes run (outline on);
//! it prints how many pages give the same text, blocks, title and metadata,
//! the bag-of-words F1 between the two texts (mean and the worst pages), and
//! each parser's time for the whole set (best of 3). `--time-only` skips the
//! comparison and times the tokenizer's pass alone, with the outline and
//! without it (as the verdict pipeline runs it), for profiling.

mod common;

use crawlsieve_core::analyse::{analyse, analyse_by, Analysis, Parser};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

fn bag(text: &str) -> HashMap<&str, i64> {
    let mut m = HashMap::new();
    for w in text.split_whitespace() {
        *m.entry(w).or_insert(0) += 1;
    }
    m
}

/// Bag-of-words F1 of `b` against `a` (1 when both are empty).
fn f1(a: &str, b: &str) -> f64 {
    let (ba, bb) = (bag(a), bag(b));
    let (na, nb): (i64, i64) = (ba.values().sum(), bb.values().sum());
    if na == 0 && nb == 0 {
        return 1.0;
    }
    let common: i64 = ba
        .iter()
        .map(|(w, &c)| c.min(*bb.get(w).unwrap_or(&0)))
        .sum();
    2.0 * common as f64 / (na + nb) as f64
}

/// The outline's attribute-valued fields.
fn metas(a: &Analysis) -> String {
    a.outline.as_deref().map_or(String::new(), |o| {
        format!("{:?} {:?} {:?}", o.canonical, o.lang, o.metas)
    })
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let time_only = args.iter().any(|a| a == "--time-only");
    args.retain(|a| a != "--time-only");
    let dirs = if args.is_empty() {
        vec!["../shared/data/extraction".to_string()]
    } else {
        args
    };
    let mut files: Vec<PathBuf> = Vec::new();
    for d in &dirs {
        common::walk(std::path::Path::new(d), &mut files);
    }
    files.sort();
    let pages: Vec<(PathBuf, String)> = files
        .into_iter()
        .filter_map(|p| {
            let b = common::load(&p)?;
            Some((p, String::from_utf8_lossy(&b).into_owned()))
        })
        .collect();
    let bytes: usize = pages.iter().map(|(_, h)| h.len()).sum();
    if time_only {
        time(&pages, Parser::Tokenizer, bytes);
        time_plain(&pages, bytes);
        return;
    }
    let (mut same_text, mut same_blocks, mut same_title, mut same_meta) = (0, 0, 0, 0);
    let mut scores = Vec::new();
    for (path, html) in &pages {
        let (Ok(t), Ok(l)) = (
            analyse_by(html, Parser::Tokenizer),
            analyse_by(html, Parser::LolHtml),
        ) else {
            println!("parse error: {}", path.display());
            continue;
        };
        same_text += (t.text == l.text) as usize;
        same_blocks += (t.blocks.len() == l.blocks.len()) as usize;
        same_title += (t.title == l.title) as usize;
        same_meta += (metas(&t) == metas(&l)) as usize;
        if t.text != l.text {
            scores.push((f1(&l.text, &t.text), path.clone(), t.words, l.words));
        }
    }
    let n = pages.len();
    let mean = (scores.iter().map(|s| s.0).sum::<f64>() + (n - scores.len()) as f64) / n as f64;
    println!(
        "{n} pages, {:.1} MB: same text {same_text}, same block count {same_blocks}, same title {same_title}, same metadata {same_meta}",
        bytes as f64 / 1e6
    );
    println!("bag-of-words F1 of the tokenizer's text against lol_html's: mean {mean:.5}");
    scores.sort_by(|a, b| a.0.total_cmp(&b.0));
    println!("pages whose text differs (F1, words tokenizer vs lol_html):");
    for (f, p, tw, lw) in scores.iter().take(10) {
        println!("  {f:.3}  words {tw} vs {lw}  {}", p.display());
    }
    for parser in [Parser::Tokenizer, Parser::LolHtml] {
        time(&pages, parser, bytes);
    }
}

/// Times `parser` over `pages` (the pass with the outline), best of 3.
fn time(pages: &[(PathBuf, String)], parser: Parser, bytes: usize) {
    let label = format!("{parser:?}: the HTML pass with outline");
    best_of_3(pages, bytes, &label, |html| {
        analyse_by(html, parser).map(|a| a.words).ok()
    });
}

/// Times the pass as the verdict pipeline runs it (no outline), best of 3;
/// kept out of line for `valgrind --toggle-collect='*parsers::time_plain*'`.
#[inline(never)]
fn time_plain(pages: &[(PathBuf, String)], bytes: usize) {
    best_of_3(
        pages,
        bytes,
        "Tokenizer: the HTML pass without outline",
        |html| analyse(html, None).map(|a| a.words).ok(),
    );
}

fn best_of_3(
    pages: &[(PathBuf, String)],
    bytes: usize,
    label: &str,
    pass: impl Fn(&str) -> Option<u32>,
) {
    let best = (0..3)
        .map(|_| {
            let t = Instant::now();
            for (_, html) in pages {
                std::hint::black_box(pass(html));
            }
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min);
    println!(
        "{label}: {best:.3} s, {:.0} MB/s (one core, best of 3)",
        bytes as f64 / 1e6 / best
    );
}
