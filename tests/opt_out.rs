//! What a page says about being used for AI training, read wherever it says it: the robots meta
//! of real WCXB pages, the response headers of a real WARC that wget wrote crawling a loopback
//! site, a JSON page's `headers`, and the headers a crawler forwards to the agent's ingest.
//! Noted on every verdict; a drop reason only when `filters.opt_out.drop` says so; counted per
//! site by `report`.

use crate::common::*;
use crate::daemon;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

/// Whether a page's markup holds a robots meta naming `noai` or `noimageai` — read here by
/// plain string search, apart from the agent's HTML pass, to check it against.
fn robots_noai(html: &str) -> bool {
    let lower = html.to_ascii_lowercase();
    lower.split("<meta").skip(1).any(|tag| {
        let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
        let robots = ["name=\"robots\"", "name='robots'", "name=robots"]
            .iter()
            .any(|n| tag.contains(n));
        robots && (tag.contains("noai") || tag.contains("noimageai"))
    })
}

fn signals(v: &Value) -> Vec<(String, String)> {
    v["opt_out"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|o| {
                    let s = |k: &str| o[k].as_str().unwrap_or_default().to_string();
                    (s("signal"), s("from"))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn config(dir: &std::path::Path, text: &str) -> std::path::PathBuf {
    let path = dir.join("opt-out.toml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn every_real_page_with_a_noai_robots_meta_is_noted_and_dropped_only_when_configured() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let pages = wcxb_pages(&data, usize::MAX, 0..usize::MAX);
    let jsonl = dir.path().join("pages.jsonl");
    let lines: Vec<String> = pages
        .iter()
        .enumerate()
        .map(|(i, h)| {
            json!({"url": format!("http://s{}.example/{i}", i % 7), "html": h}).to_string()
        })
        .collect();
    std::fs::write(&jsonl, lines.join("\n")).unwrap();
    let expected: Vec<usize> = (0..pages.len())
        .filter(|&i| robots_noai(&pages[i]))
        .collect();
    let noted = verdicts(&run(bin().arg("scan").arg(&jsonl)));
    let conf = config(dir.path(), "[filters.opt_out]\ndrop = [\"noai\"]\n");
    let dropping = verdicts(&run(bin()
        .args(["scan", "--config"])
        .arg(&conf)
        .arg(&jsonl)));
    assert_eq!((noted.len(), dropping.len()), (pages.len(), pages.len()));
    let carrying: Vec<usize> = (0..pages.len())
        .filter(|&i| !signals(&noted[i]).is_empty())
        .collect();
    eprintln!(
        "pages with a noai/noimageai robots meta: {} of {} ({:.2} %)",
        carrying.len(),
        pages.len(),
        100.0 * carrying.len() as f64 / pages.len() as f64
    );
    assert_eq!(
        carrying, expected,
        "the pages that carry one, and only those"
    );
    assert!(expected.len() >= 5, "WCXB has ~0.6 % such pages");
    for (i, (n, d)) in noted.iter().zip(&dropping).enumerate() {
        assert!(!reasons(n).contains(&"opt_out".to_string()), "{n}");
        let noai = signals(n).iter().any(|(s, _)| s == "noai");
        if noai {
            assert!(signals(n).iter().all(|(_, from)| from == "meta"), "{n}");
            assert_eq!(d["verdict"], "drop", "{d}");
            assert_eq!(
                reasons(d)[0],
                "opt_out",
                "the first reason to drop it leads: {d}"
            );
            assert!(d.get("content").is_none());
        } else {
            assert_eq!(n["verdict"], d["verdict"], "page {i}");
            assert_eq!(reasons(n), reasons(d), "page {i}");
        }
    }
}

/// A loopback site: `/` links to the pages; each page is a real one, sent with `headers`.
fn site(pages: Vec<(String, String, &'static str)>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap_or(0);
            let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                    break;
                }
            }
            let (body, headers) = match pages.iter().find(|p| p.0 == path) {
                Some((_, html, headers)) => (html.clone(), *headers),
                None if path == "/" => {
                    let links: String = pages
                        .iter()
                        .map(|p| format!("<a href=\"{}\">{}</a> ", p.0, p.0))
                        .collect();
                    (format!("<html><body><p>{links}</p></body></html>"), "")
                }
                None => (String::new(), ""),
            };
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body.as_bytes());
        }
    });
    port
}

