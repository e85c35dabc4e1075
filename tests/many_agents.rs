//! Many agents on one crawl: three `crawlsieve agent` processes in one
//! consumer group on a real Kafka-protocol broker (`tansu`), a page topic of
//! six partitions keyed by site, an agent joining and another killed with
//! SIGKILL in the middle. Every page is judged (at least once); every page is
//! counted exactly once in the neighborhood state, which follows its
//! partition from agent to agent through the neighborhoods topic; the copier
//! sites are flagged and no untouched site is.

use crate::common;
use crate::daemon;

use common::{bin, ok, shared_data};
use daemon::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// (verdicts, site flags) an agent wrote.
fn records(dir: &Path) -> (Vec<serde_json::Value>, Vec<serde_json::Value>) {
    common::split_lines(&complete_lines(&dir.join("verdicts.jsonl")))
}

fn distinct_judged(dirs: &[&Path]) -> usize {
    dirs.iter()
        .flat_map(|d| records(d).0)
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect::<BTreeSet<_>>()
        .len()
}

/// An agent reading `source` (a `[[agent.sources]]` block), neighborhoods on,
/// verdicts and flags to `dir/verdicts.jsonl`.
fn agent_config(dir: &Path, source: &str, set: &Path, public: &Path) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let text = format!(
        r#"workers = 1
# No per-page budget: a page judged again after the kill must get the same
# verdict as the first time, and a debug build on a loaded machine can take
# a large page past the default 2 s.
[input]
max_page_ms = 0
[labels]
files = [{set:?}]
public_key_file = {public:?}
[neighborhoods]
enabled = true
snapshot = {:?}
[agent]
listen = "127.0.0.1:0"
{source}
[[agent.sinks]]
kind = "jsonl"
path = {:?}
[agent.spool]
dir = {:?}
"#,
        dir.join("neighborhoods.jsonl"),
        dir.join("verdicts.jsonl"),
        dir.join("spool")
    );
    let path = dir.join("agent.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The `[[agent.sources]]` block of an agent in group `crawl` on topic `pages`.
fn kafka_source(kafka: &Tansu, checkpoint_seconds: u32) -> String {
    format!(
        "[[agent.sources]]\nkind = \"kafka\"\nbrokers = \"{}\"\ntopic = \"pages\"\ngroup = \"crawl\"\ncheckpoint_seconds = {checkpoint_seconds}",
        kafka.brokers()
    )
}

/// A labeled set of 10 real pages (`d/source.cslab`, key `d/k.pub`) and a crawl
/// of 190 page envelopes keyed by site: 16 untouched sites of 10 real pages,
/// 3 copier sites republishing the set; interleaved as a crawler fetches.
fn labeled_crawl(d: &Path, data: &Path) -> Vec<(String, String)> {
    let pages: Vec<String> = common::wcxb_pages(data, 300, 20_001..usize::MAX)
        .into_iter()
        .filter(|p| p.len() < 700_000)
        .take(170)
        .collect();
    assert_eq!(pages.len(), 170);
    let (source, rest) = pages.split_at(10);
    common::signed_source_set(d, source);
    let mut by_site: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut add = |site: String, url: String, html: &String| {
        let env = serde_json::json!({"url": url, "html": html}).to_string();
        by_site.entry(site.clone()).or_default().push((site, env));
    };
    for (i, html) in rest.iter().enumerate() {
        let site = format!("www.site{}.example", i % 16);
        add(
            site.clone(),
            format!("http://{site}/blog/post-{i}.html"),
            html,
        );
    }
    for c in 0..3 {
        for (i, html) in source.iter().enumerate() {
            let site = format!("copier{c}.example");
            add(
                site.clone(),
                format!("http://{site}/mirror/page-{i}.html"),
                html,
            );
        }
    }
    let mut messages = Vec::new();
    for k in 0..10 {
        for list in by_site.values() {
            messages.push(list[k].clone());
        }
    }
    assert_eq!(messages.len(), 190);
    messages
}

/// Pages per site that count in the neighborhoods (those with content to
/// match), from the verdicts, one per page id; and the `bad` site flags.
fn expected_and_flagged(dirs: &[&Path]) -> (BTreeMap<String, u32>, BTreeSet<String>, usize) {
    let mut verdicts: HashMap<String, Vec<serde_json::Value>> = HashMap::new();
    let mut lines = 0;
    let mut flagged = BTreeSet::new();
    for dir in dirs {
        let (v, f) = records(dir);
        lines += v.len();
        for f in f.iter().filter(|f| f["state"] == "bad") {
            flagged.insert(f["neighborhood"].as_str().unwrap().to_string());
        }
        for v in v {
            let id = v["id"].as_str().unwrap().to_string();
            verdicts.entry(id).or_default().push(v);
        }
    }
    assert_eq!(verdicts.len(), 190, "every page judged");
    let counts =
        |v: &serde_json::Value| v["contains"].is_number() || v["shingle_contains"].is_number();
    let mut expected: BTreeMap<String, u32> = BTreeMap::new();
    for judged in verdicts.values() {
        // A page judged again (after the kill) counts once, whichever
        // agent's verdict is kept: the judgements must agree.
        let summary = |v: &serde_json::Value| {
            format!(
                "{} {} contains={} shingle_contains={} reasons={}",
                v["url"], v["verdict"], v["contains"], v["shingle_contains"], v["reasons"]
            )
        };
        assert!(
            judged.iter().all(|v| counts(v) == counts(&judged[0])),
            "a page judged twice, differently: {:?}",
            judged.iter().map(summary).collect::<Vec<_>>()
        );
        let v = &judged[0];
        if counts(v) {
            let host = v["url"].as_str().unwrap().split('/').nth(2).unwrap();
            *expected
                .entry(host.trim_start_matches("www.").to_string())
                .or_default() += 1;
        }
    }
    (expected, flagged, lines)
}

/// A merged snapshot's pages per domain neighborhood, the bad ones, and its page total.
fn snapshot_domains(path: &Path) -> (BTreeMap<String, u32>, BTreeSet<String>, u64) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let mut got = BTreeMap::new();
    let mut bad = BTreeSet::new();
    for l in lines {
        let h: serde_json::Value = serde_json::from_str(l).unwrap();
        let name = h["n"].as_str().unwrap();
        if !name.contains('/') {
            got.insert(name.to_string(), h["p"].as_u64().unwrap() as u32);
            if h["b"] == true {
                bad.insert(name.to_string());
            }
        }
    }
    (got, bad, header["pages"].as_u64().unwrap())
}

