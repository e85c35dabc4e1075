//! Seen before? `scan --dedup` on real pages (WCXB dev) with copies made
//! of them: exact copies at other URLs and copies with words changed are
//! named as duplicates of the first page seen; an index kept in a file
//! makes a second run of the same crawl all duplicates; an earlier crawl's
//! index is read, never written.

use crate::common;

use common::{bin, reasons, run, shared_data, wcxb_pages};
use serde_json::{json, Value};
use std::path::Path;

/// One word in 60 of the page's text changed (not of its markup or
/// scripts): a near copy, its shingles' Jaccard about .8.
fn edited(html: &str) -> String {
    let mut out = String::new();
    let mut words = 0;
    let mut after = String::new();
    for (i, part) in html.split('>').enumerate() {
        if i > 0 {
            out.push('>');
        }
        let (text, tag) = match part.split_once('<') {
            Some((text, tag)) => (text, Some(tag)),
            None => (part, None),
        };
        if ["script", "style"].iter().any(|t| after.starts_with(t)) {
            out.push_str(text);
        } else {
            let changed: Vec<&str> = text
                .split(' ')
                .map(|w| {
                    words += 1;
                    if words % 60 == 0 && w.len() > 3 {
                        "zyxwv"
                    } else {
                        w
                    }
                })
                .collect();
            out.push_str(&changed.join(" "));
        }
        if let Some(tag) = tag {
            out.push('<');
            out.push_str(tag);
            after = tag.to_ascii_lowercase();
        }
    }
    out
}

/// The crawl: 30 real pages; for the first ten an exact copy and an edited
/// copy on other sites, after all originals.
fn crawl(dir: &Path, data: &Path) -> (std::path::PathBuf, Vec<String>) {
    let pages = wcxb_pages(data, 30, 8_000..200_000);
    let mut lines = Vec::new();
    for (i, html) in pages.iter().enumerate() {
        lines.push(json!({"url": format!("http://original-{i}.example/a.html"), "html": html}));
    }
    for (i, html) in pages.iter().take(10).enumerate() {
        lines.push(json!({"url": format!("http://mirror-{i}.example/a.html"), "html": html}));
        lines.push(
            json!({"url": format!("http://edited-{i}.example/a.html"), "html": edited(html)}),
        );
    }
    let path = dir.join("crawl.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    (path, pages)
}

fn scan(args: &[&str], input: &Path) -> Vec<Value> {
    common::verdicts(&run(bin().args(["scan", "-q"]).args(args).arg(input)))
}

fn by_url<'a>(vs: &'a [Value], url: &str) -> &'a Value {
    vs.iter()
        .find(|v| v["url"] == url)
        .unwrap_or_else(|| panic!("no verdict for {url}"))
}

fn kept(v: &Value) -> bool {
    v["verdict"] == "keep" || v["verdict"] == "flag"
}

