//! `crawlsieve scan` end to end: the real binary on real WARC files.

use crate::common;
use common::*;
use std::collections::BTreeSet;
use std::io::Read;
use std::process::Command;

/// Record ids of the HTML `response` records of a WARC file, found by a
/// reading independent of the one under test: decompress with flate2 and
/// walk the records by their Content-Length.
fn html_response_ids(path: &std::path::Path) -> Vec<String> {
    let mut data = Vec::new();
    let raw = std::fs::read(path).unwrap();
    if raw.starts_with(&[0x1f, 0x8b]) {
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut data)
            .unwrap();
    } else {
        data = raw;
    }
    let mut ids = Vec::new();
    let mut pos = 0;
    while let Some(start) = find(&data[pos..], b"WARC/1.") {
        let start = pos + start;
        let head_end = start + find(&data[start..], b"\r\n\r\n").unwrap() + 4;
        let head = String::from_utf8_lossy(&data[start..head_end]).to_lowercase();
        let field = |name: &str| {
            head.lines().find_map(|l| {
                l.strip_prefix(&format!("{name}:"))
                    .map(|v| v.trim().to_string())
            })
        };
        let len: usize = field("content-length").unwrap().parse().unwrap();
        let block = &data[head_end..head_end + len];
        if field("warc-type").as_deref() == Some("response") {
            let http_head_end = find(block, b"\r\n\r\n").unwrap_or(block.len());
            let http_head = String::from_utf8_lossy(&block[..http_head_end]).to_lowercase();
            let ctype = http_head
                .lines()
                .find_map(|l| l.strip_prefix("content-type:"))
                .unwrap_or("");
            if ctype.contains("text/html") || ctype.contains("application/xhtml+xml") {
                // Ids keep their case: take them from the raw header.
                let raw_head = String::from_utf8_lossy(&data[start..head_end]).to_string();
                let id = raw_head
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("warc-record-id")
                            .then(|| v.trim().to_string())
                    })
                    .unwrap();
                ids.push(id);
            }
        }
        pos = head_end + len;
    }
    ids
}

fn find(h: &[u8], n: &[u8]) -> Option<usize> {
    h.windows(n.len()).position(|w| w == n)
}

