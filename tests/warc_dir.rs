//! A crawler writing WARC files into an agent's `warc_dir`, as crawlers do:
//! wget writing its file in place while it crawls a slow loopback site, and
//! a Heritrix-style writer (`.warc.gz.open` written in bursts, renamed when
//! closed). The agent is SIGKILLed in the middle of a file and started
//! again: every response record gets its verdict, none is lost, and the
//! copier site is flagged.

use crate::common;
use crate::daemon;

use common::{bin, gzip, shared_data, signed_source_set, wcxb_pages};
use daemon::Agent;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// An agent on `warcs` judging against `set`, neighborhoods on.
fn config(dir: &Path, warcs: &Path, set: Option<&Path>) -> PathBuf {
    let labels = match set {
        Some(set) => format!(
            "[labels]\nfiles = [{set:?}]\npublic_key_file = {:?}\n",
            set.with_file_name("k.pub")
        ),
        None => String::new(),
    };
    let text = format!(
        r#"workers = 1
[input]
max_page_ms = 0
{labels}
[neighborhoods]
enabled = true
min_pages = 5
threshold = 0.5
[agent]
listen = "127.0.0.1:0"
[[agent.sources]]
kind = "warc_dir"
path = {warcs:?}
poll_seconds = 1
settle_seconds = 3
[[agent.sinks]]
kind = "jsonl"
path = {:?}
[agent.spool]
dir = {:?}
"#,
        dir.join("verdicts.jsonl"),
        dir.join("spool")
    );
    let path = dir.join("agent.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The verdicts (by URL, how many each) and the bad site flags written so far.
fn verdicts(dir: &Path) -> (BTreeMap<String, usize>, Vec<String>) {
    let text = daemon::complete_lines(&dir.join("verdicts.jsonl"));
    let (verdicts, flags) = common::split_lines(&text);
    let mut by_url = BTreeMap::new();
    for v in &verdicts {
        *by_url
            .entry(v["url"].as_str().unwrap().to_string())
            .or_insert(0) += 1;
    }
    let flags = flags
        .iter()
        .filter(|f| f["state"] == "bad")
        .map(|f| f["neighborhood"].as_str().unwrap().to_string())
        .collect();
    (by_url, flags)
}

fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The URLs of the response records a whole scan of `warc` judges.
fn judged_by_scan(warc: &Path) -> Vec<String> {
    let out = common::run(bin().args(["scan", "-q"]).arg(warc));
    common::verdicts(&out)
        .iter()
        .map(|v| v["url"].as_str().unwrap().to_string())
        .collect()
}

/// Kills the agent (SIGKILL) and checks what was delivered before: each
/// verdict once at most (the checkpoint moves with every delivered page).
fn kill(mut agent: Agent) {
    agent.child.kill().unwrap();
    agent.child.wait().unwrap();
}

/// An HTTP proxy on loopback serving a copier site: `/` links to `pages`
/// pages, each a real page (copied from the labeled set) with a link on.
/// Each answer waits `delay`, so a crawl takes long enough for the agent to
/// see its WARC file grow.
fn copier_site(originals: Vec<String>, pages: usize, delay: Duration) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let originals = originals.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let target = line.split_whitespace().nth(1).unwrap_or("/").to_string();
                    loop {
                        let mut h = String::new();
                        if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                            break;
                        }
                    }
                    std::thread::sleep(delay);
                    let path = target
                        .strip_prefix("http://copies.example.net")
                        .unwrap_or(&target);
                    let body = if path == "/" {
                        let links: String = (0..pages)
                            .map(|i| format!("<a href=\"/p/{i}.html\">page {i}</a> "))
                            .collect();
                        format!("<html><body><p>{links}</p></body></html>")
                    } else if let Some(i) = path
                        .strip_prefix("/p/")
                        .and_then(|p| p.strip_suffix(".html"))
                        .and_then(|p| p.parse::<usize>().ok())
                        .filter(|i| *i < pages)
                    {
                        let page = &originals[i % originals.len()];
                        page.replacen(
                            "</body>",
                            &format!("<a href=\"/p/{}.html\">next</a></body>", i + 1),
                            1,
                        )
                    } else {
                        let _ = stream
                            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
                        continue;
                    };
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
                        body.len()
                    );
                    if stream.write_all(head.as_bytes()).is_err()
                        || stream.write_all(body.as_bytes()).is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    port
}

