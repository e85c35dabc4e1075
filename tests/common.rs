//! Helpers shared by the integration tests: run the real binary, find `../shared/data`.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_crawlsieve"))
}

/// Runs the binary with `args` and a reader that stops at once (`| head -1`):
/// it must exit 0 without a panic (a closed pipe is the reader's choice).
pub fn assert_quiet_on_closed_stdout(args: &[&str]) {
    let mut child = bin()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
}

/// The repository's top: the binary crate (this harness's package) is `agent/cli`.
pub fn repo() -> PathBuf {
    let top = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    top.canonicalize().unwrap_or(top)
}

/// `../shared/data` beside the repository, or `None` (tests then skip, saying so).
pub fn shared_data() -> Option<PathBuf> {
    let p = repo().join("..").join("shared").join("data");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("SKIP: ../shared/data not found beside the repository");
        None
    }
}

pub fn run(cmd: &mut Command) -> Output {
    let out = cmd.stdin(Stdio::null()).output().expect("run crawlsieve");
    out
}

pub fn run_stdin(cmd: &mut Command, input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn crawlsieve");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// The verdict lines of a run's stdout.
pub fn verdicts(out: &Output) -> Vec<serde_json::Value> {
    assert!(
        out.status.success(),
        "crawlsieve failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    split_lines(&String::from_utf8(out.stdout.clone()).unwrap()).0
}

/// A run that must succeed (stderr in the failure message).
pub fn succeeded(cmd: &mut Command) -> Output {
    let out = run(cmd);
    assert!(
        out.status.success(),
        "crawlsieve failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Every stdout line of a run that must succeed, as JSON.
pub fn json_lines(out: &Output) -> Vec<serde_json::Value> {
    assert!(
        out.status.success(),
        "crawlsieve failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l}: {e}")))
        .collect()
}

/// The lines of a verdict stream: verdicts, and site flags (`"type": "site_flag"`).
pub fn split_lines(text: &str) -> (Vec<serde_json::Value>, Vec<serde_json::Value>) {
    let all: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l}: {e}")))
        .collect();
    all.into_iter().partition(|v| v["type"] != "site_flag")
}

pub fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

pub fn gunzip(data: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(data)
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// One WARC response record (uncompressed).
pub fn warc_response(url: &str, record_id: &str, http: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: {record_id}\r\nWARC-Date: 2026-11-22T00:00:00Z\r\nWARC-Target-URI: {url}\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        http.len()
    )
    .into_bytes();
    r.extend_from_slice(http);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

pub fn http_html(body: &[u8], extra_headers: &str) -> Vec<u8> {
    let mut h =
        format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n{extra_headers}\r\n").into_bytes();
    h.extend_from_slice(body);
    h
}

pub fn article(words: usize) -> String {
    let text: Vec<String> = (0..words).map(|i| format!("word{i}")).collect();
    format!(
        "<html><body><h1>Title</h1><p>{}</p></body></html>",
        text.join(" ")
    )
}

/// The output of a run that must succeed: its stdout.
pub fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// Real pages: the HTML of WCXB dev (`../shared/data/extraction/wcxb-dev/dev`),
/// in file order, the first `n` whose size is in `bytes`.
pub fn wcxb_pages(data: &std::path::Path, n: usize, bytes: std::ops::Range<usize>) -> Vec<String> {
    use std::io::Read;
    fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.to_string_lossy().contains(".htm") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&data.join("extraction/wcxb-dev/dev"), &mut files);
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            let raw = std::fs::read(&p).ok()?;
            let mut html = String::new();
            if p.to_string_lossy().ends_with(".gz") {
                flate2::read::MultiGzDecoder::new(&raw[..])
                    .read_to_string(&mut html)
                    .ok()?;
            } else {
                html = String::from_utf8_lossy(&raw).to_string();
            }
            bytes.contains(&html.len()).then_some(html)
        })
        .take(n)
        .collect()
}

/// One HTTP/1.1 request over a fresh connection: (status, head, body).
pub fn http(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<(u16, String, Vec<u8>)> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr)?;
    s.set_read_timeout(Some(std::time::Duration::from_secs(30)))?;
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes())?;
    s.write_all(body)?;
    let mut resp = Vec::new();
    s.read_to_end(&mut resp)?;
    let split = resp
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| std::io::Error::other("no HTTP head"))?;
    let head = String::from_utf8_lossy(&resp[..split]).to_string();
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other("bad status"))?;
    Ok((status, head, resp[split + 4..].to_vec()))
}

/// Makes an ed25519 key pair with the real binary: `DIR/k` and `DIR/k.pub`; returns both paths.
pub fn keygen(dir: &std::path::Path) -> (PathBuf, PathBuf) {
    let key = dir.join("k");
    ok(bin()
        .args(["labels", "keygen", "-o"])
        .arg(&key)
        .output()
        .unwrap());
    (key, dir.join("k.pub"))
}

