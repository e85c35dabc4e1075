//! The archives web archives hold, read by the real binary and checked
//! against the real readers of others: warcio's own test files (ARC, broken
//! WARCs, resource and revisit records), ARC files made from the shared
//! data's WARC files, and LZ4 WARCs written by FastWARC.

use crate::common;

use common::{bin, run, shared_data, test_python};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn helper() -> PathBuf {
    common::repo().join("tests/python/archives.py")
}

/// The records warcio reads of `file`: (type, content type, URL).
fn warcio_records(python: &Path, file: &Path) -> Vec<(String, String, String)> {
    let out = common::ok(run(std::process::Command::new(python)
        .arg(helper())
        .arg("records")
        .arg(file)));
    out.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let s = |k: &str| v[k].as_str().unwrap_or("").to_string();
            (s("type"), s("content_type"), s("url"))
        })
        .collect()
}

/// A scan's verdicts (without what differs between containers: ids,
/// origins, timings) and its stderr.
fn scan(file: &Path, extra: &[&str]) -> (Vec<serde_json::Value>, String, Option<i32>) {
    let out = run(bin().args(["scan"]).args(extra).arg(file));
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    (common::verdicts(&out), stderr, out.status.code())
}

fn comparable(vs: &[serde_json::Value]) -> Vec<String> {
    vs.iter()
        .map(|v| {
            let mut v = v.clone();
            for k in ["id", "origin", "elapsed_us"] {
                v.as_object_mut().unwrap().remove(k);
            }
            v.to_string()
        })
        .collect()
}

const PAGES: [&str; 2] = ["text/html", "application/xhtml+xml"];

#[test]
fn warcio_test_files_every_record_accounted_for() {
    let Some(data) = shared_data() else {
        eprintln!("SKIP: no ../shared/data");
        return;
    };
    let Some(python) = test_python() else { return };
    let dir = data.join("warc/warcio-tests");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name().unwrap().to_string_lossy().contains(".arc")
                || p.to_string_lossy().contains(".warc")
        })
        .collect();
    files.sort();
    assert!(files.len() >= 15, "{files:?}");
    let mut checked = 0;
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let records = warcio_records(&python, file);
        let (vs, stderr, status) = scan(file, &["-q"]);
        assert_eq!(status, Some(0), "{name}: {stderr}");
        // No file is ever judged as one page.
        assert!(
            vs.iter()
                .all(|v| !v["url"].as_str().unwrap().starts_with("file:")),
            "{name} judged as a page"
        );
        let problem = stderr
            .lines()
            .any(|l| l.contains("input problem") && l.contains(&name));
        // Every page record warcio reads has its verdict (unless the file's
        // input problem is named); every verdict is of a record warcio reads.
        let mut ours: BTreeMap<String, usize> = BTreeMap::new();
        for v in &vs {
            *ours
                .entry(v["url"].as_str().unwrap().replace(' ', "%20"))
                .or_default() += 1;
        }
        let mut theirs: BTreeMap<String, usize> = BTreeMap::new();
        for (kind, ctype, url) in &records {
            let page = match kind.as_str() {
                "response" | "revisit" | "resource" => PAGES.contains(&ctype.as_str()),
                _ => false,
            };
            if page {
                *theirs.entry(url.replace(' ', "%20")).or_default() += 1;
            }
        }
        for (url, n) in &theirs {
            let got = ours.get(url).copied().unwrap_or(0);
            assert!(
                got == *n || (problem && got <= *n),
                "{name}: {url}: warcio reads {n} page records, {got} verdicts\n{stderr}\n{records:?}"
            );
        }
        // Where warcio gives up on a file (one gzip member for several
        // records, a bad chunk), this reader goes on: pages past that point
        // are ours alone.
        let warcio_gave_up = records.iter().any(|(k, _, _)| k == "warcio_error");
        let known: Vec<&str> = records.iter().map(|(_, _, u)| u.as_str()).collect();
        for url in ours.keys().filter(|_| !warcio_gave_up) {
            assert!(
                known.iter().any(|u| u.replace(' ', "%20") == *url),
                "{name}: a verdict for {url}, which warcio does not read"
            );
        }
        checked += 1;
    }
    eprintln!("{checked} files of warcio's tests accounted for");
    // ARC records are pages, with WARC-Date's form of their date.
    let (vs, _, _) = scan(&dir.join("example.arc.gz"), &["-q"]);
    assert_eq!(vs.len(), 1);
    assert_eq!(vs[0]["fetched_at"], "2014-02-16T05:02:21Z");
    assert_eq!(vs[0]["origin"]["offset"], 171, "the record's gzip member");
    // The revisit of example.warc repeats its capture's verdict.
    let (vs, _, _) = scan(&dir.join("example.warc"), &["-q"]);
    assert_eq!(vs.len(), 2, "{vs:?}");
    assert_eq!(vs[1]["origin"]["record_type"], "revisit");
    assert_eq!(vs[1]["verdict"], vs[0]["verdict"]);
    assert!(common::reasons(&vs[1]).contains(&"revisit".to_string()));
    assert_eq!(vs[1]["revisit_of"]["record_id"], vs[0]["id"]);
    // The resource record holding HTML is judged, unless turned off.
    let resource = dir.join("example-resource.warc.gz");
    let (vs, _, _) = scan(&resource, &["-q"]);
    assert_eq!(vs.len(), 1);
    assert_eq!(vs[0]["origin"]["record_type"], "resource");
    let (vs, stderr, _) = scan(&resource, &["--set", "input.resource_records=false"]);
    assert!(
        vs.is_empty() && stderr.contains("warc_resource 1"),
        "{stderr}"
    );
}

