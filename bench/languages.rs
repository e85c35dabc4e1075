//! Language detection on pages built from real sentences of 75 languages.
//!
//! ```sh
//! cargo run --release -p crawlsieve-bench --example languages -- ../shared/data/langid/sentences
//! ```
//!
//! Pages of about 250 B, 1 KB and 4 KB are built from consecutive sentences
//! of `../shared/data/langid` (lingua-rs's test sentences: not the text its
//! models — nor crawlsieve's profiles, taken from them — were learnt from).
//! The first 100 sentences of each language are the *dev* half (where
//! `language.min_margin` was chosen), the last 100 the *test* half. For each
//! page: whatlang alone (what crawlsieve did before), the profiles alone,
//! `language::detect` (what crawlsieve does), and the whole pipeline on the
//! page as HTML with default settings (`lang` of the verdict; pages dropped
//! before detection count as unknown and are reported apart).
//!
//! Options: `--per-language` prints a row per language; `--markdown` a
//! Markdown table of `detect` per language and size; `--show-wrong` the
//! start of each page given a wrong code; `--margin X` sets
//! `language.min_margin`; `--udhr X` `language.udhr_margin`; `--words X` `language.words_margin`; `--declaration-words X` `language.declaration_words`; `--novelty X` `language.novelty_margin`; `--fasttext X` `language.fasttext_probability`; `--alphabet X` `language.alphabet_share`; `--half dev|test|all` (default test).

use crawlsieve_core::language::{self, profiles::Profiles, Thresholds};
use crawlsieve_core::{Page, Pipeline, Settings};
use std::collections::BTreeMap;
use std::time::Instant;

#[path = "langid_pages.rs"]
mod langid_pages;

/// Right / unknown / wrong counts.
#[derive(Default, Clone, Copy)]
struct Tally {
    right: u32,
    /// The page's macrolanguage (`msa` for an Indonesian page): right at a
    /// coarser grain, counted apart.
    coarse: u32,
    unknown: u32,
    wrong: u32,
}

impl Tally {
    fn add(&mut self, truth: &str, got: Option<&str>) {
        match got {
            None => self.unknown += 1,
            Some(g) if g == truth => self.right += 1,
            Some(g) if coarse(truth, g) => self.coarse += 1,
            Some(_) => self.wrong += 1,
        }
    }
    fn n(&self) -> f64 {
        (self.right + self.coarse + self.unknown + self.wrong).max(1) as f64
    }
    fn show(&self) -> String {
        let n = self.n();
        format!(
            "{:.3} / {:.3} / {:.3} / {:.3}",
            self.right as f64 / n,
            self.coarse as f64 / n,
            self.unknown as f64 / n,
            self.wrong as f64 / n
        )
    }
}

