//! One rogue agent among honest ones: the pages they see, their count
//! files, and what a set discovered from them flags. Shared by the hub's
//! cap (`blind.rs`) and the discoverers' (`discoverers.rs`).

#![allow(dead_code)]

use crate::common::{self, bin};
use serde_json::Value;
use std::io::Write;
use std::path::Path;

/// `labels count` over `pages` (url, html): the count file, as an agent
/// that judged them would send it.
pub fn count_file(dir: &Path, name: &str, pages: &[(String, &String)]) -> Vec<u8> {
    let jsonl = dir.join(format!("{name}.jsonl"));
    let mut f = std::fs::File::create(&jsonl).unwrap();
    for (url, html) in pages {
        writeln!(f, "{}", serde_json::json!({"url": url, "html": html})).unwrap();
    }
    drop(f);
    let out = dir.join(format!("{name}.cscounts"));
    common::ok(
        bin()
            .args(["labels", "count", "-o"])
            .arg(&out)
            .arg(&jsonl)
            .output()
            .unwrap(),
    );
    std::fs::read(out).unwrap()
}

/// Verdicts of `crawlsieve scan` over `pages` against the set `file`.
pub fn scan(dir: &Path, public: &Path, file: &Path, pages: &[(String, &String)]) -> Vec<Value> {
    let jsonl = dir.join("judge.jsonl");
    let mut f = std::fs::File::create(&jsonl).unwrap();
    for (url, html) in pages {
        writeln!(f, "{}", serde_json::json!({"url": url, "html": html})).unwrap();
    }
    drop(f);
    let out = bin()
        .arg("scan")
        .arg("--labels")
        .arg(file)
        .arg("--set")
        .arg(format!("labels.public_key_file={}", public.display()))
        .arg("--set")
        .arg("neighborhoods.enabled=false")
        .arg(&jsonl)
        .output()
        .unwrap();
    common::verdicts(&out)
}

/// The batches of three honest agents (each: the copied page on two sites,
/// four ordinary pages once) and of a rogue (every ordinary page "seen" on
/// twenty sites), by agent id.
pub fn honest_and_rogue(
    dir: &Path,
    copied: &String,
    ordinary: &[(String, &String)],
) -> Vec<(String, Vec<u8>)> {
    let mut batches = Vec::new();
    for a in 0..3 {
        let mut seen: Vec<(String, &String)> = (0..2)
            .map(|s| (format!("http://copier{a}-{s}.example/p"), copied))
            .collect();
        seen.extend(ordinary[a * 4..a * 4 + 4].iter().cloned());
        batches.push((
            format!("honest{a}"),
            count_file(dir, &format!("honest{a}"), &seen),
        ));
    }
    let fabricated: Vec<(String, &String)> = (0..20)
        .flat_map(|k| {
            ordinary
                .iter()
                .map(move |(_, h)| (format!("http://fake{k}.example/p"), *h))
        })
        .collect();
    batches.push(("rogue".to_string(), count_file(dir, "rogue", &fabricated)));
    batches
}

/// The ordinary pages among `pages` (all but the first, the copied one),
/// each on its own site.
pub fn ordinary(pages: &[String]) -> Vec<(String, &String)> {
    pages[1..]
        .iter()
        .enumerate()
        .map(|(i, h)| (format!("http://own{i}.example/p"), h))
        .collect()
}

/// Ordinary pages (the first 12 verdicts) flagged.
pub fn ordinary_flagged(verdicts: &[Value]) -> usize {
    verdicts[..12]
        .iter()
        .filter(|v| v["verdict"] == "flag")
        .count()
}