#[test]
fn a_revisit_of_an_earlier_crawl_takes_its_verdict_from_that_crawls_verdicts() {
    let Some(data) = shared_data() else {
        eprintln!("SKIP: no ../shared/data");
        return;
    };
    let example = data.join("warc/warcio-tests/example.warc");
    let text = std::fs::read(&example).unwrap();
    // The revisit record alone: its capture is in another file.
    let at = text
        .windows(18)
        .rposition(|w| w == b"WARC-Type: revisit")
        .unwrap();
    let start = text[..at]
        .windows(9)
        .rposition(|w| w == b"WARC/1.0\r")
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let alone = dir.path().join("revisit.warc");
    std::fs::write(&alone, &text[start..]).unwrap();
    let (vs, _, _) = scan(&alone, &["-q"]);
    assert_eq!(vs.len(), 1);
    assert_eq!(vs[0]["verdict"], "error");
    assert!(common::reasons(&vs[0]).contains(&"revisit_unresolved".to_string()));
    assert!(vs[0]["error"]
        .as_str()
        .unwrap()
        .contains("http://example.com/"));
    // With the earlier crawl's verdicts, the capture's verdict.
    let earlier = dir.path().join("earlier.jsonl");
    common::ok(run(bin()
        .args(["scan", "-q", "-o"])
        .arg(&earlier)
        .arg(&example)));
    let (vs, _, _) = scan(
        &alone,
        &["-q", "--revisit-verdicts", earlier.to_str().unwrap()],
    );
    assert_eq!(vs.len(), 1);
    assert_ne!(vs[0]["verdict"], "error", "{}", vs[0]);
    assert!(common::reasons(&vs[0]).contains(&"revisit".to_string()));
}

/// The shared data's WARC files, each as ARC (plain and gzip) and as LZ4
/// (FastWARC's): the same verdicts as from the WARC, ids and origins aside.
#[test]
fn arc_and_lz4_copies_of_real_warcs_give_the_same_verdicts() {
    let Some(data) = shared_data() else {
        eprintln!("SKIP: no ../shared/data");
        return;
    };
    let Some(python) = test_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let warcs = [
        "warc/dolma-samples/sample-0000.warc.gz",
        "warc/dolma-samples/sample-0001.warc.gz",
        "warc/resiliparse-cc-2020-34/CC-MAIN-20200808165417-20200808195417-00395.excerpt.warc.gz",
        "warc/cc-whirlwind-2024-22/whirlwind.warc.gz",
    ];
    let mut pages = 0;
    for (i, w) in warcs.iter().enumerate() {
        let warc = data.join(w);
        let (want, _, _) = scan(&warc, &["-q"]);
        assert!(!want.is_empty(), "{w}");
        pages += want.len();
        for out in [
            format!("{i}.arc"),
            format!("{i}.arc.gz"),
            format!("{i}.warc.lz4"),
        ] {
            let path = dir.path().join(&out);
            let cmd = if out.ends_with(".lz4") {
                "lz4"
            } else {
                "warc-to-arc"
            };
            common::ok(run(std::process::Command::new(&python)
                .arg(helper())
                .arg(cmd)
                .arg(&warc)
                .arg(&path)));
            let (got, stderr, status) = scan(&path, &["-q"]);
            assert_eq!(status, Some(0), "{out}: {stderr}");
            assert_eq!(
                comparable(&got),
                comparable(&want),
                "{w} as {out}\n{stderr}"
            );
            assert!(stderr.is_empty(), "{out}: {stderr}");
        }
    }
    eprintln!("{pages} pages, each the same from WARC, ARC, ARC.gz and LZ4 WARC");
}