#[test]
fn wget_writing_into_the_directory_gets_every_page_judged_once() {
    let Some(data) = shared_data() else {
        eprintln!("SKIP: no ../shared/data");
        return;
    };
    let wget = std::process::Command::new("wget").arg("--version").output();
    assert!(
        wget.is_ok_and(|o| o.status.success()),
        "wget not found (Debian package wget; .ci/run installs it)"
    );
    let dir = tempfile::tempdir().unwrap();
    let setup = dir.path().join("set");
    std::fs::create_dir_all(&setup).unwrap();
    let originals = wcxb_pages(&data, 10, 20_000..200_000);
    let set = signed_source_set(&setup, &originals);
    let warcs = dir.path().join("warcs");
    std::fs::create_dir_all(&warcs).unwrap();
    let pages = 220;
    let port = copier_site(originals, pages, Duration::from_millis(25));
    let config = config(dir.path(), &warcs, Some(&set));
    let agent = Agent::start(&config);

    // wget crawls through the proxy, writing crawl.warc.gz in place.
    let mut crawl = std::process::Command::new("wget")
        .current_dir(&warcs)
        .args([
            "--recursive",
            "--level=inf",
            "--no-verbose",
            "--delete-after",
            "--no-directories",
            "-e",
            "robots=off",
            "-e",
            "use_proxy=yes",
            "-e",
            &format!("http_proxy=http://127.0.0.1:{port}"),
            "--warc-file=crawl",
            "http://copies.example.net/",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill the agent while the file grows, once it has judged some pages.
    wait_for("the first verdicts", Duration::from_secs(60), || {
        verdicts(dir.path()).0.len() >= 40
    });
    let before = verdicts(dir.path()).0.len();
    assert!(
        crawl.try_wait().unwrap().is_none(),
        "wget finished before the agent was killed: the test saw no growing file"
    );
    kill(agent);
    let agent = Agent::start(&config);
    let status = crawl.wait().unwrap();
    eprintln!("wget: {status}");
    let expected = judged_by_scan(&warcs.join("crawl.warc.gz"));
    assert_eq!(
        expected.len(),
        pages + 1,
        "wget fetched the index and every page"
    );
    wait_for(
        "a verdict for every response record",
        Duration::from_secs(120),
        || verdicts(dir.path()).0.len() >= expected.len(),
    );
    // A file that settled is done, and nothing more comes.
    std::thread::sleep(Duration::from_secs(4));
    let (got, flags) = verdicts(dir.path());
    let urls: Vec<&String> = got.keys().collect();
    let mut want: Vec<&String> = expected.iter().collect();
    want.sort();
    assert_eq!(urls, want, "every response record judged");
    let repeated: Vec<_> = got.iter().filter(|(_, n)| **n > 1).collect();
    eprintln!("killed after {before} verdicts; repeated after the restart: {repeated:?}");
    assert!(repeated.is_empty(), "judged twice: {repeated:?}");
    assert!(
        flags.iter().any(|f| f == "example.net"),
        "the copier is flagged: {flags:?}"
    );
    drop(agent);
    let checkpoint = std::fs::read_to_string(warcs.join(".crawlsieve-checkpoint.json")).unwrap();
    let size = std::fs::metadata(warcs.join("crawl.warc.gz"))
        .unwrap()
        .len();
    assert!(
        checkpoint.contains(&format!("\"offset\":{size}")) && checkpoint.contains("\"done\":true"),
        "{checkpoint}"
    );
}

fn record(i: usize, html: &str) -> Vec<u8> {
    common::warc_response(
        &format!("http://copies.example.net/h/{i}.html"),
        &format!("<urn:uuid:00000000-0000-0000-0000-{i:012}>"),
        &common::http_html(html.as_bytes(), ""),
    )
}

#[test]
fn heritrix_open_files_and_files_written_in_bursts() {
    let pages: Vec<String> = match shared_data() {
        Some(data) => wcxb_pages(&data, 10, 5_000..100_000),
        None => (0..10).map(|i| common::article(200 + i)).collect(),
    };
    let dir = tempfile::tempdir().unwrap();
    let warcs = dir.path().join("warcs");
    std::fs::create_dir_all(&warcs).unwrap();
    let config = config(dir.path(), &warcs, None);
    let mut agent = Some(Agent::start(&config));
    // Three Heritrix-style files, each written as `.open` in bursts that
    // cut records in half, then renamed; and one plain file written in
    // place the same way (as wget or wpull would, uncompressed).
    let n = 30;
    let mut expected = Vec::new();
    for file in 0..4 {
        let records: Vec<Vec<u8>> = (0..n)
            .map(|i| {
                let k = file * n + i;
                expected.push(format!("http://copies.example.net/h/{k}.html"));
                record(k, &pages[k % pages.len()])
            })
            .collect();
        let (bytes, name, open) = if file < 3 {
            let bytes: Vec<u8> = records.iter().flat_map(|r| gzip(r)).collect();
            (bytes, format!("crawl-{file}.warc.gz"), true)
        } else {
            (records.concat(), "in-place.warc".to_string(), false)
        };
        let final_path = warcs.join(&name);
        let path = if open {
            warcs.join(format!("{name}.open"))
        } else {
            final_path.clone()
        };
        let mut f = std::fs::File::create(&path).unwrap();
        for chunk in bytes.chunks(bytes.len() / 7 + 1) {
            f.write_all(chunk).unwrap();
            f.flush().unwrap();
            std::thread::sleep(Duration::from_millis(700));
            // In the middle of the file written in place: kill the agent,
            // start it again.
            if file == 3 && agent.is_some() && verdicts(dir.path()).0.len() > 3 * n + 3 {
                kill(agent.take().unwrap());
                agent = Some(Agent::start(&config));
            }
        }
        drop(f);
        if open {
            std::fs::rename(&path, &final_path).unwrap();
        }
    }
    wait_for("every record", Duration::from_secs(60), || {
        verdicts(dir.path()).0.len() >= expected.len()
    });
    std::thread::sleep(Duration::from_secs(4));
    let (got, _) = verdicts(dir.path());
    expected.sort();
    assert_eq!(got.keys().cloned().collect::<Vec<_>>(), expected);
    let repeated: Vec<_> = got.iter().filter(|(_, n)| **n > 1).collect();
    assert!(repeated.is_empty(), "judged twice: {repeated:?}");
    // A file that grows after it was done is read on, not again.
    let more = record(999, &pages[0]);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(warcs.join("in-place.warc"))
        .unwrap();
    f.write_all(&more).unwrap();
    drop(f);
    wait_for("the appended record", Duration::from_secs(30), || {
        verdicts(dir.path()).0.len() > expected.len()
    });
    std::thread::sleep(Duration::from_secs(2));
    let (got, _) = verdicts(dir.path());
    assert_eq!(got.len(), expected.len() + 1);
    assert!(got.values().all(|n| *n == 1), "{got:?}");
    // A record cut off for good (the writer died) gets an error verdict once
    // the file has settled, and the file is done.
    let cut = record(1000, &pages[1]);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(warcs.join("in-place.warc"))
        .unwrap();
    f.write_all(&cut[..cut.len() / 2]).unwrap();
    drop(f);
    wait_for(
        "the cut record's error verdict",
        Duration::from_secs(30),
        || verdicts(dir.path()).0.len() > expected.len() + 1,
    );
    let text = daemon::complete_lines(&dir.path().join("verdicts.jsonl"));
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["verdict"], "error", "{last}");
    assert_eq!(last["url"], "http://copies.example.net/h/1000.html");
    drop(agent);
}

/// Broken archives beside a good one in the directory: the good one's pages
/// are judged, the broken ones are input problems in the log, and the agent
/// goes on (it serves and takes a new file after them).
#[test]
fn broken_archives_in_the_directory_stop_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let warcs = dir.path().join("warcs");
    std::fs::create_dir_all(&warcs).unwrap();
    let html = common::article(120);
    let good: Vec<u8> = (0..5).flat_map(|i| gzip(&record(i, &html))).collect();
    std::fs::write(warcs.join("a-empty.warc"), b"").unwrap();
    let random: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    std::fs::write(warcs.join("b-random.warc.gz"), &random).unwrap();
    let mut cut = [gzip(&record(10, &html)), gzip(&record(11, &html))].concat();
    cut.truncate(cut.len() - 100);
    std::fs::write(warcs.join("c-cut.warc.gz"), &cut).unwrap();
    let mut bad_length = record(20, &html);
    bad_length.extend(b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length: lots\r\n\r\n");
    bad_length.extend(record(21, &html));
    std::fs::write(warcs.join("d-bad-length.warc"), &bad_length).unwrap();
    std::fs::write(warcs.join("e-good.warc.gz"), &good).unwrap();
    let config = config(dir.path(), &warcs, None);
    let agent = Agent::start(&config);
    let want = |ks: &[usize]| -> Vec<String> {
        let mut v: Vec<String> = ks
            .iter()
            .map(|k| format!("http://copies.example.net/h/{k}.html"))
            .collect();
        v.sort();
        v
    };
    let expected = want(&[0, 1, 2, 3, 4, 10, 20, 21]);
    wait_for("the good records", Duration::from_secs(30), || {
        verdicts(dir.path()).0.len() >= expected.len()
    });
    std::fs::write(warcs.join("f-later.warc.gz"), gzip(&record(30, &html))).unwrap();
    wait_for(
        "a file after the broken ones",
        Duration::from_secs(30),
        || verdicts(dir.path()).0.len() > expected.len(),
    );
    let (got, _) = verdicts(dir.path());
    assert_eq!(
        got.keys().cloned().collect::<Vec<_>>(),
        want(&[0, 1, 2, 3, 4, 10, 20, 21, 30])
    );
    assert!(got.values().all(|n| *n == 1), "{got:?}");
    assert!(daemon::http(&agent.addr, "GET", "/healthz", &[], b"").is_ok());
}