/// The crawl's merged state counts each page once in its site's
/// neighborhood and holds exactly the copiers bad; the flags name them only.
fn check_state(merged: &Path, expected: &BTreeMap<String, u32>, flagged: &BTreeSet<String>) {
    let (got, bad, pages) = snapshot_domains(merged);
    assert_eq!(
        &got, expected,
        "each page counted once in its site's neighborhood"
    );
    assert_eq!(pages, expected.values().sum::<u32>() as u64);
    assert_eq!(bad, copiers(), "the copiers are bad in the crawl's state");
    assert_eq!(flagged, &copiers(), "flags: the copiers, no untouched site");
}

fn copiers() -> BTreeSet<String> {
    (0..3).map(|c| format!("copier{c}.example")).collect()
}

#[test]
fn three_agents_share_a_crawl_and_hand_neighborhoods_over_on_rebalance() {
    let Some(data) = shared_data() else { return };
    let Some(kafka) = Tansu::start(&[]) else {
        return;
    };
    kafka.create_topic("pages", 6);
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let messages = labeled_crawl(d, &data);

    let dirs: Vec<_> = (0..3).map(|i| d.join(format!("agent{i}"))).collect();
    let configs: Vec<_> = dirs
        .iter()
        .map(|dir| {
            agent_config(
                dir,
                &kafka_source(&kafka, 2),
                &d.join("source.cslab"),
                &d.join("k.pub"),
            )
        })
        .collect();
    let all: Vec<&Path> = dirs.iter().map(|p| p.as_path()).collect();

    // Two agents take the first third.
    let mut a = Agent::start(&configs[0]);
    let mut b = Agent::start(&configs[1]);
    kafka.produce_keyed("pages", &messages[..60]);
    wait_until("the first 60 pages judged", 90, || {
        distinct_judged(&all) >= 60
    });

    // A third joins: the group rebalances and partitions move, with their state.
    let mut c = Agent::start(&configs[2]);
    wait_until("the third agent to own partitions", 60, || {
        c.metric("crawlsieve_neighborhood_partitions") > 0.0
    });
    kafka.produce_keyed("pages", &messages[60..125]);
    wait_until("125 pages judged", 90, || distinct_judged(&all) >= 125);

    // One is killed without warning, with pages in flight: its partitions go
    // to the others after the session timeout, restored from their last
    // checkpoints; the pages it judged since are read and judged again, and
    // counted once.
    kafka.produce_keyed("pages", &messages[125..]);
    wait_until("135 pages judged", 90, || distinct_judged(&all) >= 135);
    let _ = b.child.kill();
    let _ = b.child.wait();
    wait_until("all 190 pages judged", 120, || distinct_judged(&all) >= 190);
    // The survivors hold all six partitions before they stop.
    wait_until("six partitions held", 120, || {
        let (x, y) = (
            a.metric("crawlsieve_neighborhood_partitions"),
            c.metric("crawlsieve_neighborhood_partitions"),
        );
        x + y == 6.0
    });
    // Pages the killed agent judged after its last checkpoint are read again
    // by their new owners; "all judged" can be true before they are. Stop
    // once the group has committed every page: each commit follows a
    // checkpoint that holds its pages, so the state then holds the crawl.
    wait_until("every page committed", 120, || {
        std::thread::sleep(std::time::Duration::from_millis(200));
        kafka.committed_lag("crawl", "pages") == 0
    });
    let replayed = a.metric("crawlsieve_neighborhood_handover_total{outcome=\"replayed\"}")
        + c.metric("crawlsieve_neighborhood_handover_total{outcome=\"replayed\"}");
    let adopted = a.metric("crawlsieve_neighborhood_handover_total{outcome=\"adopted\"}")
        + c.metric("crawlsieve_neighborhood_handover_total{outcome=\"adopted\"}");
    assert!(a.terminate().success());
    assert!(c.terminate().success());

    let (expected, flagged, lines) = expected_and_flagged(&all);

    // The crawl's state: every partition's last checkpoint, merged.
    ok(bin()
        .args(["merge-neighborhoods", "--kafka", &kafka.brokers()])
        .args(["--state-topic", "pages.crawlsieve-neighborhoods", "-o"])
        .arg(d.join("crawl.jsonl"))
        .output()
        .unwrap());
    check_state(&d.join("crawl.jsonl"), &expected, &flagged);
    let total: u32 = expected.values().sum();
    eprintln!(
        "3 agents, 6 partitions, 190 pages: {lines} verdict lines ({} judged again after the kill), \
         {adopted} partitions adopted by the survivors, {replayed} pages read again and not counted again; \
         {} sites' {total} pages, each counted once",
        lines - 190,
        expected.len()
    );
}