#[test]
fn one_verdict_per_html_response_in_real_warc_files() {
    let Some(data) = shared_data() else { return };
    let files = [
        "warc/resiliparse-cc-2020-34/CC-MAIN-20200808165417-20200808195417-00395.excerpt.warc.gz",
        "warc/cc-whirlwind-2024-22/whirlwind.warc.gz",
        "warc/dolma-samples/sample-0000.warc.gz",
        "warc/dolma-samples/sample-0001.warc.gz",
    ];
    let mut total = 0;
    for f in files {
        let path = data.join(f);
        let expected = html_response_ids(&path);
        assert!(
            !expected.is_empty(),
            "{f}: no HTML responses found by the test's own reader"
        );
        let out = run(bin().args(["scan", "-q", "-j", "2"]).arg(&path));
        let vs = verdicts(&out);
        let got: Vec<String> = vs
            .iter()
            .map(|v| v["id"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(
            got, expected,
            "{f}: one verdict per HTML response, in file order"
        );
        for v in &vs {
            for key in [
                "id",
                "url",
                "site",
                "verdict",
                "reasons",
                "origin",
                "bytes",
                "words",
                "links",
                "link_density",
                "lang",
                "chunks",
                "stop_chunks",
                "matched_chunks",
                "contains",
                "whole_match",
                "labels_version",
                "elapsed_us",
                "error",
            ] {
                assert!(v.get(key).is_some(), "{f}: verdict without `{key}`: {v}");
            }
            let url = v["url"].as_str().unwrap();
            assert!(
                url.starts_with("http"),
                "{f}: URL unwrapped from <...>: {url}"
            );
            assert!(!url.contains('<') && !url.contains('>'));
            assert!(["keep", "drop", "flag", "error"].contains(&v["verdict"].as_str().unwrap()));
            assert_eq!(v["origin"]["kind"], "warc");
        }
        total += vs.len();
    }
    assert!(
        total >= 54,
        "the README of shared/data counts ~54 HTML responses; got {total}"
    );
}

#[test]
fn common_crawl_excerpt_has_varied_verdicts_and_languages() {
    let Some(data) = shared_data() else { return };
    let path = data.join(
        "warc/resiliparse-cc-2020-34/CC-MAIN-20200808165417-20200808195417-00395.excerpt.warc.gz",
    );
    let vs = verdicts(&run(bin().args(["scan", "-q"]).arg(&path)));
    // A raw crawl slice of SEO/spam sites, nearly all with plenty of text:
    // mostly kept (copy detection needs labeled sets), none an error.
    assert!(vs.iter().all(|v| v["verdict"] != "error"), "{vs:?}");
    let kept = vs.iter().filter(|v| v["verdict"] == "keep").count();
    assert!(kept * 4 >= vs.len() * 3, "{kept} of {} kept", vs.len());
    // Legacy charsets declared late in the page are decoded (no U+FFFD).
    assert!(vs.iter().all(|v| !v["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r == "decode_errors")));
    let langs: BTreeSet<&str> = vs.iter().filter_map(|v| v["lang"].as_str()).collect();
    assert!(langs.contains("cmn"), "Chinese pages detected: {langs:?}");
    // Registered domains, public-suffix aware.
    for v in &vs {
        let site = v["site"].as_str().unwrap();
        let url = v["url"].as_str().unwrap();
        assert!(url.contains(site), "{site} in {url}");
        assert!(!site.starts_with("www."), "{site}");
    }
}

#[test]
fn bundled_example_flags_copies_and_explains_drops() {
    let repo = repo();
    let out = run(bin()
        .args(["scan", "--labels"])
        .arg(repo.join("examples/labels.txt"))
        .arg(repo.join("examples/crawl.warc.gz")));
    let vs = verdicts(&out);
    let by_url = |u: &str| {
        vs.iter()
            .find(|v| v["url"] == u)
            .unwrap_or_else(|| panic!("no verdict for {u}"))
    };
    assert_eq!(
        by_url("http://copies.example.net/posts/bridges-story")["verdict"],
        "flag"
    );
    assert_eq!(
        by_url("http://copies.example.net/posts/swift-news")["verdict"],
        "flag"
    );
    assert_eq!(by_url("http://blog.example.com/garten")["verdict"], "keep");
    assert_eq!(by_url("http://blog.example.com/garten")["lang"], "deu");
    assert_eq!(
        by_url("http://blog.example.com/hello")["reasons"][0],
        "too_short"
    );
    assert_eq!(
        by_url("http://blog.example.com/links")["reasons"][0],
        "link_dense"
    );
    assert_eq!(by_url("http://shop.example.com/broken")["verdict"], "error");
    assert!(
        vs.iter()
            .all(|v| v["url"] != "http://shop.example.com/logo.png"),
        "PNG is skipped"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("pages in: 16") && stderr.contains("verdicts out: 16"),
        "{stderr}"
    );
    assert!(stderr.contains("not_html 1"), "{stderr}");
    // The copier's five pages make a judged neighborhood, flagged as a site.
    assert!(stderr.contains("1 site flags"), "{stderr}");
    let flags: Vec<_> = common::split_lines(&String::from_utf8_lossy(&out.stdout)).1;
    assert!(
        flags
            .iter()
            .any(|f| f["neighborhood"] == "example.net" && f["state"] == "bad"),
        "{flags:?}"
    );
}

#[test]
fn jsonl_on_stdin_and_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("v.jsonl");
    let input = format!(
        "{}\n\n{}\n",
        serde_json::json!({"url": "https://www.example.co.uk/a", "html": article(80)}),
        serde_json::json!({"url": "https://example.com/b", "html": "<p>short</p>", "status": 200}),
    );
    let out = run_stdin(
        bin().args(["scan", "-q", "-o"]).arg(&out_path).arg("-"),
        input.as_bytes(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&out_path).unwrap();
    let vs = common::split_lines(&text).0;
    assert_eq!(vs.len(), 2);
    assert_eq!(vs[0]["site"], "example.co.uk");
    assert_eq!(vs[0]["origin"]["line"], 1);
    assert_eq!(vs[1]["origin"]["line"], 3);
    assert_eq!(vs[1]["verdict"], "drop");
    assert_eq!(vs[1]["status"], 200);
}

#[test]
fn configuration_mistakes_fail_at_start_up_with_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    std::fs::write(&cfg, "[filters]\nmax_link_density = -1\n").unwrap();
    let out = run(bin()
        .args(["scan", "--config"])
        .arg(&cfg)
        .arg(repo().join("examples/crawl.warc.gz")));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("filters.max_link_density"));
    let out = run(bin()
        .args(["scan"])
        .env("CRAWLSIEVE_FILTERS__MIN_WORDZ", "3")
        .arg(repo().join("examples/crawl.warc.gz")));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("min_wordz"));
    let out = run(bin().args(["scan", "no/such/file.warc"]));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn environment_and_flags_override_rules() {
    // min_words raised by environment, then lowered by --set: the flag wins.
    let page = serde_json::json!({"url": "https://example.com/", "html": article(60)}).to_string();
    let vs = verdicts(&run_stdin(
        bin()
            .args(["scan", "-q", "-"])
            .env("CRAWLSIEVE_FILTERS__MIN_WORDS", "100"),
        page.as_bytes(),
    ));
    assert_eq!(vs[0]["reasons"][0], "too_short");
    let vs = verdicts(&run_stdin(
        bin()
            .args(["scan", "-q", "--set", "filters.min_words=10", "-"])
            .env("CRAWLSIEVE_FILTERS__MIN_WORDS", "100"),
        page.as_bytes(),
    ));
    assert_eq!(vs[0]["verdict"], "keep");
    // A value quoted as in the TOML file is the string inside the quotes.
    for set in [
        "language.unknown=\"drop\"",
        "language.unknown='drop'",
        "language.unknown=drop",
    ] {
        let vs = verdicts(&run_stdin(
            bin().args([
                "scan",
                "-q",
                "--set",
                "filters.min_words=0",
                "--set",
                set,
                "-",
            ]),
            b"{\"url\":\"https://example.com/x\",\"html\":\"<p>1 2 3</p>\"}\n",
        ));
        assert!(
            vs[0]["reasons"]
                .as_array()
                .is_some_and(|r| r.iter().any(|x| x == "language")),
            "{set}: {vs:?}"
        );
    }
}

/// `scan --warc-metadata`: a verdict per page as a WARC/1.1 metadata record,
/// read back by warcio (PyPI) with block digests checked, each referring to
/// the response record it judged, on real Common Crawl and Dolma WARC files.
#[test]
fn verdicts_as_warc_metadata_records_read_by_warcio() {
    let Some(data) = shared_data() else { return };
    let Some(python) = test_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    for (input, name) in [
        ("warc/dolma-samples/sample-0000.warc.gz", "verdicts.warc.gz"),
        (
            "warc/resiliparse-cc-2020-34/CC-MAIN-20200808165417-20200808195417-00395.excerpt.warc.gz",
            "verdicts.warc",
        ),
    ] {
        let input = data.join(input);
        let (jsonl, warc) = (dir.path().join("verdicts.jsonl"), dir.path().join(name));
        ok(run(bin()
            .args(["scan", "-q", "-o"])
            .arg(&jsonl)
            .arg("--warc-metadata")
            .arg(&warc)
            .arg(&input)));
        let out = run(Command::new(&python)
            .arg(repo().join("tests/python/check_warc_metadata.py"))
            .args([&input, &warc, &jsonl]));
        eprintln!("{name}: {}", ok(out).trim());
    }
}

/// `crawlsieve cdx`: the CDXJ index pywb's own indexer (`cdxj-indexer`, PyPI)
/// makes of a real WARC file, with each judged record's verdict fields added
/// and every other field and line as it was.
#[test]
fn a_cdxj_index_from_cdxj_indexer_annotated_with_verdicts() {
    let Some(data) = shared_data() else { return };
    let Some(python) = test_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let input = data.join("warc/dolma-samples/sample-0001.warc.gz");
    let indexer = python.with_file_name("cdxj-indexer");
    let index = ok(run(Command::new(&indexer).arg(&input)));
    let index_path = dir.path().join("index.cdxj");
    std::fs::write(&index_path, &index).unwrap();
    let jsonl = dir.path().join("verdicts.jsonl");
    ok(run(bin()
        .args(["scan", "-q", "-o"])
        .arg(&jsonl)
        .arg(&input)));
    let out = run(bin()
        .args(["cdx", "--verdicts"])
        .arg(&jsonl)
        .arg(&index_path));
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let annotated = ok(out);
    eprintln!("{}", stderr.trim());

    let verdicts: Vec<serde_json::Value> = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| v.get("verdict").is_some())
        .collect();
    let (before, after): (Vec<&str>, Vec<&str>) =
        (index.lines().collect(), annotated.lines().collect());
    assert_eq!(before.len(), after.len(), "one line out per line in");
    let mut matched = 0;
    for (b, a) in before.iter().zip(&after) {
        let json = |l: &str| -> serde_json::Value {
            serde_json::from_str(l.splitn(3, ' ').nth(2).unwrap()).unwrap()
        };
        let (jb, ja) = (json(b), json(a));
        assert_eq!(
            b.splitn(3, ' ').take(2).collect::<Vec<_>>(),
            a.splitn(3, ' ').take(2).collect::<Vec<_>>()
        );
        for (k, v) in jb.as_object().unwrap() {
            assert_eq!(&ja[k], v, "{k} kept");
        }
        let offset: u64 = jb["offset"].as_str().unwrap().parse().unwrap();
        let judged = verdicts.iter().find(|v| v["origin"]["offset"] == offset);
        match judged {
            Some(v) => {
                matched += 1;
                assert_eq!(ja["verdict"], v["verdict"]);
                assert_eq!(ja["url"], v["url"]);
                assert_eq!(ja["lang"], v["lang"]);
                assert_eq!(ja["words"], v["words"]);
            }
            None => assert_eq!(a, b, "a record without a verdict passes unchanged"),
        }
    }
    assert_eq!(
        matched,
        verdicts.len(),
        "every verdict found its index line"
    );
    assert!(matched >= 10, "{matched}");
}

/// Every command that writes to stdout, read by a reader that stops at once
/// (`| head -1`): no panic, exit 0 (a closed pipe is the reader's choice).
#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("p.html");
    std::fs::write(&page, "<p>some words of a page</p>".repeat(200)).unwrap();
    let page = page.to_str().unwrap();
    let commands: [&[&str]; 6] = [
        &["scan", page],
        &["extract", "--format", "json", page],
        &["bench", "--repeat", "1", page],
        &["bench", "--repeat", "1", "--json", page],
        &["labels", "bench", "--entries", "1000", "--lookups", "1000"],
        &["languages"],
    ];
    for args in commands {
        assert_quiet_on_closed_stdout(args);
    }
}

#[test]
fn a_directory_walk_judges_pages_not_text_files() {
    // A README beside the WARC files is not a page (`.txt` is for `labels build`).
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("page.html"), "<p>one page</p>").unwrap();
    std::fs::write(dir.path().join("README.txt"), "notes about the crawl").unwrap();
    let vs = verdicts(&run(bin().args(["scan", "-q"]).arg(dir.path())));
    assert_eq!(vs.len(), 1, "{vs:?}");
    assert!(vs[0]["url"].as_str().unwrap().ends_with("page.html"));
}

