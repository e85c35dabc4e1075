//! What a newcomer hit in their first hour (issue "A new user's first
//! hour"), each as the real binary shows it: a corrupt input among good ones,
//! a truncated WARC, a mistaken `--set`, `extract` over a WARC, the agent's
//! log and a cut-off envelope, `report` and `cdx` given the wrong file,
//! `labels build` over a broken page, the help texts, `crawlsieve config`.

use crate::common;
use crate::daemon;

use common::*;
use std::process::Stdio;

fn example() -> std::path::PathBuf {
    repo().join("examples/crawl.warc.gz")
}

/// A gzip header and then junk: the file opens, its first bytes do not inflate.
fn corrupt_gzip(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("bad.html.gz");
    let mut bytes = vec![0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3];
    bytes.extend((0..200u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn a_corrupt_input_is_an_error_verdict_and_the_scan_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let bad = corrupt_gzip(dir.path());
    let out = run(bin().arg("scan").arg(example()).arg(&bad));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let vs = verdicts(&out);
    assert_eq!(vs.len(), 17, "the WARC's 16 pages and the corrupt file");
    let last = vs.last().unwrap();
    assert_eq!(last["verdict"], "error");
    assert_eq!(last["origin"]["file"], bad.display().to_string());
    assert!(
        last["error"].as_str().unwrap().contains("unreadable input"),
        "{last}"
    );
    // --fail-on-error then says so, having judged everything.
    let out = run(bin()
        .args(["scan", "-q", "--fail-on-error"])
        .arg(example())
        .arg(&bad));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        split_lines(&String::from_utf8_lossy(&out.stdout)).0.len(),
        17
    );
    // A directory walk: the same.
    std::fs::copy(example(), dir.path().join("crawl.warc.gz")).unwrap();
    let out = run(bin().args(["scan", "-q"]).arg(dir.path()));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(verdicts(&out).len(), 17);
    // A path that does not exist is a mistake in the command: nothing judged.
    let out = run(bin()
        .arg("scan")
        .arg(example())
        .arg(dir.path().join("no-such.warc")));
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

#[test]
fn a_truncated_warc_fails_fail_on_error_and_quiet_still_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let whole = std::fs::read(example()).unwrap();
    let cut = dir.path().join("cut.warc.gz");
    std::fs::write(&cut, &whole[..whole.len() * 2 / 3]).unwrap();
    let out = run(bin().args(["scan", "-q"]).arg(&cut));
    assert_eq!(
        out.status.code(),
        Some(0),
        "without --fail-on-error a loss is reported, not fatal"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("input problem") && stderr.contains("cut.warc.gz"),
        "{stderr}"
    );
    let out = run(bin().args(["scan", "-q", "--fail-on-error"]).arg(&cut));
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn set_mistakes_fail_at_start_up_with_the_key_and_what_would_work() {
    let out = run(bin()
        .args(["scan", "--set", "workers=1000000"])
        .arg(example()));
    assert_eq!(out.status.code(), Some(2), "refused, not aborted");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("workers") && stderr.contains("at most"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());

    let out = run(bin()
        .args(["scan", "-q", "--set", "language.allow=eng,deu"])
        .arg(example()));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let vs = verdicts(&out);
    assert!(vs
        .iter()
        .any(|v| v["lang"] == "deu" && v["verdict"] == "keep"));

    let out = run(bin()
        .args(["scan", "--set", "extract.scorer=foo"])
        .arg(example()));
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("extract.scorer")
            && stderr.contains("`plateau`")
            && !stderr.contains("ScorerKind"),
        "{stderr}"
    );
}

#[test]
fn extract_from_a_warc_heads_every_page_and_names_a_broken_one() {
    let out = run(bin()
        .args(["extract", "--format", "markdown"])
        .arg(example()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let heads: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("==> http"))
        .collect();
    assert_eq!(heads.len(), 15, "one head per page: {heads:?}");
    assert!(heads.contains(&"==> http://blog.example.com/garten <=="));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("http://shop.example.com/broken") && stderr.contains("at byte"),
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn report_and_cdx_name_a_file_that_is_not_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("r.html");
    let out = run(bin().args(["report", "--html"]).arg(&html).arg(example()));
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("crawl.warc.gz") && stderr.contains("WARC"),
        "{stderr}"
    );
    let out = run(bin()
        .args(["report", "--html"])
        .arg(&html)
        .arg(repo().join("examples/labels.txt")));
    assert_eq!(out.status.code(), Some(2), "not an empty report");
    assert!(String::from_utf8_lossy(&out.stderr).contains("labels.txt"));
    let out = run(bin()
        .args(["cdx", "--verdicts"])
        .arg(example())
        .arg(repo().join("examples/crawl.cdxj")));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("crawl.warc.gz"));
    // The index given a WARC (and real verdicts): named too.
    let v = dir.path().join("v.jsonl");
    ok(run(bin().args(["scan", "-q", "-o"]).arg(&v).arg(example())));
    let out = run(bin().args(["cdx", "--verdicts"]).arg(&v).arg(example()));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("index"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Nothing judged yet: a report that says so.
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    ok(run(bin().args(["report", "--html"]).arg(&html).arg(&empty)));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("Nothing judged yet") && !page.contains("threshold"),
        "{page}"
    );
}

