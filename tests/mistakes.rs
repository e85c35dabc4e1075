//! Mistakes an operator makes, caught where they enter, each with the real
//! binary: the hub's public key given as its key, a set published under
//! another name, `labels inspect` without a key, a typo deep in the
//! `[agent]` section or in an environment variable, a `warc_dir` that does
//! not exist, a wget log given to `annotate-log`, malformed ingest headers.

use crate::common;
use crate::daemon;

use common::*;
use std::io::BufRead;
use std::process::Stdio;

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

#[test]
fn the_hub_refuses_a_public_key_and_says_which_public_key_agents_need() {
    let dir = tempfile::tempdir().unwrap();
    let (key, public) = keygen(dir.path());
    let token = dir.path().join("token");
    std::fs::write(&token, "publish-token-1234\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o600)).unwrap();
    let hub = |key: &std::path::Path| {
        bin()
            .args(["hub", "--listen", "127.0.0.1:0", "--store"])
            .arg(dir.path().join("store"))
            .arg("--key")
            .arg(key)
            .arg("--token-file")
            .arg(&token)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let out = hub(&public).wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("public key") && stderr.contains(&key.display().to_string()),
        "{stderr}"
    );
    // A copy of the public key under another name is refused too: its
    // digits are those of the `.pub` beside it.
    let copy = dir.path().join("copy");
    std::fs::copy(&public, &copy).unwrap();
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::copy(&public, dir.path().join("copy.pub")).unwrap();
    let out = hub(&copy).wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));

    // The real key: the hub logs the public key agents verify with.
    let mut child = hub(&key);
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut before = String::new();
    loop {
        let mut line = String::new();
        assert!(err.read_line(&mut line).unwrap() > 0, "{before}");
        if line.contains("hub listening") {
            break;
        }
        before.push_str(&line);
    }
    let _ = child.kill();
    let _ = child.wait();
    let hex = std::fs::read_to_string(&public).unwrap().trim().to_string();
    assert!(
        before.contains(&hex) && before.contains(&public.display().to_string()),
        "{before}"
    );
}

#[test]
fn a_set_is_published_under_its_own_name_and_inspect_says_what_it_checked() {
    let dir = tempfile::tempdir().unwrap();
    let (key, public) = keygen(dir.path());
    let set = dir.path().join("x.cslab");
    ok(bin()
        .args(["labels", "build", "--name", "x", "--key"])
        .arg(&key)
        .arg("-o")
        .arg(&set)
        .arg(repo().join("examples/crawl.warc.gz"))
        .output()
        .unwrap());
    let out = run(bin().args(["labels", "inspect"]).arg(&set));
    assert!(out.status.success());
    assert!(
        stderr_of(&out).contains("signature: not checked"),
        "{}",
        stderr_of(&out)
    );
    let out = run(bin()
        .args(["labels", "inspect", "--public-key-file"])
        .arg(&public)
        .arg(&set));
    assert!(
        stderr_of(&out).contains("signature: good"),
        "{}",
        stderr_of(&out)
    );
    let (_, other) = keygen(&{
        let d = dir.path().join("other");
        std::fs::create_dir(&d).unwrap();
        d
    });
    let out = run(bin()
        .args(["labels", "inspect", "--public-key-file"])
        .arg(&other)
        .arg(&set));
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr_of(&out).contains("does not verify"),
        "{}",
        stderr_of(&out)
    );

    // Published as `news`: refused before anything is sent (no hub here).
    let publish = |extra: &[&str]| {
        run(bin()
            .args([
                "labels",
                "publish",
                "--hub",
                "http://127.0.0.1:9",
                "--name",
                "news",
            ])
            .args(extra)
            .arg(&set)
            .env("CRAWLSIEVE_HUB_TOKEN", "t"))
    };
    let out = publish(&[]);
    assert_ne!(out.status.code(), Some(0));
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("built as `x`") && stderr.contains("--rename"),
        "{stderr}"
    );
    // With --rename it goes on to the (absent) hub.
    let stderr = stderr_of(&publish(&["--rename"]));
    assert!(!stderr.contains("built as"), "{stderr}");
}

