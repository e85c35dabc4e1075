//! Crashes, not shutdowns: the agent killed with SIGKILL while it spools
//! verdicts for a broker that is down and again while it replays them, and a
//! chaos run — brokers killed and restarted at random under real pages from
//! queue sources, the agent killed once. The check is always by verdict id
//! downstream: none missing, duplicates only where the README says they can
//! happen (Kafka), counted.

use crate::daemon;

use daemon::*;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// An agent config on a fixed port (it keeps its address across restarts)
/// with `sources` and `sinks` (TOML tables), spooling to `dir/spool`.
fn config_on(dir: &Path, port: u16, sources: &str, sinks: &str) -> std::path::PathBuf {
    let text = format!(
        "workers = 2\n[neighborhoods]\nenabled = false\n[agent]\nlisten = \"127.0.0.1:{port}\"\n{sources}\n{sinks}\n[agent.spool]\ndir = {:?}\n",
        dir.join("spool")
    );
    let path = dir.join("agent.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn nats_sink(nats: &Nats) -> String {
    format!(
        "[[agent.sinks]]\nkind = \"nats\"\nurl = \"{}\"\nstream = \"VERDICTS\"\nsubject = \"crawl.verdicts\"\nack_timeout_ms = 300\nduplicate_window_seconds = 900\n",
        nats.url()
    )
}

/// Pages small enough for a broker message (NATS and Kafka refuse 1 MB by default).
fn small_pages(n: usize) -> Vec<String> {
    real_pages(n * 2)
        .into_iter()
        .filter(|p| p.len() < 200_000)
        .take(n)
        .collect()
}

/// Posts pages from `threads` threads until `stop`, each page until it is
/// acknowledged (a crawler re-sends what got no answer, also across an
/// agent that died). Returns the acknowledged ids.
fn crawler(
    addr: String,
    pages: Vec<String>,
    threads: usize,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<Vec<String>> {
    std::thread::spawn(move || {
        let acked = Arc::new(Mutex::new(Vec::new()));
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let (addr, pages, stop, acked) =
                    (addr.clone(), pages.clone(), stop.clone(), acked.clone());
                std::thread::spawn(move || {
                    let refused = Mutex::new(0);
                    let mut i = t;
                    while !stop.load(Ordering::Relaxed) {
                        let url = format!("http://site{}.example/kill/{i}", i % 9);
                        match post_until_taken(&addr, &url, &pages[i % pages.len()], &refused) {
                            Some(id) => {
                                acked.lock().unwrap().push(id);
                                i += threads;
                            }
                            // The agent is down: send the same page again later.
                            None => std::thread::sleep(Duration::from_millis(50)),
                        }
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        let v = acked.lock().unwrap().clone();
        v
    })
}

/// The sources' `stall_after_ms` for a test: `STALL_AFTER_MS` when set (a
/// large value turns the watchdog off, to see what happens without it).
fn stall_after_ms(default: &str) -> String {
    std::env::var("STALL_AFTER_MS").unwrap_or_else(|_| default.into())
}

fn kill9(agent: Agent) {
    // `Child::kill` is SIGKILL: no shutdown code runs.
    drop(agent);
}

#[test]
fn sigkill_while_spooling_and_while_replaying_loses_no_acknowledged_page() {
    let dir = tempfile::tempdir().unwrap();
    let mut nats = Nats::start(&dir.path().join("nats")).unwrap();
    let port = free_port();
    let path = config_on(
        dir.path(),
        port,
        "[[agent.sources]]\nkind = \"http\"\n",
        &nats_sink(&nats),
    );
    let addr = format!("127.0.0.1:{port}");
    let depth = |a: &Agent| a.metric("crawlsieve_spool_depth");

    let agent = Agent::start(&path);
    let stop = Arc::new(AtomicBool::new(false));
    let poster = crawler(addr.clone(), small_pages(30), 4, stop.clone());
    wait_until("verdicts in the stream", 60, || {
        nats.child.is_some()
            && depth(&agent) == 0.0
            && agent.metric("crawlsieve_pages_in_total") >= 30.0
    });
    // The broker goes away: verdicts are spooled (and fsync'd) before their pages are acknowledged.
    nats.kill();
    wait_until("a spool of 200", 120, || depth(&agent) >= 200.0);
    let spooling = depth(&agent);
    kill9(agent);

    // Restarted with the broker still down: the spool is reopened (a line cut
    // short by the kill is dropped: its page was never acknowledged) and grows.
    let agent = Agent::start(&path);
    let reopened = depth(&agent);
    wait_until("a spool of 600", 180, || depth(&agent) >= 600.0);
    stop.store(true, Ordering::Relaxed);
    let acked = poster.join().unwrap();
    let full = depth(&agent);

    // The broker is back: the spool replays; killed again in the middle of it.
    nats.restart().unwrap();
    wait_until("the replay to start", 60, || depth(&agent) < full);
    let replaying = depth(&agent);
    kill9(agent);
    assert!(replaying > 0.0, "killed before the replay ended");

    let agent = Agent::start(&path);
    wait_until("the spool to drain", 120, || depth(&agent) == 0.0);
    let in_stream = nats.ids("VERDICTS");
    let distinct: HashSet<&String> = in_stream.iter().collect();
    let acked_set: HashSet<&String> = acked.iter().collect();
    let missing = acked_set.difference(&distinct).count();
    eprintln!(
        "SIGKILL: {} pages acknowledged; killed with {spooling} spooled, reopened with {reopened}, \
         {full} before the replay, killed at {replaying} left; stream holds {} messages, {} distinct, {missing} acknowledged missing",
        acked.len(),
        in_stream.len(),
        distinct.len()
    );
    assert_eq!(
        missing, 0,
        "every acknowledged page has its verdict in the stream"
    );
    assert_eq!(in_stream.len(), distinct.len(), "and exactly once");
    assert_eq!(
        distinct, acked_set,
        "nothing the crawler was not told about"
    );
}

/// A small xorshift: the chaos schedule is random, its seed printed so a
/// failing run can be replayed (`CHAOS_SEED`).
struct Dice(u64);

impl Dice {
    fn new() -> Dice {
        let seed = std::env::var("CHAOS_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64
                    | 1
            });
        eprintln!("chaos seed {seed} (CHAOS_SEED={seed} replays this schedule)");
        Dice(seed)
    }

    fn millis(&mut self, range: std::ops::Range<u64>) -> Duration {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        Duration::from_millis(range.start + self.0 % (range.end - range.start))
    }

    fn coin(&mut self) -> bool {
        self.millis(0..2) == Duration::ZERO
    }
}

/// `n` real pages, half published to a NATS JetStream subject and half to a
/// Kafka topic; the agent reads both and writes every verdict to a NATS stream
/// and a Kafka topic, while `cycles` times a broker (at random) is killed and
/// restarted after a random pause, and the agent is killed (SIGKILL) once.
fn chaos(n: usize, cycles: usize) {
    let dir = tempfile::tempdir().unwrap();
    let nats = Arc::new(Mutex::new(Nats::start(&dir.path().join("nats")).unwrap()));
    let kafka = Arc::new(Mutex::new(
        Tansu::start_on_disk(dir.path(), &["pages", "verdicts"]).unwrap(),
    ));
    let (nats_url, brokers) = (nats.lock().unwrap().url(), kafka.lock().unwrap().brokers());
    let pages = small_pages(200);
    let url = |i: usize| format!("http://site{}.example/chaos/{i}", i % 23);
    let envelope =
        |i: usize| serde_json::json!({"url": url(i), "html": pages[i % pages.len()]}).to_string();
    let expected: HashSet<String> = (0..n)
        .map(|i| crawlsieve_core::input::site::page_id(&url(i), pages[i % pages.len()].as_bytes()))
        .collect();
    assert_eq!(expected.len(), n);

    // The crawler's side: every page is in a broker before the chaos starts.
    nats.lock().unwrap().publish_pages(
        "crawl.pages",
        (0..n).step_by(2).map(|i| envelope(i).into_bytes()),
    );
    kafka.lock().unwrap().produce(
        "pages",
        &(1..n).step_by(2).map(envelope).collect::<Vec<_>>(),
    );

    // The sources' watchdog (README): short here, so a stalled consumer costs seconds.
    let stall_ms = stall_after_ms("3000");
    let sources = format!(
        "[[agent.sources]]\nkind = \"nats\"\nurl = \"{nats_url}\"\nstream = \"PAGES\"\nsubject = \"crawl.pages\"\nstall_after_ms = {stall_ms}\n\
         [[agent.sources]]\nkind = \"kafka\"\nbrokers = \"{brokers}\"\ntopic = \"pages\"\ngroup = \"chaos\"\n\
         stall_after_ms = {stall_ms}\n"
    );
    let sinks = format!(
        "{}[[agent.sinks]]\nkind = \"kafka\"\nbrokers = \"{brokers}\"\ntopic = \"verdicts\"\nack_timeout_ms = 1000\nidempotent = false\n",
        nats_sink(&nats.lock().unwrap())
    );
    let path = config_on(dir.path(), free_port(), &sources, &sinks);
    let started = Instant::now();
    let mut agent = Agent::start(&path);
    let mut peak_rss_kb = 0;
    let mut dice = Dice::new();
    let agent_dies_at = cycles / 2;
    let mut log = Vec::new();
    for cycle in 0..cycles {
        std::thread::sleep(dice.millis(1000..4000));
        if cycle == agent_dies_at {
            peak_rss_kb = peak_rss_kb.max(agent.rss_peak_kb());
            kill9(agent);
            log.push(format!(
                "{:.1}s agent SIGKILL",
                started.elapsed().as_secs_f64()
            ));
            std::thread::sleep(dice.millis(200..1500));
            agent = Agent::start(&path);
            continue;
        }
        let down = dice.millis(500..3000);
        let t = started.elapsed().as_secs_f64();
        if dice.coin() {
            nats.lock().unwrap().kill();
            std::thread::sleep(down);
            nats.lock().unwrap().restart().unwrap();
            log.push(format!("{t:.1}s NATS down {down:?}"));
        } else {
            kafka.lock().unwrap().kill();
            std::thread::sleep(down);
            kafka.lock().unwrap().restart();
            log.push(format!("{t:.1}s Kafka down {down:?}"));
        }
    }
    eprintln!("chaos: {}", log.join("; "));

    // Brokers up, agent up: everything arrives in the end.
    let deadline = Instant::now() + Duration::from_secs(600);
    let nats_ids = loop {
        let ids = nats.lock().unwrap().ids("VERDICTS");
        let got: HashSet<&String> = ids.iter().collect();
        if got.len() >= n || Instant::now() > deadline {
            break ids;
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    let kafka_ids: Vec<String> = kafka
        .lock()
        .unwrap()
        .consume_distinct("verdicts", n)
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    let secs = started.elapsed().as_secs_f64();
    // Per source since the last start: pages taken, runs restarted and why.
    eprintln!(
        "chaos: {}",
        agent.metric_lines("crawlsieve_source_").join("; ")
    );
    peak_rss_kb = peak_rss_kb.max(agent.rss_peak_kb());
    let mut copies: HashMap<&String, usize> = HashMap::new();
    for id in &kafka_ids {
        *copies.entry(id).or_default() += 1;
    }
    let nats_set: HashSet<String> = nats_ids.iter().cloned().collect();
    let kafka_set: HashSet<String> = kafka_ids.iter().cloned().collect();
    // Which source a missing page came from: even from NATS, odd from Kafka.
    let unjudged = |parity: usize| {
        (parity..n)
            .step_by(2)
            .filter(|&i| {
                let id = crawlsieve_core::input::site::page_id(
                    &url(i),
                    pages[i % pages.len()].as_bytes(),
                );
                !nats_set.contains(&id) && !kafka_set.contains(&id)
            })
            .count()
    };
    eprintln!(
        "chaos: never judged: {} of the NATS source's pages, {} of the Kafka source's",
        unjudged(0),
        unjudged(1)
    );
    eprintln!(
        "chaos: {n} pages in {secs:.0} s; NATS stream {} messages ({} distinct, {} missing), \
         Kafka topic {} messages ({} distinct, {} missing, {} duplicates); agent peak RSS {} MB",
        nats_ids.len(),
        nats_set.len(),
        expected.difference(&nats_set).count(),
        kafka_ids.len(),
        kafka_set.len(),
        expected.difference(&kafka_set).count(),
        kafka_ids.len() - kafka_set.len(),
        peak_rss_kb / 1024
    );
    assert_eq!(
        nats_set, expected,
        "every page has its verdict in the NATS stream"
    );
    assert_eq!(
        nats_ids.len(),
        n,
        "exactly once (de-duplicated by message id)"
    );
    assert_eq!(
        kafka_set, expected,
        "every page has its verdict in the Kafka topic"
    );
    assert!(peak_rss_kb < 400 * 1024, "memory stays bounded");
}

/// In CI. Seed 1795463909623866811 once stalled here (241 of 1,000 pages
/// never judged in 600 s): after the agent's SIGKILL and a broker restart its
/// Kafka consumer received nothing with pages waiting. The sources' watchdog
/// now restarts such a consumer (`crawlsieve_source_restarts_total{why="stalled"}`).
#[test]
fn chaos_brokers_and_the_agent_killed_at_random_nothing_lost() {
    chaos(1_000, 5);
}

/// The long run (README): `cargo test --release --test integration crash:: -- --ignored --nocapture`.
#[test]
#[ignore]
fn chaos_ten_thousand_pages() {
    chaos(10_000, 16);
}

/// The agent starts while its broker is down (after a power cut the agent
/// may come up first): its NATS source and sink wait for the server, and
/// once it is up every page published meanwhile gets its verdict.
#[test]
fn the_agent_starts_before_its_broker() {
    let dir = tempfile::tempdir().unwrap();
    let mut nats = Nats::start(&dir.path().join("nats")).unwrap();
    nats.kill();
    let path = config_with_nats_source(dir.path(), &nats);
    let mut agent = Agent::start(&path);
    std::thread::sleep(Duration::from_secs(3));
    nats.restart().unwrap();
    let pages = small_pages(10);
    nats.publish_pages(
        "crawl.pages",
        (0..40).map(|i| {
            let env = serde_json::json!({"url": format!("http://late{i}.example/"), "html": pages[i % pages.len()]});
            serde_json::to_vec(&env).unwrap()
        }),
    );
    assert_eq!(wait_for_lines(dir.path(), 40).len(), 40);
    // Verdicts spooled while the stream did not exist yet are replayed into it.
    wait_until("the spool to drain", 60, || {
        agent.metric("crawlsieve_spool_depth") == 0.0
    });
    assert!(agent.terminate().success());
    assert_eq!(nats.ids("VERDICTS").len(), 40);
}

/// The NATS server restarts while the agent's consumer is idle (every page
/// so far judged), then the crawler publishes more. A pull consumer's
/// outstanding pull request dies with the server: async-nats issues a new
/// one on reconnect (measured: the pages arrive within a second, no restart
/// by the watchdog); this guards that, whichever of the two does it.
#[test]
fn a_nats_source_survives_its_server_restarting_while_idle() {
    let dir = tempfile::tempdir().unwrap();
    let mut nats = Nats::start(&dir.path().join("nats")).unwrap();
    let path = config_with_nats_source(dir.path(), &nats);
    let stall_ms = stall_after_ms("1000");
    let text = std::fs::read_to_string(&path).unwrap() + &format!("stall_after_ms = {stall_ms}\n");
    std::fs::write(&path, text).unwrap();
    let mut agent = Agent::start(&path);
    let pages = small_pages(10);
    let publish = |nats: &Nats, from: usize| {
        nats.publish_pages(
            "crawl.pages",
            (from..from + 20).map(|i| {
                let env = serde_json::json!({"url": format!("http://idle{i}.example/"), "html": pages[i % pages.len()]});
                serde_json::to_vec(&env).unwrap()
            }),
        )
    };
    publish(&nats, 0);
    assert_eq!(wait_for_lines(dir.path(), 20).len(), 20);
    nats.kill();
    std::thread::sleep(Duration::from_millis(500));
    nats.restart().unwrap();
    let restarted = Instant::now();
    publish(&nats, 20);
    // Distinct ids: the killed server may not have written every ack of the
    // first 20 pages, and redelivers those (at least once, as the README
    // says); what must hold is that every page published after it is judged.
    let got = wait_for_distinct(dir.path(), 40);
    eprintln!(
        "after the restart: {} of 20 pages in {:.1} s ({} verdict lines in all); {}",
        got - 20,
        restarted.elapsed().as_secs_f64(),
        jsonl_ids(dir.path()).len(),
        agent.metric_lines("crawlsieve_source_").join("; ")
    );
    assert_eq!(got, 40, "every page published after the restart is judged");
    assert!(agent.terminate().success());
}

/// Part of the sequence of the chaos run that once stalled, on Kafka alone:
/// the agent is SIGKILLed mid-topic (its group member dies without leaving),
/// starts again at once, and then the broker restarts. Every page, those
/// produced before and after, gets a verdict (duplicates allowed: pages after
/// the last committed offset are read again after a SIGKILL). On its own this
/// sequence has not stalled (nor needed the watchdog); the chaos run with the
/// recorded seed did, under load.
#[test]
fn a_kafka_source_survives_a_sigkill_then_a_broker_restart() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mut kafka) = Tansu::start_on_disk(dir.path(), &["pages"]) else {
        return;
    };
    let path = config(dir.path(), None, "");
    let stall_ms = stall_after_ms("1000");
    let text = std::fs::read_to_string(&path).unwrap()
        + &format!(
            "[[agent.sources]]\nkind = \"kafka\"\nbrokers = \"{}\"\ntopic = \"pages\"\ngroup = \"g\"\nstall_after_ms = {stall_ms}\n",
            kafka.brokers()
        );
    std::fs::write(&path, text).unwrap();
    let pages = small_pages(20);
    let url = |i: usize| format!("http://site{}.example/k9/{i}", i % 5);
    let envelope =
        |i: usize| serde_json::json!({"url": url(i), "html": pages[i % pages.len()]}).to_string();
    let distinct = || jsonl_ids(dir.path()).into_iter().collect::<HashSet<_>>();
    kafka.produce("pages", &(0..300).map(envelope).collect::<Vec<_>>());
    let agent = Agent::start(&path);
    wait_until("the first verdicts", 60, || distinct().len() >= 30);
    kill9(agent);
    let mut agent = Agent::start(&path);
    std::thread::sleep(Duration::from_millis(1500));
    kafka.kill();
    std::thread::sleep(Duration::from_millis(1500));
    kafka.restart();
    let restarted = Instant::now();
    kafka.produce("pages", &(300..400).map(envelope).collect::<Vec<_>>());
    let deadline = Instant::now() + Duration::from_secs(120);
    while distinct().len() < 400 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
    }
    let got = distinct().len();
    eprintln!(
        "{got} of 400 pages judged ({} verdicts), {:.1} s after the broker restart; {}",
        jsonl_ids(dir.path()).len(),
        restarted.elapsed().as_secs_f64(),
        agent.metric_lines("crawlsieve_source_").join("; ")
    );
    assert_eq!(got, 400, "every page has a verdict");
    assert!(agent.terminate().success());
}
