//! The hub and the agent side of labeled sets, end to end with the real
//! binary over real HTTP on loopback: build a set from real pages, publish it,
//! scan a stream of pages while a new version is published, and check that
//! verdicts switch versions with none lost or paused; that a delta produces
//! exactly the full set it claims; that tampered files, wrong keys and
//! publishing without the token are refused.

mod common;

use common::{bin, ok, shared_data};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// A running hub, killed on drop.
struct Hub {
    child: Child,
    addr: String,
}

impl Drop for Hub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_hub(dir: &Path, key: &Path, token: &Path) -> Hub {
    let mut child = bin()
        .args(["hub", "--listen", "127.0.0.1:0", "--store"])
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
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("hub listening on http://")
        .unwrap_or_else(|| panic!("unexpected hub output: {line}"))
        .to_string();
    // Keep draining the hub's log so it never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut sink = Vec::new();
        let _ = stderr.read_to_end(&mut sink);
    });
    Hub { child, addr }
}

/// One HTTP/1.1 request: (status, body). The hub never answers chunked.
fn http(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, Vec<u8>) {
    let (status, head, body) = common::http(addr, method, path, headers, body).unwrap();
    assert!(
        !head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "{head}"
    );
    (status, body)
}

/// Real pages with a few long paragraphs (so a labeled copy is flagged), as (url, html).
fn real_pages(data: &Path, n: usize) -> Vec<(String, String)> {
    common::wcxb_pages(data, n, 20_001..usize::MAX)
        .into_iter()
        .enumerate()
        .map(|(i, html)| (format!("http://copy-{i}.example/page"), html))
        .collect()
}

fn write_jsonl(path: &Path, pages: &[(String, String)]) {
    let mut f = std::fs::File::create(path).unwrap();
    for (url, html) in pages {
        writeln!(f, "{}", serde_json::json!({"url": url, "html": html})).unwrap();
    }
}

struct Setup {
    dir: tempfile::TempDir,
    key: PathBuf,
    token: PathBuf,
    pages_a: Vec<(String, String)>,
    pages_b: Vec<(String, String)>,
}

fn setup(data: &Path) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("hub.key");
    ok(bin()
        .args(["labels", "keygen", "-o"])
        .arg(&key)
        .output()
        .unwrap());
    let token = dir.path().join("token");
    std::fs::write(&token, "s3cret-publish-token\n").unwrap();
    let pages = real_pages(data, 24);
    assert_eq!(pages.len(), 24);
    let (a, b) = pages.split_at(12);
    Setup {
        dir,
        key,
        token,
        pages_a: a.to_vec(),
        pages_b: b.to_vec(),
    }
}

/// Builds a signed set from pages with `labels build`.
fn build(s: &Setup, name: &str, pages: &[(String, String)]) -> PathBuf {
    let input = s.dir.path().join(format!("{name}.jsonl"));
    write_jsonl(&input, pages);
    let out = s.dir.path().join(format!("{name}.cslab"));
    ok(bin()
        .args(["labels", "build", "--name", "wiki", "--key"])
        .arg(&s.key)
        .arg("-o")
        .arg(&out)
        .arg(&input)
        .output()
        .unwrap());
    out
}

fn publish(s: &Setup, hub: &Hub, file: &Path) -> std::process::Output {
    bin()
        .args(["labels", "publish", "--name", "wiki", "--hub"])
        .arg(format!("http://{}", hub.addr))
        .arg("--token-file")
        .arg(&s.token)
        .arg(file)
        .output()
        .unwrap()
}

fn agent_config(s: &Setup, hub: &Hub, public: &Path, cache: &str) -> PathBuf {
    let cfg = s.dir.path().join(format!("agent-{cache}.toml"));
    std::fs::write(
        &cfg,
        format!(
            "[labels]\npublic_key_file = {:?}\n[labels.hub]\nurl = \"http://{}\"\nsets = [\"wiki\"]\ncache_dir = {:?}\nwait_seconds = 5\nstart_timeout_seconds = 3\n",
            public,
            hub.addr,
            s.dir.path().join(cache)
        ),
    )
    .unwrap();
    cfg
}

