//! The long-running agent with a real `nats-server` (JetStream, file
//! storage) started by the test on a free loopback port, and real HTTP:
//! every acknowledged page has exactly one verdict in the stream (by id),
//! through a broker outage in the middle of the run, under overload
//! (back-pressure, bounded memory), and across SIGTERM.

use crate::common;
use crate::daemon;

use common::{bin, shared_data};
use daemon::*;
use std::collections::HashSet;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[test]
fn every_page_has_exactly_one_verdict_in_the_stream() {
    let dir = tempfile::tempdir().unwrap();
    let Some(nats) = Nats::start(&dir.path().join("nats")) else {
        return;
    };
    let agent = Agent::start(&config(dir.path(), Some(&nats), ""));
    let pages = real_pages(30);
    let refused = Arc::new(Mutex::new(0));
    let started = Instant::now();
    let acked = post_many(&agent.addr, &pages, 300, 4, "t", Duration::ZERO, &refused);
    let secs = started.elapsed().as_secs_f64();
    assert_eq!(acked.len(), 300);
    let in_stream = nats.ids("VERDICTS");
    let want: HashSet<&String> = acked.iter().collect();
    let got: HashSet<&String> = in_stream.iter().collect();
    assert_eq!(in_stream.len(), 300, "exactly one message per page");
    assert_eq!(got, want);
    assert_eq!(jsonl_ids(dir.path()).len(), 300);
    assert_eq!(agent.metric("crawlsieve_pages_in_total"), 300.0);
    eprintln!("300 real pages through HTTP → NATS JetStream in {secs:.2} s: {:.0} verdicts/s; agent peak RSS {} MB", 300.0 / secs, agent.rss_peak_kb() / 1024);
}

