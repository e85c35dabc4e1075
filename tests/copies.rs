//! Copy detection that survives edits, with the real binary on real pages:
//! a signed set built from a directory of real articles; copies padded with
//! unrelated real paragraphs, edited inside every paragraph, cut short, and
//! exact; real benign pages. Each copy is caught by the rule meant for it,
//! the verdict names it, no benign page is flagged, and the short copies'
//! site is flagged once.

use crate::common;

use common::{bin, ok, shared_data};
use std::io::Write;

/// `crawlsieve scan` of `input` against the signed set `set`.
fn scan(
    set: &std::path::Path,
    public: &std::path::Path,
    input: &std::path::Path,
) -> std::process::Output {
    bin()
        .args(["scan", "--quiet", "--labels"])
        .arg(set)
        .arg("--set")
        .arg(format!("labels.public_key_file={}", public.display()))
        .arg(input)
        .output()
        .unwrap()
}

fn words(p: &str) -> usize {
    p.split_whitespace().count()
}

fn page(title: &str, paragraphs: &[&str]) -> String {
    let mut s = format!(
        "<html><head><title>{title}</title></head><body><nav><a href=\"/\">Home</a> <a href=\"/a\">Archive</a></nav><article>"
    );
    for p in paragraphs {
        s.push_str(&format!("<p>{}</p>", html_escape(p)));
    }
    s.push_str("</article><footer>Copyright the copier</footer></body></html>");
    s
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[test]
fn padded_edited_short_and_exact_copies_are_caught_by_their_rules() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pages = common::wcxb_pages(&data, 40, 30_000..usize::MAX);
    let (sources, others) = pages.split_at(12);

    // The expert corpus: a directory of real pages (`labels build` walks it).
    let expert = d.join("expert");
    std::fs::create_dir_all(expert.join("nested")).unwrap();
    let mut files = Vec::new();
    for (i, html) in sources.iter().enumerate() {
        let f = expert
            .join(if i % 2 == 0 { "nested" } else { "" })
            .join(format!("{i:02}.html"));
        std::fs::write(&f, html).unwrap();
        files.push(f);
    }
    std::fs::write(expert.join("notes.md"), "not a page").unwrap();
    let (key, public) = common::keygen(d);
    let set = d.join("news.cslab");
    ok(bin()
        .args(["labels", "build", "--name", "news", "--key"])
        .arg(&key)
        .arg("-o")
        .arg(&set)
        .arg(&expert)
        .output()
        .unwrap());
    let header: serde_json::Value = serde_json::from_str(&ok(bin()
        .args(["labels", "inspect", "--public-key-file"])
        .arg(&public)
        .arg(&set)
        .output()
        .unwrap()))
    .unwrap();
    // Immutables (spun copies) by default: format 4.
    assert_eq!(header["format"], 4, "{header}");
    assert_eq!(header["immutable_version"], 1, "{header}");
    assert_eq!(header["shingle_version"], 1, "{header}");
    assert_eq!(header["simhashes"], 12, "one SimHash per page: {header}");

    // Sorted by path, as the directory walk reads them: 01, 03, .., nested/00, ..
    files.sort();
    let labeled = common::extracted(&files);
    let benign_text = common::extracted(
        &others
            .iter()
            .enumerate()
            .map(|(i, html)| {
                let f = d.join(format!("other{i}.html"));
                std::fs::write(&f, html).unwrap();
                f
            })
            .collect::<Vec<_>>(),
    );
    let unrelated: Vec<&str> = benign_text
        .iter()
        .flatten()
        .filter(|p| words(p) >= 25)
        .map(String::as_str)
        .collect();
    let long = |doc: &[String]| -> Vec<String> {
        doc.iter().filter(|p| words(p) >= 20).cloned().collect()
    };

    let mut crawl: Vec<(String, String, &str)> = Vec::new();
    // Padded: two labeled paragraphs inside ten unrelated real ones.
    for (i, doc) in labeled[0..3].iter().enumerate() {
        let l = long(doc);
        let mut ps: Vec<&str> = unrelated[i * 10..i * 10 + 10].to_vec();
        ps.insert(3, &l[0]);
        ps.insert(8, &l[1]);
        crawl.push((
            format!("http://padder.example/p/{i}"),
            page("padded", &ps),
            "padded",
        ));
    }
    // Edited: one word changed in every paragraph of eight words or more.
    for (i, doc) in labeled[3..6].iter().enumerate() {
        let edited: Vec<String> = doc
            .iter()
            .map(|p| {
                let mut w: Vec<&str> = p.split(' ').collect();
                let n = w.len();
                if n >= 8 {
                    w[n / 2] = "zqxv";
                }
                w.join(" ")
            })
            .collect();
        let ps: Vec<&str> = edited.iter().map(String::as_str).collect();
        crawl.push((
            format!("http://editor.example/e/{i}"),
            page("edited", &ps),
            "edited",
        ));
    }
    // Short: one labeled paragraph of 20–45 words, on five pages of one site.
    let shorts: Vec<String> = labeled[6..11]
        .iter()
        .flatten()
        .filter(|p| (20..=45).contains(&words(p)))
        .take(5)
        .cloned()
        .collect();
    assert_eq!(
        shorts.len(),
        5,
        "the articles have paragraphs of 20–45 words"
    );
    for (i, p) in shorts.iter().enumerate() {
        crawl.push((
            format!("http://shorty.example/s/{i}"),
            page("short", &[p]),
            "short",
        ));
    }
    // Exact: a labeled page as it was.
    crawl.push((
        "http://mirror.example/x".into(),
        std::fs::read_to_string(&files[11]).unwrap(),
        "exact",
    ));
    // Benign: the other real pages, on five sites of five pages (some may be dropped by filters).
    for (i, html) in others.iter().take(25).enumerate() {
        crawl.push((
            format!("http://benign{}.example/b/{i}", i % 5),
            html.clone(),
            "benign",
        ));
    }

    let input = d.join("crawl.jsonl");
    let mut f = std::fs::File::create(&input).unwrap();
    for (url, html, _) in &crawl {
        writeln!(f, "{}", serde_json::json!({"url": url, "html": html})).unwrap();
    }
    drop(f);
    let out = scan(&set, &public, &input);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (verdicts, flags) = common::split_lines(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(verdicts.len(), crawl.len());
    let reasons = common::reasons;
    for (v, (url, _, kind)) in verdicts.iter().zip(&crawl) {
        assert_eq!(v["url"], url.as_str());
        let r = reasons(v);
        let has = |x: &str| r.iter().any(|y| y == x);
        assert!(
            v["simhash"].as_str().is_some_and(|s| s.len() == 16) || v["verdict"] == "drop",
            "{v}"
        );
        match *kind {
            "padded" => {
                assert_eq!(v["verdict"], "flag", "{v}");
                assert!(has("labeled_text"), "{v}");
                assert!(
                    v["contains"].as_f64().unwrap() < 0.5,
                    "the ratio alone misses it: {v}"
                );
                assert!(v["labeled_chars"].as_u64().unwrap() >= 400, "{v}");
            }
            "edited" => {
                assert_eq!(v["verdict"], "flag", "{v}");
                assert!(has("labeled_shingles"), "{v}");
                assert!(!has("whole_content"), "{v}");
            }
            "short" => {
                assert_eq!(r[0], "too_short", "the drop reason stays first: {v}");
                assert_eq!(v["verdict"], "drop", "{v}");
                assert!(has("labeled_shingles") || has("labeled_chunks"), "{v}");
            }
            "exact" => {
                assert_eq!(v["verdict"], "flag", "{v}");
                assert!(has("whole_content") && has("near_duplicate"), "{v}");
                assert_eq!(v["near_duplicate"], 0, "{v}");
            }
            _ => {
                assert!(
                    r.iter().all(|x| !x.starts_with("labeled")
                        && x != "near_duplicate"
                        && x != "whole_content"),
                    "benign page flagged: {v}"
                );
            }
        }
    }
    // The short copies' site is flagged, once (its domain), and nothing else is.
    let bad: Vec<&str> = flags
        .iter()
        .filter(|f| f["state"] == "bad")
        .map(|f| f["neighborhood"].as_str().unwrap())
        .collect();
    assert!(bad.contains(&"shorty.example"), "{flags:?}");
    assert!(
        !bad.iter().any(|b| b.starts_with("shorty.example/")),
        "one flag per fact: {bad:?}"
    );
    assert!(!bad.iter().any(|b| b.starts_with("benign")), "{bad:?}");

    // `scan` walks a directory too: the 12 pages, in path order, each matched whole.
    let out = scan(&set, &public, &expert);
    let (verdicts, _) = common::split_lines(&String::from_utf8(out.stdout).unwrap());
    let origins: Vec<&str> = verdicts
        .iter()
        .map(|v| v["origin"]["file"].as_str().unwrap())
        .collect();
    let want: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    assert_eq!(origins, want);
    assert!(
        verdicts.iter().all(|v| v["whole_match"] == true),
        "{verdicts:?}"
    );
}

#[test]
fn a_directory_with_nothing_to_read_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "nothing").unwrap();
    let out = bin().arg("scan").arg(dir.path()).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds no WARC"));
}
