//! Streaming discovery on Kafka with real processes on loopback: a real
//! Kafka-protocol broker (tansu), discoverers in a consumer group, agents'
//! batches published to the count topic (`labels send-counts`, the agent's
//! own Kafka shipping), and the hub publishing from the announcements.
//!
//! The set the hub publishes must be exactly what `labels merge` + `labels
//! discover` find over the same batches — across a discoverer joining under
//! load (a rebalance), a discoverer SIGKILLed mid-stream and started again,
//! batches sent twice, and the hub down meanwhile.

use crate::common;
use crate::daemon;
use crate::rogue;

use common::{bin, keygen, shared_data, start_hub_with, Hub};
use daemon::{free_port, http, wait_until, Tansu};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

const SET: &str = "crawl";
/// 72 batches, each of the 4 files 18 times: a chunk once in one file is
/// seen 18 times, one seen twice 36; the threshold lies between.
const THRESHOLD: u64 = 27;

struct Discoverer {
    child: Child,
}

impl Discoverer {
    fn start(dir: &Path, brokers: &str, name: &str) -> Discoverer {
        Self::start_at(dir, brokers, name, THRESHOLD)
    }

    fn start_at(dir: &Path, brokers: &str, name: &str, threshold: u64) -> Discoverer {
        Self::start_with(dir, brokers, name, threshold, &[])
    }

    fn start_with(
        dir: &Path,
        brokers: &str,
        name: &str,
        threshold: u64,
        extra: &[&str],
    ) -> Discoverer {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(format!("{name}.log")))
            .unwrap();
        let child = bin()
            .args(["discoverer", "--brokers", brokers, "--set", SET])
            .args(["--threshold", &threshold.to_string()])
            .args([
                "--partitions",
                "4",
                "--state-parts",
                "3",
                "--checkpoint-every",
                "1",
            ])
            .args(extra)
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        Discoverer { child }
    }

    fn sigkill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn terminate(&mut self) -> std::process::ExitStatus {
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        self.child.wait().unwrap()
    }
}

impl Drop for Discoverer {
    fn drop(&mut self) {
        self.sigkill();
    }
}

fn log(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(format!("{name}.log"))).unwrap_or_default()
}

/// `labels count` of each input file on its own: one agent batch each.
fn count_files(dir: &Path, inputs: &[PathBuf]) -> Vec<PathBuf> {
    inputs
        .iter()
        .enumerate()
        .map(|(i, input)| {
            let out = dir.join(format!("file{i}.cscounts"));
            let o = bin()
                .args(["labels", "count", "-o"])
                .arg(&out)
                .arg(input)
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            out
        })
        .collect()
}

/// Agent `agent`'s batches 1.., in the background.
fn send(brokers: &str, agent: &str, files: &[PathBuf]) -> Child {
    send_with(brokers, agent, &[], files)
}

/// `send`, with more flags (`--signing-key`, `--first-batch`).
fn send_with(brokers: &str, agent: &str, extra: &[&str], files: &[PathBuf]) -> Child {
    bin()
        .args([
            "labels",
            "send-counts",
            "--kafka",
            brokers,
            "--set",
            SET,
            "--agent",
            agent,
        ])
        .args(extra)
        .args(files)
        .stdout(Stdio::null())
        .spawn()
        .unwrap()
}

fn sent(mut c: Child) {
    assert!(c.wait().unwrap().success(), "send-counts failed");
}

fn hub(dir: &Path, key: &Path, port: u16, brokers: &str) -> Hub {
    hub_at(dir, key, port, brokers, THRESHOLD)
}

fn hub_at(dir: &Path, key: &Path, port: u16, brokers: &str, threshold: u64) -> Hub {
    std::fs::write(dir.join("publish.token"), "publish-token-for-tests").unwrap();
    let listen = format!("127.0.0.1:{port}");
    let blind = format!("{SET}={threshold}");
    start_hub_with(
        dir,
        key,
        &dir.join("publish.token"),
        &[
            "--listen",
            &listen,
            "--blind",
            &blind,
            "--discover-every",
            "1",
            "--discovered-from",
            brokers,
        ],
    )
}

