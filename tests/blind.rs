//! The loop closed (seed 001 §3.6), with real processes on loopback: two
//! agents judge pages and count them, ship their counts to the hub (one of
//! them while the hub is down: shipped when it is back), the hub adds them,
//! discovers the blind set and publishes it, and the agent that follows the
//! set flags the next copy. The hub's counts are exactly what `labels count`
//! finds over the same pages, a batch sent twice adds nothing, and hostile
//! count uploads get clear status codes.

use crate::common;
use crate::daemon;
use crate::rogue;

use common::{bin, keygen, start_hub_with, Hub};
use daemon::*;
use rogue::{honest_and_rogue, ordinary_flagged, scan};
use serde_json::Value;
use std::io::Write;
use std::path::Path;

const PUBLISH: &str = "publish-token-for-tests";
const COUNT: &str = "count-token-for-tests";

fn hub(dir: &Path, key: &Path, port: u16) -> Hub {
    std::fs::write(dir.join("publish.token"), PUBLISH).unwrap();
    std::fs::write(dir.join("count.token"), COUNT).unwrap();
    let listen = format!("127.0.0.1:{port}");
    let count_token = dir.join("count.token");
    start_hub_with(
        dir,
        key,
        &dir.join("publish.token"),
        &[
            "--listen",
            &listen,
            "--blind",
            "crawl=2",
            "--discover-every",
            "0",
            "--count-token-file",
            count_token.to_str().unwrap(),
        ],
    )
}

/// An agent that counts for set `crawl` (and follows it when `public` is given).
fn agent(dir: &Path, name: &str, hub: &str, public: Option<&Path>) -> Agent {
    let home = dir.join(name);
    std::fs::create_dir_all(&home).unwrap();
    // The pages are posted without a token: the test is the crawler, trusted by name.
    let path = config(&home, None, "trusted_sources = [\"http\"]");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!(
        "[agent.counts]\nset = \"crawl\"\nhub = \"http://{hub}\"\ntoken_file = {:?}\ndir = {:?}\nagent_id = \"{name}\"\ninterval_seconds = 1\n",
        dir.join("count.token"),
        home.join("counts"),
    ));
    if let Some(public) = public {
        text.push_str(&format!(
            "[labels]\npublic_key_file = {public:?}\n[labels.hub]\nurl = \"http://{hub}\"\nsets = [\"crawl\"]\ncache_dir = {:?}\nwait_seconds = 2\nstart_timeout_seconds = 10\n",
            home.join("cache")
        ));
    }
    std::fs::write(&path, text).unwrap();
    Agent::start(&path)
}

/// Every batch cut has been taken by the hub, and none waits.
fn all_shipped(a: &Agent) -> bool {
    let batches = |o: &str| {
        a.metric(&format!(
            "crawlsieve_counts_batches_total{{outcome=\"{o}\"}}"
        ))
    };
    // A restarted agent ships batches an earlier run cut: taken ≥ cut.
    let taken = batches("shipped") + batches("duplicate");
    taken > 0.0 && taken >= batches("cut") && a.metric("crawlsieve_counts_outbox") == 0.0
}