#[test]
fn response_headers_of_a_real_warc_and_of_json_pages_are_read_and_reported_per_site() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let real: Vec<String> = wcxb_pages(&data, 40, 20_000..150_000)
        .into_iter()
        .filter(|h| !robots_noai(h) && !h.to_ascii_lowercase().contains("tdm-"))
        .take(5)
        .collect();
    let served = [
        (
            "/noai.html",
            "X-Robots-Tag: noindex\r\nX-Robots-Tag: noai, noimageai\r\n",
        ),
        (
            "/tdm.html",
            "tdm-reservation: 1\r\ntdm-policy: https://rights.example/policy.json\r\n",
        ),
        ("/tdm-open.html", "tdm-reservation: 0\r\n"),
        ("/other-crawler.html", "X-Robots-Tag: otherbot: noai\r\n"),
        ("/plain.html", ""),
    ];
    let pages = served
        .iter()
        .zip(&real)
        .map(|((path, headers), html)| (path.to_string(), html.clone(), *headers))
        .collect();
    let port = site(pages);
    let wget = std::process::Command::new("wget")
        .current_dir(dir.path())
        .args([
            "--recursive",
            "--level=1",
            "--no-verbose",
            "--delete-after",
            "--no-directories",
        ])
        .args(["-e", "robots=off", "--warc-file=crawl"])
        .arg(format!("http://127.0.0.1:{port}/"))
        .output()
        .expect("wget not found (Debian package wget; .ci/run installs it)");
    assert!(
        wget.status.success(),
        "{}",
        String::from_utf8_lossy(&wget.stderr)
    );
    let warc = dir.path().join("crawl.warc.gz");
    let conf = config(
        dir.path(),
        "[filters.opt_out]\ndrop = [\"noai\", \"tdm_reservation\"]\n",
    );
    let noted = verdicts(&run(bin().arg("scan").arg(&warc)));
    let dropping = verdicts(&run(bin().args(["scan", "--config"]).arg(&conf).arg(&warc)));
    let find = |vs: &[Value], path: &str| -> Value {
        vs.iter()
            .find(|v| v["url"].as_str().unwrap_or_default().ends_with(path))
            .unwrap_or_else(|| panic!("no verdict for {path}"))
            .clone()
    };
    let header = |s: &str| (s.to_string(), "header".to_string());
    let cases = [
        ("/noai.html", vec![header("noai"), header("noimageai")]),
        (
            "/tdm.html",
            vec![header("tdm_reservation"), header("tdm_policy")],
        ),
        ("/tdm-open.html", vec![]),
        ("/other-crawler.html", vec![]),
        ("/plain.html", vec![]),
    ];
    for (path, want) in &cases {
        let (n, d) = (find(&noted, path), find(&dropping, path));
        assert_eq!(&signals(&n), want, "{n}");
        assert!(!reasons(&n).contains(&"opt_out".to_string()), "{n}");
        let dropped = reasons(&d).first().is_some_and(|r| r == "opt_out");
        assert_eq!(dropped, !want.is_empty(), "{d}");
    }
    let tdm = find(&noted, "/tdm.html");
    assert_eq!(
        tdm["opt_out"][1]["value"],
        "https://rights.example/policy.json"
    );

    // The same signals in a JSON page's `headers` (any case; a list for a repeated header).
    let jsonl = dir.path().join("pages.jsonl");
    let line = |url: &str, headers: Value| json!({"url": url, "html": real[4], "headers": headers});
    let lines = [
        line(
            "http://art.example/a",
            json!({"x-robots-TAG": ["noindex", "noai"]}),
        ),
        line("http://art.example/b", json!({"TDM-Reservation": "1"})),
        line("http://plain.example/c", json!({"Server": "nginx"})),
    ];
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&jsonl, text.join("\n")).unwrap();
    let out = dir.path().join("verdicts.jsonl");
    run(bin()
        .args(["scan", "--config"])
        .arg(&conf)
        .arg(&jsonl)
        .arg("-o")
        .arg(&out));
    let vs: Vec<Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(signals(&vs[0]), vec![header("noai")]);
    assert_eq!(signals(&vs[1]), vec![header("tdm_reservation")]);
    assert!(signals(&vs[2]).is_empty());
    let json = dir.path().join("summary.json");
    run(bin().args(["report", "--json"]).arg(&json).arg(&out));
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let o = &summary["opt_out"];
    assert_eq!(
        (o["pages"].as_u64(), o["dropped"].as_u64()),
        (Some(2), Some(2)),
        "{o}"
    );
    assert_eq!(o["sites"][0]["site"], "art.example", "{o}");
    assert_eq!(o["sites"][0]["signals"]["noai"], 1, "{o}");
}