/// What one machine finds: `labels discover` at `threshold` over a count file.
fn offline_keys(dir: &Path, key: &Path, counts: &Path, threshold: u64) -> Vec<u64> {
    let offline = dir.join("offline.cslab");
    let o = bin()
        .args(["labels", "discover", "--threshold", &threshold.to_string()])
        .args(["--name", SET, "--key"])
        .arg(key)
        .arg("-o")
        .arg(&offline)
        .arg(counts)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    keys(&std::fs::read(&offline).unwrap())
}

/// What one machine finds over pages posted: `labels count` + `labels discover`.
fn offline_set(dir: &Path, key: &Path, posted: &[(String, String)], threshold: u64) -> Vec<u64> {
    let jsonl = dir.join("posted.jsonl");
    let lines: Vec<String> = posted
        .iter()
        .map(|(url, html)| serde_json::json!({"url": url, "html": html}).to_string())
        .collect();
    std::fs::write(&jsonl, lines.join("\n") + "\n").unwrap();
    let counts = dir.join("posted.cscounts");
    let o = bin()
        .args(["labels", "count", "-o"])
        .arg(&counts)
        .arg(&jsonl)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let expected = offline_keys(dir, key, &counts, threshold);
    assert!(!expected.is_empty());
    expected
}

/// The keys of a labeled-set file.
fn keys(bytes: &[u8]) -> Vec<u64> {
    crawlsieve_core::labels::file::SetFile::parse(bytes)
        .unwrap()
        .contents()
        .keys
}

/// A key pair `dir/AGENT.key` for each agent, and the discoverer's
/// `--agent-keys-file` listing their public halves.
fn agent_keys(dir: &Path, agents: &[&str]) -> PathBuf {
    let mut lines = String::from("# agent public key\n");
    for a in agents {
        let k = dir.join(format!("{a}.key"));
        common::ok(
            bin()
                .args(["labels", "keygen", "-o"])
                .arg(&k)
                .output()
                .unwrap(),
        );
        let public = std::fs::read_to_string(dir.join(format!("{a}.key.pub"))).unwrap();
        lines.push_str(&format!("{a} {}\n", public.trim()));
    }
    let file = dir.join("agents.keys");
    std::fs::write(&file, lines).unwrap();
    file
}

/// The hub's latest version and its keys.
fn published(addr: &str) -> Option<(u64, Vec<u64>)> {
    let (status, body) = http(addr, "GET", &format!("/v1/sets/{SET}"), &[], b"").ok()?;
    if status != 200 {
        return None;
    }
    let info: Value = serde_json::from_slice(&body).ok()?;
    let (status, file) = http(addr, "GET", &format!("/v1/sets/{SET}/full"), &[], b"").ok()?;
    (status == 200).then(|| (info["version"].as_u64().unwrap_or(0), keys(&file)))
}