/// A signed labeled set `dir/source.cslab` named `source` of `pages` (HTML)
/// at `http://source.example/<i>`, built by `labels build` with a new key
/// (`dir/k`, public half `dir/k.pub`).
pub fn signed_source_set(dir: &std::path::Path, pages: &[String]) -> PathBuf {
    use std::io::Write;
    let mut f = std::fs::File::create(dir.join("source.jsonl")).unwrap();
    for (i, html) in pages.iter().enumerate() {
        let page = serde_json::json!({"url": format!("http://source.example/{i}"), "html": html});
        writeln!(f, "{page}").unwrap();
    }
    drop(f);
    let (key, _) = keygen(dir);
    ok(bin()
        .args(["labels", "build", "--name", "source", "--key"])
        .arg(&key)
        .arg("-o")
        .arg(dir.join("source.cslab"))
        .arg(dir.join("source.jsonl"))
        .output()
        .unwrap());
    dir.join("source.cslab")
}

/// A Python with `tests/python/requirements.txt` installed from PyPI, in
/// `target/test-venv` (made on first use; `.ci/run` makes it before the
/// tests). `None` when it cannot be made (no `venv` module, no network) —
/// a failure under CI (`CI` set), a skip with the reason elsewhere.
pub fn test_python() -> Option<PathBuf> {
    static MADE: std::sync::Mutex<Option<Option<PathBuf>>> = std::sync::Mutex::new(None);
    let mut made = MADE.lock().unwrap();
    if let Some(p) = &*made {
        return p.clone();
    }
    let requirements = repo().join("tests/python/requirements.txt");
    let venv = repo().join("target/test-venv");
    let python = venv.join("bin/python");
    let marker = venv.join("requirements.txt");
    let wanted = std::fs::read(&requirements).unwrap();
    let result = if std::fs::read(&marker).ok().as_deref() == Some(&wanted[..]) {
        Ok(())
    } else {
        let status = |cmd: &mut Command| -> Result<(), String> {
            let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
            if out.status.success() {
                Ok(())
            } else {
                Err(format!("{cmd:?}: {}", String::from_utf8_lossy(&out.stderr)))
            }
        };
        status(Command::new("python3").args(["-m", "venv"]).arg(&venv))
            .and_then(|()| {
                status(
                    Command::new(&python)
                        .args(["-m", "pip", "install", "-q", "-r"])
                        .arg(&requirements),
                )
            })
            .and_then(|()| std::fs::write(&marker, &wanted).map_err(|e| e.to_string()))
    };
    let got = match result {
        Ok(()) => Some(python),
        Err(why) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "test Python not ready: {why}"
            );
            eprintln!("skipped: no test Python ({why})");
            None
        }
    };
    *made = Some(got.clone());
    got
}

/// A running hub, killed on drop.
pub struct Hub {
    pub child: std::process::Child,
    pub addr: String,
    /// Everything the hub has logged since it listened.
    pub log: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Hub {
    /// Fails when any of `secrets` is in a line the hub logged: no token
    /// reaches a log, whatever a client sends.
    pub fn assert_no_secret_logged(&self, secrets: &[&str]) {
        let log = self.log.lock().unwrap();
        for s in secrets {
            assert!(
                !log.contains(s),
                "the hub logged a secret: {:?}",
                log.lines().find(|l| l.contains(s))
            );
        }
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `crawlsieve hub` with its store in `dir/store` on a free loopback
/// port (unless `flags` hold `--listen`); returns once it listens.
pub fn start_hub_with(
    dir: &std::path::Path,
    key: &std::path::Path,
    token: &std::path::Path,
    flags: &[&str],
) -> Hub {
    let mut child = bin()
        .arg("hub")
        .args(if flags.contains(&"--listen") {
            &[][..]
        } else {
            &["--listen", "127.0.0.1:0"][..]
        })
        .args(flags)
        .arg("--store")
        .arg(dir.join("store"))
        .arg("--key")
        .arg(key)
        .arg("--token-file")
        .arg(token)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start hub");
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let addr = listening_address(&mut stderr, "hub listening on http://");
    // Keep draining the hub's log so it never blocks on a full pipe, and
    // keep it: tests look for secrets in it.
    let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let keep = log.clone();
    std::thread::spawn(move || {
        let mut line = String::new();
        while matches!(std::io::BufRead::read_line(&mut stderr, &mut line), Ok(n) if n > 0) {
            keep.lock().unwrap().push_str(&line);
            line.clear();
        }
    });
    Hub { child, addr, log }
}

/// The address a daemon (agent or hub) prints once it listens: the rest of
/// the first stderr line starting with `prefix`. Its log lines may come
/// first (the daemons say what they do); they are shown in the test's output.
pub fn listening_address(stderr: &mut impl std::io::BufRead, prefix: &str) -> String {
    loop {
        let mut line = String::new();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "the daemon exited before listening ({prefix})"
        );
        if let Some(a) = line.trim().strip_prefix(prefix) {
            return a.to_string();
        }
        eprint!("{line}");
    }
}

/// The extracted paragraphs of HTML files, as `crawlsieve extract --jsonl` prints them.
pub fn extracted(files: &[std::path::PathBuf]) -> Vec<Vec<String>> {
    let out = ok(bin()
        .args(["extract", "--jsonl"])
        .args(files)
        .output()
        .unwrap());
    out.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["content"]
                .as_str()
                .unwrap()
                .split('\n')
                .map(str::to_string)
                .collect()
        })
        .collect()
}

/// A verdict's `reasons`, as strings.
pub fn reasons(v: &serde_json::Value) -> Vec<String> {
    v["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().to_string())
        .collect()
}