fn post_counts(addr: &str, token: &str, agent: &str, batch: &str, body: &[u8]) -> (u16, Value) {
    let auth = format!("Bearer {token}");
    let (status, body) = http(
        addr,
        "POST",
        "/v1/counts/crawl",
        &[
            ("Authorization", &auth),
            ("X-Crawlsieve-Agent", agent),
            ("X-Crawlsieve-Batch", batch),
        ],
        body,
    )
    .unwrap();
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

/// The status of an empty POST with a bearer token.
fn post_empty(addr: &str, path: &str, token: &str) -> u16 {
    let auth = format!("Bearer {token}");
    http(addr, "POST", path, &[("Authorization", &auth)], b"")
        .unwrap()
        .0
}

fn discover(addr: &str) -> Value {
    let auth = format!("Bearer {PUBLISH}");
    let (status, body) = http(
        addr,
        "POST",
        "/v1/sets/crawl/discover",
        &[("Authorization", &auth)],
        b"",
    )
    .unwrap();
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    serde_json::from_slice(&body).unwrap()
}

#[test]
fn agents_count_the_hub_discovers_and_publishes_and_followers_flag_copies() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let (key, public) = keygen(dir);
    let port = free_port();
    let mut hub_process = hub(dir, &key, port);
    let addr = hub_process.addr.clone();

    // Twelve real pages, each published on three sites (copies), and twelve
    // pages once; half the posts to each agent.
    let pages = real_pages(24);
    let mut posts: Vec<(String, String)> = Vec::new();
    for (i, html) in pages[..12].iter().enumerate() {
        for site in 0..3 {
            posts.push((format!("http://copier{site}-{i}.example/p"), html.clone()));
        }
    }
    for (i, html) in pages[12..].iter().enumerate() {
        posts.push((format!("http://own{i}.example/p"), html.clone()));
    }
    let a = agent(dir, "a", &addr, Some(&public));
    let b = agent(dir, "b", &addr, None);
    let (first, second) = posts.split_at(posts.len() / 2);
    for (n, (url, html)) in first.iter().enumerate() {
        judge(if n % 2 == 0 { &a } else { &b }, url, html);
    }
    wait_until("both agents' first batches at the hub", 30, || {
        all_shipped(&a) && all_shipped(&b)
    });

    // The hub goes down; the agents go on judging and cutting batches.
    drop(hub_process);
    for (n, (url, html)) in second.iter().enumerate() {
        judge(if n % 2 == 0 { &a } else { &b }, url, html);
    }
    wait_until("a send that failed while the hub is down", 30, || {
        b.metric("crawlsieve_counts_batches_total{outcome=\"send_failure\"}") > 0.0
    });
    // Agent b stops while the hub is down: its last batch is cut and waits
    // in the outbox with the others; b starts again and ships them once the
    // hub is back (an agent that was down).
    let mut b = b;
    assert!(b.terminate().success());
    let waiting = std::fs::read_dir(dir.join("b/counts/outbox"))
        .unwrap()
        .count();
    assert!(waiting >= 1, "b's batches wait in its outbox");
    let b = agent(dir, "b", &addr, None);
    hub_process = hub(dir, &key, port);
    wait_until(
        "the batches cut while the hub was down, shipped",
        90,
        || all_shipped(&a) && all_shipped(&b),
    );

    // What `labels count` + `labels discover` find over the same pages.
    let jsonl = dir.join("posted.jsonl");
    let mut f = std::fs::File::create(&jsonl).unwrap();
    for (url, html) in &posts {
        writeln!(f, "{}", serde_json::json!({"url": url, "html": html})).unwrap();
    }
    drop(f);
    let counts = dir.join("all.cscounts");
    let out = bin()
        .args(["labels", "count", "-o"])
        .arg(&counts)
        .arg(&jsonl)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{said}");
    let occurrences: u64 = said
        .split(", ")
        .find_map(|p| p.strip_suffix(" chunk occurrences"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("labels count said: {said}"));
    let discovered = dir.join("all.cslab");
    let out = bin()
        .args([
            "labels",
            "discover",
            "--threshold",
            "2",
            "--name",
            "crawl",
            "--key",
        ])
        .arg(&key)
        .arg("-o")
        .arg(&discovered)
        .arg(&counts)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let expected_keys: u64 = stderr
        .split(", ")
        .find(|p| p.contains(" over 2 "))
        .and_then(|p| p.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("discover said: {stderr}"));
    assert!(expected_keys > 0, "{stderr}");

    let found = discover(&addr);
    eprintln!("discovered: {found}\nlabels count: {said}labels discover: {stderr}");
    assert!(
        found["merged"].as_u64().unwrap() >= 2,
        "every agent's batches: {found}"
    );
    let version = &found["published"];
    assert_eq!(version["version"], 2, "{found}");
    assert_eq!(
        version["entries"].as_u64(),
        Some(expected_keys),
        "{found} vs {stderr}"
    );
    // Exact: the hub's total is the sum of the two agents' counts, which
    // is what one `labels count` over every page finds.
    let info = &version["counts"];
    assert!(
        info["batches"]["a"].is_array() && info["batches"]["b"].is_array(),
        "{info}"
    );
    assert_eq!(
        info["occurrences"].as_u64(),
        Some(occurrences),
        "{info} vs {said}"
    );
    let (status, body) = http(&addr, "GET", "/v1/sets/crawl", &[], b"").unwrap();
    assert_eq!(status, 200);
    let latest: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        latest["counts"], *info,
        "GET /v1/sets/crawl says which counts went in"
    );

    // A batch sent again is taken once; discovery then has nothing new.
    // Before any page is judged again: a page judged makes a new batch,
    // which a slow machine may ship before this discovery runs.
    let batch = std::fs::read(&counts).unwrap();
    let (status, receipt) = post_counts(&addr, COUNT, "a", "1", &batch);
    assert_eq!(
        (status, &receipt["duplicate"]),
        (200, &Value::Bool(true)),
        "{receipt}"
    );
    let again = discover(&addr);
    assert_eq!(
        (again["merged"].as_u64(), &again["published"]),
        (Some(0), &Value::Null),
        "{again}"
    );

    // The follower swaps the new version in and flags the next copy.
    wait_until("agent a on version 2", 60, || {
        a.metric("crawlsieve_labeled_set_version{set=\"crawl\"}") == 2.0
    });
    let copy = judge(&a, "http://late-copier.example/p", &pages[3]);
    assert_eq!(copy["verdict"], "flag", "{copy}");
    let fresh = judge(&a, "http://own-new.example/p", &pages[20]);
    assert_ne!(fresh["verdict"], "flag", "{fresh}");

    // Hostile uploads: clear answers, nothing taken.
    assert_eq!(post_counts(&addr, "wrong", "x", "1", &batch).0, 401);
    assert_eq!(
        post_counts(&addr, PUBLISH, "x", "1", &batch).0,
        401,
        "the count token, not the publish token"
    );
    assert_eq!(post_counts(&addr, COUNT, "../x", "1", &batch).0, 400);
    assert_eq!(post_counts(&addr, COUNT, "x", "0", &batch).0, 400);
    assert_eq!(
        post_counts(&addr, COUNT, "x", "1", b"CSCOUNTS not a count file").0,
        400
    );
    let mut disordered = batch.clone();
    let n = disordered.len();
    if n >= 15 + 72 {
        let first: Vec<u8> = disordered[15..51].to_vec();
        disordered.copy_within(51..87, 15);
        disordered[51..87].copy_from_slice(&first);
        assert_eq!(post_counts(&addr, COUNT, "x", "1", &disordered).0, 400);
    }
    assert_eq!(post_empty(&addr, "/v1/counts/nope", COUNT), 404);
    // A blind set is the hub's to publish.
    assert_eq!(post_empty(&addr, "/v1/sets/crawl", PUBLISH), 409);
    // A new agent's batch is taken and changes nothing the threshold keeps
    // only when it adds occurrences: here one more copy of everything.
    let (status, receipt) = post_counts(&addr, COUNT, "x", "1", &batch);
    assert_eq!(status, 201, "{receipt}");
    let grown = discover(&addr);
    assert!(grown["merged"].as_u64().unwrap() >= 1, "{grown}");

    let mut a = a;
    let mut b = b;
    assert!(a.terminate().success());
    assert!(b.terminate().success());
    hub_process.assert_no_secret_logged(&[PUBLISH, COUNT]);
    drop(hub_process);
}