#[test]
fn discoverers_find_exactly_what_one_machine_does_across_a_rebalance_a_kill_and_a_hub_restart() {
    let Some(data) = shared_data() else { return };
    let Some(mut tansu) = Tansu::start(&[]) else {
        return;
    };
    let brokers = tansu.brokers();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let warc = data.join("warc");
    let inputs = [
        warc.join("dolma-samples/sample-0000.warc.gz"),
        warc.join("dolma-samples/sample-0001.warc.gz"),
        warc.join(
            "resiliparse-cc-2020-34/CC-MAIN-20200808165417-20200808195417-00395.excerpt.warc.gz",
        ),
        common::repo().join("examples/crawl.warc.gz"),
    ];
    let files = count_files(dir, &inputs);
    // Each agent's 12 batches cycle through the 4 files.
    let batches: Vec<PathBuf> = (0..12).map(|i| files[i % 4].clone()).collect();

    // What one machine finds over the same 72 batches.
    let merged = dir.join("all.cscounts");
    let all: Vec<&PathBuf> = (0..6).flat_map(|_| batches.iter()).collect();
    let o = bin()
        .args(["labels", "merge", "-o"])
        .arg(&merged)
        .args(&all)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (key, _public) = keygen(dir);
    let expected = offline_keys(dir, &key, &merged, THRESHOLD);
    assert!(expected.len() > 100, "{} keys", expected.len());

    let mut d1 = Discoverer::start(dir, &brokers, "d1");
    wait_until("d1 owns the partitions", 60, || {
        log(dir, "d1").contains("adopted")
    });
    let port = free_port();
    let mut hub_process = hub(dir, &key, port, &brokers);
    let addr = hub_process.addr.clone();

    // Two agents; then a second discoverer joins while two more send.
    let (a0, a1) = (
        send(&brokers, "a0", &batches),
        send(&brokers, "a1", &batches),
    );
    sent(a0);
    sent(a1);
    let _d2 = Discoverer::start(dir, &brokers, "d2");
    std::thread::sleep(Duration::from_millis(500));
    let (a2, a3) = (
        send(&brokers, "a2", &batches),
        send(&brokers, "a3", &batches),
    );
    sent(a2);
    sent(a3);
    wait_until("d2 took partitions", 60, || {
        log(dir, "d2").contains("adopted")
    });

    // The hub goes down; d1 is killed mid-stream; agents keep sending.
    drop(hub_process);
    let a4 = send(&brokers, "a4", &batches);
    std::thread::sleep(Duration::from_millis(300));
    d1.sigkill();
    sent(a4);
    sent(send(&brokers, "a5", &batches));
    // Four agents' batches again (a retry after a lost acknowledgement):
    // counted twice, a chunk once in its file would cross (18 + 12 > 27).
    let again: Vec<Child> = ["a0", "a1", "a2", "a3"]
        .iter()
        .map(|a| send(&brokers, a, &batches))
        .collect();
    again.into_iter().for_each(sent);
    let mut d1 = Discoverer::start(dir, &brokers, "d1");
    hub_process = hub(dir, &key, port, &brokers);

    let exact = || published(&addr).is_some_and(|(_, k)| k == expected);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        wait_until("the hub publishes exactly the offline set", 120, exact)
    }));
    if outcome.is_err() {
        let got = published(&addr).map(|(v, k)| (v, k.len()));
        panic!(
            "hub has {got:?}, offline {} keys\nd1:\n{}\nd2:\n{}",
            expected.len(),
            log(dir, "d1"),
            log(dir, "d2")
        );
    }
    // And stays there: nothing announced later changes it.
    let (version, _) = published(&addr).unwrap();
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(published(&addr).unwrap(), (version, expected.clone()));

    // A graceful stop checkpoints and leaves; nothing was refused.
    assert!(d1.terminate().success());
    for name in ["d1", "d2"] {
        let text = log(dir, name);
        assert!(!text.contains("slice of counts refused"), "{name}:\n{text}");
    }
    drop(hub_process);
    tansu.kill();
}

