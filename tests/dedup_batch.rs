//! `crawlsieve dedup`: a whole crawl's duplicate clusters and the pages to
//! keep, on real pages (WCXB dev) with copies made of them. The answer is the
//! same on one thread or two, from pages or from their verdicts, and with the
//! signatures made on two "machines" and clustered together; `--siblings
//! apart` keeps a site's own near copies.

use crate::common::{bin, run, shared_data};
use crate::dedup::{crawl, edited};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn dedup(args: &[&str], inputs: &[&Path]) -> String {
    let out = run(bin().arg("dedup").args(args).args(inputs));
    assert!(
        out.status.success(),
        "dedup failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn clusters(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The URLs of the cluster holding `url` (kept page first), if any.
fn cluster_of(cs: &[Value], url: &str) -> Option<Vec<String>> {
    cs.iter().find_map(|c| {
        let mut urls = vec![c["keep"]["url"].as_str().unwrap().to_string()];
        urls.extend(
            c["duplicates"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d["url"].as_str().unwrap().to_string()),
        );
        urls.contains(&url.to_string()).then_some(urls)
    })
}

/// The crawl of `tests/dedup.rs`, and a near copy of its twelfth page (of
/// which the crawl has no other copy) on that page's own site.
fn crawl_with_a_sibling(dir: &Path, data: &Path) -> PathBuf {
    let (path, pages) = crawl(dir, data);
    let sibling = json!({"url": "http://original-11.example/b.html", "html": edited(&pages[11])});
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!("{sibling}\n"));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_crawls_copies_cluster_the_same_however_the_work_is_split() {
    let Some(data) = shared_data() else {
        eprintln!("SKIP: no ../shared/data");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = crawl_with_a_sibling(dir.path(), &data);
    let keep = dir.path().join("keep.tsv");
    let one = dedup(
        &["-j", "1", "--keep-list", keep.to_str().unwrap()],
        &[&input],
    );
    let cs = clusters(&one);
    let mut checked = 0;
    for i in 0..10 {
        let original = format!("http://original-{i}.example/a.html");
        let Some(urls) = cluster_of(&cs, &original) else {
            continue; // a page dropped (too short, link-dense): not deduplicated
        };
        assert!(urls.contains(&format!("http://mirror-{i}.example/a.html")));
        assert!(
            urls.contains(&format!("http://edited-{i}.example/a.html")),
            "{urls:?}"
        );
        // The first by URL keeps: the edited copy ("edited-" < "mirror-" < "original-").
        assert_eq!(urls[0], format!("http://edited-{i}.example/a.html"));
        checked += 1;
    }
    assert!(checked >= 8, "{checked} of 10 contents checked");
    // The keep list: every page kept or flagged, less the duplicates, each once.
    let kept: Vec<String> = std::fs::read_to_string(&keep)
        .unwrap()
        .lines()
        .map(|l| l.split('\t').nth(1).unwrap().to_string())
        .collect();
    let duplicates: Vec<&str> = cs
        .iter()
        .flat_map(|c| c["duplicates"].as_array().unwrap())
        .map(|d| d["url"].as_str().unwrap())
        .collect();
    assert!(duplicates.iter().all(|d| !kept.iter().any(|k| k == d)));
    assert!(cs
        .iter()
        .all(|c| kept.iter().any(|k| *k == c["keep"]["url"])));
    let judged = crate::common::verdicts(&run(bin().args(["scan", "-q", "--content"]).arg(&input)));
    let with_content = judged
        .iter()
        .filter(|v| v["verdict"] == "keep" || v["verdict"] == "flag")
        .count();
    assert_eq!(kept.len() + duplicates.len(), with_content);

    // Two threads; the verdicts' content; two machines' signatures.
    assert_eq!(dedup(&["-j", "2"], &[&input]), one);
    let verdicts = dir.path().join("verdicts.jsonl");
    let lines: String = judged.iter().map(|v| format!("{v}\n")).collect();
    std::fs::write(&verdicts, lines).unwrap();
    assert_eq!(dedup(&[], &[&verdicts]), one, "from the verdicts' content");
    let all: Vec<String> = std::fs::read_to_string(&input)
        .unwrap()
        .lines()
        .map(|l| format!("{l}\n"))
        .collect();
    let mut signatures = Vec::new();
    for m in 0..2 {
        let half = dir.path().join(format!("machine-{m}.jsonl"));
        std::fs::write(
            &half,
            all.iter().skip(m).step_by(2).cloned().collect::<String>(),
        )
        .unwrap();
        let s = dir.path().join(format!("signatures-{m}.jsonl"));
        std::fs::write(&s, dedup(&["--signatures-only"], &[&half])).unwrap();
        signatures.push(s);
    }
    let from = dedup(&["--from-signatures"], &[&signatures[1], &signatures[0]]);
    assert_eq!(from, one, "signatures made on two machines");

    // A site's own near copy: clustered together, kept apart; copies on
    // other sites cluster either way.
    let sibling = "http://original-11.example/b.html";
    let original = "http://original-11.example/a.html";
    let found = cluster_of(&cs, sibling).expect("the sibling is a near copy");
    assert_eq!(found, [original, sibling]);
    let apart = clusters(&dedup(&["--siblings", "apart"], &[&input]));
    assert!(cluster_of(&apart, sibling).is_none(), "{apart:?}");
    let copies = |cs: &[Value]| {
        (0..10)
            .filter(|i| cluster_of(cs, &format!("http://mirror-{i}.example/a.html")).is_some())
            .count()
    };
    assert_eq!(copies(&apart), copies(&cs));
}

#[test]
fn dedup_mistakes_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    std::fs::write(&page, "<html><body><p>one two three</p></body></html>").unwrap();
    let fails = |args: &[&str], inputs: &[&Path], says: &str| {
        let out = run(bin().arg("dedup").args(args).args(inputs));
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    };
    fails(
        &["--signatures-only", "--keep-list", "k.tsv"],
        &[&page],
        "--keep-list",
    );
    fails(&["--threshold", "1.5"], &[&page], "--threshold");
    fails(&["--from-signatures"], &[&page], "not a signatures file");
    // Signatures made with two shapes do not compare.
    let sig = |shape: &str| json!({"id": shape, "url": format!("http://{shape}.example/"), "content_sha1": "00".repeat(20), "minhash": shape});
    let mixed = dir.path().join("mixed.jsonl");
    std::fs::write(&mixed, format!("{}\n{}\n", sig("1:20x5"), sig("1:14x8"))).unwrap();
    fails(&["--from-signatures"], &[&mixed], "dedup.bands");
}