/// Offsets a consumer steps over — compacted or expired records, transaction
/// markers, a fetch that starts past the committed offset — hold no page it
/// will read, and must not hold the partition's commits back (a commit never
/// passes a page the state lacks, and those pages never come). Here the
/// broker itself steps over them: tansu 0.6 answers a fetch from inside a
/// record batch with the next batch. Pages 0–7 are one batch, 8–11 one
/// batch each, and the group's offset is set to 4: the agent reads from 8
/// (or from 4 on a broker that sends the whole batch), and commits to the end.
#[test]
fn a_fetch_past_the_committed_offset_does_not_hold_commits_back() {
    let Some(data) = shared_data() else { return };
    let Some(kafka) = Tansu::start(&[]) else {
        return;
    };
    kafka.create_topic("pages", 1);
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let pages = common::wcxb_pages(&data, 14, 3_000..20_000);
    common::signed_source_set(d, &pages[..2]);
    let envelope = |i: usize| {
        serde_json::json!({"url": format!("http://site{}.example/p/{i}", i % 3), "html": pages[2 + i]})
            .to_string()
    };
    kafka.produce_one_batch("pages", &(0..8).map(envelope).collect::<Vec<_>>());
    kafka.produce("pages", &(8..12).map(envelope).collect::<Vec<_>>());
    kafka.commit("crawl", "pages", 0, 4);

    let dir = d.join("agent");
    let config = agent_config(
        &dir,
        &kafka_source(&kafka, 1),
        &d.join("source.cslab"),
        &d.join("k.pub"),
    );
    let mut agent = Agent::start(&config);
    wait_until("every offset committed", 60, || {
        std::thread::sleep(std::time::Duration::from_millis(200));
        kafka.committed_lag("crawl", "pages") == 0
    });
    let skipped = agent.metric("crawlsieve_neighborhood_handover_total{outcome=\"skipped\"}");
    assert!(agent.terminate().success());
    let judged: BTreeSet<i64> = records(&dir)
        .0
        .iter()
        .map(|v| {
            let id = v["origin"]["id"].as_str().unwrap();
            id.rsplit(':').next().unwrap().parse().unwrap()
        })
        .collect();
    eprintln!("group offset 4, 12 pages: offsets judged {judged:?}, {skipped} stepped over");
    assert!(judged.iter().all(|o| (4..12).contains(o)), "{judged:?}");
    assert_eq!(
        judged.len() as f64 + skipped,
        8.0,
        "each offset from 4 on either judged or stepped over"
    );
    assert!(judged.contains(&11));
}

