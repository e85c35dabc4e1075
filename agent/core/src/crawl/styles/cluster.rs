//! Clusters of pages with the same hidden style (seed 003, §3.4, Procedure 2).
//!
//! Comparing every pair is quadratic. Procedure 2 *probes* instead: for `p`
//! dimensions (k = 1), pages that hold the same value there are candidates,
//! and a candidate pair becomes an edge of the similarity graph when it
//! *checks*: more than `t` of the 128 dimensions agree. Clusters are the
//! connected components. With m = 128 and k = 1, `p·t ≥ 512` keeps the chance
//! of missing an edge of a similar pair under 1 % (§3.4.2).
//!
//! A probe group can be large (every page of a big site shares many values),
//! and checking all its pairs would be quadratic again. The graph's
//! quasi-transitivity (§3.4.1: if x~y and y~z, most likely x~z) makes that
//! unnecessary: within a group each page is checked against at most
//! [`Params::anchors`] pages that stand for the distinct components already
//! found in the group, and it joins every one it checks against. Work is
//! O(pages · probes · anchors) whatever the shape of the crawl.

use super::store::Store;
use crate::crawl::components::Components;
use crate::fingerprints::style::{Fingerprint, M};
use serde::{Deserialize, Serialize};

/// Procedure 2's parameters.
#[derive(Debug, Clone, Copy)]
pub struct Params {
    /// Probes: dimensions whose values group candidates (the paper's p).
    pub probes: usize,
    /// Check: a candidate pair is an edge when more than this many dimensions agree (t).
    pub check: u32,
    /// Components a page is checked against within one probe group.
    pub anchors: usize,
}

/// Clustering parameters out of their range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamsError {
    #[error("probes must be 1..={M}, not {0}")]
    Probes(usize),
    #[error("check must be 1..{M}, not {0}")]
    Check(usize),
    #[error("anchors must be at least 1")]
    Anchors,
}

impl Params {
    /// The paper's global clustering (§4.2): p = 20, t = 35 (p·t = 700).
    pub const PAPER: Params = Params {
        probes: 20,
        check: 35,
        anchors: 16,
    };

    pub fn validate(&self) -> Result<(), ParamsError> {
        if self.probes == 0 || self.probes > M {
            return Err(ParamsError::Probes(self.probes));
        }
        if self.check == 0 || self.check as usize >= M {
            return Err(ParamsError::Check(self.check as usize));
        }
        if self.anchors == 0 {
            return Err(ParamsError::Anchors);
        }
        Ok(())
    }

    /// The probability bound of §3.4.2 that probing misses a pair agreeing in
    /// exactly `check` dimensions: C(m−p, t) / C(m, t).
    pub fn miss_probability(&self) -> f64 {
        let (m, t) = (M as f64, self.check as f64);
        let mut q = 1.0;
        for j in 0..self.probes {
            let j = j as f64;
            if m - t - j <= 0.0 {
                return 0.0;
            }
            q *= (m - t - j) / (m - j);
        }
        q
    }
}

/// The dimensions probed, in order: a fixed permutation of 0..128 (SplitMix64
/// from seed 1), so that runs are reproducible.
pub fn probe_dimensions(probes: usize) -> Vec<usize> {
    let mut dims: Vec<usize> = (0..M).collect();
    let mut s = 1u64;
    for i in (1..M).rev() {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        dims.swap(i, (z % (i as u64 + 1)) as usize);
    }
    dims.truncate(probes);
    dims
}

/// What a clustering run did.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Stats {
    pub pages: u64,
    /// Pages with an empty fingerprint (no 32 bytes of markup): never clustered.
    pub empty: u64,
    pub candidate_groups: u64,
    pub checks: u64,
    pub edges: u64,
}

/// The similarity graph's components of two or more pages, as page indices,
/// with each page's number of edges.
pub struct Graph {
    /// Component root of every page.
    roots: Vec<u32>,
    /// Edges per page (to choose a cluster's prototype).
    pub degree: Vec<u32>,
    pub stats: Stats,
}

