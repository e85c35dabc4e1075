//! Spun content through the real binary, on real articles (WCXB dev): a set
//! built with immutables (format 4), spins of its articles found by `spun`,
//! a page quoting one paragraph not, `crawlsieve spun` clustering the spins
//! with exact copies apart, and the report's section.
//!
//! The spinner here swaps every word of the shipped dictionary for another
//! of its words — a spin with our own dictionary. Spins by thesauri we do not
//! ship are the benchmark's (`bench/spun.py`), which needs Debian packages.

use crate::common;

use common::{bin, ok, shared_data, signed_source_set, verdicts, wcxb_pages};
use serde_json::Value;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;

/// The shipped English mutables, each mapped to another of them (`k` of 2
/// spinners: their choices differ).
fn spinner(k: usize) -> HashMap<String, String> {
    let gz = std::fs::read(common::repo().join("rules/mutables.tsv.gz")).unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut text)
        .unwrap();
    let line = text.lines().find(|l| l.starts_with("eng\t")).unwrap();
    let words: Vec<&str> = line[4..].split(' ').collect();
    // Far apart in the sorted list, so a word never maps to its own inflection.
    let n = words.len();
    (0..n)
        .map(|i| {
            (
                words[i].to_string(),
                words[(i + n / 3 * (k + 1)) % n].to_string(),
            )
        })
        .collect()
}

