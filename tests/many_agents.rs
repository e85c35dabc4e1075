//! Many agents on one crawl: three `crawlsieve agent` processes in one
//! consumer group on a real Kafka-protocol broker (`tansu`), a page topic of
//! six partitions keyed by site, an agent joining and another killed with
//! SIGKILL in the middle. Every page is judged (at least once); every page is
//! counted exactly once in the neighborhood state, which follows its
//! partition from agent to agent through the neighborhoods topic; the copier
//! sites are flagged and no untouched site is.

mod common;
mod daemon;

use common::{bin, ok, shared_data};
use daemon::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;
use std::path::Path;

/// (verdicts, site flags) an agent wrote.
fn records(dir: &Path) -> (Vec<serde_json::Value>, Vec<serde_json::Value>) {
    let text = std::fs::read_to_string(dir.join("verdicts.jsonl")).unwrap_or_default();
    common::split_lines(&text)
}

fn distinct_judged(dirs: &[&Path]) -> usize {
    dirs.iter()
        .flat_map(|d| records(d).0)
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect::<BTreeSet<_>>()
        .len()
}

fn agent_config(dir: &Path, brokers: &str, set: &Path, public: &Path) -> std::path::PathBuf {
    let text = format!(
        r#"workers = 1
[labels]
files = [{set:?}]
public_key_file = {public:?}
[neighborhoods]
enabled = true
[agent]
listen = "127.0.0.1:0"
[[agent.sources]]
kind = "kafka"
brokers = "{brokers}"
topic = "pages"
group = "crawl"
checkpoint_seconds = 2
[[agent.sinks]]
kind = "jsonl"
path = {:?}
[agent.spool]
dir = {:?}
"#,
        dir.join("verdicts.jsonl"),
        dir.join("spool")
    );
    let path = dir.join("agent.toml");
    std::fs::write(&path, text).unwrap();
    path
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
    let pages: Vec<String> = common::wcxb_pages(&data, 300, 20_001..usize::MAX)
        .into_iter()
        .filter(|p| p.len() < 700_000)
        .take(170)
        .collect();
    assert_eq!(pages.len(), 170);
    let (source, rest) = pages.split_at(10);

    // The labeled source: ten real pages, signed.
    let mut f = std::fs::File::create(d.join("source.jsonl")).unwrap();
    for (i, html) in source.iter().enumerate() {
        let page = serde_json::json!({"url": format!("http://source.example/{i}"), "html": html});
        writeln!(f, "{page}").unwrap();
    }
    drop(f);
    ok(bin()
        .args(["labels", "keygen", "-o"])
        .arg(d.join("k"))
        .output()
        .unwrap());
    ok(bin()
        .args(["labels", "build", "--name", "source", "--key"])
        .arg(d.join("k"))
        .arg("-o")
        .arg(d.join("source.cslab"))
        .arg(d.join("source.jsonl"))
        .output()
        .unwrap());

    // The crawl: 16 untouched sites of 10 real pages, 3 copier sites that
    // republish the source; keyed by site, interleaved as a crawler fetches.
    let mut crawl: Vec<(String, String)> = Vec::new();
    for (i, html) in rest.iter().enumerate() {
        let site = format!("www.site{}.example", i % 16);
        crawl.push(
            (
                site.clone(),
                format!("http://{site}/blog/post-{i}.html"),
                html.clone(),
            )
                .into_keyed(),
        );
    }
    for c in 0..3 {
        for (i, html) in source.iter().enumerate() {
            let site = format!("copier{c}.example");
            crawl.push(
                (
                    site.clone(),
                    format!("http://{site}/mirror/page-{i}.html"),
                    html.clone(),
                )
                    .into_keyed(),
            );
        }
    }
    // Interleave: page k of every site, then page k+1 ...
    let mut by_site: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (site, env) in crawl {
        by_site.entry(site.clone()).or_default().push((site, env));
    }
    let mut messages = Vec::new();
    for k in 0..10 {
        for list in by_site.values() {
            messages.push(list[k].clone());
        }
    }
    assert_eq!(messages.len(), 190);

    let dirs: Vec<_> = (0..3).map(|i| d.join(format!("agent{i}"))).collect();
    let configs: Vec<_> = dirs
        .iter()
        .map(|dir| {
            std::fs::create_dir_all(dir).unwrap();
            agent_config(
                dir,
                &kafka.brokers(),
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
    wait_until("six partitions held", 60, || {
        let (x, y) = (
            a.metric("crawlsieve_neighborhood_partitions"),
            c.metric("crawlsieve_neighborhood_partitions"),
        );
        x + y == 6.0
    });
    let replayed = a.metric("crawlsieve_neighborhood_handover_total{outcome=\"replayed\"}")
        + c.metric("crawlsieve_neighborhood_handover_total{outcome=\"replayed\"}");
    let adopted = a.metric("crawlsieve_neighborhood_handover_total{outcome=\"adopted\"}")
        + c.metric("crawlsieve_neighborhood_handover_total{outcome=\"adopted\"}");
    assert!(a.terminate().success());
    assert!(c.terminate().success());

    // Every page judged; which pages can count in the neighborhoods.
    let mut verdicts: HashMap<String, serde_json::Value> = HashMap::new();
    let mut lines = 0;
    let mut flags = Vec::new();
    for dir in &all {
        let (v, f) = records(dir);
        lines += v.len();
        flags.extend(f);
        for v in v {
            verdicts.insert(v["id"].as_str().unwrap().to_string(), v);
        }
    }
    assert_eq!(verdicts.len(), 190, "every page judged");
    let mut expected: BTreeMap<String, u32> = BTreeMap::new();
    for v in verdicts.values() {
        let counts = v["contains"].is_number() || v["shingle_contains"].is_number();
        if counts {
            let host = v["url"].as_str().unwrap().split('/').nth(2).unwrap();
            let domain = host.trim_start_matches("www.").to_string();
            *expected.entry(domain).or_default() += 1;
        }
    }

    // The crawl's state: every partition's last checkpoint, merged.
    let out = ok(bin()
        .args(["merge-neighborhoods", "--kafka", &kafka.brokers()])
        .args(["--state-topic", "pages.crawlsieve-neighborhoods", "-o"])
        .arg(d.join("crawl.jsonl"))
        .output()
        .unwrap());
    let _ = out;
    let text = std::fs::read_to_string(d.join("crawl.jsonl")).unwrap();
    let mut lines_iter = text.lines();
    let header: serde_json::Value = serde_json::from_str(lines_iter.next().unwrap()).unwrap();
    let mut got: BTreeMap<String, u32> = BTreeMap::new();
    let mut bad = BTreeSet::new();
    for l in lines_iter {
        let h: serde_json::Value = serde_json::from_str(l).unwrap();
        let name = h["n"].as_str().unwrap();
        if !name.contains('/') {
            got.insert(name.to_string(), h["p"].as_u64().unwrap() as u32);
            if h["b"] == true {
                bad.insert(name.to_string());
            }
        }
    }
    assert_eq!(
        got, expected,
        "each page counted once in its site's neighborhood"
    );
    let total: u32 = expected.values().sum();
    assert_eq!(header["pages"].as_u64().unwrap(), total as u64);
    let copiers: BTreeSet<String> = (0..3).map(|c| format!("copier{c}.example")).collect();
    assert_eq!(bad, copiers, "the copiers are bad in the crawl's state");
    let flagged: BTreeSet<String> = flags
        .iter()
        .filter(|f| f["state"] == "bad")
        .map(|f| f["neighborhood"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(flagged, copiers, "flags: the copiers, no untouched site");
    eprintln!(
        "3 agents, 6 partitions, 190 pages: {lines} verdict lines ({} judged again after the kill), \
         {adopted} partitions adopted by the survivors, {replayed} pages read again and not counted again; \
         {} neighborhoods of {total} pages, each counted once",
        lines - 190,
        got.len()
    );
}

trait IntoKeyed {
    fn into_keyed(self) -> (String, String);
}

impl IntoKeyed for (String, String, String) {
    fn into_keyed(self) -> (String, String) {
        let (site, url, html) = self;
        (
            site,
            serde_json::json!({"url": url, "html": html}).to_string(),
        )
    }
}
