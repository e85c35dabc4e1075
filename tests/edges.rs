//! Trust at the edges, with the real binary: who may feed an agent (ingest
//! and metrics tokens, checked before a body is read), HTTPS on the hub and
//! the agent with certificates made here (and a renewal taken without a
//! restart), which sources may flag a site, and no token in any log line.

use crate::common;
use crate::daemon;

use common::{bin, http, listening_address, ok, signed_source_set, wcxb_pages};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const INGEST_TOKEN: &str = "ingest-7f3a9c1e5b2d";
const METRICS_TOKEN: &str = "metrics-0c4e8a2f6d1b";
const PUBLISH_TOKEN: &str = "publish-9d2b7e4a1c8f";
const WRONG_TOKEN: &str = "wrong-5e1a3c7b9d0f";
const NATS_PASSWORD: &str = "nats-pw-3b8e6d2a9c4f";

/// A running daemon whose whole log is kept (to look for secrets in it).
struct Daemon {
    child: Child,
    addr: String,
    log: Arc<Mutex<String>>,
}

impl Daemon {
    fn start(cmd: &mut Command, prefix: &str) -> Daemon {
        let mut child = cmd
            // Everything the daemons say, down to debug, must be free of secrets.
            .env("RUST_LOG", "debug")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let addr = listening_address(&mut err, prefix);
        let log = Arc::new(Mutex::new(String::new()));
        let keep = log.clone();
        std::thread::spawn(move || {
            for line in err.lines().map_while(Result::ok) {
                let mut l = keep.lock().unwrap();
                l.push_str(&line);
                l.push('\n');
            }
        });
        Daemon { child, addr, log }
    }

    fn signal(&self, sig: &str) {
        ok(Command::new("kill")
            .args([sig, &self.child.id().to_string()])
            .output()
            .unwrap());
    }

