//! Step 3 of a quilt job: patch fractions, the greedy source cover, and the
//! (k, m, c, θ)-quilted pages (seed 000 §2).
//!
//! Two passes over the patches files of every partition. The first counts
//! each document's patch grams (`|pgrams(d)|`); a document whose patch
//! fraction reaches θ is a candidate. The second writes, for each candidate
//! `d` in a posting, one `(d, gram, d')` record per other document `d'` of the
//! posting — the paper's set C — into an external sort, which brings each
//! candidate's pairs together for its cover. Memory: a few dozen bytes per
//! document (its gram count, site and patch count), the sort budget, and one
//! candidate's pairs at a time. Candidates split over workers by key
//! (`--part I/N`), so this step scales out as step 2 does.
//!
//! Two refinements, both off by default (the paper's definition): foreign
//! sources only (§3), and a least share ϕ of the patch grams a source must
//! give to count (the paper's future work). With either, a page is quilted
//! when the patch grams its *counted* sources cover reach θ of its grams:
//! measured on real documentation sites (bench/HISTORY.md), a page whose
//! patch grams all come from its own site's translations otherwise becomes a
//! "foreign" quilt of a handful of incidental 1-gram sources.

use super::files::{read_docs, DocLine, PatchesReader};
use crate::crawl::sort::Sorter;
use rustc_hash::FxHashMap;
use std::collections::{BinaryHeap, HashSet};
use std::path::{Path, PathBuf};

/// The definition's parameters and the paper's refinement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Sources a quilt needs at least (c).
    pub c: u32,
    /// Patch fraction a quilt needs at least (θ).
    pub theta: f64,
    /// Sources only from another site than the page's (the paper's
    /// "foreign-sourced" quilts, §3: blog home pages quilted from their own
    /// articles are not what one looks for).
    pub foreign: bool,
    /// A source counts only when it covered at least this share of the
    /// page's patch grams when the cover chose it (the paper's §3 future
    /// work, ϕ): 0 counts every source, as the definition does.
    pub min_share: f64,
    /// This worker's share of the candidates: (index, workers).
    pub part: (u64, u64),
}

impl Params {
    /// The paper's pivot point: c = 4, θ = 0.5 (with k = 5, m = 50).
    pub const PAPER: Params = Params {
        c: 4,
        theta: 0.5,
        foreign: false,
        min_share: 0.0,
        part: (0, 1),
    };
}

/// One source of a quilt.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Source {
    pub url: String,
    pub site: Option<String>,
    /// Patch grams this source covered when the greedy cover chose it.
    pub grams: u32,
    /// Patch grams the page shares with this source in all.
    pub shared: u32,
}

/// A quilted page.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Quilt {
    pub url: String,
    pub site: Option<String>,
    pub patch_fraction: f64,
    /// `|grams_k(d)|`.
    pub grams: u32,
    /// `|pgrams_k,m(d)|`.
    pub patch_grams: u32,
    /// Patch grams the sources cover (all of them unless `foreign`).
    pub covered: u32,
    pub sources: Vec<Source>,
}

/// What step 3 saw.
#[derive(Debug, Default, Clone)]
pub struct CoverStats {
    pub documents: u64,
    pub postings: u64,
    /// Documents whose patch fraction reached θ (in this worker's part).
    pub candidates: u64,
    /// `(d, gram, d')` records sorted.
    pub pairs: u64,
    pub runs: usize,
    pub quilts: u64,
}

/// A source as the greedy cover chose it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chosen {
    pub source: u64,
    /// Patch grams it covered when chosen.
    pub grams: u32,
    /// Patch grams it shares with the page.
    pub shared: u32,
}

struct Doc {
    grams: u32,
    patch: u32,
    site: u64,
}