/// A broker outage in the middle of a run: posts `n` pages one by one, calls
/// `broker(false)` (stop it) after `kill_at` were acknowledged and
/// `broker(true)` (start it again) after `restart_at`,
/// then waits for the spool to drain. Returns the acknowledged verdict ids
/// and the spool depth seen during the outage.
fn outage(
    agent: &Agent,
    pages: &[String],
    n: usize,
    (kill_at, restart_at): (usize, usize),
    mut broker: impl FnMut(bool),
) -> (Vec<String>, f64) {
    let refused = Arc::new(Mutex::new(0));
    let acked = Arc::new(Mutex::new(Vec::new()));
    let poster = {
        let (addr, pages, acked, refused) = (
            agent.addr.clone(),
            pages.to_vec(),
            acked.clone(),
            refused.clone(),
        );
        std::thread::spawn(move || {
            for i in 0..n {
                let url = format!("http://site{}.example/outage/{i}", i % 5);
                if let Some(id) = post_until_taken(&addr, &url, &pages[i % pages.len()], &refused) {
                    acked.lock().unwrap().push(id);
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        })
    };
    let wait_for = |k: usize| {
        while acked.lock().unwrap().len() < k {
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    wait_for(kill_at);
    broker(false);
    wait_for(restart_at);
    let spooled = agent.metric("crawlsieve_spool_depth");
    assert!(spooled > 0.0, "verdicts were spooled during the outage");
    broker(true);
    poster.join().unwrap();
    let deadline = Instant::now() + Duration::from_secs(90);
    while agent.metric("crawlsieve_spool_depth") > 0.0 {
        assert!(
            Instant::now() < deadline,
            "the spool drained after the broker came back"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let acked = acked.lock().unwrap().clone();
    assert_eq!(acked.len(), n);
    (acked, spooled)
}

#[test]
fn a_broker_outage_loses_nothing_and_duplicates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mut nats) = Nats::start(&dir.path().join("nats")) else {
        return;
    };
    let agent = Agent::start(&config(dir.path(), Some(&nats), ""));
    let pages = real_pages(20);
    let (acked, spooled) = outage(&agent, &pages, 150, (40, 90), |up| match up {
        false => nats.kill(),
        true => nats.restart().unwrap(),
    });
    let in_stream = nats.ids("VERDICTS");
    let got: HashSet<&String> = in_stream.iter().collect();
    assert_eq!(
        got,
        acked.iter().collect::<HashSet<_>>(),
        "every acknowledged page is in the stream"
    );
    assert_eq!(
        in_stream.len(),
        150,
        "and exactly once (the stream de-duplicates by message id)"
    );
    eprintln!(
        "outage: {spooled} verdicts spooled at the peak, {} duplicates dropped by the stream, {} sends failed",
        agent.metric("crawlsieve_sink_duplicates_total"),
        agent.metric("crawlsieve_sink_failures_total")
    );
}

#[test]
fn overload_is_pushed_back_and_memory_stays_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let path = config(dir.path(), None, "queue = 2");
    std::fs::write(
        &path,
        std::fs::read_to_string(&path)
            .unwrap()
            .replace("workers = 2", "workers = 1"),
    )
    .unwrap();
    let agent = Agent::start(&path);
    let pages = real_pages(40);
    let refused = Arc::new(Mutex::new(0));
    let acked = post_many(&agent.addr, &pages, 400, 16, "o", Duration::ZERO, &refused);
    assert_eq!(acked.len(), 400, "every page was taken in the end");
    let refused = *refused.lock().unwrap();
    assert!(refused > 0, "the agent pushed back");
    assert_eq!(agent.metric("crawlsieve_rejected_total"), refused as f64);
    let ids = jsonl_ids(dir.path());
    assert_eq!(ids.len(), 400);
    let rss = agent.rss_peak_kb() / 1024;
    assert!(rss < 300, "peak RSS {rss} MB");
    eprintln!("overload: 400 pages from 16 clients on 1 worker: {refused} refusals (503), peak RSS {rss} MB");
}

#[test]
fn sigterm_finishes_pages_in_flight_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let Some(nats) = Nats::start(&dir.path().join("nats")) else {
        return;
    };
    let mut agent = Agent::start(&config(dir.path(), Some(&nats), ""));
    let pages = real_pages(20);
    let refused = Arc::new(Mutex::new(0));
    let addr = agent.addr.clone();
    let poster = {
        let refused = refused.clone();
        std::thread::spawn(move || {
            post_many(&addr, &pages, 100_000, 4, "s", Duration::ZERO, &refused)
        })
    };
    // Stop once pages are flowing, not after a fixed time: a loaded CI
    // machine took 9 pages in the 1.5 s this test used to wait.
    wait_until("pages to flow before the stop", 60, || {
        agent.metric("crawlsieve_pages_in_total") >= 20.0
    });
    let status = agent.terminate();
    let acked = poster.join().unwrap();
    assert!(status.success(), "{status}");
    assert!(acked.len() > 10, "{}", acked.len());
    let in_file: HashSet<String> = jsonl_ids(dir.path()).into_iter().collect();
    let in_stream: HashSet<String> = nats.ids("VERDICTS").into_iter().collect();
    for id in &acked {
        assert!(
            in_file.contains(id),
            "acknowledged page {id} missing from the JSONL sink"
        );
        assert!(
            in_stream.contains(id),
            "acknowledged page {id} missing from the stream"
        );
    }
    eprintln!(
        "SIGTERM: {} pages acknowledged before the stop, all in both sinks",
        acked.len()
    );
}

#[test]
fn kafka_topic_in_kafka_topic_out_keyed_by_site_and_resumed_after_restart() {
    let dir = tempfile::tempdir().unwrap();
    let Some(kafka) = Tansu::start(&["pages", "verdicts"]) else {
        return;
    };
    let path = config(dir.path(), None, "");
    let group = format!("agent-{}", free_port());
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!(
        "[[agent.sources]]\nkind = \"kafka\"\nbrokers = \"{0}\"\ntopic = \"pages\"\ngroup = \"{group}\"\n[[agent.sinks]]\nkind = \"kafka\"\nbrokers = \"{0}\"\ntopic = \"verdicts\"\n",
        kafka.brokers(),
    ));
    std::fs::write(&path, text).unwrap();
    // Kafka's default message limit is 1 MB: the pages that fit.
    let pages: Vec<String> = real_pages(40)
        .into_iter()
        .filter(|p| p.len() < 800_000)
        .take(20)
        .collect();
    let envelope = |i: usize| {
        serde_json::json!({"url": format!("http://site{}.example/k/{i}", i % 6), "html": pages[i % pages.len()]}).to_string()
    };

    let mut agent = Agent::start(&path);
    let started = Instant::now();
    kafka.produce("pages", &(0..200).map(envelope).collect::<Vec<_>>());
    let ids = wait_for_lines(dir.path(), 200);
    let secs = started.elapsed().as_secs_f64();
    assert_eq!(ids.len(), 200);
    let out = kafka.consume("verdicts", 200);
    assert_eq!(out.len(), 200, "one verdict per page in the topic");
    let distinct: HashSet<&String> = out.iter().map(|(_, id)| id).collect();
    assert_eq!(distinct.len(), 200);
    assert!(
        out.iter()
            .all(|(key, _)| key.starts_with("site") && key.ends_with(".example")),
        "key = site"
    );
    eprintln!("Kafka: 200 real pages topic → agent → topic in {secs:.2} s ({:.0} verdicts/s, including start-up)", 200.0 / secs);

    // A restart resumes after the committed offsets: nothing is judged twice, nothing skipped.
    assert!(agent.terminate().success());
    let mut agent = Agent::start(&path);
    kafka.produce("pages", &(200..250).map(envelope).collect::<Vec<_>>());
    let ids = wait_for_lines(dir.path(), 250);
    std::thread::sleep(Duration::from_millis(500));
    let ids_now = jsonl_ids(dir.path());
    assert_eq!(
        ids_now.len(),
        250,
        "exactly the 50 new pages after the restart"
    );
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 250);
    assert!(agent.terminate().success());
}