#[test]
fn configuration_mistakes_name_the_whole_key_and_where_it_came_from() {
    let dir = tempfile::tempdir().unwrap();
    let toml = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let sink = "[[agent.sources]]\nkind = \"http\"\n[[agent.sinks]]\nkind = \"jsonl\"\n";
    let cases = [
        (
            toml("typo.toml", &format!("[agent]\n{sink}paht = \"v.jsonl\"\n")),
            "key `agent.sinks[0].paht`",
            "typo.toml",
        ),
        (
            toml("kind.toml", "[agent]\n[[agent.sources]]\nkind = \"htp\"\n[[agent.sinks]]\nkind = \"jsonl\"\npath = \"v.jsonl\"\n"),
            "key `agent.sources[0].kind`",
            "kind.toml",
        ),
        (
            toml("queue.toml", &format!("[agent]\nqueue = \"big\"\n{sink}path = \"v.jsonl\"\n")),
            "key `agent.queue`",
            "queue.toml",
        ),
        (
            toml(
                "dir.toml",
                "[agent]\n[[agent.sources]]\nkind = \"warc_dir\"\npath = \"no/such/dir\"\n[[agent.sinks]]\nkind = \"jsonl\"\npath = \"v.jsonl\"\n",
            ),
            "key `agent.sources[0].path`",
            "no/such/dir",
        ),
        (
            toml(
                "sink.toml",
                "[agent]\n[[agent.sources]]\nkind = \"http\"\n[[agent.sinks]]\nkind = \"jsonl\"\npath = \"sink.toml/v.jsonl\"\n",
            ),
            "key `agent.sinks[0].path`",
            "sink.toml/v.jsonl",
        ),
    ];
    for (file, key, source) in &cases {
        let out = run(bin()
            .args(["agent", "-c"])
            .arg(file)
            .current_dir(dir.path()));
        assert_eq!(out.status.code(), Some(2), "{}", file.display());
        let stderr = stderr_of(&out);
        assert!(stderr.contains(key) && stderr.contains(source), "{stderr}");
    }
    let out = run(bin()
        .args(["scan", "-q"])
        .arg(repo().join("examples/crawl.warc.gz"))
        .env("CRAWLSIEVE_FILTERS__MIN_WRODS", "3"));
    assert_eq!(out.status.code(), Some(2));
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("key `filters.min_wrods`")
            && stderr.contains("the environment: CRAWLSIEVE_FILTERS__MIN_WRODS"),
        "{stderr}"
    );
    let out = run(bin()
        .args(["scan", "-q", "--set", "filters.min_wrods=3"])
        .arg(repo().join("examples/crawl.warc.gz")));
    assert!(
        stderr_of(&out).contains("from --set"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn annotate_log_refuses_a_file_that_is_no_crawl_log() {
    let dir = tempfile::tempdir().unwrap();
    let wget_log = dir.path().join("wget.log");
    std::fs::write(
        &wget_log,
        "--2026-12-01 10:00:00--  http://example.com/\nResolving example.com... 127.0.0.1\nHTTP request sent, awaiting response... 200 OK\n",
    )
    .unwrap();
    let verdicts = dir.path().join("v.jsonl");
    ok(bin()
        .args(["scan", "-q", "--labels"])
        .arg(repo().join("examples/labels.txt"))
        .arg("-o")
        .arg(&verdicts)
        .arg(repo().join("examples/crawl.warc.gz"))
        .output()
        .unwrap());
    let out = run(bin()
        .args(["annotate-log", "--verdicts"])
        .arg(&verdicts)
        .arg(&wget_log));
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("crawl.log"), "{}", stderr_of(&out));
}

#[test]
fn ingest_refuses_malformed_status_and_fetch_time_headers_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let agent = daemon::Agent::start(&daemon::config(dir.path(), None, ""));
    let post = |headers: &[(&str, &str)]| {
        let mut all = vec![
            ("X-Crawlsieve-Url", "https://example.com/a"),
            ("Content-Type", "text/html"),
        ];
        all.extend_from_slice(headers);
        common::http(&agent.addr, "POST", "/v1/pages", &all, b"<p>hello</p>").unwrap()
    };
    let (status, _, body) = post(&[("X-Crawlsieve-Status", "abc")]);
    assert_eq!(status, 400);
    assert!(String::from_utf8_lossy(&body).contains("X-Crawlsieve-Status"));
    let (status, _, body) = post(&[("X-Crawlsieve-Fetched-At", "yesterday")]);
    assert_eq!(status, 400);
    assert!(String::from_utf8_lossy(&body).contains("X-Crawlsieve-Fetched-At"));
    for good in ["2026-12-01T10:00:00Z", "2026-12-01T10:00:00.5+01:00"] {
        let (status, _, body) = post(&[
            ("X-Crawlsieve-Status", "200"),
            ("X-Crawlsieve-Fetched-At", good),
        ]);
        assert_eq!(status, 200, "{good}: {}", String::from_utf8_lossy(&body));
    }
}