/// The loop on Kafka with the real agent: it judges pages, publishes its
/// counts to the count topic, a discoverer announces, the hub publishes,
/// and the agent, following the set, flags the next copy.
#[test]
fn an_agent_counting_into_kafka_closes_the_loop() {
    let Some(tansu) = Tansu::start(&[]) else {
        return;
    };
    let brokers = tansu.brokers();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (key, public) = keygen(dir);
    // The agent signs its slices; the discoverer takes only its key's.
    let keys_file = agent_keys(dir, &["crawler-1"]);
    let agent_key = dir.join("crawler-1.key");
    let _d = Discoverer::start_with(
        dir,
        &brokers,
        "d",
        2,
        &["--agent-keys-file", keys_file.to_str().unwrap()],
    );
    wait_until("the discoverer owns the partitions", 60, || {
        log(dir, "d").contains("adopted")
    });
    let port = free_port();
    let hub = hub_at(dir, &key, port, &brokers, 2);
    let home = dir.join("agent");
    std::fs::create_dir_all(&home).unwrap();
    let path = daemon::config(&home, None, "trusted_sources = [\"http\"]");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!(
        "[agent.counts]\nset = \"{SET}\"\nkafka = \"{brokers}\"\ndir = {:?}\ninterval_seconds = 1\n\
         agent_id = \"crawler-1\"\nsigning_key_file = {agent_key:?}\n\
         [labels]\npublic_key_file = {public:?}\n[labels.hub]\nurl = \"http://{}\"\nsets = [\"{SET}\"]\n\
         cache_dir = {:?}\nwait_seconds = 2\nstart_timeout_seconds = 10\n",
        home.join("counts"),
        hub.addr,
        home.join("cache"),
    ));
    std::fs::write(&path, text).unwrap();
    let agent = daemon::Agent::start(&path);

    // Eight real pages, each on three sites: every chunk seen 3 times (> 2).
    let pages = daemon::real_pages(9);
    let mut posted = Vec::new();
    for (i, html) in pages[..8].iter().enumerate() {
        for site in 0..3 {
            let url = format!("http://copier{site}-{i}.example/p");
            daemon::judge(&agent, &url, html);
            posted.push((url, html.clone()));
        }
    }
    let expected = offline_set(dir, &key, &posted, 2);
    wait_until("the hub publishes what one machine finds", 90, || {
        published(&hub.addr).is_some_and(|(_, k)| k == expected)
    });
    let (version, _) = published(&hub.addr).unwrap();
    wait_until("the agent on the discovered set", 60, || {
        agent.metric(&format!("crawlsieve_labeled_set_version{{set=\"{SET}\"}}")) >= version as f64
    });
    let late = daemon::judge(&agent, "http://late-copier.example/p", &pages[3]);
    assert_eq!(late["verdict"], "flag", "{late}");
    let fresh = daemon::judge(&agent, "http://own.example/p", &pages[8]);
    assert_ne!(fresh["verdict"], "flag", "{fresh}");
    assert!(agent.metric("crawlsieve_counts_batches_total{outcome=\"shipped\"}") >= 1.0);
    assert!(
        log(dir, "d").contains("refused=0"),
        "every signed slice taken"
    );
}

/// A small tmpfs mounted for the test, unmounted on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(dir).unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("SKIP: cannot mount a tmpfs here (not root?)");
        }
        ok.then(|| Tmpfs(dir.to_path_buf()))
    }

    /// Fills the file system with one file (removed to free it).
    fn fill(&self) -> PathBuf {
        use std::io::Write;
        let path = self.0.join("filler");
        let mut f = std::fs::File::create(&path).unwrap();
        let block = vec![0u8; 4096];
        while f.write_all(&block).is_ok() {}
        let _ = f.sync_all();
        path
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
    }
}

