//! Spun content across a crawl: DSpin's pipeline (Zhang, Wang and Voelker,
//! NDSS 2014, §V-D to §VI) over pages' immutable signatures.
//!
//! 1. **Exact duplicates** (§V-E) are pages with the same normalised content
//!    (its SHA-1, as `content_sha1`); one of each group goes on.
//! 2. **Candidate pairs** come from an inverted index of immutable grams
//!    (`fingerprints::immutables`): two pages are compared only when they
//!    share a gram, and a gram held by more than `max_postings` pages is
//!    boilerplate, left out — so the work is linear in the crawl, never
//!    all-pairs (quilts cap patch grams the same way).
//! 3. **Pair score**: shared grams over the larger page's grams (DSpin's
//!    shared immutables over the page's own, taken the stricter way round: a
//!    page quoting one paragraph of a short article shares all of that
//!    paragraph, a small part of itself; grams in order, not a bag of words
//!    — see `immutables`). Pairs at `threshold` or above are the same source.
//! 4. **The mutable verifier** (§V-E): a pair whose words themselves match
//!    (sampled 6-word shingles, `near` of the smaller page's) is a **near
//!    duplicate** — copied, not spun. Near duplicates are grouped apart.
//! 5. **Spun clusters**: connected components of the remaining pairs, each
//!    with its members, their sites, and each member's similarity to the
//!    cluster's most central page (the one with the most links).
//!
//! The signatures are computed where the pages are (`Signature`, one JSON
//! line each), so step 1 runs on every machine of a crawl; steps 2–5 read
//! every machine's signatures.

use crate::crawl::components::Components;
use crate::crawl::sort::intersection_len;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// What DSpin needs of a page, computed where the page is read.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Signature {
    pub url: String,
    #[serde(default)]
    pub site: Option<String>,
    /// SHA-1 of the normalised content, hex (the verdict's `content_sha1`).
    pub content: String,
    /// Sampled 6-word shingles (ascending): the mutable verifier's evidence.
    pub shingles: Vec<u64>,
    /// Sampled immutable grams (ascending); none when the page's language
    /// has no mutables dictionary.
    pub grams: Vec<u64>,
}

/// The definition's parameters.
#[derive(Debug, Clone, Copy)]
pub struct Params {
    /// Pair score at or above which two pages share a source.
    pub threshold: f64,
    /// Shingle containment at or above which a pair is a near duplicate.
    pub near: f64,
    /// A gram in more pages than this is left out of the index.
    pub max_postings: usize,
    /// Pages with fewer grams are not compared (too little to judge).
    pub min_grams: usize,
}

impl Params {
    /// Measured in `bench/spun.py --crawl` (docs/benchmarks.md).
    /// Pairs, not a page against a set of many: unrelated pages share less,
    /// and 0.08 keeps 97.5 % of the spun pairs the crawl benchmark builds.
    pub const DEFAULT: Params = Params {
        threshold: 0.08,
        near: 0.5,
        max_postings: 64,
        min_grams: 8,
    };
}

/// A group of exact or near duplicates.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Group {
    /// `exact_duplicates` or `near_duplicates`.
    #[serde(rename = "type")]
    pub kind: String,
    pub urls: Vec<String>,
    pub sites: Vec<String>,
}

/// A member of a spun cluster.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Member {
    pub url: String,
    pub site: Option<String>,
    /// Pair score with the cluster's center (1 for the center): shared
    /// immutable grams over the larger page's.
    pub similarity: f64,
}

/// Spun variants of one source.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Cluster {
    /// Always `spun_cluster`.
    #[serde(rename = "type")]
    pub kind: String,
    pub size: usize,
    /// The member with the most links.
    pub center: String,
    pub sites: Vec<String>,
    pub members: Vec<Member>,
}

/// What a run found and did.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Stats {
    pub pages: usize,
    /// Pages with fewer than `min_grams` grams (no dictionary, or short).
    pub without_grams: usize,
    pub exact_groups: usize,
    pub near_groups: usize,
    pub clusters: usize,
    /// Grams left out of the index for being in too many pages.
    pub common_grams: usize,
    pub candidate_pairs: usize,
    pub pairs: usize,
}

/// One line of `crawlsieve spun`'s output, read back (by `report`).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Line {
    Cluster(Cluster),
    Group(Group),
}

/// Everything found, in output order.
#[derive(Debug, Default)]
pub struct Found {
    pub exact: Vec<Group>,
    pub near: Vec<Group>,
    pub clusters: Vec<Cluster>,
    pub stats: Stats,
}