/// Finds the quilted pages among the documents of `docs_tables`, from the
/// patches files of every partition. Quilts come most patched first.
pub fn find(
    docs_tables: &[PathBuf],
    patches: &[PathBuf],
    params: &Params,
    spill: &Path,
    memory_bytes: usize,
) -> anyhow::Result<(Vec<Quilt>, CoverStats)> {
    let mut stats = CoverStats::default();
    let mut docs = load_docs(docs_tables, patches)?;
    stats.documents = docs.len() as u64;
    count_patches(patches, &mut docs, &mut stats)?;
    let (part, parts) = params.part;
    let candidate = |key: u64, d: &Doc| {
        key % parts == part
            && d.grams > 0
            && d.patch >= params.c
            && d.patch as f64 >= params.theta * d.grams as f64
    };
    stats.candidates = docs.iter().filter(|(k, d)| candidate(**k, d)).count() as u64;
    let mut sorter = Sorter::<(u64, u64, u64)>::new(spill, memory_bytes)?;
    if stats.candidates > 0 {
        pair_sources(patches, &docs, params, &candidate, &mut sorter)?;
    }
    stats.pairs = sorter.pushed();
    stats.runs = sorter.runs();
    let found = resolve_direction(covers(sorter, &docs, params)?, &docs, params);
    stats.quilts = found.len() as u64;
    Ok((describe(found, &docs, docs_tables)?, stats))
}

/// Every machine's documents, by key; the docs tables must be of the
/// machines whose grams the patches merged, with the same k.
fn load_docs(docs_tables: &[PathBuf], patches: &[PathBuf]) -> anyhow::Result<FxHashMap<u64, Doc>> {
    let (k, machines) = check_partitions(patches)?;
    let mut docs: FxHashMap<u64, Doc> = FxHashMap::default();
    let mut names = Vec::new();
    for t in docs_tables {
        let (tk, name) = read_docs(t, |d| {
            let site = d
                .site
                .as_deref()
                .map_or(0, |s| xxhash_rust::xxh3::xxh3_64(s.as_bytes()));
            docs.insert(
                d.doc,
                Doc {
                    grams: d.grams,
                    patch: 0,
                    site,
                },
            );
        })?;
        anyhow::ensure!(
            tk == k,
            "docs table {} was made with k = {tk}, the patches with k = {k}",
            t.display()
        );
        names.push(name);
    }
    names.sort();
    anyhow::ensure!(
        names == machines,
        "the docs tables are of machines {names:?}, the patches merge the grams of {machines:?}: \
         give every machine's docs table, and every machine's grams file to each partition's patches step"
    );
    Ok(docs)
}

/// First pass over the patches: each document's patch grams.
fn count_patches(
    patches: &[PathBuf],
    docs: &mut FxHashMap<u64, Doc>,
    stats: &mut CoverStats,
) -> anyhow::Result<()> {
    let (mut gram, mut posting) = (0u64, Vec::new());
    let mut unknown = 0u64;
    for p in patches {
        let mut r = PatchesReader::open(p)?;
        while r.next_posting(&mut gram, &mut posting)? {
            stats.postings += 1;
            for d in &posting {
                match docs.get_mut(d) {
                    Some(doc) => doc.patch += 1,
                    None => unknown += 1,
                }
            }
        }
    }
    anyhow::ensure!(
        unknown == 0,
        "{unknown} patch-gram occurrences name documents no docs table holds: give every machine's docs table"
    );
    Ok(())
}