/// A full disk under the agent's counts: counting holds (a clear log line,
/// `crawlsieve_counts_held` at 1) and drops nothing; once there is room
/// the batches are cut and shipped, and the set the discoverer and the hub
/// find is what one machine finds over every page posted.
#[test]
fn a_full_disk_under_the_counts_holds_and_loses_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let home = dir.join("agent");
    let Some(disk) = Tmpfs::mount(&home.join("counts"), "4m") else {
        return;
    };
    let Some(tansu) = Tansu::start(&[]) else {
        return;
    };
    let brokers = tansu.brokers();
    let (key, _) = keygen(dir);
    let _d = Discoverer::start_at(dir, &brokers, "d", 2);
    wait_until("the discoverer owns the partitions", 60, || {
        log(dir, "d").contains("adopted")
    });
    let hub = hub_at(dir, &key, free_port(), &brokers, 2);
    let path = daemon::config(&home, None, "trusted_sources = [\"http\"]");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!(
        "[agent.counts]\nset = \"{SET}\"\nkafka = \"{brokers}\"\ndir = {:?}\ninterval_seconds = 1\n",
        home.join("counts"),
    ));
    std::fs::write(&path, text).unwrap();
    let agent = daemon::Agent::start(&path);

    let filler = disk.fill();
    let pages = daemon::real_pages(6);
    let mut posted = Vec::new();
    for (i, html) in pages.iter().enumerate() {
        for site in 0..3 {
            let url = format!("http://copier{site}-{i}.example/p");
            daemon::judge(&agent, &url, html);
            posted.push((url, html.clone()));
        }
    }
    wait_until("counting held on the full disk", 30, || {
        agent.metric("crawlsieve_counts_held") == 1.0
    });
    assert_eq!(
        agent.metric("crawlsieve_counts_batches_total{outcome=\"lost\"}"),
        0.0
    );
    std::fs::remove_file(filler).unwrap();
    let state = || {
        (
            agent.metric("crawlsieve_counts_held"),
            agent.metric("crawlsieve_counts_batches_total{outcome=\"shipped\"}"),
            agent.metric("crawlsieve_counts_outbox"),
        )
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        wait_until("counting goes on once there is room", 60, || {
            let (held, shipped, outbox) = state();
            held == 0.0 && shipped >= 1.0 && outbox == 0.0
        })
    }));
    assert!(outcome.is_ok(), "held, shipped, outbox: {:?}", state());

    let expected = offline_set(dir, &key, &posted, 2);
    assert!(!expected.is_empty());
    wait_until("the hub publishes exactly the offline set", 90, || {
        published(&hub.addr).is_some_and(|(_, k)| k == expected)
    });
}