/// Shared over the smaller of the two (0 when either is empty).
pub fn containment(a: &[u64], b: &[u64]) -> f64 {
    let min = a.len().min(b.len());
    if min == 0 {
        0.0
    } else {
        intersection_len(a, b) as f64 / min as f64
    }
}

/// Shared over the larger of the two: the pair score (0 when either is empty).
pub fn score(a: &[u64], b: &[u64]) -> f64 {
    let max = a.len().max(b.len());
    if a.is_empty() || b.is_empty() {
        0.0
    } else {
        intersection_len(a, b) as f64 / max as f64
    }
}

/// Runs steps 1–5 over every page's signature.
pub fn find(pages: &[Signature], p: &Params) -> Found {
    let mut found = Found::default();
    found.stats.pages = pages.len();
    let (reps, exact) = exact_duplicates(pages);
    found.exact = exact
        .iter()
        .map(|g| group("exact_duplicates", pages, g))
        .collect();
    let counts = shared_grams(pages, &reps, p, &mut found.stats);
    let (mut near, spun_pairs) = judge_pairs(pages, counts, p, &mut found.stats);
    found.near = near
        .groups(reps.iter().copied())
        .iter()
        .map(|g| group("near_duplicates", pages, g))
        .collect();
    found.clusters = spun_clusters(pages, &spun_pairs, &mut near);
    found.stats.exact_groups = found.exact.len();
    found.stats.near_groups = found.near.len();
    found.stats.clusters = found.clusters.len();
    found
}

/// Step 1: pages with the same content, grouped; one representative of
/// each content (its first page) goes on. Both sorted.
fn exact_duplicates(pages: &[Signature]) -> (Vec<u32>, Vec<Vec<u32>>) {
    let mut by_content: FxHashMap<&str, Vec<u32>> = FxHashMap::default();
    for (i, s) in pages.iter().enumerate() {
        by_content.entry(&s.content).or_default().push(i as u32);
    }
    let mut reps: Vec<u32> = by_content.values().map(|g| g[0]).collect();
    let mut exact: Vec<Vec<u32>> = by_content.into_values().filter(|g| g.len() > 1).collect();
    reps.sort_unstable();
    exact.sort_unstable();
    (reps, exact)
}

/// Step 2: the grams each pair of representatives shares, through the
/// inverted index (pairs keyed `a << 32 | b`, a < b); a gram in more than
/// `max_postings` pages pairs nothing.
fn shared_grams(
    pages: &[Signature],
    reps: &[u32],
    p: &Params,
    stats: &mut Stats,
) -> FxHashMap<u64, u32> {
    let mut postings: FxHashMap<u64, Vec<u32>> = FxHashMap::default();
    for &r in reps {
        let g = &pages[r as usize].grams;
        if g.len() < p.min_grams {
            stats.without_grams += 1;
            continue;
        }
        for &gram in g {
            postings.entry(gram).or_default().push(r);
        }
    }
    let mut counts: FxHashMap<u64, u32> = FxHashMap::default();
    for list in postings.values() {
        if list.len() > p.max_postings {
            stats.common_grams += 1;
            continue;
        }
        for (i, &a) in list.iter().enumerate() {
            for &b in &list[i + 1..] {
                *counts.entry(u64::from(a) << 32 | u64::from(b)).or_default() += 1;
            }
        }
    }
    stats.candidate_pairs = counts.len();
    counts
}

/// Steps 3–4: the pairs at the threshold, near duplicates (the mutable
/// verifier) joined into components, the others returned as spun pairs.
fn judge_pairs(
    pages: &[Signature],
    counts: FxHashMap<u64, u32>,
    p: &Params,
    stats: &mut Stats,
) -> (Components, Vec<(u32, u32)>) {
    let mut near = Components::new(pages.len());
    let mut spun_pairs = Vec::new();
    let mut pairs: Vec<(u64, u32)> = counts.into_iter().collect();
    pairs.sort_unstable();
    for (key, n) in pairs {
        let (a, b) = ((key >> 32) as u32, (key & 0xffff_ffff) as u32);
        let (pa, pb) = (&pages[a as usize], &pages[b as usize]);
        let max = pa.grams.len().max(pb.grams.len());
        if f64::from(n) / (max as f64) < p.threshold {
            continue;
        }
        stats.pairs += 1;
        if containment(&pa.shingles, &pb.shingles) >= p.near {
            near.union(a, b);
        } else {
            spun_pairs.push((a, b));
        }
    }
    (near, spun_pairs)
}

