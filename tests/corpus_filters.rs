//! The corpus rule sets (`filters.rules`) through the real binary: on a text input and on real
//! pages, each failure named with its rule and value, C4's lines removed from what is written,
//! and the default configuration's verdicts untouched. Agreement with datatrove itself on real
//! texts is python/tests/test_corpus_filters.py (the real datatrove and spaCy from PyPI).

use crate::common::*;
use serde_json::{json, Value};

const PROSE: &str = "The survey asked three hundred farmers how they plan a season. Most of them said that \
the weather decides more than the market does, and that they keep records of both. A few had moved to \
crops that need less water, after two dry summers in a row. Others said the price of seed had risen \
faster than the price of what they sell. The report ends with the questions the farmers asked in turn: \
who will buy the harvest, and at what price, and when will they know.";

fn scan_texts(dir: &std::path::Path, config: &str, texts: &[(&str, String)]) -> Vec<Value> {
    let pages = dir.join("texts.jsonl");
    let lines: Vec<String> = texts
        .iter()
        .map(|(url, text)| json!({"url": url, "text": text}).to_string())
        .collect();
    std::fs::write(&pages, lines.join("\n") + "\n").unwrap();
    let conf = dir.join("rules.toml");
    std::fs::write(&conf, config).unwrap();
    verdicts(&run(bin()
        .args(["scan", "--content", "--config"])
        .arg(&conf)
        .arg(&pages)))
}

fn by_url<'a>(vs: &'a [Value], url: &str) -> &'a Value {
    vs.iter()
        .find(|v| v["url"] == url)
        .unwrap_or_else(|| panic!("no verdict for {url}"))
}

#[test]
fn each_rule_set_drops_what_it_should_and_says_by_which_rule() {
    let dir = tempfile::tempdir().unwrap();
    let repeated = "Buy cheap watches online today.\n".repeat(8) + PROSE;
    let tags: Vec<String> = [
        "farm", "rain", "seed", "crop", "soil", "corn", "barn", "wheat", "hay", "plow", "mill",
        "pond", "herd", "hoe", "silo", "sun", "frost", "dew", "loam", "oats",
    ]
    .iter()
    .map(|t| format!("#{t}"))
    .collect();
    let hashes = format!("{PROSE} {}", tags.join(" "));
    let with_cookies = format!(
        "{PROSE}\nThis site uses cookies to improve your experience.\nMenu\nRead more about it."
    );
    let curly = format!("{PROSE}\nThe function returns {{ value: 1 }} on success.");
    let texts = [
        ("http://a.example/prose", PROSE.to_string()),
        ("http://a.example/repeated", repeated),
        ("http://a.example/hashes", hashes),
        ("http://a.example/cookies", with_cookies),
        ("http://a.example/curly", curly),
    ];
    let config =
        "[filters]\nrules = [\"gopher_repetition\", \"gopher_quality\", \"c4\", \"fineweb\"]\n";
    let vs = scan_texts(dir.path(), config, &texts);
    assert_eq!(vs.len(), texts.len(), "one verdict a text");

    let prose = by_url(&vs, "http://a.example/prose");
    assert_eq!(prose["verdict"], "keep", "{prose}");
    assert!(prose.get("rule_failed").is_none());

    let repeated = by_url(&vs, "http://a.example/repeated");
    assert_eq!(repeated["reasons"][0], "gopher_repetition", "{repeated}");
    let failed = &repeated["rule_failed"];
    assert_eq!(failed["set"], "gopher_repetition");
    assert!(
        failed["value"].as_f64().unwrap() > failed["limit"].as_f64().unwrap(),
        "{failed}"
    );

    let hashes = by_url(&vs, "http://a.example/hashes");
    assert_eq!(hashes["reasons"][0], "gopher_quality", "{hashes}");
    assert_eq!(hashes["rule_failed"]["rule"], "gopher_too_many_hashes");

    // C4 removes the cookie line and the lines without end punctuation; the content written is what is left.
    let cookies = by_url(&vs, "http://a.example/cookies");
    assert_eq!(cookies["verdict"], "keep", "{cookies}");
    assert_eq!(cookies["lines_removed"], 2, "{cookies}");
    let content = cookies["content"].as_str().unwrap();
    assert!(
        !content.contains("cookies") && !content.contains("Menu") && content.contains("Read more")
    );

    let curly = by_url(&vs, "http://a.example/curly");
    assert_eq!(
        (&curly["reasons"][0], &curly["rule_failed"]["rule"]),
        (&json!("c4"), &json!("curly_bracket"))
    );
}