/// What Procedure 2 changes as it goes through one candidate group.
struct Group<'a> {
    store: &'a Store,
    params: Params,
    comps: &'a mut Components,
    degree: &'a mut [u32],
    stats: &'a mut Stats,
}

impl Group<'_> {
    /// One candidate group (pages sharing a value in a probed dimension):
    /// each page checked against the group's anchors, joined to those it
    /// matches, kept as an anchor when it joined none.
    fn join(
        self,
        pages: &[(u32, u32)],
        anchors: &mut Vec<(u32, Fingerprint)>,
    ) -> anyhow::Result<()> {
        anchors.clear();
        for &(_, page) in pages {
            let fp = self.store.fingerprint(page as usize)?;
            let mut joined = false;
            let mut a = 0;
            while a < anchors.len() {
                let (anchor, ref afp) = anchors[a];
                if self.comps.find(anchor) == self.comps.find(page) {
                    joined = true;
                    a += 1;
                    continue;
                }
                self.stats.checks += 1;
                if fp.matched(afp) > self.params.check {
                    self.comps.union(anchor, page);
                    self.degree[anchor as usize] += 1;
                    self.degree[page as usize] += 1;
                    self.stats.edges += 1;
                    joined = true;
                }
                a += 1;
            }
            // Anchors that now share a component stand for it once.
            let mut k = 0;
            while k < anchors.len() {
                let rk = self.comps.find(anchors[k].0);
                if anchors[..k].iter().any(|(o, _)| self.comps.find(*o) == rk) {
                    anchors.swap_remove(k);
                } else {
                    k += 1;
                }
            }
            if !joined && anchors.len() < self.params.anchors {
                anchors.push((page, fp));
            }
        }
        Ok(())
    }
}

/// Procedure 2 over every fingerprint in `store`.
pub fn components(store: &Store, params: Params) -> anyhow::Result<Graph> {
    params.validate().map_err(anyhow::Error::msg)?;
    let n = store.len();
    anyhow::ensure!(n < u32::MAX as usize, "more than 4 billion pages");
    let mut comps = Components::new(n);
    let mut degree = vec![0u32; n];
    let mut stats = Stats {
        pages: n as u64,
        ..Default::default()
    };
    store.scan(|_, fp| {
        if fp.filled() == 0 {
            stats.empty += 1;
        }
    })?;
    let mut column: Vec<(u32, u32)> = Vec::with_capacity(n);
    let mut anchors: Vec<(u32, Fingerprint)> = Vec::with_capacity(params.anchors);
    for dim in probe_dimensions(params.probes) {
        column.clear();
        store.scan(|i, fp| {
            if fp.0[dim] != 0 {
                column.push((fp.0[dim], i as u32));
            }
        })?;
        column.sort_unstable();
        let mut start = 0;
        while start < column.len() {
            let value = column[start].0;
            let mut end = start + 1;
            while end < column.len() && column[end].0 == value {
                end += 1;
            }
            if end - start >= 2 {
                stats.candidate_groups += 1;
                let group = Group {
                    store,
                    params,
                    comps: &mut comps,
                    degree: &mut degree,
                    stats: &mut stats,
                };
                group.join(&column[start..end], &mut anchors)?;
            }
            start = end;
        }
    }
    let roots = (0..n as u32).map(|i| comps.find(i)).collect();
    Ok(Graph {
        roots,
        degree,
        stats,
    })
}

/// A page of a cluster, as written out.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Member {
    pub url: String,
    #[serde(default)]
    pub site: Option<String>,
    /// `Sim_b` to the cluster's prototype.
    pub similarity: f64,
}

/// One cluster, as `crawlsieve styles cluster` writes it (one JSON line).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Cluster {
    /// Rank by `mean_similarity × sites` (the order of the paper's Table 1), from 1.
    pub cluster: u32,
    pub pages: u64,
    /// Distinct registered domains.
    pub sites: u64,
    /// Mean `Sim_b` of the other members to the prototype.
    pub mean_similarity: f64,
    /// The member with the most edges: the centroid the paper shows.
    pub prototype: Member,
    /// Sites with most pages, with their page counts (at most 10).
    pub top_sites: Vec<(String, u64)>,
    /// Members most like the prototype first (at most `--members`).
    pub members: Vec<Member>,
}