#[test]
fn verdicts_switch_versions_mid_stream_with_none_lost_or_paused() {
    let Some(data) = shared_data() else { return };
    let s = setup(&data);
    let hub = start_hub(s.dir.path(), &s.key, &s.token);
    let public = s.dir.path().join("hub.key.pub");

    // v1 labels the pages of A; v2 labels A and B.
    let v1 = build(&s, "a", &s.pages_a);
    let both: Vec<_> = s.pages_a.iter().chain(&s.pages_b).cloned().collect();
    let v2 = build(&s, "ab", &both);
    let meta = ok(publish(&s, &hub, &v1));
    assert!(meta.contains("\"version\":1"), "{meta}");

    // Scan a stream of B pages from stdin; publish v2 halfway.
    let cfg = agent_config(&s, &hub, &public, "cache");
    let mut scan = bin()
        .args(["scan", "-j", "2", "-c"])
        .arg(&cfg)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = scan.stdin.take().unwrap();
    let mut stdout = scan.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        stdout.read_to_string(&mut out).unwrap();
        out
    });
    let rounds = 12;
    let started = Instant::now();
    let mut sent = 0;
    let mut hub = Some(hub);
    for round in 0..rounds {
        if round == 5 {
            let meta = ok(publish(&s, hub.as_ref().unwrap(), &v2));
            assert!(meta.contains("\"version\":2"), "{meta}");
        }
        if round == 9 {
            // The hub goes away: the agent keeps its current set and goes on.
            drop(hub.take());
        }
        for (url, html) in &s.pages_b {
            let line = serde_json::json!({"url": format!("{url}?r={round}"), "html": html});
            writeln!(stdin, "{line}").unwrap();
            sent += 1;
        }
        stdin.flush().unwrap();
        std::thread::sleep(Duration::from_millis(300));
    }
    drop(stdin);
    let out = scan.wait_with_output().unwrap();
    let stdout = reader.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let verdicts = common::split_lines(&stdout).0;
    assert_eq!(verdicts.len(), sent, "one verdict per page, none lost");
    let versions: Vec<&str> = verdicts
        .iter()
        .map(|v| v["labels_version"].as_str().unwrap())
        .collect();
    let switch = versions
        .iter()
        .position(|v| *v == "wiki@2")
        .expect("the new version reached the agent mid-stream");
    assert!(switch > 0, "the stream started on version 1");
    assert!(versions[..switch].iter().all(|v| *v == "wiki@1"));
    assert!(
        versions[switch..].iter().all(|v| *v == "wiki@2"),
        "never back to an old version"
    );
    // Under v1 the B pages are (almost all) new content; under v2 they are copies.
    let flagged = |vs: &[serde_json::Value]| vs.iter().filter(|v| v["verdict"] == "flag").count();
    let (before, after) = verdicts.split_at(switch);
    eprintln!(
        "{} verdicts; switch at {switch}; flagged {}/{} before, {}/{} after",
        verdicts.len(),
        flagged(before),
        before.len(),
        flagged(after),
        after.len()
    );
    assert!(
        flagged(before) * 4 < before.len(),
        "few flags before: {}/{}",
        flagged(before),
        before.len()
    );
    assert!(
        flagged(after) * 4 > after.len() * 3,
        "most flagged after: {}/{}",
        flagged(after),
        after.len()
    );
    // Not paused: no page took long, whatever the swap did.
    let slowest = verdicts
        .iter()
        .map(|v| v["elapsed_us"].as_u64().unwrap())
        .max()
        .unwrap();
    assert!(slowest < 1_000_000, "slowest page {slowest} µs");
    assert!(started.elapsed() < Duration::from_secs(60));
    assert!(
        stderr.contains("2 versions swapped in (1 by delta), 0 refused"),
        "{stderr}"
    );
}

