//! Bad neighborhoods end to end with the real binary: a generated crawl of
//! real pages (untouched sites) and one copier site that republishes pages
//! of a labeled source. The copier is flagged — in the verdict stream, the
//! agent's flag log, the annotated Heritrix crawl.log and the HTML report —
//! and the untouched sites are not.

use crate::common;

use common::{bin, ok, shared_data, split_lines};
use std::io::Write;
use std::path::Path;

fn real_pages(data: &Path, n: usize) -> Vec<String> {
    common::wcxb_pages(data, n, 20_001..usize::MAX)
}

#[test]
fn a_copier_site_is_flagged_in_the_crawl_log_and_the_report() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pages = real_pages(&data, 70);
    assert_eq!(pages.len(), 70);
    let (source, rest) = pages.split_at(10);

    // The labeled source: ten real pages.
    common::signed_source_set(d, source);

    // The crawl: six untouched sites of ten real pages each, and a copier
    // that republishes the source under its own path.
    let mut crawl = Vec::new();
    for (i, html) in rest.iter().enumerate() {
        crawl.push((
            format!("http://www.site{}.example/blog/post-{i}.html", i % 6),
            html.clone(),
        ));
    }
    for (i, html) in source.iter().enumerate() {
        crawl.push((
            format!("http://copier.example/mirror/page-{i}.html"),
            html.clone(),
        ));
    }
    let mut f = std::fs::File::create(d.join("crawl.jsonl")).unwrap();
    let mut log = std::fs::File::create(d.join("crawl.log")).unwrap();
    for (i, (url, html)) in crawl.iter().enumerate() {
        writeln!(f, "{}", serde_json::json!({"url": url, "html": html})).unwrap();
        writeln!(
            log,
            "2026-11-22T10:00:{:02}.000Z   200 {:>10} {url} L http://seed.example/ text/html #0{:02} 20261122100000000+12 sha1:AAAA - -",
            i % 60,
            html.len(),
            i % 10
        )
        .unwrap();
    }
    writeln!(log, "a line that is not a crawl.log line").unwrap();
    drop((f, log));

    let public = format!("labels.public_key_file={}", d.join("k.pub").display());
    let flag_log = format!("neighborhoods.flag_log={}", d.join("flags.log").display());
    let snapshot = format!("neighborhoods.snapshot={}", d.join("hoods.jsonl").display());
    let out = ok(bin()
        .args([
            "scan", "-q", "--set", &public, "--set", &flag_log, "--set", &snapshot, "-l",
        ])
        .arg(d.join("source.cslab"))
        .arg("-o")
        .arg(d.join("verdicts.jsonl"))
        .arg(d.join("crawl.jsonl"))
        .output()
        .unwrap());
    assert!(out.is_empty());
    let (verdicts, flags) =
        split_lines(&std::fs::read_to_string(d.join("verdicts.jsonl")).unwrap());
    assert_eq!(verdicts.len(), crawl.len(), "one verdict per page");
    let flagged: Vec<&str> = flags
        .iter()
        .filter(|f| f["state"] == "bad")
        .map(|f| f["neighborhood"].as_str().unwrap())
        .collect();
    // One flag per fact: the copier's domain, not also its host root and directory.
    assert_eq!(flagged, ["copier.example"], "only the copier, once");
    let flag_log = std::fs::read_to_string(d.join("flags.log")).unwrap();
    assert!(
        flag_log
            .lines()
            .any(|l| l.contains(" domain:copier.example ") && l.contains("crawlsieve-site:bad")),
        "{flag_log}"
    );
    assert!(std::fs::read_to_string(d.join("hoods.jsonl"))
        .unwrap()
        .contains("\"n\":\"copier.example\""));

    // The crawl.log, annotated.
    let annotated = ok(bin()
        .args(["annotate-log", "--verdicts"])
        .arg(d.join("verdicts.jsonl"))
        .arg(d.join("crawl.log"))
        .output()
        .unwrap());
    let original = std::fs::read_to_string(d.join("crawl.log")).unwrap();
    assert_eq!(annotated.lines().count(), original.lines().count());
    for (line, before) in annotated.lines().zip(original.lines()) {
        if before.starts_with("a line") {
            assert_eq!(line, before, "other lines pass through");
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(fields.len(), 12, "{line}");
        let notes = fields[11];
        assert!(notes.contains("crawlsieve:"), "every judged URL: {line}");
        if fields[3].contains("copier.example") {
            assert!(notes.contains("crawlsieve:flag"), "{line}");
            assert!(
                notes.contains("crawlsieve-bad-site:copier.example"),
                "{line}"
            );
        } else {
            assert!(
                !notes.contains("crawlsieve-bad-site"),
                "untouched site flagged: {line}"
            );
            assert!(!notes.contains("crawlsieve:flag"), "{line}");
        }
    }

    // The report.
    ok(bin()
        .args(["report", "--html"])
        .arg(d.join("report.html"))
        .arg(d.join("verdicts.jsonl"))
        .output()
        .unwrap());
    let html = std::fs::read_to_string(d.join("report.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("threshold "));
    assert!(html.contains("<td>copier.example</td>"));
    assert!(
        !html.contains("<td>www.site1.example/</td>"),
        "untouched sites are not in the flagged table"
    );
    if let Ok(keep) = std::env::var("KEEP_REPORT_HTML") {
        std::fs::copy(d.join("report.html"), keep).unwrap();
    }
}

#[test]
fn annotate_log_follows_a_growing_crawl_log_and_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let verdicts = d.join("v.jsonl");
    let log = d.join("crawl.log");
    let out = d.join("out.log");
    std::fs::write(
        &verdicts,
        "{\"url\":\"http://a.example/x\",\"verdict\":\"keep\",\"reasons\":[],\"contains\":0.0}\n",
    )
    .unwrap();
    std::fs::write(&log, "").unwrap();
    let mut child = bin()
        .args(["annotate-log", "--follow", "--verdicts"])
        .arg(&verdicts)
        .arg("-o")
        .arg(&out)
        .arg(&log)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let append = |path: &Path, text: &str| {
        let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
        f.write_all(text.as_bytes()).unwrap();
    };
    let line = |url: &str| {
        format!("2026-11-22T10:00:00.000Z 200 10 {url} - - text/html #1 x sha1:A - -\n")
    };
    append(&log, &line("http://a.example/x"));
    // A verdict that arrives after the crawler wrote its line... is used for lines after it.
    append(
        &verdicts,
        "{\"url\":\"http://a.example/y\",\"verdict\":\"flag\",\"reasons\":[\"labeled_chunks\"],\"contains\":1.0}\n",
    );
    std::thread::sleep(std::time::Duration::from_millis(800));
    append(&log, &line("http://a.example/y"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let text = loop {
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        if text.lines().count() >= 2 || std::time::Instant::now() > deadline {
            break text;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let _ = child.kill();
    let _ = child.wait();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].ends_with(" - crawlsieve:keep"), "{text}");
    assert!(
        lines[1].ends_with(" - crawlsieve:flag,crawlsieve-reason:labeled_chunks"),
        "{text}"
    );
}

/// A labeled set's own site is its origin, not its copier: its pages (all of
/// the set's source, at the URLs `labels build` read them from) are judged
/// the originals — never flagged, noted `labeled_origin` — and its
/// neighborhood is not flagged, while the copier's is, as before. A mirror
/// the operator trusts (`labels.origins`) is judged the original too.
#[test]
fn a_sets_own_site_is_its_origin_and_not_flagged() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pages = real_pages(&data, 40);
    let (source, rest) = pages.split_at(10);
    common::signed_source_set(d, source);
    let inspect = ok(bin()
        .args(["labels", "inspect"])
        .arg(d.join("source.cslab"))
        .output()
        .unwrap());
    assert!(
        inspect.contains("\"origins\"") && inspect.contains("\"source.example\""),
        "{inspect}"
    );

    let mut f = std::fs::File::create(d.join("crawl.jsonl")).unwrap();
    let mut line = |url: String, html: &String| {
        writeln!(f, "{}", serde_json::json!({"url": url, "html": html})).unwrap();
    };
    for (i, html) in source.iter().enumerate() {
        line(format!("http://source.example/{i}"), html);
        line(format!("http://copier.example/mirror/page-{i}.html"), html);
    }
    for (i, html) in rest.iter().enumerate() {
        line(
            format!("http://www.site{}.example/post-{i}.html", i % 3),
            html,
        );
    }
    drop(f);
    let public = format!("labels.public_key_file={}", d.join("k.pub").display());
    let scan = |extra: &[&str]| {
        let out = ok(bin()
            .args(["scan", "-q", "--set", &public])
            .args(extra)
            .arg("-l")
            .arg(d.join("source.cslab"))
            .arg(d.join("crawl.jsonl"))
            .output()
            .unwrap());
        split_lines(&out)
    };

    let (verdicts, flags) = scan(&[]);
    assert_eq!(verdicts.len(), 50, "one verdict per page");
    let on = |v: &serde_json::Value, host: &str| v["url"].as_str().unwrap().contains(host);
    let has =
        |v: &serde_json::Value, r: &str| v["reasons"].as_array().unwrap().iter().any(|x| x == r);
    for v in verdicts.iter().filter(|v| on(v, "//source.example/")) {
        assert_ne!(v["verdict"], "flag", "an original is not a copy: {v}");
        assert!(has(v, "labeled_origin"), "{v}");
        assert_eq!(v["origin_of"], serde_json::json!(["source"]), "{v}");
        assert!(v["labels"].as_array().unwrap().is_empty(), "{v}");
    }
    let copier: Vec<_> = verdicts
        .iter()
        .filter(|v| on(v, "copier.example"))
        .collect();
    assert!(
        copier.iter().filter(|v| v["verdict"] == "flag").count() >= 8,
        "copies flagged as before"
    );
    assert!(copier.iter().all(|v| !has(v, "labeled_origin")));
    let bad: Vec<&str> = flags
        .iter()
        .filter(|f| f["state"] == "bad")
        .map(|f| f["neighborhood"].as_str().unwrap())
        .collect();
    assert_eq!(bad, ["copier.example"], "the origin site is never flagged");

    // The copier, trusted as a mirror by config: an original too, nothing flagged.
    let (verdicts, flags) = scan(&["--set", "labels.origins.source=[copier.example]"]);
    assert!(
        verdicts.iter().all(|v| v["verdict"] != "flag"),
        "mirror trusted"
    );
    assert!(flags.iter().all(|f| f["state"] != "bad"), "{flags:?}");
    // A mistake in it names the key.
    let out = bin()
        .args(["scan", "-q", "--set", "labels.origins.source=[a b]"])
        .arg(d.join("crawl.jsonl"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("labels.origins.source"), "{err}");
}