/// NATS has no partition assignment in a durable consumer; the deployment
/// partitions by subject instead (docs/agent.md, "Many agents on one crawl"): the
/// server maps `crawl.pages.<site>` to `crawl.pages.<k>.<site>`, k a hash of
/// the site, and agent k reads its own stream. Each site's pages reach one
/// agent, so its neighborhoods are whole there and the agents' snapshots
/// add up to the crawl's (a static assignment: no hand-over).
#[test]
fn agents_on_nats_partition_subjects_each_hold_whole_sites() {
    let Some(data) = shared_data() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let Some(nats) = Nats::start_with_config(
        &d.join("nats"),
        "mappings = {\n  \"crawl.pages.*\": \"crawl.pages.{{partition(2,1)}}.{{wildcard(1)}}\"\n}\n",
    ) else {
        return;
    };
    let messages = labeled_crawl(d, &data);
    let dirs: Vec<_> = (0..2).map(|k| d.join(format!("agent{k}"))).collect();
    let all: Vec<&Path> = dirs.iter().map(|p| p.as_path()).collect();
    let mut agents: Vec<Agent> = dirs
        .iter()
        .enumerate()
        .map(|(k, dir)| {
            let source = format!(
                "[[agent.sources]]\nkind = \"nats\"\nurl = \"{}\"\nstream = \"PAGES-{k}\"\nsubject = \"crawl.pages.{k}.*\"\nconsumer = \"crawlsieve-{k}\"",
                nats.url()
            );
            Agent::start(&agent_config(dir, &source, &d.join("source.cslab"), &d.join("k.pub")))
        })
        .collect();
    // The crawler publishes each page under its site (dots are subject separators).
    nats.with_jetstream(async |js| {
        for (site, env) in &messages {
            let subject = format!("crawl.pages.{}", site.replace('.', "-"));
            // The agents create their streams as they start: until then, no stream answers.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
            loop {
                let acked = match js.publish(subject.clone(), env.clone().into()).await {
                    Ok(ack) => ack.await.is_ok(),
                    Err(_) => false,
                };
                match acked {
                    true => break,
                    false if std::time::Instant::now() < deadline => {
                        tokio::time::sleep(std::time::Duration::from_millis(100)).await
                    }
                    false => panic!("no stream took {subject}"),
                }
            }
        }
    });
    wait_until("all 190 pages judged", 90, || distinct_judged(&all) >= 190);
    for a in &mut agents {
        assert!(a.terminate().success());
    }
    // Each site on one agent.
    let mut sites_of: Vec<BTreeSet<String>> = Vec::new();
    for dir in &all {
        let (v, _) = records(dir);
        sites_of.push(
            v.iter()
                .map(|v| v["site"].as_str().unwrap().to_string())
                .collect(),
        );
    }
    assert!(
        sites_of.iter().all(|s| !s.is_empty()),
        "both partitions have sites: {sites_of:?}"
    );
    assert!(
        sites_of[0].is_disjoint(&sites_of[1]),
        "a site on both agents: {sites_of:?}"
    );
    let (expected, flagged, lines) = expected_and_flagged(&all);
    assert_eq!(
        lines, 190,
        "each page once (nothing failed, nothing redelivered)"
    );
    ok(bin()
        .args(["merge-neighborhoods", "-o"])
        .arg(d.join("crawl.jsonl"))
        .args(dirs.iter().map(|d| d.join("neighborhoods.jsonl")))
        .output()
        .unwrap());
    check_state(&d.join("crawl.jsonl"), &expected, &flagged);
    eprintln!(
        "2 agents on NATS partition subjects: sites {} + {}, disjoint; 190 pages counted once",
        sites_of[0].len(),
        sites_of[1].len()
    );
}