/// Turns the graph into clusters of at least `min_pages`, ranked; calls
/// `assign(page, cluster)` for every clustered page.
pub fn clusters(
    store: &Store,
    graph: &Graph,
    min_pages: u64,
    members: usize,
    mut assign: impl FnMut(usize, u32) -> anyhow::Result<()>,
) -> anyhow::Result<Vec<Cluster>> {
    let mut order: Vec<(u32, u32)> = graph
        .roots
        .iter()
        .enumerate()
        .map(|(i, &r)| (r, i as u32))
        .collect();
    order.sort_unstable();
    let mut out = Vec::new();
    let mut groups: Vec<(u32, usize, usize)> = Vec::new();
    let mut start = 0;
    while start < order.len() {
        let root = order[start].0;
        let mut end = start + 1;
        while end < order.len() && order[end].0 == root {
            end += 1;
        }
        if (end - start) as u64 >= min_pages.max(2) {
            groups.push((root, start, end));
        }
        start = end;
    }
    for &(root, start, end) in &groups {
        out.push((root, cluster(store, graph, &order[start..end], members)?));
    }
    out.sort_by(|(_, a), (_, b)| {
        let key = |c: &Cluster| c.mean_similarity * c.sites as f64;
        key(b)
            .total_cmp(&key(a))
            .then(b.pages.cmp(&a.pages))
            .then_with(|| a.prototype.url.cmp(&b.prototype.url))
    });
    let mut rank_of_root = std::collections::HashMap::with_capacity(out.len());
    for (rank, (root, c)) in out.iter_mut().enumerate() {
        c.cluster = rank as u32 + 1;
        rank_of_root.insert(*root, c.cluster);
    }
    for &(root, start, end) in &groups {
        for &(_, p) in &order[start..end] {
            assign(p as usize, rank_of_root[&root])?;
        }
    }
    Ok(out.into_iter().map(|(_, c)| c).collect())
}

/// One component's cluster: its prototype (the member with most edges), its
/// members by similarity to it, its sites.
fn cluster(
    store: &Store,
    graph: &Graph,
    pages: &[(u32, u32)],
    members: usize,
) -> anyhow::Result<Cluster> {
    let proto = pages
        .iter()
        .map(|&(_, p)| p)
        .max_by_key(|&p| (graph.degree[p as usize], std::cmp::Reverse(p)))
        .expect("non-empty");
    let pfp = store.fingerprint(proto as usize)?;
    let mut sims: Vec<(u32, u32)> = Vec::with_capacity(pages.len());
    let mut sites: std::collections::HashMap<String, u64> = Default::default();
    for &(_, p) in pages {
        let m = if p == proto {
            M as u32
        } else {
            store.fingerprint(p as usize)?.matched(&pfp)
        };
        sims.push((m, p));
        let site = store.page(p as usize)?.site.unwrap_or_default();
        *sites.entry(site).or_default() += 1;
    }
    let others: Vec<u32> = sims.iter().filter(|s| s.1 != proto).map(|s| s.0).collect();
    let mean = others.iter().map(|&m| m as f64).sum::<f64>() / others.len() as f64 / M as f64;
    sims.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut top_sites: Vec<(String, u64)> = sites.into_iter().collect();
    let site_count = top_sites.len() as u64;
    top_sites.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    top_sites.truncate(10);
    let member = |(m, p): (u32, u32)| -> anyhow::Result<Member> {
        let page = store.page(p as usize)?;
        Ok(Member {
            url: page.url,
            site: page.site,
            similarity: round3(m as f64 / M as f64),
        })
    };
    Ok(Cluster {
        cluster: 0,
        pages: pages.len() as u64,
        sites: site_count,
        mean_similarity: round3(mean),
        prototype: member((M as u32, proto))?,
        top_sites,
        members: sims
            .iter()
            .filter(|s| s.1 != proto)
            .take(members)
            .map(|&s| member(s))
            .collect::<anyhow::Result<_>>()?,
    })
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