#[test]
fn delta_equals_full_and_publishing_needs_the_token() {
    let Some(data) = shared_data() else { return };
    let s = setup(&data);
    let hub = start_hub(s.dir.path(), &s.key, &s.token);
    let v1 = build(&s, "a", &s.pages_a);
    let v2 = build(&s, "b", &s.pages_b);
    let body = std::fs::read(&v1).unwrap();

    // An unauthenticated upload is refused as soon as its headers are in: the
    // hub does not wait for (or buffer) a body it will not take. Here 1 GB is
    // announced and 1 KB sent: the answer comes without the rest.
    {
        use std::io::{Read, Write};
        let mut c = std::net::TcpStream::connect(&hub.addr).unwrap();
        c.set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        write!(
            c,
            "POST /v1/sets/wiki HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n"
        )
        .unwrap();
        c.write_all(&[b'x'; 1024]).unwrap();
        let mut answer = [0u8; 12];
        c.read_exact(&mut answer)
            .expect("answered before the body was sent");
        assert_eq!(&answer, b"HTTP/1.1 401");
    }
    // Publishing without or with a wrong token is refused, and nothing is stored.
    assert_eq!(http(&hub.addr, "POST", "/v1/sets/wiki", &[], &body).0, 401);
    let wrong = [("Authorization", "Bearer not-the-token")];
    assert_eq!(
        http(&hub.addr, "POST", "/v1/sets/wiki", &wrong, &body).0,
        401
    );
    assert_eq!(http(&hub.addr, "GET", "/v1/sets/wiki", &[], b"").0, 404);
    let out = bin()
        .args(["labels", "publish", "--name", "wiki", "--hub"])
        .arg(format!("http://{}", hub.addr))
        .arg(&v1)
        .env_remove("CRAWLSIEVE_HUB_TOKEN")
        .output()
        .unwrap();
    assert!(!out.status.success());

    ok(publish(&s, &hub, &v1));
    ok(publish(&s, &hub, &v2));
    let (status, meta) = http(&hub.addr, "GET", "/v1/sets/wiki", &[], b"");
    assert_eq!(status, 200);
    let meta: serde_json::Value = serde_json::from_slice(&meta).unwrap();
    assert_eq!(meta["version"], 2);

    let (_, full1) = http(&hub.addr, "GET", "/v1/sets/wiki/full?version=1", &[], b"");
    let (_, full2) = http(&hub.addr, "GET", "/v1/sets/wiki/full", &[], b"");
    let (status, delta) = http(&hub.addr, "GET", "/v1/sets/wiki/delta?from=1", &[], b"");
    assert_eq!(status, 200);
    use crawlsieve::labels::{delta, file::SetFile, keys};
    let public = keys::read_public(&s.dir.path().join("hub.key.pub")).unwrap();
    let f1 = SetFile::open(&full1, &public).unwrap();
    let f2 = SetFile::open(&full2, &public).unwrap();
    assert_eq!(f2.header.version, 2);
    let (rebuilt, applied) = delta::apply(&f1, &delta).unwrap();
    assert_eq!(
        rebuilt, full2,
        "the delta produces the full set byte for byte"
    );
    assert!(applied.added > 0 && applied.removed > 0);
    assert!(delta.len() < full1.len() + full2.len());

    // The hub re-signs with its key: a file signed by someone else verifies with the hub key only.
    let other = s.dir.path().join("other.key");
    ok(bin()
        .args(["labels", "keygen", "-o"])
        .arg(&other)
        .output()
        .unwrap());
    let other_public = keys::read_public(&s.dir.path().join("other.key.pub")).unwrap();
    assert!(
        SetFile::open(&full2, &other_public).is_err(),
        "a wrong key is refused"
    );

    // A tampered download is refused.
    let mut tampered = full2.clone();
    let at = tampered.len() / 2;
    tampered[at] ^= 0x01;
    assert!(SetFile::open(&tampered, &public).is_err());

    // Long-poll: nothing newer than 2 yet → 204 after the wait.
    let t = Instant::now();
    assert_eq!(
        http(
            &hub.addr,
            "GET",
            "/v1/sets/wiki/next?after=2&wait=1",
            &[],
            b""
        )
        .0,
        204
    );
    assert!(t.elapsed() >= Duration::from_millis(900));
    assert_eq!(
        http(
            &hub.addr,
            "GET",
            "/v1/sets/wiki/next?after=1&wait=1",
            &[],
            b""
        )
        .0,
        200
    );
}

