//! `crawlsieve styles` and `style_fp` on real pages (a wget crawl of several
//! sites, ../shared/data/warc/dolma-samples), through the real binary.

use crate::common;

use common::{bin, json_lines as lines, run, shared_data, verdicts};
use serde_json::Value;
use std::collections::BTreeMap;

/// Cluster lines, without the fields that name run order only.
fn clusters_of(out: &std::process::Output) -> Vec<(u64, String, Vec<String>)> {
    lines(out)
        .iter()
        .map(|c| {
            let mut members: Vec<String> = c["members"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["url"].as_str().unwrap().to_string())
                .collect();
            members.push(c["prototype"]["url"].as_str().unwrap().to_string());
            members.sort();
            (
                c["pages"].as_u64().unwrap(),
                c["top_sites"][0][0].as_str().unwrap().to_string(),
                members,
            )
        })
        .collect()
}

#[test]
fn pages_of_one_site_cluster_by_their_markup() {
    let Some(data) = shared_data() else { return };
    let warcs = data.join("warc").join("dolma-samples");
    let dir = tempfile::tempdir().unwrap();
    let verdict_file = dir.path().join("v.jsonl");

    // Verdicts carry the fingerprint only when asked.
    let plain = verdicts(&run(bin().args(["scan", "-q"]).arg(&warcs)));
    assert!(plain.iter().all(|v| v.get("style_fp").is_none()));
    let out = run(bin()
        .args(["scan", "-q", "--style-fp", "-o"])
        .arg(&verdict_file)
        .arg(&warcs));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&verdict_file).unwrap();
    let with: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(with.len() >= 30);
    for v in &with {
        if v["verdict"] != "error" {
            assert_eq!(v["style_fp"].as_str().unwrap().len(), 683, "{v}");
        }
    }

    // Clusters from the verdicts and from the pages themselves are the same,
    // also when the fingerprints spill to disk.
    let from_verdicts = run(bin().args(["styles", "cluster"]).arg(&verdict_file));
    let from_pages = run(bin()
        .args(["styles", "cluster", "--members", "100"])
        .arg(&warcs));
    let spilled = run(bin()
        .args(["styles", "cluster", "--members", "100", "--memory-mb", "0"])
        .arg(&warcs));
    let a = clusters_of(&from_pages);
    assert_eq!(clusters_of(&spilled), a);
    assert!(String::from_utf8_lossy(&spilled.stderr).contains("spilled"));
    let b = clusters_of(&from_verdicts);
    assert_eq!(a.len(), b.len());
    assert_eq!(
        a.iter().map(|c| c.0).sum::<u64>(),
        b.iter().map(|c| c.0).sum::<u64>()
    );

    // Several sites of the crawl form clusters, and no cluster mixes sites
    // (measured: 8 clusters, each of one site).
    let raw = lines(&from_pages);
    assert!(raw.len() >= 4, "{raw:?}");
    for c in &raw {
        assert_eq!(c["sites"], 1, "{c}");
        assert!(c["mean_similarity"].as_f64().unwrap() > 35.0 / 128.0);
    }
    let ranks: Vec<u64> = raw.iter().map(|c| c["cluster"].as_u64().unwrap()).collect();
    assert_eq!(ranks, (1..=raw.len() as u64).collect::<Vec<_>>());

    // One against all: the reference's own site comes first.
    let site_of: BTreeMap<String, String> = with
        .iter()
        .filter_map(|v| {
            Some((
                v["url"].as_str()?.to_string(),
                v["site"].as_str()?.to_string(),
            ))
        })
        .collect();
    let biggest = raw
        .iter()
        .max_by_key(|c| c["pages"].as_u64().unwrap())
        .unwrap();
    let reference = biggest["prototype"]["url"].as_str().unwrap();
    let site = &site_of[reference];
    let out = run(bin()
        .args(["styles", "like", "--url", reference, "--limit", "0"])
        .arg(&verdict_file));
    let ranked = lines(&out);
    let pages: Vec<&Value> = ranked.iter().filter(|l| l.get("type").is_none()).collect();
    assert_eq!(
        pages.len(),
        with.iter().filter(|v| v.get("style_fp").is_some()).count()
    );
    assert_eq!(pages[0]["url"], reference);
    let n = biggest["pages"].as_u64().unwrap() as usize;
    for p in &pages[..n] {
        assert_eq!(p["site"].as_str(), Some(site.as_str()), "{p}");
    }
    assert!(pages
        .windows(2)
        .all(|w| w[0]["matched"].as_u64() >= w[1]["matched"].as_u64()));
    assert!(ranked.iter().any(|l| l["type"] == "gap"));

    // The report shows the clusters.
    let clusters = dir.path().join("c.jsonl");
    std::fs::write(&clusters, &from_pages.stdout).unwrap();
    let html = dir.path().join("r.html");
    let out = run(bin()
        .args(["report", "--html"])
        .arg(&html)
        .arg("--styles")
        .arg(&clusters)
        .arg(&verdict_file));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("Style clusters") && page.contains(site.as_str()));
}

#[test]
fn bad_styles_input_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v.jsonl");
    std::fs::write(&v, "{\"url\":\"https://e.com/\",\"verdict\":\"keep\"}\n").unwrap();
    let out = run(bin().args(["styles", "cluster"]).arg(&v));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--style-fp"));
    let out = run(bin().args(["styles", "cluster", "--probes", "0"]).arg(&v));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("probes"));
    let out = run(bin()
        .args(["styles", "like", "--url", "https://nowhere/"])
        .arg(&v));
    assert_eq!(out.status.code(), Some(2));
    std::fs::write(
        &v,
        "{\"url\":\"https://e.com/\",\"verdict\":\"keep\",\"style_fp\":\"AAAA\"}\n",
    )
    .unwrap();
    let out = run(bin().args(["styles", "cluster"]).arg(&v));
    assert!(String::from_utf8_lossy(&out.stderr).contains("style_fp holds"));
}