#[test]
fn the_agent_reads_the_headers_a_crawler_forwards_with_a_page() {
    let dir = tempfile::tempdir().unwrap();
    let extra = "[filters.opt_out]\ndrop = [\"noai\"]\nagents = [\"mybot\"]\n";
    let agent = daemon::Agent::start(&daemon::config(dir.path(), None, extra));
    let page = daemon::real_pages(1).remove(0);
    let post = |headers: &[(&str, &str)]| -> Value {
        let mut all = vec![
            ("X-Crawlsieve-Url", "http://forwarded.example/p"),
            ("Content-Type", "text/html; charset=utf-8"),
        ];
        all.extend_from_slice(headers);
        let (status, body) =
            daemon::http(&agent.addr, "POST", "/v1/pages", &all, page.as_bytes()).unwrap();
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
        serde_json::from_slice(&body).unwrap()
    };
    let ours = post(&[("X-Robots-Tag", "MyBot: noai")]);
    assert_eq!(
        signals(&ours),
        vec![("noai".into(), "header".into())],
        "{ours}"
    );
    assert_eq!(reasons(&ours)[0], "opt_out", "{ours}");
    let theirs = post(&[("X-Robots-Tag", "otherbot: noai")]);
    assert!(signals(&theirs).is_empty(), "{theirs}");
}

/// The verdicts an agent wrote to its JSONL sink, once there are `n`.
fn wait_for_verdicts(dir: &std::path::Path, n: usize) -> Vec<Value> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let text = daemon::complete_lines(&dir.join("verdicts.jsonl"));
        let vs: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        if vs.len() >= n {
            return vs;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{} of {n} verdicts",
            vs.len()
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn nats_and_kafka_message_headers_carry_the_pages_headers_too() {
    let page = daemon::real_pages(30)
        .into_iter()
        .find(|p| p.len() < 500_000 && !robots_noai(p))
        .unwrap();
    let envelope = |url: &str| json!({"url": url, "html": page}).to_string();
    let dir = tempfile::tempdir().unwrap();
    let nats = daemon::Nats::start(&dir.path().join("nats")).unwrap();
    let agent = daemon::Agent::start(&daemon::config_with_nats_source(dir.path(), &nats));
    let subject = "crawl.pages";
    nats.publish_with_headers(
        subject,
        envelope("http://n.example/1").into(),
        &[("X-Robots-Tag", "noai")],
    );
    nats.publish_with_headers(
        subject,
        envelope("http://n.example/2").into(),
        &[("Server", "x")],
    );
    let vs = wait_for_verdicts(dir.path(), 2);
    let by = |u: &str| vs.iter().find(|v| v["url"] == u).unwrap().clone();
    assert_eq!(
        signals(&by("http://n.example/1")),
        vec![("noai".into(), "header".into())]
    );
    assert!(signals(&by("http://n.example/2")).is_empty());
    drop(agent);

    let dir = tempfile::tempdir().unwrap();
    let kafka = daemon::Tansu::start(&["pages"]).unwrap();
    let path = daemon::config(dir.path(), None, "");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!(
        "[[agent.sources]]\nkind = \"kafka\"\nbrokers = \"{}\"\ntopic = \"pages\"\ngroup = \"g-{}\"\n",
        kafka.brokers(),
        daemon::free_port()
    ));
    std::fs::write(&path, text).unwrap();
    let _agent = daemon::Agent::start(&path);
    let reserved = [
        ("tdm-reservation", "1"),
        ("tdm-policy", "https://r.example/p.json"),
    ];
    kafka.produce_with_headers("pages", &envelope("http://k.example/1"), &reserved);
    kafka.produce_with_headers("pages", &envelope("http://k.example/2"), &[]);
    let vs = wait_for_verdicts(dir.path(), 2);
    let by = |u: &str| vs.iter().find(|v| v["url"] == u).unwrap().clone();
    let header = |s: &str| (s.to_string(), "header".to_string());
    assert_eq!(
        signals(&by("http://k.example/1")),
        vec![header("tdm_reservation"), header("tdm_policy")]
    );
    assert!(signals(&by("http://k.example/2")).is_empty());
}