/// A hub for set `crawl` at threshold 4 in `dir/name`; with `cap`, also
/// `--agent-cap CAP` and a token per agent (`dir/agents.tokens`).
fn capping_hub(dir: &Path, key: &Path, name: &str, cap: Option<&str>) -> Hub {
    let home = dir.join(name);
    std::fs::create_dir_all(&home).unwrap();
    let count = dir.join("count.token");
    let tokens = dir.join("agents.tokens");
    let mut flags = vec![
        "--blind",
        "crawl=4",
        "--discover-every",
        "0",
        "--count-token-file",
    ];
    flags.push(count.to_str().unwrap());
    if let Some(cap) = cap {
        flags.extend([
            "--agent-cap",
            cap,
            "--agent-tokens-file",
            tokens.to_str().unwrap(),
        ]);
    }
    start_hub_with(&home, key, &dir.join("publish.token"), &flags)
}

/// One agent holding the count token sends fabricated counts: the ordinary
/// pages three honest agents saw once each, "seen" twenty times more. With
/// `--agent-cap 2` (threshold 4) the rogue adds at most 2 to any key, so no
/// ordinary page is flagged, while a page honestly copied on six sites
/// across the three agents still is; the same counts at a hub without the
/// cap flag the ordinary pages (the attack the cap stops is real).
#[test]
fn one_agent_cannot_push_ordinary_text_over_the_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let (key, public) = keygen(dir);
    std::fs::write(dir.join("publish.token"), PUBLISH).unwrap();
    std::fs::write(dir.join("count.token"), COUNT).unwrap();
    // Each agent its own token: ids are bound to tokens, so the rogue
    // cannot send under more names than it holds tokens for.
    std::fs::write(
        dir.join("agents.tokens"),
        "# agent token\nhonest0 t-h0\nhonest1 t-h1\nhonest2 t-h2\nrogue t-rogue\n",
    )
    .unwrap();
    let capped = capping_hub(dir, &key, "capped", Some("2"));
    let open = capping_hub(dir, &key, "open", None);

    let pages = real_pages(13);
    let copied = &pages[0];
    let ordinary = rogue::ordinary(&pages);
    let batches = honest_and_rogue(dir, copied, &ordinary);
    let rogue = &batches[3].1;
    // Per-agent tokens: the shared token, another agent's id, or a new id
    // are all refused.
    assert_eq!(post_counts(&capped.addr, COUNT, "rogue", "1", rogue).0, 401);
    assert_eq!(
        post_counts(&capped.addr, "t-rogue", "honest0", "9", rogue).0,
        401
    );
    assert_eq!(
        post_counts(&capped.addr, "t-rogue", "rogue-2", "1", rogue).0,
        401
    );
    let mut judged = Vec::new();
    for (hub, per_agent) in [(&capped, true), (&open, false)] {
        for (agent, body) in &batches {
            let token = match (per_agent, agent.strip_prefix("honest")) {
                (false, _) => COUNT.to_string(),
                (true, Some(i)) => format!("t-h{i}"),
                (true, None) => "t-rogue".to_string(),
            };
            assert_eq!(post_counts(&hub.addr, &token, agent, "1", body).0, 201);
        }
        let found = discover(&hub.addr);
        assert_eq!(found["merged"].as_u64(), Some(4), "{found}");
        // The set says who contributed and under which cap.
        let counts = &found["published"]["counts"];
        assert!(counts["batches"]["rogue"].is_array(), "{counts}");
        assert_eq!(
            counts["agent_cap"].as_u64(),
            per_agent.then_some(2),
            "{counts}"
        );
        let (status, set) = http(&hub.addr, "GET", "/v1/sets/crawl/full", &[], b"").unwrap();
        assert_eq!(status, 200);
        let file = dir.join("crawl.cslab");
        std::fs::write(&file, set).unwrap();
        let mut pages = ordinary.clone();
        pages.push(("http://late-copier.example/p".to_string(), copied));
        judged.push(scan(dir, &public, &file, &pages));
    }
    let flagged = |v: &[Value]| ordinary_flagged(v);
    eprintln!(
        "ordinary pages flagged: capped {}, open {} of 12",
        flagged(&judged[0]),
        flagged(&judged[1])
    );
    assert_eq!(flagged(&judged[0]), 0, "capped: no ordinary page flagged");
    assert_eq!(
        judged[0][12]["verdict"], "flag",
        "capped: the real copy still found"
    );
    assert!(
        flagged(&judged[1]) >= 10,
        "without the cap the rogue's counts flag the ordinary pages: {}",
        flagged(&judged[1])
    );
    // A cap over the threshold bounds nothing: refused at start-up.
    let out = bin()
        .args(["hub", "--store"])
        .arg(dir.join("bad"))
        .arg("--key")
        .arg(&key)
        .arg("--token-file")
        .arg(dir.join("publish.token"))
        .args(["--blind", "crawl=4", "--agent-cap", "5"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--agent-cap 5"));
    for hub in [&capped, &open] {
        hub.assert_no_secret_logged(&[PUBLISH, COUNT, "t-h0", "t-h1", "t-h2", "t-rogue"]);
    }
}