#[test]
fn a_text_input_needs_text_or_html_and_not_both() {
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("pages.jsonl");
    let lines = [
        json!({"url": "http://a.example/t", "text": PROSE}),
        json!({"url": "http://a.example/both", "text": PROSE, "html": "<p>x</p>"}),
        json!({"url": "http://a.example/neither"}),
    ];
    let body: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    std::fs::write(&pages, body.join("\n")).unwrap();
    let vs = verdicts(&run(bin().arg("scan").arg(&pages)));
    assert_eq!(vs.len(), 3);
    let t = by_url(&vs, "http://a.example/t");
    assert_eq!(t["verdict"], "keep", "{t}");
    let words = PROSE.split_whitespace().count() as u64;
    assert_eq!(
        t["words"].as_u64().unwrap(),
        words,
        "a text input's words are its own"
    );
    for (url, says) in [
        ("http://a.example/both", "both"),
        ("http://a.example/neither", "neither"),
    ] {
        let v = by_url(&vs, url);
        assert_eq!(v["verdict"], "error", "{v}");
        assert!(v["error"].as_str().unwrap().contains(says), "{v}");
    }
}

/// Real pages, the rule sets on: every page judged once, each drop by a rule set names the rule
/// and a value past its limit; with the rule sets off (the default), the same pages' verdicts are
/// those of a run without the new keys at all.
#[test]
fn on_real_pages_drops_name_their_rule_and_the_default_is_untouched() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let pages = wcxb_pages(&data, 60, 2_000..400_000);
    let jsonl = dir.path().join("pages.jsonl");
    let lines: Vec<String> = pages
        .iter()
        .enumerate()
        .map(|(i, h)| json!({"url": format!("http://wcxb.example/{i}"), "html": h}).to_string())
        .collect();
    std::fs::write(&jsonl, lines.join("\n")).unwrap();
    let conf = dir.path().join("fineweb.toml");
    std::fs::write(
        &conf,
        "[filters]\nrules = [\"gopher_repetition\", \"gopher_quality\", \"c4\", \"fineweb\"]\n",
    )
    .unwrap();
    let ruled = verdicts(&run(bin()
        .args(["scan", "--config"])
        .arg(&conf)
        .arg(&jsonl)));
    let plain = verdicts(&run(bin().arg("scan").arg(&jsonl)));
    assert_eq!((ruled.len(), plain.len()), (pages.len(), pages.len()));
    let sets = ["gopher_repetition", "gopher_quality", "c4", "fineweb"];
    let mut dropped_by_sets = 0;
    for (r, p) in ruled.iter().zip(&plain) {
        assert!(
            p.get("rule_failed").is_none() && p.get("lines_removed").is_none(),
            "{p}"
        );
        let first = r["reasons"][0].as_str().unwrap_or("");
        if sets.contains(&first) {
            dropped_by_sets += 1;
            let f = &r["rule_failed"];
            assert_eq!(f["set"], first, "{r}");
            assert!(f["rule"].as_str().is_some_and(|s| !s.is_empty()), "{r}");
            // The page kept without the rule sets is the one they dropped.
            assert_eq!(p["verdict"], "keep", "{p}");
        } else {
            assert_eq!(r["verdict"], p["verdict"], "{r}\n{p}");
        }
    }
    assert!(
        dropped_by_sets > 0 && dropped_by_sets < pages.len(),
        "{dropped_by_sets} of {}",
        pages.len()
    );
}

#[test]
fn a_rule_set_named_twice_or_unknown_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    for (rules, says) in [("[\"c4\", \"c4\"]", "named twice"), ("[\"c5\"]", "c5")] {
        let conf = dir.path().join("bad.toml");
        std::fs::write(&conf, format!("[filters]\nrules = {rules}\n")).unwrap();
        let out = run(bin()
            .args(["scan", "--config"])
            .arg(&conf)
            .arg(repo().join("examples/crawl.warc.gz")));
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("filters.rules") && err.contains(says), "{err}");
    }
}