/// Step 5: components of the spun pairs between near-duplicate groups
/// (a group stands as its root), largest first.
fn spun_clusters(
    pages: &[Signature],
    spun_pairs: &[(u32, u32)],
    near: &mut Components,
) -> Vec<Cluster> {
    let mut comps = Components::new(pages.len());
    let mut links: FxHashMap<u32, u32> = FxHashMap::default();
    for &(a, b) in spun_pairs {
        let (ra, rb) = (near.find(a), near.find(b));
        if ra != rb {
            comps.union(ra, rb);
            *links.entry(ra).or_default() += 1;
            *links.entry(rb).or_default() += 1;
        }
    }
    let mut clusters = comps.groups(links.keys().copied());
    clusters.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    clusters.iter().map(|m| cluster(pages, m, &links)).collect()
}

fn sites(pages: &[Signature], ids: &[u32]) -> Vec<String> {
    let set: BTreeSet<&str> = ids
        .iter()
        .filter_map(|&i| pages[i as usize].site.as_deref())
        .collect();
    set.into_iter().map(str::to_string).collect()
}

fn group(kind: &'static str, pages: &[Signature], ids: &[u32]) -> Group {
    Group {
        kind: kind.to_string(),
        urls: ids.iter().map(|&i| pages[i as usize].url.clone()).collect(),
        sites: sites(pages, ids),
    }
}

fn cluster(pages: &[Signature], ids: &[u32], links: &FxHashMap<u32, u32>) -> Cluster {
    let center = *ids
        .iter()
        .max_by_key(|&&i| (links.get(&i).copied().unwrap_or(0), std::cmp::Reverse(i)))
        .expect("a cluster has members");
    let c = &pages[center as usize];
    let mut members: Vec<Member> = ids
        .iter()
        .map(|&i| {
            let m = &pages[i as usize];
            Member {
                url: m.url.clone(),
                site: m.site.clone(),
                similarity: if i == center {
                    1.0
                } else {
                    (score(&m.grams, &c.grams) * 1000.0).round() / 1000.0
                },
            }
        })
        .collect();
    members.sort_by(|a, b| b.similarity.total_cmp(&a.similarity));
    Cluster {
        kind: "spun_cluster".to_string(),
        size: ids.len(),
        center: c.url.clone(),
        sites: sites(pages, ids),
        members,
    }
}

/// Distinct sites over all clusters (the report's "sites hosting spun content").
pub fn cluster_sites(clusters: &[Cluster]) -> usize {
    clusters
        .iter()
        .flat_map(|c| c.sites.iter())
        .collect::<FxHashSet<_>>()
        .len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(url: &str, content: &str, shingles: &[u64], grams: std::ops::Range<u64>) -> Signature {
        Signature {
            url: url.into(),
            site: Some(url.split('/').nth(2).unwrap_or("").into()),
            content: content.into(),
            shingles: shingles.to_vec(),
            grams: grams.collect(),
        }
    }

    #[test]
    fn exact_near_and_spun_are_told_apart() {
        let pages = vec![
            sig("http://a.example/1", "c1", &[1, 2, 3], 0..100),
            sig("http://b.example/1", "c1", &[1, 2, 3], 0..100), // exact copy of a
            sig("http://c.example/1", "c2", &[1, 2, 4], 0..90),  // near: the words match
            sig("http://d.example/1", "c3", &[7, 8, 9], 80..180), // spun: 20 of 100 grams shared
            sig("http://e.example/1", "c4", &[10], 1000..1100),  // unrelated
        ];
        let f = find(&pages, &Params::DEFAULT);
        assert_eq!(f.exact.len(), 1);
        assert_eq!(
            f.exact[0].urls,
            ["http://a.example/1", "http://b.example/1"]
        );
        assert_eq!(f.near.len(), 1);
        assert_eq!(f.near[0].urls, ["http://a.example/1", "http://c.example/1"]);
        assert_eq!(f.clusters.len(), 1);
        let c = &f.clusters[0];
        assert_eq!(c.size, 2);
        assert!(c.sites.contains(&"d.example".to_string()));
        assert!(c.members.iter().all(|m| m.similarity > 0.1));
        assert!(!c.members.iter().any(|m| m.url.contains("e.example")));
    }

    #[test]
    fn a_gram_in_too_many_pages_links_nothing() {
        // 100 pages sharing the same 10 grams (boilerplate) and nothing else.
        let pages: Vec<Signature> = (0..100)
            .map(|i| Signature {
                url: format!("http://s{i}.example/"),
                site: None,
                content: format!("c{i}"),
                shingles: vec![i],
                grams: (0..10).chain(1000 + i * 100..1000 + i * 100 + 90).collect(),
            })
            .collect();
        let f = find(&pages, &Params::DEFAULT);
        assert_eq!(f.stats.common_grams, 10);
        assert!(f.clusters.is_empty());
        assert_eq!(f.stats.candidate_pairs, 0);
    }
}