#[test]
fn a_warc_directory_is_processed_once_per_file() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let warcs = dir.path().join("warcs");
    std::fs::create_dir(&warcs).unwrap();
    let sources = [
        data.join("warc/dolma-samples/sample-0000.warc.gz"),
        data.join("warc/resiliparse-cc-2020-34/CC-MAIN-20200808165417-20200808195417-00395.excerpt.warc.gz"),
    ];
    std::fs::copy(&sources[0], warcs.join("a.warc.gz")).unwrap();
    std::fs::write(warcs.join("b.warc.gz.open"), b"being written").unwrap();
    let path = config(dir.path(), None, "");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!(
        "[[agent.sources]]\nkind = \"warc_dir\"\npath = {:?}\npoll_seconds = 1\n",
        warcs
    ));
    std::fs::write(&path, text).unwrap();
    let expected = |file: &Path| -> usize {
        let out = common::run(bin().args(["scan", "-q"]).arg(file));
        common::verdicts(&out).len()
    };
    let (n0, n1) = (expected(&sources[0]), expected(&sources[1]));

    let mut agent = Agent::start(&path);
    assert_eq!(wait_for_lines(dir.path(), n0).len(), n0);
    assert!(agent.terminate().success());
    // Restart: the finished file is not read again; a new file is read once.
    let mut agent = Agent::start(&path);
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        jsonl_ids(dir.path()).len(),
        n0,
        "nothing repeated after a restart"
    );
    std::fs::copy(&sources[1], warcs.join("c.warc.gz")).unwrap();
    assert_eq!(wait_for_lines(dir.path(), n0 + n1).len(), n0 + n1);
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        jsonl_ids(dir.path()).len(),
        n0 + n1,
        "each file once; `.open` files ignored"
    );
    assert!(agent.terminate().success());
    let checkpoint = std::fs::read_to_string(warcs.join(".crawlsieve-checkpoint.json")).unwrap();
    assert!(
        checkpoint.contains("a.warc.gz") && checkpoint.contains("c.warc.gz"),
        "{checkpoint}"
    );
}

#[test]
fn a_kafka_outage_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mut kafka) = Tansu::start_on_disk(dir.path(), &["verdicts"]) else {
        return;
    };
    let path = config(dir.path(), None, "");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!(
        "[[agent.sinks]]\nkind = \"kafka\"\nbrokers = \"{}\"\ntopic = \"verdicts\"\nack_timeout_ms = 1000\nidempotent = false\n",
        kafka.brokers()
    ));
    std::fs::write(&path, text).unwrap();
    let agent = Agent::start(&path);
    let pages = real_pages(20);
    let (acked, spooled) = outage(&agent, &pages, 120, (30, 70), |up| match up {
        false => kafka.kill(),
        true => kafka.restart(),
    });
    let acked: HashSet<String> = acked.into_iter().collect();
    assert_eq!(acked.len(), 120);
    let out = kafka.consume("verdicts", 120);
    let got: HashSet<String> = out.iter().map(|(_, id)| id.clone()).collect();
    assert_eq!(got, acked, "every acknowledged page is in the topic");
    let duplicates = out.len() - got.len();
    eprintln!(
        "Kafka outage: {spooled} verdicts spooled at the peak; {duplicates} duplicates in the topic ({} sends failed)",
        agent.metric("crawlsieve_sink_failures_total")
    );
    assert!(
        duplicates as f64 <= agent.metric("crawlsieve_sink_failures_total"),
        "duplicates only from failed sends"
    );
}

#[test]
fn pages_from_a_nats_subject_are_judged_and_acked() {
    let dir = tempfile::tempdir().unwrap();
    let Some(nats) = Nats::start(&dir.path().join("nats")) else {
        return;
    };
    let path = config_with_nats_source(dir.path(), &nats);
    // NATS's default payload limit is 1 MB: the pages that fit.
    let pages: Vec<String> = real_pages(40)
        .into_iter()
        .filter(|p| p.len() < 800_000)
        .take(20)
        .collect();
    // The crawler publishes first: the stream keeps the pages until the agent reads them.
    // And one message that is not a page: it still gets a verdict (error).
    nats.publish_pages(
        "crawl.pages",
        (0..150)
            .map(|i| {
                let env = serde_json::json!({"url": format!("http://site{}.example/n/{i}", i % 4), "html": pages[i % pages.len()]});
                serde_json::to_vec(&env).unwrap()
            })
            .chain([b"not json".to_vec()]),
    );
    let mut agent = Agent::start(&path);
    let ids = wait_for_lines(dir.path(), 151);
    assert_eq!(ids.len(), 151);
    assert!(agent.terminate().success());
    let in_stream: HashSet<String> = nats.ids("VERDICTS").into_iter().collect();
    assert_eq!(in_stream.len(), 151);
    // Every page message was acked: nothing pending for the agent's consumer.
    let pending = nats.with_jetstream(async |js| {
        let stream = js.get_stream("PAGES").await.unwrap();
        let mut c: async_nats::jetstream::consumer::PullConsumer =
            stream.get_consumer("crawlsieve").await.unwrap();
        let info = c.info().await.unwrap();
        (info.num_ack_pending, info.num_pending)
    });
    assert_eq!(pending, (0, 0), "(ack pending, not yet delivered)");
}