/// Whether `got` is the macrolanguage of `truth` (not `truth` itself).
fn coarse(truth: &str, got: &str) -> bool {
    language::MACROLANGUAGES
        .iter()
        .any(|m| m.code == got && m.code != truth && m.members.contains(&truth))
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args
        .iter()
        .find(|a| !a.starts_with("--") && std::path::Path::new(a).is_dir())
        .cloned()
        .unwrap_or_else(|| "../shared/data/langid/sentences".into());
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let per_language = args.iter().any(|a| a == "--per-language");
    let table = args.iter().any(|a| a == "--markdown");
    let mut by_size: Vec<BTreeMap<&str, Tally>> = Vec::new();
    let show_wrong = args.iter().any(|a| a == "--show-wrong");
    let half = value("--half").unwrap_or_else(|| "test".into());
    let mut t = Thresholds::default();
    if let Some(m) = value("--udhr") {
        t.udhr_margin = m.parse()?;
    }
    if let Some(m) = value("--words") {
        t.words_margin = m.parse()?;
    }
    if let Some(m) = value("--declaration-words") {
        t.declaration_words = m.parse()?;
    }
    if let Some(m) = value("--novelty") {
        t.novelty_margin = m.parse()?;
    }
    if let Some(m) = value("--fasttext") {
        t.fasttext_probability = m.parse()?;
    }
    if let Some(m) = value("--alphabet") {
        t.alphabet_share = m.parse()?;
    }
    if let Some(m) = value("--margin") {
        t.min_margin = m.parse()?;
    }
    let settings = Settings::load(
        None,
        &[
            ("language.min_margin", t.min_margin.into()),
            ("language.udhr_margin", t.udhr_margin.into()),
            ("language.words_margin", t.words_margin.into()),
            ("language.declaration_words", t.declaration_words.into()),
            ("language.novelty_margin", t.novelty_margin.into()),
            (
                "language.fasttext_probability",
                t.fasttext_probability.into(),
            ),
            ("language.alphabet_share", t.alphabet_share.into()),
        ],
    )?;
    let sample_bytes = settings.language.sample_bytes;
    let pipeline = Pipeline::new(settings)?;
    let profiles = Profiles::shipped();
    println!(
        "half {half}, language.min_margin {}, udhr_margin {}, words_margin {}, declaration_words {}, novelty_margin {}, fasttext_probability {}, alphabet_share {}, sample_bytes {sample_bytes}; right / macrolanguage / unknown / wrong",
        t.min_margin, t.udhr_margin, t.words_margin, t.declaration_words, t.novelty_margin, t.fasttext_probability, t.alphabet_share
    );
    println!(
        "{:>6} {:>6}  {:<29} {:<29} {:<29} {:<29} {:>9} {:>9} {:>9} {:>9}",
        "size",
        "pages",
        "whatlang alone",
        "profiles alone",
        "crawlsieve detect",
        "pipeline (scan)",
        "wl µs",
        "prof µs",
        "cs µs",
        "dropped"
    );
    for size in [250usize, 1024, 4096] {
        let pages = langid_pages::pages(std::path::Path::new(&dir), size, &half)?;
        let (mut wl, mut pr, mut cs, mut sc) = (
            Tally::default(),
            Tally::default(),
            Tally::default(),
            Tally::default(),
        );
        let mut per: BTreeMap<&str, [Tally; 2]> = BTreeMap::new();
        let mut wrongs: BTreeMap<(&str, String), u32> = BTreeMap::new();
        let mut dropped = 0;
        // Timings: each detector over all pages, best of 3.
        let time = |f: &dyn Fn(&str)| {
            (0..3)
                .map(|_| {
                    let t0 = Instant::now();
                    for (_, text) in &pages {
                        f(text);
                    }
                    t0.elapsed().as_secs_f64() * 1e6 / pages.len() as f64
                })
                .fold(f64::MAX, f64::min)
        };
        let wl_us = time(&|text| {
            std::hint::black_box(whatlang::detect(crawlsieve_core::analyse::text::prefix(
                text,
                sample_bytes,
            )));
        });
        let pr_us = time(&|text| {
            let sample = crawlsieve_core::analyse::text::prefix(text, sample_bytes);
            std::hint::black_box(
                whatlang::detect_script(sample).and_then(|s| profiles.score(sample, s)),
            );
        });
        let cs_us = time(&|text| {
            std::hint::black_box(language::detect(text, sample_bytes, t));
        });
        for (truth, text) in &pages {
            let sample = crawlsieve_core::analyse::text::prefix(text, sample_bytes);
            let w = whatlang::detect(sample)
                .filter(|i| i.is_reliable())
                .map(|i| i.lang().code());
            wl.add(truth, w);
            let p = whatlang::detect_script(sample)
                .and_then(|s| profiles.score(sample, s))
                .map(|s| profiles.langs()[s.best].code)
                .or_else(|| whatlang::detect(sample).map(|i| i.lang().code()));
            pr.add(truth, p);
            let got = language::detect(text, sample_bytes, t).code;
            cs.add(truth, got);
            if let Some(g) = got.filter(|g| g != truth && !coarse(truth, g)) {
                *wrongs.entry((truth, g.to_string())).or_default() += 1;
                if show_wrong {
                    println!(
                        "    {truth} → {g}: {}",
                        crawlsieve_core::analyse::text::prefix(text, 300)
                    );
                }
            }
            let html = format!(
                "<html><head><title>t</title></head><body><article><p>{}</p></article></body></html>",
                html_escape::encode_text(text)
            );
            let v = pipeline.process(&Page::new("http://example.com/p", html.as_bytes()));
            let lang = v.lang.as_deref().filter(|l| *l != "unknown");
            if v.lang.is_none() {
                dropped += 1;
            }
            sc.add(truth, lang);
            let e = per.entry(truth).or_default();
            e[0].add(truth, got);
            e[1].add(truth, lang);
        }
        println!(
            "{:>6} {:>6}  {:<29} {:<29} {:<29} {:<29} {:>9.1} {:>9.1} {:>9.1} {:>9}",
            size,
            pages.len(),
            wl.show(),
            pr.show(),
            cs.show(),
            sc.show(),
            wl_us,
            pr_us,
            cs_us,
            dropped
        );
        by_size.push(per.iter().map(|(l, [d, _])| (*l, *d)).collect());
        if per_language {
            for (lang, [d, s]) in &per {
                println!("    {lang}  detect {}  pipeline {}", d.show(), s.show());
            }
            for ((truth, got), n) in &wrongs {
                println!("    wrong {truth} → {got} ×{n}");
            }
        }
    }
    if table {
        // One row per language: `crawlsieve detect` at each size.
        println!("\n| language | 250 B | 1 KB | 4 KB |\n|---|---|---|---|");
        for lang in by_size[0].keys() {
            let cell =
                |m: &BTreeMap<&str, Tally>| m.get(lang).map(|t| t.show()).unwrap_or_default();
            println!(
                "| {lang} | {} | {} | {} |",
                cell(&by_size[0]),
                cell(&by_size[1]),
                cell(&by_size[2])
            );
        }
    }
    Ok(())
}