/// The hub's one-agent bound, on Kafka: each agent signs its slices, the
/// discoverer takes a slice only with its agent's signature and adds no
/// more than `--agent-cap` of any one agent to a key. The rogue's
/// fabricated counts (every ordinary page "seen" on twenty sites), sent
/// under its own id, under an honest agent's id and under an unknown one,
/// flag no ordinary page; the set is exactly what a capped hub discovers
/// from the same counts over HTTP; the real copy is still flagged.
#[test]
fn one_signed_agent_cannot_push_ordinary_text_over_the_threshold_on_kafka() {
    let Some(tansu) = Tansu::start(&[]) else {
        return;
    };
    let brokers = tansu.brokers();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (key, public) = keygen(dir);
    let agents = ["honest0", "honest1", "honest2", "rogue"];
    let keys_file = agent_keys(dir, &agents);
    // Its /metrics behind a token.
    let metrics_token = dir.join("metrics.token");
    std::fs::write(&metrics_token, "metrics-token-for-tests").unwrap();
    let metrics_addr = format!("127.0.0.1:{}", free_port());
    let _d = Discoverer::start_with(
        dir,
        &brokers,
        "d",
        4,
        &[
            "--agent-cap",
            "2",
            "--agent-keys-file",
            keys_file.to_str().unwrap(),
            "--listen",
            &metrics_addr,
            "--metrics-token-file",
            metrics_token.to_str().unwrap(),
        ],
    );
    wait_until("the discoverer owns the partitions", 60, || {
        log(dir, "d").contains("adopted")
    });
    let kafka_hub = hub_at(dir, &key, free_port(), &brokers, 4);

    let pages = daemon::real_pages(13);
    let copied = &pages[0];
    let ordinary = rogue::ordinary(&pages);
    let batches = rogue::honest_and_rogue(dir, copied, &ordinary);
    let file = |a: &str| dir.join(format!("{a}.cscounts"));
    let signed_by = |a: &str| dir.join(format!("{a}.key")).to_str().unwrap().to_string();
    // Forgeries: under an honest id with the rogue's key, and under an id with no key.
    let rogue_key = signed_by("rogue");
    sent(send_with(
        &brokers,
        "honest0",
        &["--signing-key", &rogue_key, "--first-batch", "2"],
        &[file("rogue")],
    ));
    sent(send(&brokers, "mallory", &[file("rogue")]));
    for (a, _) in &batches {
        sent(send_with(
            &brokers,
            a,
            &["--signing-key", &signed_by(a)],
            &[file(a)],
        ));
    }

    // The same counts at a hub with the same cap, over HTTP, per-agent tokens.
    let home = dir.join("http-hub");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("publish.token"), "publish-token-for-tests").unwrap();
    let tokens: String = agents
        .iter()
        .map(|a| format!("{a} token-of-{a}\n"))
        .collect();
    std::fs::write(home.join("agents.tokens"), tokens).unwrap();
    let tokens_file = home.join("agents.tokens");
    let http_hub = start_hub_with(
        &home,
        &key,
        &home.join("publish.token"),
        &[
            "--blind",
            "crawl=4",
            "--discover-every",
            "0",
            "--agent-cap",
            "2",
            "--agent-tokens-file",
            tokens_file.to_str().unwrap(),
        ],
    );
    for (a, body) in &batches {
        let auth = format!("Bearer token-of-{a}");
        let (status, _) = http(
            &http_hub.addr,
            "POST",
            "/v1/counts/crawl",
            &[
                ("Authorization", &auth),
                ("X-Crawlsieve-Agent", a),
                ("X-Crawlsieve-Batch", "1"),
            ],
            body,
        )
        .unwrap();
        assert_eq!(status, 201);
    }
    let auth = "Bearer publish-token-for-tests";
    let (status, _) = http(
        &http_hub.addr,
        "POST",
        "/v1/sets/crawl/discover",
        &[("Authorization", auth)],
        b"",
    )
    .unwrap();
    assert_eq!(status, 200);
    let (_, expected) = published(&http_hub.addr).expect("the capped hub published");
    assert!(!expected.is_empty());

    let metrics = || {
        let auth = "Bearer metrics-token-for-tests";
        let (status, body) = http(
            &metrics_addr,
            "GET",
            "/metrics",
            &[("Authorization", auth)],
            b"",
        )
        .unwrap();
        assert_eq!(status, 200);
        String::from_utf8(body).unwrap()
    };
    wait_until("the discoverer took 16 slices and refused 8", 60, || {
        let m = metrics();
        m.contains("crawlsieve_discoverer_slices_total 16\n")
            && m.contains("crawlsieve_discoverer_refused_slices_total 8\n")
            && m.contains("crawlsieve_discoverer_unsigned_slices_total 8\n")
    });
    let m = metrics();
    assert!(m.contains("crawlsieve_discoverer_partitions 4\n"), "{m}");
    assert!(m.contains("crawlsieve_discoverer_lag "), "{m}");
    assert!(!m.contains("crawlsieve_discoverer_keys 0\n"), "{m}");
    assert_eq!(
        http(&metrics_addr, "GET", "/metrics", &[], b"").unwrap().0,
        401
    );
    assert_eq!(
        http(&metrics_addr, "GET", "/healthz", &[], b"").unwrap().0,
        200
    );
    wait_until(
        "the Kafka hub publishes what the capped hub does",
        90,
        || published(&kafka_hub.addr).is_some_and(|(_, k)| k == expected),
    );
    let (status, set) = http(
        &kafka_hub.addr,
        "GET",
        &format!("/v1/sets/{SET}/full"),
        &[],
        b"",
    )
    .unwrap();
    assert_eq!(status, 200);
    let set_file = dir.join("kafka.cslab");
    std::fs::write(&set_file, set).unwrap();
    let mut judged_pages = ordinary.clone();
    judged_pages.push(("http://late-copier.example/p".to_string(), copied));
    let verdicts = rogue::scan(dir, &public, &set_file, &judged_pages);
    assert_eq!(
        rogue::ordinary_flagged(&verdicts),
        0,
        "no ordinary page flagged"
    );
    assert_eq!(verdicts[12]["verdict"], "flag", "the real copy still found");
    let l = log(dir, "d");
    assert!(
        l.contains("agent `honest0`: the slice's signature is not its agent's"),
        "{l}"
    );
    assert!(
        l.contains("agent `mallory` is not in --agent-keys-file"),
        "{l}"
    );
}