#[test]
fn agents_refuse_a_wrong_key_and_a_tampering_hub() {
    let Some(data) = shared_data() else { return };
    let s = setup(&data);
    let hub = start_hub(s.dir.path(), &s.key, &s.token);
    ok(publish(&s, &hub, &build(&s, "a", &s.pages_a)));

    // An agent holding another public key refuses the hub's set and does not start.
    let other = s.dir.path().join("other.key");
    ok(bin()
        .args(["labels", "keygen", "-o"])
        .arg(&other)
        .output()
        .unwrap());
    let cfg = agent_config(&s, &hub, &s.dir.path().join("other.key.pub"), "cache-wrong");
    let out = bin()
        .args(["scan", "-c"])
        .arg(&cfg)
        .arg("-")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("signature does not verify"), "{stderr}");

    // A tampered file in the hub's store (disk corruption, an intruder) is refused too.
    let stored = s.dir.path().join("store/wiki/000000000001.cslab");
    let mut bytes = std::fs::read(&stored).unwrap();
    let at = bytes.len() - 100;
    bytes[at] ^= 0x80;
    std::fs::write(&stored, &bytes).unwrap();
    let cfg = agent_config(
        &s,
        &hub,
        &s.dir.path().join("hub.key.pub"),
        "cache-tampered",
    );
    let out = bin()
        .args(["scan", "-c"])
        .arg(&cfg)
        .arg("-")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("signature does not verify"), "{stderr}");
}

/// Clients that never finish their request headers are disconnected after the
/// header timeout (10 s) instead of holding a socket each for ever; the hub
/// goes on serving everyone else meanwhile.
#[test]
fn slow_clients_are_cut_off_and_others_are_served() {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let (key, _) = common::keygen(dir.path());
    let token = dir.path().join("token");
    std::fs::write(&token, "t0ken\n").unwrap();
    let hub = start_hub(dir.path(), &key, &token);
    let started = std::time::Instant::now();
    let mut slow: Vec<std::net::TcpStream> = (0..300)
        .map(|_| {
            let mut c = std::net::TcpStream::connect(&hub.addr).unwrap();
            c.write_all(b"GET /v1/sets HTTP/1.1\r\nHost: x\r\n")
                .unwrap();
            c
        })
        .collect();
    // Served while the slow ones wait.
    assert_eq!(http(&hub.addr, "GET", "/healthz", &[], b"").0, 200);
    for c in &mut slow {
        c.set_read_timeout(Some(std::time::Duration::from_secs(30)))
            .unwrap();
        let mut buf = [0u8; 256];
        // The server closes the connection (perhaps after a 408): EOF or a reset, not our timeout.
        loop {
            match c.read(&mut buf) {
                Ok(0) => break,
                Ok(_) => continue,
                Err(e)
                    if e.kind() == std::io::ErrorKind::WouldBlock
                        || e.kind() == std::io::ErrorKind::TimedOut =>
                {
                    panic!(
                        "a client without complete headers was still connected after {:?}",
                        started.elapsed()
                    )
                }
                Err(_) => break,
            }
        }
    }
    let waited = started.elapsed();
    assert!(
        waited >= std::time::Duration::from_secs(9),
        "cut off too early: {waited:?}"
    );
    assert!(waited < std::time::Duration::from_secs(25), "{waited:?}");
    assert_eq!(http(&hub.addr, "GET", "/healthz", &[], b"").0, 200);
}
