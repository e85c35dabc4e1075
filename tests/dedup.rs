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
pub(crate) fn edited(html: &str) -> String {
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
pub(crate) fn crawl(dir: &Path, data: &Path) -> (std::path::PathBuf, Vec<String>) {
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
    fails(&["--dedup-shared", "http://localhost/"], "dedup.shared");
    let out = run(bin()
        .args(["scan", "--dedup-shared", "redis://:hunter2@127.0.0.1:1/0"])
        .arg(&page));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("dedup.shared"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("hunter2"),
        "the password was shown: {stderr}"
    );
    fails(
        &[
            "--dedup-shared",
            "redis://127.0.0.1:1/0",
            "--set",
            "dedup.namespace={a}",
        ],
        "dedup.namespace",
    );
    let index = dir.path().join("i.redb");
    fails(
        &[
            "--dedup-shared",
            "redis://127.0.0.1:1/0",
            "--dedup-index",
            index.to_str().unwrap(),
        ],
        "dedup.shared",
    );
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
    use crate::daemon::{config, judge, real_pages, Agent};
    let dir = tempfile::tempdir().unwrap();
    let path = config(dir.path(), None, "");
    let mut text = std::fs::read_to_string(&path).unwrap();
    let index = dir.path().join("seen.redb");
    text.push_str(&format!("[dedup]\ncheck = true\nindex = {index:?}\n"));
    std::fs::write(&path, text).unwrap();
    let page = real_pages(3).into_iter().max_by_key(|p| p.len()).unwrap();
    let post = |agent: &Agent, url: &str| judge(agent, url, &page);
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

/// Pages `pages[i]` at `http://{host}-{i}.example/`, in `order`, as a JSONL crawl.
fn write_crawl(path: &Path, pages: &[String], host: &str, order: &[usize]) {
    let text: String = order
        .iter()
        .map(|&i| {
            let url = format!("http://{host}-{i}.example/");
            format!("{}\n", json!({"url": url, "html": pages[i]}))
        })
        .collect();
    std::fs::write(path, text).unwrap();
}

/// Two scans of one crawl at once, sharing an index in a real Redis: the
/// same 30 pages in opposite orders, and an edited copy of each, so that
/// each content meets both at about the same time. Each content is kept
/// once, whichever scan saw it first, and every duplicate names a page kept.
#[test]
fn two_scans_sharing_an_index_keep_each_content_once_whichever_sees_it_first() {
    use crate::daemon::Redis;
    let Some(data) = shared_data() else {
        eprintln!("SKIP: no ../shared/data");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let pages = wcxb_pages(&data, 30, 8_000..200_000);
    let forward: Vec<usize> = (0..30).collect();
    let backward: Vec<usize> = (0..30).rev().collect();
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    write_crawl(&a, &pages, "a", &forward);
    let edited_pages: Vec<String> = pages.iter().map(|p| edited(p)).collect();
    write_crawl(&b, &pages, "b", &backward);
    let mut text = std::fs::read_to_string(&b).unwrap();
    write_crawl(&b, &edited_pages, "e", &forward);
    text.push_str(&std::fs::read_to_string(&b).unwrap());
    std::fs::write(&b, text).unwrap();

    let redis = Redis::start();
    let url = redis.url();
    let spawn = |input: &Path| {
        bin()
            .args(["scan", "-q", "-j", "1", "--dedup-shared", &url])
            .arg(input)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (pa, pb) = (spawn(&a), spawn(&b));
    let (va, vb) = (
        common::verdicts(&pa.wait_with_output().unwrap()),
        common::verdicts(&pb.wait_with_output().unwrap()),
    );
    assert_eq!((va.len(), vb.len()), (30, 60));
    let all: Vec<&Value> = va.iter().chain(&vb).filter(|v| kept(v)).collect();
    let firsts: std::collections::HashSet<&str> = all
        .iter()
        .filter(|v| v["duplicate_of"].is_null())
        .map(|v| v["url"].as_str().unwrap())
        .collect();
    let mut groups_of_one = 0;
    for i in 0..30 {
        let group: Vec<String> = ["a", "b", "e"]
            .iter()
            .map(|h| format!("http://{h}-{i}.example/"))
            .collect();
        let kept_first = group.iter().filter(|u| firsts.contains(u.as_str())).count();
        assert!(kept_first <= 1, "content {i} kept {kept_first} times");
        groups_of_one += kept_first;
    }
    for v in &all {
        if let Some(of) = v["duplicate_of"]["url"].as_str() {
            assert!(
                firsts.contains(of),
                "{} names {of}, not a page kept",
                v["url"]
            );
        }
    }
    let by_a = va
        .iter()
        .filter(|v| kept(v) && v["duplicate_of"].is_null())
        .count();
    eprintln!(
        "kept first: {by_a} by the forward scan, {} in all",
        firsts.len()
    );
    assert!(
        groups_of_one >= 25,
        "{groups_of_one} of 30 contents kept once"
    );
}

/// The shared index unreachable: every page is judged as without it, and
/// noted `duplicate_unchecked`; the summary counts them.
#[test]
fn a_shared_index_down_leaves_every_page_judged_and_noted_unchecked() {
    use crate::daemon::free_port;
    let Some(data) = shared_data() else {
        eprintln!("SKIP: no ../shared/data");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (input, _) = crawl(dir.path(), &data);
    let url = format!("redis://127.0.0.1:{}/0", free_port());
    let summary = dir.path().join("summary.json");
    let started = std::time::Instant::now();
    let down = scan(
        &[
            "--dedup-shared",
            &url,
            "--summary-json",
            summary.to_str().unwrap(),
        ],
        &input,
    );
    let took = started.elapsed();
    let plain = scan(&[], &input);
    assert_eq!(down.len(), plain.len());
    let mut unchecked = 0;
    for (d, p) in down.iter().zip(&plain) {
        assert_eq!((&d["url"], &d["verdict"]), (&p["url"], &p["verdict"]));
        assert!(d["duplicate_of"].is_null());
        if kept(d) {
            assert!(
                reasons(d).contains(&"duplicate_unchecked".to_string()),
                "{d}"
            );
            unchecked += 1;
        }
    }
    let s: Value = serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
    assert_eq!(s["dedup"]["unchecked"], unchecked, "{s}");
    assert!(unchecked >= 40);
    assert!(took.as_secs() < 20, "a down index cost {took:?}");
}

/// Agents on one Redis see each other's pages; one SIGKILLed and started
/// again has lost nothing it answered for; a password comes from the
/// environment, and a wrong one stops the start.
#[test]
fn agents_sharing_an_index_name_each_others_pages_across_a_sigkill() {
    use crate::daemon::{config, judge, real_pages, Agent, Redis};
    let dir = tempfile::tempdir().unwrap();
    let redis = Redis::start_with(Some("s3cret-for-test"));
    let path = config(dir.path(), None, "");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!(
        "[dedup]\ncheck = true\nshared = {:?}\nnamespace = \"crawl-7\"\n",
        redis.url()
    ));
    std::fs::write(&path, text).unwrap();
    let page = real_pages(3).into_iter().max_by_key(|p| p.len()).unwrap();
    let post = |agent: &Agent, url: &str| judge(agent, url, &page);
    let out = run(bin()
        .args(["agent", "-c"])
        .arg(&path)
        .env("CRAWLSIEVE_REDIS_PASSWORD", "wrong"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("dedup.shared"),
        "{stderr}"
    );
    let secrets = tempfile::tempdir().unwrap();
    let secret = secrets.path().join("redis-password");
    std::fs::write(&secret, "s3cret-for-test\n").unwrap();
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!("shared_password_file = {secret:?}\n"));
    std::fs::write(&path, text).unwrap();
    let mut one = Agent::start(&path);
    let mut two = Agent::start(&path);
    let first = post(&one, "http://first.example/");
    assert!(kept(&first) && first["duplicate_of"].is_null(), "{first}");
    let copy = post(&two, "http://copy.example/");
    assert_eq!(
        copy["duplicate_of"]["url"], "http://first.example/",
        "{copy}"
    );
    one.kill();
    let one = Agent::start(&path);
    let later = post(&one, "http://later.example/");
    assert_eq!(
        later["duplicate_of"]["url"], "http://first.example/",
        "{later}"
    );
    assert!(two.terminate().success());
}
