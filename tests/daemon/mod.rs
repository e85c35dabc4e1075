//! The long-running agent and the brokers it talks to, as real processes on
//! free loopback ports: `nats-server` (JetStream), `tansu` (Kafka protocol),
//! the `crawlsieve agent` binary; and a crawler's side of HTTP ingest.
#![allow(dead_code)]

use crate::common::{self, bin, shared_data};
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The stream `PAGES` on `subject`, created when missing (a crawler's side).
async fn pages_stream(js: &async_nats::jetstream::Context, subject: &str) {
    js.get_or_create_stream(async_nats::jetstream::stream::Config {
        name: "PAGES".into(),
        subjects: vec![subject.into()],
        ..Default::default()
    })
    .await
    .unwrap();
}

/// Publishes one message to `subject` (stream `PAGES` created when missing)
/// and waits for JetStream's acknowledgement. The agent, starting, creates
/// the same stream: on a loaded machine a publish can meet the moment between
/// the two (`StreamNotFound`, seen once in a full run), and is made again.
async fn publish_acked(
    js: &async_nats::jetstream::Context,
    subject: &str,
    headers: async_nats::HeaderMap,
    message: Vec<u8>,
) {
    use async_nats::jetstream::context::PublishErrorKind;
    for attempt in 0.. {
        pages_stream(js, subject).await;
        let ack = js
            .publish_with_headers(subject.to_string(), headers.clone(), message.clone().into())
            .await
            .unwrap()
            .await;
        match ack {
            Ok(_) => return,
            Err(e) if e.kind() == PublishErrorKind::StreamNotFound && attempt < 20 => {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            Err(e) => panic!("publish to {subject}: {e}"),
        }
    }
}

pub struct Nats {
    pub child: Option<Child>,
    pub port: u16,
    pub dir: PathBuf,
    /// A server configuration file (`-c`), e.g. subject mappings.
    pub config: Option<PathBuf>,
}

impl Nats {
    pub fn start(dir: &Path) -> Option<Nats> {
        let mut n = Nats {
            child: None,
            port: free_port(),
            dir: dir.to_path_buf(),
            config: None,
        };
        n.restart()?;
        Some(n)
    }

    /// Started with `config` (nats-server's configuration syntax) as its file.
    pub fn start_with_config(dir: &Path, config: &str) -> Option<Nats> {
        std::fs::create_dir_all(dir).unwrap();
        let file = dir.join("nats.conf");
        std::fs::write(&file, config).unwrap();
        let mut n = Nats {
            child: None,
            port: free_port(),
            dir: dir.to_path_buf(),
            config: Some(file),
        };
        n.restart()?;
        Some(n)
    }

    pub fn restart(&mut self) -> Option<()> {
        let child = std::process::Command::new("nats-server")
            .args([
                "-js",
                "-a",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-sd",
            ])
            .arg(&self.dir)
            .args(
                self.config
                    .iter()
                    .flat_map(|c| [std::ffi::OsStr::new("-c"), c.as_os_str()]),
            )
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        // A missing broker fails the test: these tests exist to run against one.
        let child =
            child.expect("nats-server not found: `apt-get install nats-server`, or run .ci/run");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "nats-server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(())
    }

    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// Runs `f` with a JetStream context on this server, on a runtime of its own
    /// (the tests are plain threads).
    pub fn with_jetstream<T>(&self, f: impl AsyncFnOnce(async_nats::jetstream::Context) -> T) -> T {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let client = async_nats::connect(self.url()).await.unwrap();
            f(async_nats::jetstream::new(client)).await
        })
    }

    /// Publishes `messages` to `subject` as a crawler would (creating the
    /// stream `PAGES` on it when missing), each acknowledged by JetStream.
    pub fn publish_pages(&self, subject: &str, messages: impl IntoIterator<Item = Vec<u8>>) {
        self.with_jetstream(async |js| {
            for m in messages {
                publish_acked(&js, subject, async_nats::HeaderMap::new(), m).await;
            }
        });
    }

    /// Publishes one message with NATS headers (as a crawler would put the
    /// page's response headers there), stream `PAGES` created when missing.
    pub fn publish_with_headers(&self, subject: &str, message: Vec<u8>, headers: &[(&str, &str)]) {
        self.with_jetstream(async |js| {
            let mut map = async_nats::HeaderMap::new();
            for (k, v) in headers {
                map.append(*k, *v);
            }
            publish_acked(&js, subject, map, message).await;
        });
    }

    /// The verdict ids in the stream, in stream order.
    pub fn ids(&self, stream: &str) -> Vec<String> {
        self.with_jetstream(async |js| {
            let mut s = js.get_stream(stream).await.unwrap();
            let info = s.info().await.unwrap().state.clone();
            let mut ids = Vec::new();
            if info.messages == 0 {
                return ids;
            }
            for seq in info.first_sequence..=info.last_sequence {
                if let Ok(m) = s.get_raw_message(seq).await {
                    let v: serde_json::Value = serde_json::from_slice(&m.payload).unwrap();
                    if v["type"] != "site_flag" {
                        ids.push(v["id"].as_str().unwrap().to_string());
                    }
                }
            }
            ids
        })
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A `redis-server` of the test's own on a free port, nothing kept on disk.
pub struct Redis {
    pub child: Option<Child>,
    pub port: u16,
    password: Option<String>,
}

impl Redis {
    pub fn start() -> Redis {
        Redis::start_with(None)
    }

    /// With `requirepass`: a client must give `password`.
    pub fn start_with(password: Option<&str>) -> Redis {
        let mut r = Redis {
            child: None,
            port: free_port(),
            password: password.map(str::to_string),
        };
        r.restart();
        r
    }

    pub fn restart(&mut self) {
        let mut cmd = std::process::Command::new("redis-server");
        cmd.args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .args(["--save", "", "--appendonly", "no"]);
        if let Some(p) = &self.password {
            cmd.args(["--requirepass", p]);
        }
        let child = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server not found: `apt-get install redis-server`, or run .ci/run");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill();
    }
}

pub struct Agent {
    pub child: Child,
    pub addr: String,
}

impl Agent {
    pub fn start(config: &Path) -> Agent {
        let mut child = bin()
            .args(["agent", "-c"])
            .arg(config)
            // The agent's own account of what it did (partitions adopted and
            // released, sources restarted) in a failing test's output.
            .env(
                "RUST_LOG",
                std::env::var("RUST_LOG")
                    .unwrap_or_else(|_| "warn,crawlsieve_core=info,crawlsieve_daemon=info".into()),
            )
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let addr = common::listening_address(&mut err, "agent listening on http://");
        // Line by line as it comes (a test that fails must not cut the log off).
        let pid = child.id();
        std::thread::spawn(move || {
            for line in err.lines().map_while(Result::ok) {
                eprintln!("agent {pid}| {line}");
            }
        });
        Agent { child, addr }
    }

    pub fn metric(&self, name: &str) -> f64 {
        let (_, body) = http(&self.addr, "GET", "/metrics", &[], b"").unwrap();
        String::from_utf8_lossy(&body)
            .lines()
            .filter(|l| l.starts_with(name))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    }

    /// The `/metrics` lines of the metrics whose names start with `prefix`.
    pub fn metric_lines(&self, prefix: &str) -> Vec<String> {
        let Ok((_, body)) = http(&self.addr, "GET", "/metrics", &[], b"") else {
            return vec![];
        };
        String::from_utf8_lossy(&body)
            .lines()
            .filter(|l| l.starts_with(prefix))
            .map(str::to_string)
            .collect()
    }

    pub fn rss_peak_kb(&self) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default()
            .lines()
            .find(|l| l.starts_with("VmHWM:"))
            .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
            .unwrap_or(0)
    }

    /// SIGKILL: no shutdown of its own.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn terminate(&mut self) -> std::process::ExitStatus {
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        self.child.wait().unwrap()
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 request: (status, body, retry-after seen).
/// One HTTP/1.1 request: (status, body); a 503 must say when to retry.
pub fn http(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<(u16, Vec<u8>)> {
    let (status, head, body) = common::http(addr, method, path, headers, body)?;
    if status == 503 {
        assert!(head.to_ascii_lowercase().contains("retry-after:"), "{head}");
    }
    Ok((status, body))
}

/// Posts a page, waiting out back-pressure; returns its verdict.
pub fn judge(agent: &Agent, url: &str, html: &str) -> serde_json::Value {
    for _ in 0..500 {
        let (status, body) = http(
            &agent.addr,
            "POST",
            "/v1/pages",
            &[
                ("X-Crawlsieve-Url", url),
                ("Content-Type", "text/html; charset=utf-8"),
            ],
            html.as_bytes(),
        )
        .unwrap();
        match status {
            200 => return serde_json::from_slice(&body).unwrap(),
            503 => std::thread::sleep(Duration::from_millis(20)),
            s => panic!("{s}: {}", String::from_utf8_lossy(&body)),
        }
    }
    panic!("{url} never taken");
}

/// Posts a page; on 503 waits and retries (as a crawler would). Returns the verdict id.
pub fn post_until_taken(addr: &str, url: &str, html: &str, refused: &Mutex<u64>) -> Option<String> {
    for _ in 0..2000 {
        match http(
            addr,
            "POST",
            "/v1/pages",
            &[
                ("X-Crawlsieve-Url", url),
                ("Content-Type", "text/html; charset=utf-8"),
            ],
            html.as_bytes(),
        ) {
            Ok((200, body)) => {
                let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
                return Some(v["id"].as_str().unwrap().to_string());
            }
            Ok((503, _)) => {
                *refused.lock().unwrap() += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            Ok((s, b)) => panic!("{s}: {}", String::from_utf8_lossy(&b)),
            Err(_) => return None, // the agent is gone (shutdown test)
        }
    }
    panic!("never taken");
}

/// Real pages (WCXB dev), or made-up articles when `../shared/data` is absent.
pub fn real_pages(n: usize) -> Vec<String> {
    match shared_data() {
        Some(data) => common::wcxb_pages(&data, n, 0..usize::MAX),
        None => (0..n).map(|i| common::article(200 + i)).collect(),
    }
}

pub fn config(dir: &Path, nats: Option<&Nats>, extra: &str) -> PathBuf {
    let mut text = format!(
        "workers = 2\n[neighborhoods]\nenabled = false\n[agent]\nlisten = \"127.0.0.1:0\"\n{extra}\n[[agent.sources]]\nkind = \"http\"\n[[agent.sinks]]\nkind = \"jsonl\"\npath = {:?}\n[agent.spool]\ndir = {:?}\n",
        dir.join("verdicts.jsonl"),
        dir.join("spool")
    );
    if let Some(n) = nats {
        text.push_str(&format!(
            "[[agent.sinks]]\nkind = \"nats\"\nurl = \"{}\"\nstream = \"VERDICTS\"\nsubject = \"crawl.verdicts\"\nack_timeout_ms = 500\n",
            n.url()
        ));
    }
    let path = dir.join("agent.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// `config` with a NATS sink and a NATS source (stream `PAGES`, subject `crawl.pages`).
pub fn config_with_nats_source(dir: &Path, nats: &Nats) -> PathBuf {
    let path = config(dir, Some(nats), "");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!(
        "[[agent.sources]]\nkind = \"nats\"\nurl = \"{}\"\nstream = \"PAGES\"\nsubject = \"crawl.pages\"\n",
        nats.url()
    ));
    std::fs::write(&path, text).unwrap();
    path
}

/// The complete lines of a file an agent is appending to: a line the agent
/// is still writing (no newline yet) is left for the next read.
pub fn complete_lines(path: &Path) -> String {
    let mut text = std::fs::read_to_string(path).unwrap_or_default();
    text.truncate(text.rfind('\n').map_or(0, |i| i + 1));
    text
}

pub fn jsonl_ids(dir: &Path) -> Vec<String> {
    complete_lines(&dir.join("verdicts.jsonl"))
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

/// Posts `n` pages from `threads` threads; returns the acknowledged verdict ids.
pub fn post_many(
    addr: &str,
    pages: &[String],
    n: usize,
    threads: usize,
    tag: &str,
    pause: Duration,
    refused: &Arc<Mutex<u64>>,
) -> Vec<String> {
    let acked = Arc::new(Mutex::new(Vec::new()));
    let mut handles = Vec::new();
    for t in 0..threads {
        let (addr, pages, acked, refused, tag) = (
            addr.to_string(),
            pages.to_vec(),
            acked.clone(),
            refused.clone(),
            tag.to_string(),
        );
        handles.push(std::thread::spawn(move || {
            for i in (t..n).step_by(threads) {
                let url = format!("http://site{}.example/{tag}/{i}", i % 7);
                if let Some(id) = post_until_taken(&addr, &url, &pages[i % pages.len()], &refused) {
                    acked.lock().unwrap().push(id);
                }
                std::thread::sleep(pause);
            }
        }));
    }
    for h in handles {
        h.join().unwrap();
    }
    let v = acked.lock().unwrap().clone();
    v
}

/// A real Kafka-protocol broker: `tansu` (in-memory storage) on a free port.
pub struct Tansu {
    pub child: Child,
    pub port: u16,
    pub storage: String,
}

impl Tansu {
    pub fn start(topics: &[&str]) -> Option<Tansu> {
        Self::start_with(free_port(), "memory://tansu/", topics)
    }

    /// On SQLite under `dir` (topics and messages survive a restart), on a free port.
    pub fn start_on_disk(dir: &Path, topics: &[&str]) -> Option<Tansu> {
        // sqlite:// paths are relative to the working directory (the temp dir).
        let db = dir.join("tansu.db");
        let relative = db.strip_prefix(std::env::temp_dir()).unwrap();
        Self::start_with(
            free_port(),
            &format!("sqlite://{}", relative.display()),
            topics,
        )
    }

    pub fn start_with(port: u16, storage: &str, topics: &[&str]) -> Option<Tansu> {
        let url = format!("tcp://127.0.0.1:{port}");
        let child = std::process::Command::new("tansu")
            .args([
                "broker",
                "--listener-url",
                &url,
                "--advertised-listener-url",
                &url,
                "--storage-engine",
                storage,
            ])
            .stdout(Stdio::null())
            // TANSU_TEST_LOG=FILE: the broker's log, appended (RUST_LOG applies).
            .stderr(match std::env::var_os("TANSU_TEST_LOG") {
                Some(f) => std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(f)
                    .map(Stdio::from)
                    .unwrap_or_else(|_| Stdio::null()),
                None => Stdio::null(),
            })
            // sqlite:// paths are relative to the working directory.
            .current_dir(std::env::temp_dir())
            .spawn();
        let child = child.expect(
            "tansu not found: `cargo install tansu --version 0.6.0 --features dynostore,libsql --locked --debug`, or run .ci/run",
        );
        let t = Tansu {
            child,
            port,
            storage: storage.to_string(),
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "tansu did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        for topic in topics {
            t.create_topic(topic, 3);
        }
        Some(t)
    }

    pub fn create_topic(&self, topic: &str, partitions: u32) {
        let ok = std::process::Command::new("tansu")
            .args([
                "topic",
                "create",
                "--broker",
                &format!("tcp://127.0.0.1:{}", self.port),
                "--partitions",
                &partitions.to_string(),
                topic,
            ])
            .status()
            .unwrap();
        assert!(ok.success(), "create topic {topic}");
    }

    /// A producer to this broker, with one setting of its own.
    fn producer(
        &self,
        key: &str,
        value: &str,
    ) -> rdkafka::producer::ThreadedProducer<rdkafka::producer::DefaultProducerContext> {
        rdkafka::ClientConfig::new()
            .set("bootstrap.servers", self.brokers())
            .set(key, value)
            .create()
            .unwrap()
    }

    /// Messages with their keys (the default partitioner puts one key in one
    /// partition), one record batch each: tansu 0.6 answers a fetch with the
    /// batches that *start* at or after the offset asked for (its dynostore
    /// `fetch`), so a consumer that starts inside a batch (from a commit
    /// between two of its records) never gets the batch's rest. Those pages
    /// would be lost to the group whatever the agent does; a real broker
    /// sends the whole batch. What the agent does with such a gap is
    /// `a_fetch_past_the_committed_offset_does_not_hold_commits_back`.
    pub fn produce_keyed(&self, topic: &str, messages: &[(String, String)]) {
        use rdkafka::producer::{BaseRecord, Producer};
        let p = self.producer("batch.num.messages", "1");
        for (key, payload) in messages {
            p.send(BaseRecord::to(topic).key(key).payload(payload))
                .map_err(|(e, _)| e)
                .unwrap();
        }
        p.flush(Duration::from_secs(30)).unwrap();
    }

    /// One message with record headers (the page's response headers).
    pub fn produce_with_headers(&self, topic: &str, payload: &str, headers: &[(&str, &str)]) {
        use rdkafka::message::{Header, OwnedHeaders};
        use rdkafka::producer::{BaseRecord, Producer};
        let p = self.producer("batch.num.messages", "1");
        let owned = headers.iter().fold(OwnedHeaders::new(), |h, (k, v)| {
            h.insert(Header {
                key: k,
                value: Some(*v),
            })
        });
        p.send(
            BaseRecord::<(), _>::to(topic)
                .payload(payload)
                .headers(owned),
        )
        .map_err(|(e, _)| e)
        .unwrap();
        p.flush(Duration::from_secs(30)).unwrap();
    }

    pub fn brokers(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts again on the same port and storage (topics persist on SQLite).
    pub fn restart(&mut self) {
        let again = Tansu::start_with(self.port, &self.storage, &[]).expect("tansu restarts");
        drop(std::mem::replace(self, again));
    }

    /// Keyed by their index, one record batch each (see `produce_keyed`).
    pub fn produce(&self, topic: &str, payloads: &[String]) {
        use rdkafka::producer::{BaseRecord, Producer};
        let p = self.producer("batch.num.messages", "1");
        for (i, payload) in payloads.iter().enumerate() {
            let key = i.to_string();
            p.send(BaseRecord::to(topic).key(&key).payload(payload))
                .map_err(|(e, _)| e)
                .unwrap();
        }
        p.flush(Duration::from_secs(30)).unwrap();
    }

    /// `payloads` into partition 0 of `topic` as one record batch (they are
    /// sent within the producer's linger time, and fit its batch size).
    pub fn produce_one_batch(&self, topic: &str, payloads: &[String]) {
        use rdkafka::producer::{BaseRecord, Producer};
        let p = self.producer("linger.ms", "2000");
        for payload in payloads {
            p.send(BaseRecord::<(), _>::to(topic).partition(0).payload(payload))
                .map_err(|(e, _)| e)
                .unwrap();
        }
        p.flush(Duration::from_secs(30)).unwrap();
    }

    /// Commits `offset` for `group` on `topic`'s `partition`, as a consumer
    /// outside the group can (an operator resetting offsets).
    pub fn commit(&self, group: &str, topic: &str, partition: i32, offset: i64) {
        use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
        let c: BaseConsumer = rdkafka::ClientConfig::new()
            .set("bootstrap.servers", self.brokers())
            .set("group.id", group)
            .set("enable.auto.commit", "false")
            .create()
            .unwrap();
        let mut tpl = rdkafka::TopicPartitionList::new();
        tpl.add_partition_offset(topic, partition, rdkafka::Offset::Offset(offset))
            .unwrap();
        c.commit(&tpl, CommitMode::Sync).unwrap();
    }

    /// Messages of `topic` past `group`'s committed offsets (all of them in
    /// a partition the group never committed): 0 once the group has
    /// committed every page of the topic. The agent's own watchdog measure.
    pub fn committed_lag(&self, group: &str, topic: &str) -> u64 {
        let c: rdkafka::consumer::BaseConsumer = rdkafka::ClientConfig::new()
            .set("bootstrap.servers", self.brokers())
            .set("group.id", group)
            .set("enable.auto.commit", "false")
            .create()
            .unwrap();
        crawlsieve_daemon::agent::sources::kafka::group_lag(&c, topic)
            .map_or(u64::MAX, |b| b.waiting)
    }

    /// (key, verdict id) of every message of `topic`, read until `want` arrived or a timeout.
    pub fn consume(&self, topic: &str, want: usize) -> Vec<(String, String)> {
        self.consume_until(topic, |out| out.len() >= want)
    }

    /// Every message of `topic` until `want` distinct verdict ids arrived (or
    /// a timeout), then 2 s more for late duplicates.
    pub fn consume_distinct(&self, topic: &str, want: usize) -> Vec<(String, String)> {
        let mut seen = std::collections::HashSet::new();
        let mut complete: Option<Instant> = None;
        self.consume_until(topic, |out| {
            if let Some((_, id)) = out.last() {
                seen.insert(id.clone());
            }
            if seen.len() >= want && complete.is_none() {
                complete = Some(Instant::now());
            }
            complete.is_some_and(|t| t.elapsed() > Duration::from_secs(2))
        })
    }

    fn consume_until(
        &self,
        topic: &str,
        mut done: impl FnMut(&[(String, String)]) -> bool,
    ) -> Vec<(String, String)> {
        use rdkafka::consumer::{BaseConsumer, Consumer};
        use rdkafka::Message;
        let c: BaseConsumer = rdkafka::ClientConfig::new()
            .set("bootstrap.servers", self.brokers())
            .set("group.id", format!("test-{}", free_port()))
            .set("auto.offset.reset", "earliest")
            .set("session.timeout.ms", "6000")
            .create()
            .unwrap();
        c.subscribe(&[topic]).unwrap();
        let mut out = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(60);
        while !done(&out) && Instant::now() < deadline {
            if let Some(Ok(m)) = c.poll(Duration::from_millis(200)) {
                let v: serde_json::Value = serde_json::from_slice(m.payload().unwrap()).unwrap();
                if v["type"] != "site_flag" {
                    let key = String::from_utf8_lossy(m.key().unwrap_or_default()).to_string();
                    out.push((key, v["id"].as_str().unwrap().to_string()));
                }
            }
        }
        out
    }
}

impl Drop for Tansu {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits until `want` distinct verdict ids are in the file (or 60 s pass);
/// returns how many distinct ids there are. For tests where a broker may
/// deliver a page again (at least once): a JetStream server that is
/// SIGKILLed loses the acknowledgements it had not yet written, and
/// redelivers those pages after its restart.
pub fn wait_for_distinct(dir: &Path, want: usize) -> usize {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let distinct = jsonl_ids(dir)
            .into_iter()
            .collect::<std::collections::HashSet<_>>()
            .len();
        if distinct >= want || Instant::now() > deadline {
            return distinct;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

pub fn wait_for_lines(dir: &Path, want: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let ids = jsonl_ids(dir);
        if ids.len() >= want || Instant::now() > deadline {
            return ids;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Polls `done` until it holds; fails the test after `secs` seconds, naming `what`.
pub fn wait_until(what: &str, secs: u64, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}
