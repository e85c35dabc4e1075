//! `crawlsieve extract`: paragraphs of the main content.

mod common;
use common::*;

#[test]
fn extract_jsonl_keeps_paths_and_separates_paragraphs() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("a.html");
    let html = r#"<html><head><title>T</title><script>no()</script></head><body>
        <ul><li><a href="/">Home</a></li><li><a href="/x">Other</a></li></ul>
        <h1>Heading of the article</h1><p>First paragraph with several words in it.</p>
        <p>Second paragraph, also with words &amp; an entity.</p>
        <div><a href="/1">one</a> <a href="/2">two</a> <a href="/3">three</a></div></body></html>"#;
    std::fs::write(&plain, html).unwrap();
    let gz = dir.path().join("b.html.gz");
    std::fs::write(&gz, gzip(html.as_bytes())).unwrap();
    let out = run(bin().args(["extract", "--jsonl"]).arg(&plain).arg(&gz));
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["path"], plain.to_str().unwrap());
    assert_eq!(
        lines[0]["content"], lines[1]["content"],
        "gzip and plain agree"
    );
    assert_eq!(
        lines[0]["content"],
        "Heading of the article\nFirst paragraph with several words in it.\nSecond paragraph, also with words & an entity."
    );
}

#[test]
fn extract_on_real_benchmark_pages_is_non_empty() {
    let Some(data) = shared_data() else { return };
    let dir = data.join("extraction/wcxb-dev/dev/html");
    let files: Vec<_> = (1..=20)
        .map(|i| dir.join(format!("{i:04}.html.gz")))
        .filter(|p| p.exists())
        .collect();
    assert!(!files.is_empty());
    let out = run(bin().args(["extract", "--jsonl"]).args(&files));
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), files.len());
    let non_empty = lines
        .iter()
        .filter(|l| l["content"].as_str().unwrap().len() > 200)
        .count();
    assert!(
        non_empty * 10 >= files.len() * 8,
        "{non_empty} of {} pages with content",
        files.len()
    );
}
