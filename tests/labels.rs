//! Informed and blind discovery with the real binary on real pages: a set
//! found blind (chunks seen more than a threshold across merged count files)
//! equals the set an expert would build from the copied pages, and a scan
//! against it flags the copies and nothing else.

use crate::common;

use common::{bin, ok, shared_data};
use std::io::Write;
use std::path::Path;

/// Real pages with substantial text (WCXB dev), in file order.
fn real_pages(data: &Path, n: usize) -> Vec<String> {
    common::wcxb_pages(data, n, 20_001..usize::MAX)
}

fn jsonl(path: &Path, pages: &[(String, &String)]) {
    let mut f = std::fs::File::create(path).unwrap();
    for (url, html) in pages {
        writeln!(f, "{}", serde_json::json!({"url": url, "html": html})).unwrap();
    }
}

fn entries(file: &Path, public: &Path) -> u64 {
    let out = ok(bin()
        .args(["labels", "inspect", "--public-key-file"])
        .arg(public)
        .arg(file)
        .output()
        .unwrap());
    let header: serde_json::Value = serde_json::from_str(&out).unwrap();
    header["entries"].as_u64().unwrap()
}

#[test]
fn blind_discovery_finds_what_was_copied_and_the_scan_flags_it() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (key, public) = common::keygen(d);

    let pages = real_pages(&data, 23);
    let (copied, others) = pages.split_at(3);
    // Machine 1 sees the copied pages on 5 sites, machine 2 on 3 more; each
    // also sees ten pages of its own once.
    fn corpus<'a>(
        copied: &'a [String],
        sites: std::ops::Range<usize>,
        own: &'a [String],
        tag: &str,
    ) -> Vec<(String, &'a String)> {
        let mut v: Vec<(String, &String)> = Vec::new();
        for s in sites {
            for (i, p) in copied.iter().enumerate() {
                v.push((format!("http://copier{s}.example/{i}"), p));
            }
        }
        for (i, p) in own.iter().enumerate() {
            v.push((format!("http://own-{tag}{i}.example/"), p));
        }
        v
    }
    let c1 = corpus(copied, 0..5, &others[..10], "a");
    let c2 = corpus(copied, 5..8, &others[10..], "b");
    jsonl(&d.join("c1.jsonl"), &c1);
    jsonl(&d.join("c2.jsonl"), &c2);

    // Count on two "machines" (a tiny memory budget forces spilled runs), merge, discover.
    for m in ["c1", "c2"] {
        ok(bin()
            .args(["labels", "count", "--memory-mb", "0", "-o"])
            .arg(d.join(format!("{m}.counts")))
            .arg(d.join(format!("{m}.jsonl")))
            .output()
            .unwrap());
    }
    ok(bin()
        .args(["labels", "merge", "-o"])
        .arg(d.join("all.counts"))
        .arg(d.join("c1.counts"))
        .arg(d.join("c2.counts"))
        .output()
        .unwrap());
    ok(bin()
        .args([
            "labels",
            "discover",
            "--threshold",
            "6",
            "--name",
            "blind",
            "--key",
        ])
        .arg(&key)
        .arg("-o")
        .arg(d.join("blind.cslab"))
        .arg("--propose-stop")
        .arg(d.join("stop.txt"))
        .args(["--stop-min-sites", "8"])
        .arg(d.join("all.counts"))
        .output()
        .unwrap());

    // The expert's set of the copied pages (chunks and shingles; no whole contents, no immutables,
    // which blind discovery does not count) is exactly what blind discovery found.
    let expert_in: Vec<(String, &String)> = copied
        .iter()
        .enumerate()
        .map(|(i, p)| (format!("http://orig.example/{i}"), p))
        .collect();
    jsonl(&d.join("expert.jsonl"), &expert_in);
    ok(bin()
        .args([
            "labels",
            "build",
            "--no-whole",
            "--no-immutables",
            "--name",
            "expert",
            "--key",
        ])
        .arg(&key)
        .arg("-o")
        .arg(d.join("expert.cslab"))
        .arg(d.join("expert.jsonl"))
        .output()
        .unwrap());
    let blind = entries(&d.join("blind.cslab"), &public);
    let expert = entries(&d.join("expert.cslab"), &public);
    assert!(expert >= 10, "the copied pages have chunks: {expert}");
    assert_eq!(
        blind, expert,
        "seen 8 times > 6: every copied chunk and shingle, nothing else"
    );
    // Stop-chunk candidates are chunks (not shingles): every copied chunk was seen on 8 sites.
    let chunk_list = ok(bin()
        .args(["chunks", "--label", "x"])
        .arg(d.join("expert.jsonl"))
        .output()
        .unwrap());
    let copied_chunks = chunk_list.lines().filter(|l| !l.starts_with('#')).count() as u64;
    assert!(
        copied_chunks >= 10 && copied_chunks < blind,
        "shingles are keys too"
    );
    let stop = std::fs::read_to_string(d.join("stop.txt")).unwrap();
    let candidates = stop.lines().filter(|l| !l.starts_with('#')).count() as u64;
    assert_eq!(
        candidates, copied_chunks,
        "each was seen on 8 sites: every chunk is a stop-chunk candidate"
    );
    assert!(stop.lines().nth(1).unwrap().ends_with(" 8 8"), "{stop}");

    // Scanning the corpus against the blind set flags exactly the copies.
    let out = ok(bin()
        .args(["scan", "-q", "--set"])
        .arg(format!("labels.public_key_file={}", public.display()))
        .arg("-l")
        .arg(d.join("blind.cslab"))
        .arg(d.join("c1.jsonl"))
        .output()
        .unwrap());
    let verdicts = common::split_lines(&out).0;
    assert_eq!(verdicts.len(), c1.len());
    for v in &verdicts {
        let copy = v["url"].as_str().unwrap().contains("copier");
        assert_eq!(v["verdict"] == "flag", copy, "{v}");
        assert_eq!(v["labels_version"], "blind@1");
    }

    // Plain text is an expert corpus too: paragraphs separated by blank lines.
    let para = |w: &str| {
        (0..30)
            .map(|i| format!("{w}{i}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    std::fs::write(
        d.join("doc.txt"),
        format!("{}\n\n{}\n\nshort\n", para("alpha"), para("beta")),
    )
    .unwrap();
    ok(bin()
        .args(["labels", "build", "--name", "text", "--key"])
        .arg(&key)
        .arg("-o")
        .arg(d.join("text.cslab"))
        .arg(d.join("doc.txt"))
        .output()
        .unwrap());
    // Their sampled shingles, made as the specification says (the library's shingler).
    let mut shingler = crawlsieve_core::fingerprints::shingles::Shingler::default();
    shingler.add_chunk(&para("alpha"));
    shingler.add_chunk(&para("beta"));
    shingler.add_chunk("short");
    let shingles = shingler.finish().0.len() as u64;
    assert!(shingles >= 4, "{shingles}");
    assert_eq!(
        entries(&d.join("text.cslab"), &public),
        3 + shingles,
        "two long paragraphs + the whole text + their sampled shingles"
    );
}