    /// Stops it (SIGTERM) and returns everything it logged.
    fn stop(mut self) -> String {
        self.signal("-TERM");
        self.child.wait().unwrap();
        std::thread::sleep(Duration::from_millis(200));
        let log = self.log.lock().unwrap().clone();
        log
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn no_secret_in(log: &str, who: &str) {
    assert!(!log.is_empty(), "{who} logged nothing");
    for secret in [
        INGEST_TOKEN,
        METRICS_TOKEN,
        PUBLISH_TOKEN,
        WRONG_TOKEN,
        NATS_PASSWORD,
    ] {
        assert!(
            !log.contains(secret),
            "{who} logged a token:\n{}",
            log.lines()
                .filter(|l| l.contains(secret))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

fn secret_file(dir: &Path, name: &str, secret: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join(name);
    std::fs::write(&p, format!("{secret}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
    p
}

/// An agent judging against `set`, neighborhoods on (bad at a fixed 0.5
/// once a site has 5 pages), `[agent]` lines `extra`.
fn agent_config(dir: &Path, set: &Path, extra: &str, sources: &str) -> PathBuf {
    let text = format!(
        r#"workers = 1
[input]
max_page_ms = 0
[labels]
files = [{set:?}]
public_key_file = {:?}
[neighborhoods]
enabled = true
min_pages = 5
threshold = 0.5
[agent]
listen = "127.0.0.1:0"
{extra}
{sources}
[[agent.sinks]]
kind = "jsonl"
path = {:?}
[agent.spool]
dir = {:?}
"#,
        dir.join("k.pub"),
        dir.join("verdicts.jsonl"),
        dir.join("spool")
    );
    let path = dir.join("agent.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn start_agent(config: &Path) -> Daemon {
    Daemon::start(
        bin().args(["agent", "-c"]).arg(config),
        "agent listening on http://",
    )
}

fn post(addr: &str, url: &str, html: &str, token: Option<&str>) -> u16 {
    let auth = token.map(|t| format!("Bearer {t}"));
    let mut headers = vec![
        ("X-Crawlsieve-Url", url),
        ("Content-Type", "text/html; charset=utf-8"),
    ];
    if let Some(a) = &auth {
        headers.push(("Authorization", a.as_str()));
    }
    http(addr, "POST", "/v1/pages", &headers, html.as_bytes())
        .unwrap()
        .0
}

fn metric(addr: &str, token: Option<&str>, name: &str) -> f64 {
    let auth = token.map(|t| format!("Bearer {t}"));
    let headers: Vec<(&str, &str)> = auth.iter().map(|a| ("Authorization", a.as_str())).collect();
    let (status, _, body) = http(addr, "GET", "/metrics", &headers, b"").unwrap();
    assert_eq!(status, 200);
    String::from_utf8_lossy(&body)
        .lines()
        .filter(|l| l.starts_with(name))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// Site flags and copy verdicts the agent wrote.
fn flags_and_copies(dir: &Path) -> (Vec<String>, usize) {
    let text = std::fs::read_to_string(dir.join("verdicts.jsonl")).unwrap_or_default();
    let (verdicts, flags) = common::split_lines(&text);
    let copies = verdicts.iter().filter(|v| v["verdict"] == "flag").count();
    (
        flags
            .iter()
            .filter(|f| f["state"] == "bad")
            .map(|f| f["neighborhood"].as_str().unwrap().to_string())
            .collect(),
        copies,
    )
}

/// Real pages (WCXB dev) and a labeled set of the first ten, or `None`
/// without `../shared/data`.
fn pages_and_set(dir: &Path) -> Option<(Vec<String>, PathBuf)> {
    let data = common::shared_data()?;
    let pages = wcxb_pages(&data, 10, 20_000..200_000);
    assert_eq!(pages.len(), 10);
    let set = signed_source_set(dir, &pages);
    Some((pages, set))
}

/// Posts the ten copies "from" victim.example; returns the statuses.
fn post_copies(agent: &Daemon, pages: &[String], token: Option<&str>) -> Vec<u16> {
    pages
        .iter()
        .enumerate()
        .map(|(i, html)| {
            post(
                &agent.addr,
                &format!("http://victim.example/p/{i}.html"),
                html,
                token,
            )
        })
        .collect()
}

#[test]
fn posted_pages_flag_a_site_only_from_a_trusted_authenticated_source() {
    let root = tempfile::tempdir().unwrap();
    let setup = root.path().join("set");
    std::fs::create_dir_all(&setup).unwrap();
    let Some((pages, set)) = pages_and_set(&setup) else {
        eprintln!("SKIP: no ../shared/data");
        return;
    };
    let http_source = "[[agent.sources]]\nkind = \"http\"";
    let case = |name: &str, extra: &str, sources: &str| {
        let dir = root.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(setup.join("k.pub"), dir.join("k.pub")).unwrap();
        let token = secret_file(&dir, "ingest.token", INGEST_TOKEN);
        let extra = extra.replace("TOKEN_FILE", &format!("{token:?}"));
        (
            dir.clone(),
            start_agent(&agent_config(&dir, &set, &extra, sources)),
        )
    };

    // 1. Open ingest (no token): the copies are judged copies, but posted
    //    pages feed no neighborhood, so the victim is not flagged.
    let (dir, agent) = case("open", "", http_source);
    assert!(post_copies(&agent, &pages, None).iter().all(|s| *s == 200));
    assert_eq!(
        metric(&agent.addr, None, "crawlsieve_untrusted_pages"),
        10.0
    );
    let log = agent.stop();
    let (flags, copies) = flags_and_copies(&dir);
    assert_eq!(copies, 10, "the posted copies are judged copies");
    assert!(flags.is_empty(), "open ingest flagged {flags:?}");
    no_secret_in(&log, "open agent");

    // 2. An ingest token: without it (or with a wrong one) 401; with it the
    //    same copies flag the victim (the test can fail: flags do come).
    let (dir, agent) = case("token", "ingest_token_file = TOKEN_FILE", http_source);
    assert!(post_copies(&agent, &pages, None).iter().all(|s| *s == 401));
    assert!(post_copies(&agent, &pages, Some(WRONG_TOKEN))
        .iter()
        .all(|s| *s == 401));
    assert!(post_copies(&agent, &pages, Some(INGEST_TOKEN))
        .iter()
        .all(|s| *s == 200));
    assert_eq!(metric(&agent.addr, None, "crawlsieve_untrusted_pages"), 0.0);
    let log = agent.stop();
    let (flags, copies) = flags_and_copies(&dir);
    assert_eq!(copies, 10, "only the authenticated posts were judged");
    assert!(
        flags.iter().any(|f| f.contains("victim.example")),
        "an authenticated, trusted source flags the copier: {flags:?}"
    );
    no_secret_in(&log, "agent with an ingest token");

    // 3. Authenticated but not among `trusted_sources`: no flag.
    let warc_dir = root.path().join("warcs");
    std::fs::create_dir_all(&warc_dir).unwrap();
    let sources =
        format!("{http_source}\n[[agent.sources]]\nkind = \"warc_dir\"\npath = {warc_dir:?}");
    let (dir, agent) = case(
        "unlisted",
        "ingest_token_file = TOKEN_FILE\ntrusted_sources = [\"warc_dir\"]",
        &sources,
    );
    assert!(post_copies(&agent, &pages, Some(INGEST_TOKEN))
        .iter()
        .all(|s| *s == 200));
    assert_eq!(
        metric(&agent.addr, None, "crawlsieve_untrusted_pages"),
        10.0
    );
    agent.stop();
    let (flags, copies) = flags_and_copies(&dir);
    assert_eq!(copies, 10);
    assert!(flags.is_empty(), "an unlisted source flagged {flags:?}");

    // 4. A listed kind that is not a source is a start-up error naming the key.
    let dir = root.path().join("bad");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(setup.join("k.pub"), dir.join("k.pub")).unwrap();
    let out = bin()
        .args(["agent", "-c"])
        .arg(agent_config(
            &dir,
            &set,
            "trusted_sources = [\"kafka\"]",
            http_source,
        ))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("agent.trusted_sources"), "{err}");
}

#[test]
fn tokens_are_checked_before_the_body_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let (_, public) = common::keygen(dir);
    let ingest = secret_file(dir, "ingest.token", INGEST_TOKEN);
    let metrics = secret_file(dir, "metrics.token", METRICS_TOKEN);
    let config = format!(
        "workers = 1\n[labels]\npublic_key_file = {public:?}\n[agent]\nlisten = \"127.0.0.1:0\"\n\
         ingest_token_file = {ingest:?}\nmetrics_token_file = {metrics:?}\n\
         [[agent.sources]]\nkind = \"http\"\n[[agent.sinks]]\nkind = \"jsonl\"\npath = {:?}\n\
         [agent.spool]\ndir = {:?}\n",
        dir.join("v.jsonl"),
        dir.join("spool")
    );
    std::fs::write(dir.join("agent.toml"), config).unwrap();
    let agent = start_agent(&dir.join("agent.toml"));

    // A client announces 100 MB and sends none of it: the answer comes at
    // once, from the headers alone.
    let started = Instant::now();
    let mut s = std::net::TcpStream::connect(&agent.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(
        s,
        "POST /v1/pages HTTP/1.1\r\nHost: x\r\nX-Crawlsieve-Url: http://a.example/\r\n\
         Authorization: Bearer {WRONG_TOKEN}\r\nContent-Length: 100000000\r\n\r\n"
    )
    .unwrap();
    let mut head = [0u8; 12];
    s.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 401");
    assert!(started.elapsed() < Duration::from_secs(3));

    // /metrics behind its own token; /healthz open.
    let get = |path: &str, token: Option<&str>| {
        let auth = token.map(|t| format!("Bearer {t}"));
        let h: Vec<(&str, &str)> = auth.iter().map(|a| ("Authorization", a.as_str())).collect();
        http(&agent.addr, "GET", path, &h, b"").unwrap().0
    };
    assert_eq!(get("/metrics", None), 401);
    assert_eq!(
        get("/metrics", Some(INGEST_TOKEN)),
        401,
        "each door its own token"
    );
    assert_eq!(get("/metrics", Some(METRICS_TOKEN)), 200);
    assert_eq!(get("/healthz", None), 200);
    let page = "<html><body><p>A page with a few words on it.</p></body></html>";
    assert_eq!(
        post(&agent.addr, "http://a.example/", page, Some(METRICS_TOKEN)),
        401
    );
    assert_eq!(
        post(&agent.addr, "http://a.example/", page, Some(INGEST_TOKEN)),
        200
    );
    // `systemctl reload` without a certificate: SIGHUP is not a stop.
    agent.signal("-HUP");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(get("/healthz", None), 200, "the agent survives SIGHUP");
    no_secret_in(&agent.stop(), "agent");

    // A token file others can write is refused at start-up, naming the key.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&ingest, std::fs::Permissions::from_mode(0o666)).unwrap();
    let out = bin()
        .args(["agent", "-c"])
        .arg(dir.join("agent.toml"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("agent.ingest_token_file") && err.contains("others can write"),
        "{err}"
    );
    assert!(!err.contains(INGEST_TOKEN));
}

/// A CA and a certificate it signs for 127.0.0.1 and localhost: (CA PEM,
/// certificate PEM, key PEM).
fn certificates(name: &str) -> (String, String, String) {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, format!("{name} test CA"));
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let server = CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()])
        .unwrap()
        .signed_by(&key, &ca)
        .unwrap();
    (ca.pem(), server.pem(), key.serialize_pem())
}

fn write_private(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

/// A client trusting only `ca` (PEM).
fn client(ca: &str) -> reqwest::blocking::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::blocking::Client::builder()
        .tls_certs_only(reqwest::Certificate::from_pem_bundle(ca.as_bytes()).unwrap())
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

/// The hub over HTTPS with `dir/cert.pem` and `dir/key.pem`.
fn tls_hub(dir: &Path, token: &Path) -> Daemon {
    Daemon::start(
        bin()
            .args(["hub", "--listen", "127.0.0.1:0", "--store"])
            .arg(dir.join("store"))
            .arg("--key")
            .arg(dir.join("k"))
            .arg("--token-file")
            .arg(token)
            .arg("--tls-cert")
            .arg(dir.join("cert.pem"))
            .arg("--tls-key")
            .arg(dir.join("key.pem")),
        "hub listening on https://",
    )
}

/// An agent following `hub_url` through `dir/ca.pem` and serving HTTPS itself.
fn tls_agent(dir: &Path, hub_url: &str) -> Daemon {
    let config = format!(
        "workers = 1\n[labels]\npublic_key_file = {:?}\n[labels.hub]\nurl = {hub_url:?}\nsets = [\"source\"]\n\
         ca_file = {:?}\ncache_dir = {:?}\n[agent]\nlisten = \"127.0.0.1:0\"\n\
         [agent.tls]\ncert_file = {:?}\nkey_file = {:?}\n[[agent.sources]]\nkind = \"http\"\n\
         [[agent.sinks]]\nkind = \"jsonl\"\npath = {:?}\n[agent.spool]\ndir = {:?}\n",
        dir.join("k.pub"),
        dir.join("ca.pem"),
        dir.join("cache"),
        dir.join("cert.pem"),
        dir.join("key.pem"),
        dir.join("v.jsonl"),
        dir.join("spool")
    );
    std::fs::write(dir.join("agent.toml"), config).unwrap();
    Daemon::start(
        bin().args(["agent", "-c"]).arg(dir.join("agent.toml")),
        "agent listening on https://",
    )
}

/// `labels publish` of `set` to `hub_url`, trusting `ca_file`.
fn publish_over_tls(
    hub_url: &str,
    set: &Path,
    ca_file: &Path,
    token: &Path,
) -> std::process::Output {
    bin()
        .args([
            "labels",
            "publish",
            "--hub",
            hub_url,
            "--name",
            "source",
            "--token-file",
        ])
        .arg(token)
        .arg("--ca-file")
        .arg(ca_file)
        .arg(set)
        .output()
        .unwrap()
}

/// Replaces the agent's certificate and key with ones from a new CA, as a
/// renewal does (each file renamed into place); returns the new CA.
fn renew(dir: &Path) -> String {
    let (new_ca, new_cert, new_key) = certificates("renewed");
    std::fs::write(dir.join("cert.pem.tmp"), &new_cert).unwrap();
    write_private(&dir.join("key.pem.tmp"), &new_key);
    std::fs::rename(dir.join("key.pem.tmp"), dir.join("key.pem")).unwrap();
    std::fs::rename(dir.join("cert.pem.tmp"), dir.join("cert.pem")).unwrap();
    new_ca
}

#[test]
fn hub_and_agent_speak_tls_and_take_a_renewed_certificate() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    let pages: Vec<String> = (0..5).map(|i| common::article(300 + i)).collect();
    let set = signed_source_set(dir, &pages);
    let (ca, cert, key) = certificates("first");
    std::fs::write(dir.join("ca.pem"), &ca).unwrap();
    std::fs::write(dir.join("cert.pem"), &cert).unwrap();
    write_private(&dir.join("key.pem"), &key);
    let token = secret_file(dir, "publish.token", PUBLISH_TOKEN);

    // The hub over HTTPS; plain HTTP is not served; a set is published to it
    // through the CA, not through another CA or with a wrong token.
    let hub = tls_hub(dir, &token);
    let hub_url = format!("https://{}", hub.addr);
    let plain = http(&hub.addr, "GET", "/healthz", &[], b"");
    assert!(
        !matches!(plain, Ok((200, _, _))),
        "plain HTTP on the TLS port: {plain:?}"
    );
    let (other_ca, _, _) = certificates("other");
    std::fs::write(dir.join("other-ca.pem"), &other_ca).unwrap();
    assert!(
        !publish_over_tls(&hub_url, &set, &dir.join("other-ca.pem"), &token)
            .status
            .success()
    );
    let wrong = secret_file(dir, "wrong.token", WRONG_TOKEN);
    let refused = publish_over_tls(&hub_url, &set, &dir.join("ca.pem"), &wrong);
    assert!(String::from_utf8_lossy(&refused.stderr).contains("401"));
    ok(publish_over_tls(
        &hub_url,
        &set,
        &dir.join("ca.pem"),
        &token,
    ));

    // The agent follows the hub over HTTPS and serves HTTPS itself.
    let agent = tls_agent(dir, &hub_url);
    let judge = |client: &reqwest::blocking::Client, url: &str| {
        client
            .post(format!("https://{}/v1/pages", agent.addr))
            .header("X-Crawlsieve-Url", url)
            .header("Content-Type", "text/html; charset=utf-8")
            .body(pages[0].clone())
            .send()
    };
    let v: serde_json::Value = judge(&client(&ca), "http://copier.example/a")
        .unwrap()
        .json()
        .unwrap();
    assert!(
        v["labels_version"]
            .as_str()
            .unwrap_or("")
            .contains("source"),
        "judged against the set from the hub: {v}"
    );
    assert!(judge(&client(&other_ca), "http://copier.example/b").is_err());

    // Renewal by a new CA; SIGHUP (or the next look at the files) makes the
    // agent present it, no restart. (New clients each time: a kept-alive
    // connection has its handshake behind it.)
    let new_ca = renew(dir);
    agent.signal("-HUP");
    let deadline = Instant::now() + Duration::from_secs(15);
    while judge(&client(&new_ca), "http://copier.example/c").is_err() {
        assert!(
            Instant::now() < deadline,
            "the renewed certificate is never presented"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        judge(&client(&ca), "http://copier.example/d").is_err(),
        "the old CA no longer fits"
    );

    // A broken renewal keeps the certificate it has.
    std::fs::write(dir.join("cert.pem"), "not a certificate").unwrap();
    agent.signal("-HUP");
    std::thread::sleep(Duration::from_millis(500));
    assert!(judge(&client(&new_ca), "http://copier.example/e").is_ok());

    let agent_log = agent.stop();
    assert!(
        agent_log.contains("TLS certificate not reloaded"),
        "{agent_log}"
    );
    no_secret_in(&agent_log, "TLS agent");
    no_secret_in(&hub.stop(), "TLS hub");
}

#[test]
fn half_a_tls_pair_is_a_start_up_error() {
    let out = bin()
        .args([
            "hub",
            "--store",
            "/nonexistent",
            "--key",
            "/nonexistent",
            "--tls-cert",
            "c.pem",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--tls-key"));
}

#[test]
fn nats_sinks_authenticate_with_the_servers_own_users() {
    let root = tempfile::tempdir().unwrap();
    let Some(nats) = daemon::Nats::start_with_config(
        &root.path().join("nats"),
        &format!("authorization {{\n  user: crawl\n  password: {NATS_PASSWORD}\n}}\n"),
    ) else {
        return;
    };
    let page = common::article(200);
    // The password in the URL too: it must not reach the logs either.
    let url = nats
        .url()
        .replace("nats://", &format!("nats://crawl:{NATS_PASSWORD}-wrong@"));
    let run = |name: &str, password: &str, url: &str| {
        let dir = root.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let config = daemon::config(&dir, None, "");
        let mut text = std::fs::read_to_string(&config).unwrap();
        text.push_str(&format!(
            "[[agent.sinks]]\nkind = \"nats\"\nurl = \"{url}\"\nstream = \"VERDICTS\"\nsubject = \"crawl.verdicts\"\nack_timeout_ms = 500\n"
        ));
        std::fs::write(&config, text).unwrap();
        let agent = Daemon::start(
            bin()
                .args(["agent", "-c"])
                .arg(&config)
                .env("CRAWLSIEVE_NATS_USER", "crawl")
                .env("CRAWLSIEVE_NATS_PASSWORD", password),
            "agent listening on http://",
        );
        for i in 0..3 {
            assert_eq!(
                post(&agent.addr, &format!("http://a.example/{i}"), &page, None),
                200
            );
        }
        let spooled = metric(&agent.addr, None, "crawlsieve_spool_depth");
        (spooled, agent.stop())
    };
    let (spooled, log) = run("right", NATS_PASSWORD, &nats.url());
    assert_eq!(spooled, 0.0, "authenticated: every verdict published");
    no_secret_in(&log, "agent with NATS credentials");
    let (spooled, log) = run("wrong", "not-the-password", &url);
    assert!(
        spooled > 0.0,
        "refused by the server: verdicts wait in the spool"
    );
    no_secret_in(&log, "agent refused by NATS");
}