fn spin(text: &str, syn: &HashMap<String, String>) -> String {
    text.split(' ')
        .map(|w| match syn.get(&w.to_lowercase()) {
            Some(s) => s.clone(),
            None => w.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn farm_page(url: &str, paragraphs: &[String]) -> String {
    let body: String = paragraphs.iter().map(|p| format!("<p>{p}</p>")).collect();
    serde_json::json!({
        "url": url,
        "html": format!(
            "<html><head><title>Articles</title></head><body><nav><a href=/>Home</a> <a href=/submit>Submit an article</a></nav>\
             <article><h1>An article</h1>{body}</article><footer>Reprint freely with this box intact.</footer></body></html>"
        ),
    })
    .to_string()
}

/// The articles' extracted paragraphs, by the real binary.
fn texts(dir: &Path, pages: &[String]) -> Vec<Vec<String>> {
    let files: Vec<std::path::PathBuf> = pages
        .iter()
        .enumerate()
        .map(|(i, html)| {
            let f = dir.join(format!("article-{i:03}.html"));
            std::fs::write(&f, html).unwrap();
            f
        })
        .collect();
    common::extracted(&files)
        .into_iter()
        .map(|ps| ps.into_iter().filter(|p| !p.trim().is_empty()).collect())
        .collect()
}

#[test]
fn spins_are_found_in_the_stream_and_clustered_across_the_crawl() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    // Long English articles: WCXB pages of 30-120 kB whose content has 300+ words.
    let pages = wcxb_pages(&data, 80, 30_000..120_000);
    let all = texts(dir.path(), &pages);
    let english = |t: &Vec<String>| {
        let text = t.join(" ");
        text.split(' ').count() >= 300
            && [" the ", " and ", " of "].iter().all(|w| text.contains(w))
    };
    let chosen: Vec<usize> = (0..pages.len())
        .filter(|&i| english(&all[i]))
        .take(7)
        .collect();
    assert!(
        chosen.len() == 7,
        "seven English articles among the WCXB pages"
    );
    let (labeled, unlabeled) = chosen.split_at(6);
    let set = signed_source_set(
        dir.path(),
        &labeled
            .iter()
            .map(|&i| pages[i].clone())
            .collect::<Vec<_>>(),
    );
    let bytes = std::fs::read(&set).unwrap();
    assert_eq!(
        u16::from_le_bytes([bytes[8], bytes[9]]),
        4,
        "format 4: immutables"
    );

    let spinners = [spinner(0), spinner(1)];
    let crawl = dir.path().join("crawl.jsonl");
    let mut f = std::fs::File::create(&crawl).unwrap();
    for (n, &i) in labeled.iter().enumerate() {
        for (farm, syn) in spinners.iter().enumerate() {
            let spun: Vec<String> = all[i].iter().map(|p| spin(p, syn)).collect();
            assert_ne!(spun, all[i]);
            writeln!(
                f,
                "{}",
                farm_page(&format!("http://farm{farm}.example/{n}"), &spun)
            )
            .unwrap();
        }
    }
    // An unlabeled article quoting one paragraph of a labeled one, in its middle.
    let own = &all[unlabeled[0]];
    let quote = all[labeled[0]]
        .iter()
        .max_by_key(|p| p.len())
        .unwrap()
        .clone();
    let mut quoting = own[..own.len() / 2].to_vec();
    quoting.push(quote);
    quoting.extend_from_slice(&own[own.len() / 2..]);
    writeln!(f, "{}", farm_page("http://quotes.example/1", &quoting)).unwrap();
    writeln!(f, "{}", farm_page("http://own.example/1", own)).unwrap();
    // An exact copy of a spin on a third site, for `crawlsieve spun`.
    let spun0: Vec<String> = all[labeled[0]]
        .iter()
        .map(|p| spin(p, &spinners[0]))
        .collect();
    writeln!(f, "{}", farm_page("http://mirror.example/0", &spun0)).unwrap();
    drop(f);

    let out = bin()
        .args(["scan", "-q", "-l"])
        .arg(&set)
        .arg("--set")
        .arg(format!(
            "labels.public_key_file={}",
            dir.path().join("k.pub").display()
        ))
        .arg(&crawl)
        .output()
        .unwrap();
    let vs = verdicts(&out);
    assert_eq!(vs.len(), 15);
    let reasons = common::reasons;
    // Every spin is flagged, with all its immutables labeled (a spin by our
    // own dictionary keeps them all); `spun` finds it unless enough 6-word
    // runs without a replaceable word survived (`labeled_text` then: the
    // copy rules before it win, as DSpin sets duplicates apart).
    let mut by_spun = 0;
    for v in vs
        .iter()
        .filter(|v| v["url"].as_str().unwrap().contains("farm"))
    {
        let r = reasons(v);
        assert_eq!(v["verdict"], "flag", "{} {r:?} {v}", v["url"]);
        assert!(v["spun_contains"].as_f64().unwrap_or(0.0) > 0.9, "{v}");
        assert!(v["labels"][0]["immutables"].as_u64().unwrap() > 0, "{v}");
        assert_eq!(v["labels"][0]["label"], "source");
        by_spun += r.contains(&"spun".to_string()) as usize;
    }
    assert!(by_spun >= 4, "{by_spun} of 12 spins found by `spun`");
    for url in ["http://quotes.example/1", "http://own.example/1"] {
        let v = vs.iter().find(|v| v["url"] == url).unwrap();
        assert!(!reasons(v).contains(&"spun".to_string()), "{url}: {v}");
    }

    // Across the crawl: the two farms' spins of each article in one cluster,
    // the mirror an exact duplicate of farm0's.
    let found = dir.path().join("spun.jsonl");
    ok(bin()
        .args(["spun", "-o"])
        .arg(&found)
        .arg(&crawl)
        .output()
        .unwrap());
    let lines: Vec<Value> = std::fs::read_to_string(&found)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of = |t: &str| lines.iter().filter(|l| l["type"] == t).collect::<Vec<_>>();
    let exact = of("exact_duplicates");
    assert_eq!(exact.len(), 1, "{lines:?}");
    assert!(exact[0]["urls"].to_string().contains("mirror.example"));
    // The quoting page is the unlabeled article with one paragraph more: a
    // near duplicate of it (its words match), not a spin of anything.
    let near = of("near_duplicates");
    assert_eq!(near.len(), 1, "{lines:?}");
    assert!(near[0]["urls"].to_string().contains("quotes.example"));
    let clusters = of("spun_cluster");
    assert_eq!(clusters.len(), 6, "one cluster per article: {lines:?}");
    for c in &clusters {
        assert_eq!(c["size"], 2, "{c}");
        let farms = c["sites"].to_string();
        assert!(farms.contains("farm1.example"), "{c}");
        assert!(!farms.contains("quotes") && !farms.contains("own."), "{c}");
    }

    // The same through the steps of a job spread over machines.
    let sigs = dir.path().join("sigs.jsonl");
    ok(bin()
        .args(["spun", "--signatures-only", "-o"])
        .arg(&sigs)
        .arg(&crawl)
        .output()
        .unwrap());
    let again = ok(bin()
        .args(["spun", "--from-signatures"])
        .arg(&sigs)
        .output()
        .unwrap());
    assert_eq!(again, std::fs::read_to_string(&found).unwrap());

    // The report shows the section.
    let verdict_file = dir.path().join("verdicts.jsonl");
    std::fs::write(&verdict_file, &out.stdout).unwrap();
    let html = dir.path().join("report.html");
    ok(bin()
        .args(["report", "--html"])
        .arg(&html)
        .arg("--spun")
        .arg(&found)
        .arg(&verdict_file)
        .output()
        .unwrap());
    let html = std::fs::read_to_string(&html).unwrap();
    assert!(html.contains("Spun content"), "the report's spun section");
}