#[test]
fn a_page_from_a_pipe_is_read_as_it_comes() {
    // `scan <(zcat page.html.gz)`: the path is a pipe, which cannot be
    // measured nor read again from its start.
    let out = run(Command::new("bash").arg("-c").arg(format!(
        "{} scan -q -o - <(printf '<title>t</title><p>one page from a pipe</p>')",
        env!("CARGO_BIN_EXE_crawlsieve")
    )));
    let vs = verdicts(&out);
    assert_eq!(vs.len(), 1, "{vs:?}");
    assert_ne!(vs[0]["verdict"], "error", "{vs:?}");
}

#[test]
fn bench_against_a_second_configuration_pairs_its_passes() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..3 {
        let page = format!(
            "<html><body><article>{}</article></body></html>",
            article(300 + i)
        );
        std::fs::write(dir.path().join(format!("{i}.html")), page).unwrap();
    }
    let out = ok(run(bin()
        .args([
            "bench",
            "--json",
            "--repeat",
            "3",
            "--against",
            "filters.min_words=100000",
        ])
        .arg(dir.path())));
    let report: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let ratios = report["ratios"].as_array().unwrap();
    assert_eq!(ratios.len(), 3, "{report}");
    assert!(ratios.iter().all(|r| r.as_f64().unwrap() > 0.0), "{report}");
    assert_eq!(report["first"]["pages"], 3);
    assert_eq!(report["against"]["pages"], 3);
    let median = report["median_ratio"].as_f64().unwrap();
    assert!(
        ratios.iter().any(|r| r.as_f64() == Some(median)),
        "{report}"
    );
    // A mistake in the second configuration fails at start-up, naming the key.
    let out = run(bin()
        .args(["bench", "--against", "filters.min_wordz=3"])
        .arg(dir.path()));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("min_wordz"));
    let out = run(bin()
        .args(["bench", "--against", "novalue"])
        .arg(dir.path()));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--against novalue"));
}