#[test]
fn url_lists_in_ut1_form_block_before_reading_and_an_allow_list_makes_exceptions() {
    let dir = tempfile::tempdir().unwrap();
    let block = dir.path().join("copiers");
    std::fs::create_dir_all(&block).unwrap();
    std::fs::write(block.join("domains"), "# UT1's form\ncopies.example.net\n").unwrap();
    std::fs::write(block.join("urls"), "news.example.org/2026/ferry\n").unwrap();
    let allow = dir.path().join("exceptions.txt");
    std::fs::write(&allow, "copies.example.net/posts/apples\n").unwrap();
    let conf = dir.path().join("urls.toml");
    std::fs::write(
        &conf,
        format!("[filters.urls]\nblock = [{block:?}]\nallow = [{allow:?}]\n"),
    )
    .unwrap();
    let crawl = repo().join("examples/crawl.warc.gz");
    let listed = verdicts(&run(bin()
        .args(["scan", "--config"])
        .arg(&conf)
        .arg(&crawl)));
    let plain = verdicts(&run(bin().arg("scan").arg(&crawl)));
    assert_eq!(listed.len(), plain.len());
    let mut blocked = 0;
    for (l, p) in listed.iter().zip(&plain) {
        let url = l["url"].as_str().unwrap();
        let expect = if url.starts_with("http://copies.example.net/") && !url.ends_with("/apples") {
            Some("copies.example.net")
        } else if url == "http://news.example.org/2026/ferry" {
            Some("news.example.org/2026/ferry")
        } else {
            None
        };
        match expect {
            Some(entry) => {
                blocked += 1;
                assert_eq!(reasons(l), ["url_blocked"], "{l}");
                assert_eq!(l["url_listed"]["list"], "copiers", "{l}");
                assert_eq!(l["url_listed"]["entry"], entry, "{l}");
                assert_eq!(l["words"], 0, "dropped before its HTML is read: {l}");
            }
            None => {
                assert_eq!(
                    (&l["verdict"], reasons(l)),
                    (&p["verdict"], reasons(p)),
                    "{l}"
                );
                assert!(l.get("url_listed").is_none());
            }
        }
    }
    assert!(blocked >= 4, "{blocked}");

    // FineWeb's URL words: one of each kind, taken from the shipped list.
    let words = std::fs::read_to_string(repo().join("rules/url_words.tsv")).unwrap();
    let first = |kind: &str, n: usize| -> Vec<String> {
        words
            .lines()
            .filter_map(|l| l.strip_prefix(&format!("{kind}\t")))
            .take(n)
            .map(str::to_string)
            .collect()
    };
    let (banned, soft, sub) = (first("banned", 1), first("soft", 2), first("subword", 1));
    let texts = [
        ("http://a.example/", PROSE.to_string()),
        (
            &*format!("http://b.example/{}/page", banned[0]),
            PROSE.to_string(),
        ),
        (
            &*format!("http://c.example/{}-{}", soft[0], soft[1]),
            PROSE.to_string(),
        ),
        (
            &*format!("http://c.example/only-{}", soft[0]),
            PROSE.to_string(),
        ),
        (
            &*format!("http://d.example/x{}x", sub[0]),
            PROSE.to_string(),
        ),
    ];
    let texts: Vec<(&str, String)> = texts.iter().map(|(u, t)| (*u, t.clone())).collect();
    let vs = scan_texts(dir.path(), "[filters.urls]\nwords = true\n", &texts);
    let list = |i: usize| vs[i]["url_listed"]["list"].as_str().map(str::to_string);
    assert_eq!(list(0), None);
    assert_eq!(list(1).as_deref(), Some("banned_words"));
    assert_eq!(list(2).as_deref(), Some("soft_banned_words"));
    assert_eq!(list(3), None, "one soft word is not enough");
    assert_eq!(list(4).as_deref(), Some("banned_subwords"));

    let missing = bin()
        .args(["scan", "--set", "filters.urls.block=/no/such/list"])
        .arg(&crawl)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(
        !missing.status.success() && err.contains("filters.urls.block"),
        "{err}"
    );
}
