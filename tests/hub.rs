//! The hub and the agent side of labeled sets, end to end with the real
//! binary over real HTTP on loopback: build a set from real pages, publish it,
//! scan a stream of pages while a new version is published, and check that
//! verdicts switch versions with none lost or paused; that a delta produces
//! exactly the full set it claims; that tampered files, wrong keys and
//! publishing without the token are refused.

use crate::common;

use common::{bin, ok, shared_data, start_hub_with, Hub};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use std::time::{Duration, Instant};

fn start_hub(dir: &Path, key: &Path, token: &Path) -> Hub {
    start_hub_with(dir, key, token, &[])
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

/// Builds a signed set with `labels build` from pages as their source
/// publishes them (`source-N.example`, the set's origin); the crawl judges
/// them as copies (`copy-N.example`).
fn build(s: &Setup, name: &str, pages: &[(String, String)]) -> PathBuf {
    let input = s.dir.path().join(format!("{name}.jsonl"));
    let sources: Vec<(String, String)> = pages
        .iter()
        .map(|(url, html)| (url.replace("//copy-", "//source-"), html.clone()))
        .collect();
    write_jsonl(&input, &sources);
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
    // The version's metadata names the set's origin (the corpus's sites).
    assert!(meta.contains("\"origins\":[\""), "{meta}");

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
    // Not paused: no page took long, whatever the swap did. The bound is for
    // a debug build: the largest page of this crawl alone takes ~1.0 s
    // unoptimised on a slow 2-core machine (1.02–1.07 s measured before and
    // after the swap code was touched), so 1 s made the test fail on speed.
    let slowest = verdicts
        .iter()
        .map(|v| v["elapsed_us"].as_u64().unwrap())
        .max()
        .unwrap();
    assert!(slowest < 2_500_000, "slowest page {slowest} µs");
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
    hub.assert_no_secret_logged(&["s3cret-publish-token", "not-the-token"]);

    let (_, full1) = http(&hub.addr, "GET", "/v1/sets/wiki/full?version=1", &[], b"");
    let (_, full2) = http(&hub.addr, "GET", "/v1/sets/wiki/full", &[], b"");
    let (status, delta) = http(&hub.addr, "GET", "/v1/sets/wiki/delta?from=1", &[], b"");
    assert_eq!(status, 200);
    use crawlsieve_core::labels::{delta, file::SetFile, keys};
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
    cacheable(&hub.addr, s.dir.path(), &full1, &delta);

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

/// A header's value in a response head (lower-case name).
fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// Versions and deltas are immutable files a cache can keep; "the latest" is
/// revalidated (ETag, 304); long-polls are never stored. Two versions of
/// `wiki` are stored; `full1` and `delta` are version 1 and the delta 1 → 2.
fn cacheable(addr: &str, store: &Path, full1: &[u8], delta: &[u8]) {
    let get =
        |path: &str, extra: &[(&str, &str)]| common::http(addr, "GET", path, extra, b"").unwrap();
    let immutable = "public, max-age=31536000, immutable";
    let (status, head, body) = get("/v1/sets/wiki/full?version=1", &[]);
    assert_eq!((status, body.as_slice()), (200, full1));
    assert_eq!(header(&head, "cache-control"), Some(immutable), "{head}");
    let tag = header(&head, "etag").expect("an ETag").to_string();
    // Conditional GET: the same tag, 304 and no body; another tag, the file.
    let (status, head, body) = get("/v1/sets/wiki/full?version=1", &[("If-None-Match", &tag)]);
    assert_eq!((status, body.len()), (304, 0));
    assert_eq!(header(&head, "etag"), Some(tag.as_str()));
    assert_eq!(
        get(
            "/v1/sets/wiki/full?version=1",
            &[("If-None-Match", "\"other\"")]
        )
        .0,
        200
    );
    // The latest: kept but revalidated; its tag is version 2's.
    let (_, head, _) = get("/v1/sets/wiki/full", &[]);
    assert_eq!(header(&head, "cache-control"), Some("public, no-cache"));
    let latest = header(&head, "etag").unwrap().to_string();
    assert_ne!(latest, tag);
    assert_eq!(get("/v1/sets/wiki", &[("If-None-Match", &latest)]).0, 304);
    // Deltas: the same bytes with or without `to`, immutable with it, kept on disk.
    let (status, head, body) = get("/v1/sets/wiki/delta?from=1&to=2", &[]);
    assert_eq!((status, body.as_slice()), (200, delta));
    assert_eq!(header(&head, "cache-control"), Some(immutable));
    assert_eq!(
        header(&head, "content-length"),
        Some(delta.len().to_string().as_str())
    );
    let kept = store.join("store/wiki/deltas/000000000001-000000000002.csdelta");
    assert_eq!(std::fs::read(&kept).unwrap(), delta);
    assert_eq!(get("/v1/sets/wiki/delta?from=2&to=1", &[]).0, 400);
    assert_eq!(get("/v1/sets/wiki/delta?from=1&to=9", &[]).0, 404);
    let (status, head, _) = get("/v1/sets/wiki/next?after=1&wait=1", &[]);
    assert_eq!(
        (status, header(&head, "cache-control")),
        (200, Some("no-store"))
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
    let (_dir, hub) = hub_with_token(&["--max-connections-per-client", "1000"]);
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

/// A hub with its own key and the publish token `t0ken`, started with `flags`.
fn hub_with_token(flags: &[&str]) -> (tempfile::TempDir, Hub) {
    let dir = tempfile::tempdir().unwrap();
    let (key, _) = common::keygen(dir.path());
    let token = dir.path().join("token");
    std::fs::write(&token, "t0ken\n").unwrap();
    let hub = start_hub_with(dir.path(), &key, &token, flags);
    (dir, hub)
}

/// A connection to `addr` from the loopback address `from` (another client).
fn connect_from(from: [u8; 4], addr: &str) -> std::net::TcpStream {
    use socket2::{Domain, Socket, Type};
    let s = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    s.bind(&std::net::SocketAddr::from((from, 0)).into())
        .unwrap();
    s.connect(&addr.parse::<std::net::SocketAddr>().unwrap().into())
        .unwrap();
    s.into()
}

/// Sends `request` on `c` and reads the status code (0 when the connection
/// is closed without an answer).
fn status_of(c: &mut std::net::TcpStream, request: &str) -> u16 {
    c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let _ = c.write_all(request.as_bytes());
    let mut head = [0u8; 12];
    match c.read_exact(&mut head) {
        Ok(()) => String::from_utf8_lossy(&head[9..12]).parse().unwrap_or(0),
        Err(_) => 0,
    }
}

fn rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0)
}

/// Hostile names, tokens, queries and uploads: each gets its status code,
/// and nothing is written outside the store.
#[test]
fn hostile_requests_get_clear_status_codes() {
    let (dir, hub) = hub_with_token(&["--max-upload-mb", "1"]);
    let auth = [("Authorization", "Bearer t0ken")];
    let list =
        b"da39a3ee5e6b4b0d3255bfef95601890afd80709\n2fd4e1c67a2d28fced849ee1bb76e7391b93eb12\n";
    let post = |path: &str, headers: &[(&str, &str)], body: &[u8]| {
        http(&hub.addr, "POST", path, headers, body).0
    };
    let get = |path: &str| http(&hub.addr, "GET", path, &[], b"").0;

    assert_eq!(post("/v1/sets/wiki", &[], list), 401, "no token");
    assert_eq!(
        post("/v1/sets/wiki", &[("Authorization", "Bearer t0ke")], list),
        401
    );
    assert_eq!(
        post("/v1/sets/wiki", &[("Authorization", "t0ken")], list),
        401,
        "not bearer"
    );
    let long = format!("/v1/sets/{}", "a".repeat(65));
    let very_long = format!("/v1/sets/{}", "b".repeat(20_000));
    for (path, want) in [
        ("/v1/sets/..", 400),
        ("/v1/sets/%2e%2e", 400),
        ("/v1/sets/%2E%2E", 400),
        ("/v1/sets/.hidden", 400),
        ("/v1/sets/a%2Fb", 400),
        ("/v1/sets/..%2F..%2Fetc", 400),
        ("/v1/sets/a%00b", 400),
        ("/v1/sets/%C3%A9t%C3%A9", 400),
        ("/v1/sets/%FF", 400),
        ("/v1/sets/Wiki", 400),
        (long.as_str(), 400),
        (very_long.as_str(), 400),
        ("/v1/sets/a/b", 404),
    ] {
        assert_eq!(
            post(path, &auth, list),
            want,
            "POST {}",
            &path[..path.len().min(40)]
        );
    }
    assert_eq!(
        post("/v1/sets/wiki", &auth, b"not hex\n"),
        400,
        "garbage text"
    );
    assert_eq!(
        post("/v1/sets/wiki", &auth, &[0xff, 0xfe, 0x00]),
        400,
        "binary garbage"
    );
    assert_eq!(
        post("/v1/sets/wiki", &auth, &vec![b'0'; 2 << 20]),
        413,
        "over the limit"
    );
    assert_eq!(post("/v1/sets/wiki", &auth, list), 201);

    // A signed file as the hub serves it, cut short or cut into: refused.
    let (status, full) = http(&hub.addr, "GET", "/v1/sets/wiki/full", &[], b"");
    assert_eq!(status, 200);
    assert_eq!(
        post("/v1/sets/wiki", &auth, &full[..full.len() / 2]),
        400,
        "truncated"
    );
    assert_eq!(
        post("/v1/sets/wiki", &auth, &full[..20]),
        400,
        "a header only"
    );
    let mut longer = full.clone();
    longer.push(0);
    assert_eq!(
        post("/v1/sets/wiki", &auth, &longer),
        400,
        "a byte too many"
    );
    // The two 8-byte keys sit just before the 64-byte signature: swapped, they are out of order.
    let mut swapped = full.clone();
    let keys = full.len() - 64 - 16;
    swapped[keys..keys + 8].copy_from_slice(&full[keys + 8..keys + 16]);
    swapped[keys + 8..keys + 16].copy_from_slice(&full[keys..keys + 8]);
    assert_eq!(
        post("/v1/sets/wiki", &auth, &swapped),
        400,
        "keys out of order"
    );

    for (path, want) in [
        ("/v1/sets/%2e%2e/full", 404),
        ("/v1/sets/..%2F..%2Fetc%2Fpasswd/full", 404),
        ("/v1/sets/wiki/full?version=99", 404),
        ("/v1/sets/wiki/full?version=-1", 400),
        ("/v1/sets/wiki/delta?from=abc", 400),
        ("/v1/sets/wiki/delta", 400),
        ("/v1/sets/wiki/delta?from=7", 404),
        (
            "/v1/sets/wiki/next?after=1&wait=99999999999999999999999",
            400,
        ),
        ("/v1/sets/nothing/next?after=0&wait=0", 204),
        ("/v1/sets/wiki/next?after=0&wait=0", 200),
    ] {
        assert_eq!(get(path), want, "GET {path}");
    }
    let stored: Vec<_> = std::fs::read_dir(dir.path().join("store"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        stored,
        vec![std::ffi::OsString::from("wiki")],
        "only the one set"
    );
    hub.assert_no_secret_logged(&["t0ken", "t0ke"]);
}

/// Thousands of idle long-polls: a client address gets at most its share of
/// connections and the hub at most its total (the rest hear 503 at once);
/// other clients are served meanwhile, memory stays small, and a publish
/// answers every waiting long-poll.
#[test]
fn long_polls_and_connections_are_bounded_per_client_and_overall() {
    let (_dir, hub) = hub_with_token(&[
        "--max-connections",
        "500",
        "--max-connections-per-client",
        "300",
    ]);
    let publish = |from: [u8; 4]| {
        let mut c = connect_from(from, &hub.addr);
        let body = "da39a3ee5e6b4b0d3255bfef95601890afd80709\n";
        status_of(
            &mut c,
            &format!("POST /v1/sets/wiki HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t0ken\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()),
        )
    };
    assert_eq!(publish([127, 0, 0, 3]), 201);
    let poll = "GET /v1/sets/wiki/next?after=1&wait=300 HTTP/1.1\r\nHost: x\r\n\r\n";
    let started = Instant::now();
    let mut waiting = Vec::new();
    let mut refused = 0;
    for _ in 0..2000 {
        let mut c = connect_from([127, 0, 0, 1], &hub.addr);
        c.write_all(poll.as_bytes()).unwrap();
        waiting.push(c);
    }
    // Those over the per-client limit are answered 503 (or, past 500 such
    // answers under way, closed at once); the rest wait. Looked at until
    // only the held ones are left (the hub may still be accepting).
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut pending: Vec<std::net::TcpStream> = waiting;
    loop {
        let mut still = Vec::new();
        for mut c in pending {
            c.set_nonblocking(true).unwrap();
            let mut head = [0u8; 12];
            match c.read(&mut head) {
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    c.set_nonblocking(false).unwrap();
                    still.push(c);
                }
                Ok(n) if n > 0 => {
                    assert_eq!(&head[9..12], b"503");
                    refused += 1;
                }
                _ => {}
            }
        }
        pending = still;
        if pending.len() <= 300 || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut waiting = pending;
    assert_eq!(
        waiting.len(),
        300,
        "one client holds at most 300 connections"
    );
    assert!(refused >= 300, "told why: {refused}");
    // Another client is served meanwhile, and fills the hub up to its total
    // (each connection answered once, so the hub surely holds it).
    let mut other = connect_from([127, 0, 0, 2], &hub.addr);
    let health = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    assert_eq!(status_of(&mut other, health), 200);
    let mut more: Vec<_> = (0..199)
        .map(|_| {
            let mut c = connect_from([127, 0, 0, 2], &hub.addr);
            assert_eq!(status_of(&mut c, health), 200);
            c
        })
        .collect();
    let mut third = connect_from([127, 0, 0, 3], &hub.addr);
    assert_eq!(status_of(&mut third, health), 503, "500 connections in all");
    let rss = rss_kb(hub.child.id()) / 1024;
    assert!(rss < 100, "hub RSS {rss} MB with 500 connections");
    more.clear();
    drop(other);
    std::thread::sleep(Duration::from_millis(200));

    // A publish answers every waiting long-poll at once.
    assert_eq!(publish([127, 0, 0, 3]), 201);
    let mut answered = 0;
    for c in &mut waiting {
        if answered == 300 {
            break;
        }
        c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut head = [0u8; 12];
        if c.read_exact(&mut head).is_ok() && &head[9..12] == b"200" {
            answered += 1;
        }
    }
    assert_eq!(answered, 300);
    eprintln!(
        "2,000 long-polls from one address: 300 held, 1,700 refused ({refused} with a 503); hub RSS {rss} MB; all answered by a publish within {:?}",
        started.elapsed()
    );
}