/// Second pass: `(candidate, gram, source)` for every other document of a
/// candidate's patch grams (of another site, with `foreign`), sorted.
fn pair_sources(
    patches: &[PathBuf],
    docs: &FxHashMap<u64, Doc>,
    params: &Params,
    candidate: &impl Fn(u64, &Doc) -> bool,
    sorter: &mut Sorter<(u64, u64, u64)>,
) -> anyhow::Result<()> {
    let (mut gram, mut posting) = (0u64, Vec::new());
    for p in patches {
        let mut r = PatchesReader::open(p)?;
        while r.next_posting(&mut gram, &mut posting)? {
            // Every document of a posting is in `docs` (checked in the
            // first pass over the same files); `get` keeps a file changed
            // in between from panicking.
            for &d in &posting {
                let Some(doc) = docs.get(&d).filter(|doc| candidate(d, doc)) else {
                    continue;
                };
                for &other in &posting {
                    let same_site = || docs.get(&other).is_some_and(|o| o.site == doc.site);
                    if other != d && !(params.foreign && doc.site != 0 && same_site()) {
                        sorter.push((d, gram, other))?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// The cover of a candidate from its `(gram, source)` pairs, if it passes
/// the test. With every source counted and none foreign-only, `covered` is
/// the page's patch grams and this is the paper's patch fraction test;
/// otherwise only the patch grams that counted sources cover count.
fn cover(doc: &Doc, pairs: &[(u64, u64)], params: &Params) -> Option<Vec<Chosen>> {
    let least = params.min_share * doc.patch as f64;
    let mut sources = greedy_cover(pairs);
    sources.retain(|s| s.grams as f64 >= least);
    let covered: u32 = sources.iter().map(|s| s.grams).sum();
    (sources.len() >= params.c as usize && covered as f64 >= params.theta * doc.grams as f64)
        .then_some(sources)
}

/// A candidate that passed, with its pairs (kept for `resolve_direction`).
type Found = (u64, Vec<Chosen>, Vec<(u64, u64)>);

/// Candidates with their pairs, in key order, covered greedily; those whose
/// cover passes the test are quilts. A candidate whose patch grams have no
/// eligible source (foreign) has no pairs and no cover.
fn covers(
    sorter: Sorter<(u64, u64, u64)>,
    docs: &FxHashMap<u64, Doc>,
    params: &Params,
) -> anyhow::Result<Vec<Found>> {
    let mut found: Vec<Found> = Vec::new();
    let mut current: Option<u64> = None;
    let mut pairs: Vec<(u64, u64)> = Vec::new();
    let mut finish = |d: u64, pairs: &mut Vec<(u64, u64)>| {
        if let Some(sources) = cover(&docs[&d], pairs, params) {
            found.push((d, sources, std::mem::take(pairs)));
        }
        pairs.clear();
    };
    for rec in sorter.finish()? {
        let (d, g, other) = rec?;
        if current != Some(d) {
            if let Some(prev) = current {
                finish(prev, &mut pairs);
            }
            current = Some(d);
        }
        pairs.push((g, other));
    }
    if let Some(prev) = current {
        finish(prev, &mut pairs);
    }
    Ok(found)
}

/// Which way a quilt points. Quilts and their sources look alike from
/// inside: an original article whose paragraphs four quilts took is covered
/// by those four quilts as a quilt is by its four sources. But a page whose
/// "sources" are themselves quilts is their origin. So the quilts found are
/// resolved most patched first — a stitched page is all patches, an
/// original only where others took from it — and a page once declared a
/// quilt no longer counts as a source: a later page is covered again
/// without the declared ones and is a quilt only if it still passes the
/// test. Runs on the quilts found (a few) with their pairs; with `--part`,
/// within each part.
fn resolve_direction(
    mut found: Vec<Found>,
    docs: &FxHashMap<u64, Doc>,
    params: &Params,
) -> Vec<(u64, Vec<Chosen>)> {
    let fraction = |d: &u64| docs[d].patch as f64 / docs[d].grams.max(1) as f64;
    found.sort_by(|a, b| {
        fraction(&b.0)
            .total_cmp(&fraction(&a.0))
            .then(a.0.cmp(&b.0))
    });
    let mut declared: HashSet<u64> = HashSet::new();
    let mut out = Vec::with_capacity(found.len());
    for (d, sources, mut pairs) in found {
        let sources = if sources.iter().any(|s| declared.contains(&s.source)) {
            pairs.retain(|(_, s)| !declared.contains(s));
            match cover(&docs[&d], &pairs, params) {
                Some(sources) => sources,
                None => continue,
            }
        } else {
            sources
        };
        declared.insert(d);
        out.push((d, sources));
    }
    out
}

/// The greedy set cover of seed 000 §2: repeatedly take the source that
/// covers the most patch grams not yet covered. `pairs` are `(gram, source)`,
/// sorted. Returns `(source, grams covered when chosen, grams shared)`, in
/// the order chosen; ties go to the smaller key, so the cover is the same
/// on every run.
///
/// Lazy: a source's count only falls as others are chosen, so a stale heap
/// entry is re-counted when it comes up and pushed back if it fell. Each
/// pair is touched O(log) times: linear in the candidate's pairs up to the log.
pub fn greedy_cover(pairs: &[(u64, u64)]) -> Vec<Chosen> {
    let mut gram_index: FxHashMap<u64, u32> = FxHashMap::default();
    let mut by_source: FxHashMap<u64, Vec<u32>> = FxHashMap::default();
    for &(g, s) in pairs {
        let next = gram_index.len() as u32;
        let gi = *gram_index.entry(g).or_insert(next);
        by_source.entry(s).or_default().push(gi);
    }
    let mut covered = vec![false; gram_index.len()];
    let mut heap: BinaryHeap<(u32, std::cmp::Reverse<u64>)> = by_source
        .iter()
        .map(|(&s, grams)| (grams.len() as u32, std::cmp::Reverse(s)))
        .collect();
    let mut chosen = Vec::new();
    while let Some((count, std::cmp::Reverse(s))) = heap.pop() {
        let grams = &by_source[&s];
        let now = grams.iter().filter(|&&g| !covered[g as usize]).count() as u32;
        if now == 0 {
            continue;
        }
        if now < count {
            heap.push((now, std::cmp::Reverse(s)));
            continue;
        }
        for &g in grams {
            covered[g as usize] = true;
        }
        chosen.push(Chosen {
            source: s,
            grams: now,
            shared: grams.len() as u32,
        });
    }
    chosen
}

/// The patches files must be one job's partitions 0..P, each once, each
/// merged from the same machines. Returns k and those machines.
fn check_partitions(patches: &[PathBuf]) -> anyhow::Result<(u8, Vec<String>)> {
    anyhow::ensure!(!patches.is_empty(), "no patches files");
    let mut seen = HashSet::new();
    let mut first = None;
    let mut machines: Option<Vec<String>> = None;
    for p in patches {
        let h = PatchesReader::open(p)?.header;
        let m0 = machines.get_or_insert_with(|| h.machines.clone());
        anyhow::ensure!(
            *m0 == h.machines,
            "{}: merged from machines {:?}, other partitions from {m0:?}: a machine's grams file is missing",
            p.display(),
            h.machines
        );
        let (k, m, n) = *first.get_or_insert((h.k, h.m, h.partitions));
        anyhow::ensure!(
            (h.k, h.m, h.partitions) == (k, m, n),
            "{}: k {} m {} of {} partitions, others k {k} m {m} of {n}",
            p.display(),
            h.k,
            h.m,
            h.partitions
        );
        anyhow::ensure!(
            seen.insert(h.partition),
            "{}: partition {} given twice",
            p.display(),
            h.partition
        );
    }
    let (k, _, n) = first.expect("not empty");
    let missing: Vec<u32> = (0..n).filter(|i| !seen.contains(i)).collect();
    anyhow::ensure!(
        missing.is_empty(),
        "patches of partitions {missing:?} of {n} are missing: the result would not be exact"
    );
    Ok((k, machines.unwrap_or_default()))
}

/// Quilts with URLs and sites (one more pass over the docs tables, for the
/// documents named), most patched first.
fn describe(
    found: Vec<(u64, Vec<Chosen>)>,
    docs: &FxHashMap<u64, Doc>,
    docs_tables: &[PathBuf],
) -> anyhow::Result<Vec<Quilt>> {
    let mut named: FxHashMap<u64, (String, Option<String>)> = FxHashMap::default();
    for (d, sources) in &found {
        named.insert(*d, Default::default());
        for s in sources {
            named.insert(s.source, Default::default());
        }
    }
    for t in docs_tables {
        read_docs(t, |DocLine { doc, url, site, .. }| {
            if let Some(n) = named.get_mut(&doc) {
                *n = (url, site);
            }
        })?;
    }
    let mut quilts: Vec<Quilt> = found
        .into_iter()
        .map(|(d, sources)| {
            let doc = &docs[&d];
            let (url, site) = named[&d].clone();
            Quilt {
                url,
                site,
                patch_fraction: doc.patch as f64 / doc.grams as f64,
                grams: doc.grams,
                patch_grams: doc.patch,
                covered: sources.iter().map(|s| s.grams).sum(),
                sources: sources
                    .into_iter()
                    .map(|c| {
                        let (url, site) = named[&c.source].clone();
                        let (grams, shared) = (c.grams, c.shared);
                        Source {
                            url,
                            site,
                            grams,
                            shared,
                        }
                    })
                    .collect(),
            }
        })
        .collect();
    quilts.sort_by(|a, b| {
        b.patch_fraction
            .total_cmp(&a.patch_fraction)
            .then_with(|| a.url.cmp(&b.url))
    });
    Ok(quilts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_covered_by_quilts_is_their_origin() {
        // Quilts 11..=14 take 25 grams from each of the originals 1..=4;
        // original 1 shares its 4 x 25 grams with them, at a lower patch
        // fraction (its other 100 grams are its own).
        let mut docs = FxHashMap::default();
        let doc = |grams, patch| Doc {
            grams,
            patch,
            site: 0,
        };
        for q in 11..=14u64 {
            docs.insert(q, doc(100, 100));
        }
        docs.insert(1, doc(200, 100));
        let pairs = |from: &[u64], base: u64| -> Vec<(u64, u64)> {
            let mut p: Vec<(u64, u64)> = from
                .iter()
                .enumerate()
                .flat_map(|(i, &s)| (0..25).map(move |g| (base + i as u64 * 25 + g, s)))
                .collect();
            p.sort_unstable();
            p
        };
        let mut found: Vec<Found> = Vec::new();
        for q in 11..=14u64 {
            let p = pairs(&[1, 2, 3, 4], q * 1000);
            found.push((q, cover(&docs[&q], &p, &Params::PAPER).unwrap(), p));
        }
        let p = pairs(&[11, 12, 13, 14], 0);
        found.push((1, cover(&docs[&1], &p, &Params::PAPER).unwrap(), p));
        let kept: Vec<u64> = resolve_direction(found, &docs, &Params::PAPER)
            .into_iter()
            .map(|(d, _)| d)
            .collect();
        assert_eq!(kept, [11, 12, 13, 14], "the original is not a quilt");
    }

    #[test]
    fn the_greedy_cover_takes_the_largest_source_first_and_stops_when_covered() {
        // grams 1..=6; source 10 has 1,2,3,4; source 20 has 3,4,5; source 30 has 5,6; 40 has 6.
        let mut pairs = vec![
            (1, 10),
            (2, 10),
            (3, 10),
            (4, 10),
            (3, 20),
            (4, 20),
            (5, 20),
            (5, 30),
            (6, 30),
            (6, 40),
        ];
        pairs.sort_unstable();
        let cover: Vec<_> = greedy_cover(&pairs)
            .iter()
            .map(|c| (c.source, c.grams, c.shared))
            .collect();
        assert_eq!(cover, vec![(10, 4, 4), (30, 2, 2)]);
        // Ties: the smaller key.
        assert_eq!(greedy_cover(&[(1, 7), (1, 3)])[0].source, 3);
        assert!(greedy_cover(&[]).is_empty());
    }
}