#[test]
fn the_example_report_shows_the_copier_site_once_with_its_pages() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v.jsonl");
    let html = dir.path().join("r.html");
    ok(run(bin()
        .args(["scan", "-q", "-o"])
        .arg(&v)
        .args(["--labels"])
        .arg(repo().join("examples/labels.txt"))
        .arg(example())));
    ok(run(bin().args(["report", "--html"]).arg(&html).arg(&v)));
    let page = std::fs::read_to_string(&html).unwrap();
    let sites =
        &page[page.find("<h2>Flagged sites").unwrap()..page.find("<h2>Site flags in").unwrap()];
    assert_eq!(
        sites.matches("<tr><td>").count(),
        1,
        "one site, its host and paths folded in: {sites}"
    );
    assert!(
        sites.contains("<td>example.net</td>") && sites.contains("copies.example.net/posts/"),
        "{sites}"
    );
    for p in [
        "bridges-story",
        "swift-news",
        "ferry",
        "library-news",
        "apples",
    ] {
        assert!(
            page.contains(&format!("<td>http://copies.example.net/posts/{p}</td>")),
            "{p}"
        );
    }
    assert!(
        page.contains("<td>http://shop.example.com/broken</td>"),
        "the error page is listed"
    );
}

#[test]
fn labels_build_counts_a_page_it_could_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let (key, _) = keygen(dir.path());
    let out = run(bin()
        .args(["labels", "build", "--name", "ex", "--key"])
        .arg(&key)
        .arg("-o")
        .arg(dir.path().join("ex.cslab"))
        .arg(example()));
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("16 documents (1 failed)"), "{stderr}");
}

#[test]
fn help_texts_name_what_the_commands_read() {
    let help = |args: &[&str]| String::from_utf8(run(bin().args(args)).stdout).unwrap();
    let extract = help(&["extract", "--help"]);
    assert!(
        extract.contains("WARC") && extract.contains("JSONL"),
        "{extract}"
    );
    let agent = help(&["--help"]);
    let line = agent
        .lines()
        .find(|l| l.trim_start().starts_with("agent"))
        .unwrap();
    assert!(line.contains("Kafka") && line.contains("NATS"), "{line}");
}

#[test]
fn config_prints_the_effective_commented_defaults() {
    let out = run(bin().args(["config"]));
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let shipped = std::fs::read_to_string(repo().join("rules/defaults.toml")).unwrap();
    assert_eq!(
        text, shipped,
        "with nothing set: the shipped defaults, comments and all"
    );
    let out = run(bin().args([
        "config",
        "--set",
        "language.allow=eng,deu",
        "--set",
        "filters.min_words=30",
    ]));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("allow = [\"eng\", \"deu\"]") && text.contains("min_words = 30"),
        "{text}"
    );
    assert!(
        text.contains("# DSpin §V-B: pages with fewer content words"),
        "comments kept"
    );
    // What it prints is a config file that loads back to the same effect.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.toml");
    std::fs::write(&path, &text).unwrap();
    let again = String::from_utf8(run(bin().args(["config", "-c"]).arg(&path)).stdout).unwrap();
    assert_eq!(again, text);
    let out = run(bin().args(["config", "--set", "filters.min_wrods=3"]));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_agent_logs_plainly_to_a_file_and_a_cut_off_envelope_gets_an_error_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let config = daemon::config(dir.path(), None, "");
    let log = dir.path().join("agent.log");
    let mut child = bin()
        .args(["agent", "-c"])
        .arg(&config)
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let addr = loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if let Some(line) = text
            .lines()
            .find(|l| l.starts_with("agent listening on http://"))
        {
            break line
                .trim_start_matches("agent listening on http://")
                .to_string();
        }
        assert!(started.elapsed().as_secs() < 60, "{text}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    // The URL first, as a crawler writes it; the body cut off in the page's HTML.
    let whole = format!(
        "{{\"url\": \"http://example.com/cut\", \"html\": {}}}",
        serde_json::Value::from(article(120))
    );
    let cut = &whole[..whole.len() / 2];
    let (status, body) = daemon::http(
        &addr,
        "POST",
        "/v1/pages",
        &[("Content-Type", "application/json")],
        cut.as_bytes(),
    )
    .unwrap();
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["verdict"], "error");
    assert_eq!(v["url"], "http://example.com/cut");
    assert_eq!(v["origin"], serde_json::json!({"kind": "ingest", "id": ""}));
    let (status, _) = daemon::http(
        &addr,
        "POST",
        "/v1/pages",
        &[("Content-Type", "application/json")],
        b"{\"html\": \"<p>no url</p>\"}",
    )
    .unwrap();
    assert_eq!(status, 400, "JSON that names no page is not a page");
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    assert!(child.wait().unwrap().success());
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        !text.contains('\u{1b}'),
        "no colour codes in a log file:\n{text}"
    );
    assert!(
        text.contains("shutting down") && text.contains("agent stopped"),
        "{text}"
    );
}