#[test]
fn copies_are_named_as_duplicates_of_the_first_page_and_a_second_run_is_all_duplicates() {
    let Some(data) = shared_data() else {
        eprintln!("SKIP: no ../shared/data");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (input, _) = crawl(dir.path(), &data);
    let index = dir.path().join("seen.redb");
    let index_arg = index.to_str().unwrap();
    let first = scan(&["--dedup-index", index_arg], &input);
    let mut exact = 0;
    let mut near = 0;
    for i in 0..10 {
        let original = by_url(&first, &format!("http://original-{i}.example/a.html"));
        if !kept(original) || original["duplicate_of"].is_object() {
            continue; // a page dropped (not looked up), or a mirror inside the benchmark
        }
        let mirror = by_url(&first, &format!("http://mirror-{i}.example/a.html"));
        assert_eq!(mirror["duplicate_of"]["url"], original["url"], "{mirror}");
        assert_eq!(mirror["duplicate_of"]["exact"], true);
        assert_eq!(mirror["duplicate_of"]["similarity"], 1.0);
        assert!(reasons(mirror).contains(&"duplicate".to_string()));
        assert_eq!(
            mirror["verdict"], original["verdict"],
            "noting a duplicate keeps its verdict"
        );
        exact += 1;
        let edited = by_url(&first, &format!("http://edited-{i}.example/a.html"));
        if edited["content_sha1"] != original["content_sha1"] {
            assert_eq!(edited["duplicate_of"]["url"], original["url"], "{edited}");
            assert_eq!(edited["duplicate_of"]["exact"], false);
            let s = edited["duplicate_of"]["similarity"].as_f64().unwrap();
            assert!((0.7..=1.0).contains(&s), "{s}");
            near += 1;
        }
    }
    assert!(
        exact >= 8 && near >= 6,
        "{exact} exact and {near} near copies checked"
    );
    // The index outlives the run: the same crawl again is all seen.
    let second = scan(&["--dedup-index", index_arg], &input);
    let judged: Vec<&Value> = second.iter().filter(|v| kept(v)).collect();
    assert!(judged.len() >= 40);
    for v in judged {
        assert!(
            v["duplicate_of"].is_object(),
            "not found again: {}",
            v["url"]
        );
    }
    // The same answers on one thread as on two: lookups run in input order.
    let firsts =
        |vs: &[Value]| -> Vec<Value> { vs.iter().map(|v| v["duplicate_of"].clone()).collect() };
    let one = scan(&["--dedup", "-j", "1"], &input);
    let two = scan(&["--dedup", "-j", "2"], &input);
    assert_eq!(firsts(&one), firsts(&two));
    assert_eq!(firsts(&one), firsts(&first));
}

#[test]
fn an_earlier_crawls_index_is_read_and_never_written() {
    let Some(data) = shared_data() else {
        eprintln!("SKIP: no ../shared/data");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let pages = wcxb_pages(&data, 12, 8_000..200_000);
    let write = |name: &str, range: std::ops::Range<usize>, host: &str| {
        let path = dir.path().join(name);
        let text: String = pages[range]
            .iter()
            .enumerate()
            .map(|(i, h)| {
                format!(
                    "{}\n",
                    json!({"url": format!("http://{host}-{i}.example/"), "html": h})
                )
            })
            .collect();
        std::fs::write(&path, text).unwrap();
        path
    };
    let last = write("last.jsonl", 0..8, "last");
    let this = write("this.jsonl", 4..12, "this");
    let index = dir.path().join("last.redb");
    scan(&["--dedup-index", index.to_str().unwrap()], &last);
    let before = std::fs::read(&index).unwrap();
    let vs = scan(&["--dedup-previous", index.to_str().unwrap()], &this);
    assert_eq!(
        std::fs::read(&index).unwrap(),
        before,
        "the earlier index was written"
    );
    let mut found = 0;
    for (i, v) in vs.iter().enumerate().filter(|(_, v)| kept(v)) {
        let of = &v["duplicate_of"];
        if i < 4 {
            // Pages 4..8 of the last crawl: found there, under its URLs.
            assert_eq!(of["url"], format!("http://last-{}.example/", i + 4), "{v}");
            assert_eq!(of["previous"], index.to_str().unwrap());
            found += 1;
        } else if of.is_object() {
            assert!(
                of.get("previous").is_none(),
                "a page the last crawl did not have: {of}"
            );
        }
    }
    assert!(found >= 3, "{found}");
    // Dropping instead of noting.
    let dropped = scan(
        &[
            "--dedup-previous",
            index.to_str().unwrap(),
            "--set",
            "dedup.action=drop",
        ],
        &this,
    );
    let d = dropped
        .iter()
        .find(|v| v["duplicate_of"].is_object())
        .expect("a duplicate");
    assert_eq!(d["verdict"], "drop");
    assert_eq!(reasons(d)[0], "duplicate");
}

#[test]
fn dedup_mistakes_stop_the_start_with_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("p.html");
    std::fs::write(&page, common::article(200)).unwrap();
    let fails = |args: &[&str], key: &str| {
        let out = run(bin().arg("scan").args(args).arg(&page));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(stderr.contains(key), "{args:?}: {stderr}");
    };
    fails(&["--dedup", "--set", "dedup.bands=60"], "dedup.bands");
    fails(
        &["--dedup", "--set", "dedup.threshold=1.5"],
        "dedup.threshold",
    );
    fails(&["--dedup", "--set", "dedup.action=forget"], "dedup.action");
    let missing = dir.path().join("missing.redb");
    fails(
        &["--dedup-previous", missing.to_str().unwrap()],
        "dedup.previous",
    );
    let index = dir.path().join("i.redb");
    let ok = run(bin()
        .args(["scan", "-q", "--dedup-index", index.to_str().unwrap()])
        .arg(&page));
    assert!(ok.status.success());
    fails(
        &[
            "--dedup-index",
            index.to_str().unwrap(),
            "--set",
            "dedup.rows=4",
        ],
        "dedup.index",
    );
}

/// The agent looks its pages up too, and its index outlives a restart.
#[test]
fn the_agent_names_a_copy_it_saw_before_and_after_a_restart() {
    use crate::daemon::{config, http, real_pages, Agent};
    let dir = tempfile::tempdir().unwrap();
    let path = config(dir.path(), None, "");
    let mut text = std::fs::read_to_string(&path).unwrap();
    let index = dir.path().join("seen.redb");
    text.push_str(&format!("[dedup]\ncheck = true\nindex = {index:?}\n"));
    std::fs::write(&path, text).unwrap();
    let page = real_pages(3).into_iter().max_by_key(|p| p.len()).unwrap();
    let post = |agent: &Agent, url: &str| -> Value {
        let headers = [
            ("X-Crawlsieve-Url", url),
            ("Content-Type", "text/html; charset=utf-8"),
        ];
        let (status, body) =
            http(&agent.addr, "POST", "/v1/pages", &headers, page.as_bytes()).unwrap();
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
        serde_json::from_slice(&body).unwrap()
    };
    let mut agent = Agent::start(&path);
    let first = post(&agent, "http://first.example/");
    assert!(kept(&first), "{first}");
    assert!(first.get("duplicate_of").is_none(), "{first}");
    let copy = post(&agent, "http://copy.example/");
    assert_eq!(
        copy["duplicate_of"]["url"], "http://first.example/",
        "{copy}"
    );
    assert!(agent.terminate().success());
    let mut agent = Agent::start(&path);
    let later = post(&agent, "http://later.example/");
    assert_eq!(
        later["duplicate_of"]["url"], "http://first.example/",
        "{later}"
    );
    assert!(agent.terminate().success());
}
