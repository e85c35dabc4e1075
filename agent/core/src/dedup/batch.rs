//! Batch deduplication: a whole crawl's duplicate clusters and the pages to
//! keep, after the fact (`crawlsieve dedup`, the Spark job) — from the same
//! signatures the stream's index keeps (`fingerprints::minhash`), grouped so
//! that the answer depends on the set of pages alone: not on their order,
//! not on how many machines or threads computed the signatures.
//!
//! - **Signatures** ([`Signature`], a JSON line each): a page's content
//!   digest, LSH band keys and sketch. Computed where the pages are (each
//!   machine its share), then gathered in one place to be clustered.
//! - **Order**: pages sorted by fetch time (pages without one last), then
//!   URL, then id. The first of a cluster in this order keeps: the earliest
//!   capture is the one a copy was most likely made from.
//! - **Exact**: pages with one content digest are one cluster.
//! - **Near**: of each digest, its first page goes on. Pages sharing a band
//!   key (a *bucket*) are compared by sketch, in order, each with the
//!   bucket's *representatives* so far: linked to the first at
//!   `threshold` or above, else it becomes one (at most [`MAX_REPRESENTATIVES`]
//!   a bucket, so a bucket costs at most that many comparisons a page: a
//!   bucket shared by thousands of unrelated pages stays linear). Links are a
//!   function of a bucket's members alone, so buckets may be worked anywhere,
//!   in any order.
//! - **Clusters**: the connected components of exact and near links
//!   (union-find), as datatrove's and text-dedup's MinHash clustering makes
//!   them: a chain of near duplicates is one cluster, and a duplicate's
//!   estimated similarity to the page kept is reported as it is, below the
//!   threshold when the chain is long.
//! - **Siblings** ([`Siblings::Apart`]): no near link between two pages of
//!   one site — product variants, a list's pages, a site's own templates —
//!   which an archive keeps and a corpus builder may not want to; exact
//!   copies at two URLs of one site still cluster.

use crate::fingerprints::minhash;
use crate::output::Sink;
use crate::verdict::{Kind, SiteFlag, Verdict};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// Representatives a bucket keeps at most; a page matching none of them
/// after the bucket is full is compared and not kept as one.
pub const MAX_REPRESENTATIVES: usize = 32;

/// One page as batch deduplication sees it: a line of
/// `crawlsieve dedup --signatures-only`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Signature {
    pub id: String,
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fetched_at: Option<String>,
    /// The normalised content's SHA-1, hex (the verdict's `content_sha1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_sha1: Option<String>,
    /// The MinHash's shape, `VERSION:BANDSxROWS`: signatures of one shape
    /// only are compared.
    pub minhash: String,
    /// The LSH band keys, 16 hex digits each, concatenated; empty for a page
    /// without shingles (matched by its digest alone).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub bands: String,
    /// One byte of each MinHash value, hex.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sketch: String,
}

/// `VERSION:BANDSxROWS`, the shape a signature is made with.
pub fn shape(bands: usize, rows: usize) -> String {
    format!("{}:{bands}x{rows}", minhash::MINHASH_VERSION)
}

impl Signature {
    /// The signature of a judged page: pages kept or flagged that carry
    /// content (what the stream's index looks up); `None` for the others.
    /// The pipeline must have made the MinHash (`dedup.check`).
    pub fn of(v: &Verdict, bands: usize, rows: usize) -> Option<Signature> {
        if !matches!(v.verdict, Kind::Keep | Kind::Flag) || v.revisit_of.is_some() {
            return None;
        }
        Signature::from_content(
            (v.id.as_str(), v.url.as_str()),
            v.site.clone(),
            v.fetched_at.clone(),
            v.content_sha1.clone(),
            v.minhash.as_deref(),
            (bands, rows),
        )
    }

    /// A signature from its parts; `None` without digest and MinHash.
    pub fn from_content(
        (id, url): (&str, &str),
        site: Option<String>,
        fetched_at: Option<String>,
        content_sha1: Option<String>,
        minhash: Option<&[u32]>,
        (bands, rows): (usize, usize),
    ) -> Option<Signature> {
        if content_sha1.is_none() && minhash.is_none() {
            return None;
        }
        let keys = minhash
            .map(|m| {
                minhash::bands(m, rows)
                    .map(|k| format!("{k:016x}"))
                    .collect()
            })
            .unwrap_or_default();
        Some(Signature {
            id: id.to_string(),
            url: url.to_string(),
            site,
            fetched_at,
            content_sha1,
            minhash: shape(bands, rows),
            bands: keys,
            sketch: minhash
                .map(|m| hex::encode(minhash::sketch(m)))
                .unwrap_or_default(),
        })
    }
}

/// A sink that keeps the signature of every verdict it is sent (what
/// `crawlsieve dedup` and the Spark job judge pages into): the pipeline's
/// settings must have `dedup.signatures_only` on, so that pages get their
/// MinHash and no index takes it.
#[derive(Debug, Default)]
pub struct Signatures {
    pub shape: (usize, usize),
    pub signatures: Vec<Signature>,
    /// Verdicts sent, with a signature or not.
    pub judged: u64,
}

impl Sink for Signatures {
    fn send(&mut self, v: &Verdict) -> anyhow::Result<()> {
        self.judged += 1;
        self.signatures
            .extend(Signature::of(v, self.shape.0, self.shape.1));
        Ok(())
    }
    fn send_flag(&mut self, _: &SiteFlag) -> anyhow::Result<()> {
        Ok(())
    }
    fn flush(&mut self) -> anyhow::Result<()> {
        Ok(())
    }
}

/// Whether near duplicates on one site are clustered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Siblings {
    /// Every near duplicate clusters (a corpus keeps one copy).
    #[default]
    Together,
    /// No near link between two pages of one site (an archive keeps a
    /// site's variants); exact copies still cluster.
    Apart,
}

impl std::str::FromStr for Siblings {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> anyhow::Result<Self> {
        match s {
            "together" => Ok(Siblings::Together),
            "apart" => Ok(Siblings::Apart),
            _ => anyhow::bail!("{s:?}: `together` or `apart`"),
        }
    }
}

/// How pages are clustered.
#[derive(Debug, Clone, Copy)]
pub struct Params {
    /// Estimated Jaccard similarity at or above which two pages link.
    pub threshold: f64,
    pub siblings: Siblings,
}

/// A page named in the output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageRef {
    pub id: String,
    pub url: String,
}

/// A page of a cluster that is not kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Duplicate {
    pub id: String,
    pub url: String,
    /// Estimated Jaccard similarity to the page kept (1 for an exact copy).
    pub similarity: f64,
    /// The same normalised content as the page kept.
    pub exact: bool,
}

/// One cluster: the page kept, and its duplicates in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cluster {
    #[serde(rename = "type")]
    pub kind: String,
    pub keep: PageRef,
    pub pages: usize,
    pub duplicates: Vec<Duplicate>,
}

/// What clustering found.
#[derive(Debug, Default, Clone, PartialEq, Serialize)]
pub struct BatchStats {
    pub pages: u64,
    /// Lines for a page given more than once (the same id, URL and content): counted once.
    pub repeated: u64,
    pub clusters: u64,
    pub duplicates: u64,
    pub exact: u64,
    /// Sketches compared in buckets.
    pub compared: u64,
    /// Buckets that reached [`MAX_REPRESENTATIVES`].
    pub full_buckets: u64,
}

/// The clusters (by the page kept, in order) and every page to keep (the
/// first of each cluster and every page in none), in order.
#[derive(Debug, Default, Clone)]
pub struct Clustered {
    pub clusters: Vec<Cluster>,
    pub keep: Vec<PageRef>,
    pub stats: BatchStats,
}

/// A signature's parts, decoded.
struct Parsed {
    digest: Option<u128>,
    keys: Vec<u64>,
    sketch: Vec<u8>,
}

fn parse(s: &Signature) -> anyhow::Result<Parsed> {
    let bad = |what: &str| anyhow::anyhow!("signature of {}: {what} is not hex", s.url);
    let digest = match s.content_sha1.as_deref() {
        Some(h) => Some(
            h.get(..32)
                .and_then(|h| u128::from_str_radix(h, 16).ok())
                .ok_or_else(|| bad("content_sha1"))?,
        ),
        None => None,
    };
    anyhow::ensure!(s.bands.len() % 16 == 0, bad("bands"));
    let keys = (0..s.bands.len() / 16)
        .map(|i| u64::from_str_radix(&s.bands[i * 16..i * 16 + 16], 16).map_err(|_| bad("bands")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let sketch = hex::decode(&s.sketch).map_err(|_| bad("sketch"))?;
    Ok(Parsed {
        digest,
        keys,
        sketch,
    })
}

/// The order pages are kept in: fetched first (pages without a time last),
/// then URL, then id, then content.
fn order(a: &Signature, b: &Signature) -> std::cmp::Ordering {
    (
        a.fetched_at.is_none(),
        &a.fetched_at,
        &a.url,
        &a.id,
        &a.content_sha1,
    )
        .cmp(&(
            b.fetched_at.is_none(),
            &b.fetched_at,
            &b.url,
            &b.id,
            &b.content_sha1,
        ))
}

/// Union-find over page numbers; a set's root is its least member, which
/// is the page the set keeps.
struct Components(Vec<usize>);

impl Components {
    fn find(&mut self, mut x: usize) -> usize {
        while self.0[x] != x {
            self.0[x] = self.0[self.0[x]];
            x = self.0[x];
        }
        x
    }

    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        let (low, high) = if a < b { (a, b) } else { (b, a) };
        self.0[high] = low;
    }
}

/// The near links of one bucket: `members` (page numbers, ascending) with
/// their sketches and sites. Each link is (page, earlier page).
pub fn bucket_links(
    members: &[usize],
    sketch: impl Fn(usize) -> (Vec<u8>, Option<String>),
    params: &Params,
    stats: &mut BatchStats,
) -> Vec<(usize, usize)> {
    let mut reps: Vec<(usize, Vec<u8>, Option<String>)> = Vec::new();
    let mut links = Vec::new();
    for &m in members {
        let (s, site) = sketch(m);
        let mut linked = false;
        for (r, rs, rsite) in &reps {
            if params.siblings == Siblings::Apart && site.is_some() && site == *rsite {
                continue;
            }
            stats.compared += 1;
            if minhash::similarity(&s, rs) >= params.threshold {
                links.push((m, *r));
                linked = true;
                break;
            }
        }
        if !linked {
            if reps.len() < MAX_REPRESENTATIVES {
                reps.push((m, s, site));
            } else if reps.len() == MAX_REPRESENTATIVES {
                stats.full_buckets += 1;
                reps.push((usize::MAX, Vec::new(), None));
            }
        }
    }
    links
}

/// Clusters `signatures` ([module doc](self)). Signatures of more than one
/// MinHash shape, or that do not decode, are refused.
pub fn cluster(mut signatures: Vec<Signature>, params: &Params) -> anyhow::Result<Clustered> {
    signatures.sort_by(order);
    let before = signatures.len();
    signatures.dedup();
    let mut stats = BatchStats {
        pages: signatures.len() as u64,
        repeated: (before - signatures.len()) as u64,
        ..BatchStats::default()
    };
    if let Some(first) = signatures.first() {
        if let Some(other) = signatures.iter().find(|s| s.minhash != first.minhash) {
            anyhow::bail!(
                "signatures of two MinHash shapes (made with other `dedup.bands` or `dedup.rows`): {} has {}, {} has {}",
                first.url,
                first.minhash,
                other.url,
                other.minhash
            );
        }
    }
    let parsed = signatures
        .iter()
        .map(parse)
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut sets = Components((0..signatures.len()).collect());
    // Exact: each digest's first page; near: between those first pages.
    let mut digests: FxHashMap<u128, usize> = FxHashMap::default();
    let mut buckets: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
    for (i, p) in parsed.iter().enumerate() {
        if let Some(d) = p.digest {
            let first = *digests.entry(d).or_insert(i);
            if first != i {
                sets.union(first, i);
                continue;
            }
        }
        for &k in &p.keys {
            buckets.entry(k).or_default().push(i);
        }
    }
    let page = |i: usize| (parsed[i].sketch.clone(), signatures[i].site.clone());
    for members in buckets.values().filter(|m| m.len() > 1) {
        for (a, b) in bucket_links(members, page, params, &mut stats) {
            sets.union(a, b);
        }
    }
    Ok(gather(&signatures, &parsed, &mut sets, stats))
}

/// The clusters and the keep list from the components.
fn gather(
    signatures: &[Signature],
    parsed: &[Parsed],
    sets: &mut Components,
    mut stats: BatchStats,
) -> Clustered {
    let reference = |i: usize| PageRef {
        id: signatures[i].id.clone(),
        url: signatures[i].url.clone(),
    };
    let mut members: FxHashMap<usize, Vec<usize>> = FxHashMap::default();
    let mut keep = Vec::new();
    for i in 0..signatures.len() {
        let root = sets.find(i);
        if root == i {
            keep.push(reference(i));
        } else {
            members.entry(root).or_default().push(i);
        }
    }
    let mut roots: Vec<usize> = members.keys().copied().collect();
    roots.sort_unstable();
    let clusters = roots
        .into_iter()
        .map(|root| {
            let duplicates: Vec<Duplicate> = members[&root]
                .iter()
                .map(|&i| {
                    let exact =
                        parsed[i].digest.is_some() && parsed[i].digest == parsed[root].digest;
                    let similarity = if exact {
                        1.0
                    } else {
                        minhash::similarity(&parsed[i].sketch, &parsed[root].sketch)
                    };
                    stats.exact += exact as u64;
                    Duplicate {
                        id: signatures[i].id.clone(),
                        url: signatures[i].url.clone(),
                        similarity: (similarity * 1000.0).round() / 1000.0,
                        exact,
                    }
                })
                .collect();
            stats.duplicates += duplicates.len() as u64;
            Cluster {
                kind: "duplicate_cluster".into(),
                keep: reference(root),
                pages: duplicates.len() + 1,
                duplicates,
            }
        })
        .collect::<Vec<_>>();
    stats.clusters = clusters.len() as u64;
    Clustered {
        clusters,
        keep,
        stats,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xxhash_rust::xxh3::xxh3_64;

    /// A signature of shingles `range`, at `url` on `site`.
    fn page(url: &str, site: &str, range: std::ops::Range<u64>, digest: &str) -> Signature {
        let mut m = minhash::MinHasher::new(100);
        range.for_each(|i| m.add(xxh3_64(&i.to_le_bytes())));
        let sig = m.finish().unwrap();
        let digest = format!("{digest:0<40}");
        Signature::from_content(
            (url, url),
            Some(site.into()),
            None,
            Some(digest),
            Some(&sig),
            (20, 5),
        )
        .unwrap()
    }

    const TOGETHER: Params = Params {
        threshold: 0.5,
        siblings: Siblings::Together,
    };

    fn corpus() -> Vec<Signature> {
        vec![
            page("http://c.example/", "c.example", 0..1000, "c"),
            page("http://a.example/", "a.example", 0..1000, "a"),
            page("http://b.example/", "b.example", 0..1000, "a"),
            page("http://a.example/2", "a.example", 50..1050, "d"),
            page("http://e.example/", "e.example", 5000..6000, "e"),
        ]
    }

    #[test]
    fn exact_and_near_copies_cluster_and_the_first_keeps() {
        let c = cluster(corpus(), &TOGETHER).unwrap();
        assert_eq!(c.clusters.len(), 1, "{:?}", c.clusters);
        let cl = &c.clusters[0];
        assert_eq!(cl.keep.url, "http://a.example/");
        let dups: Vec<(&str, bool)> = cl
            .duplicates
            .iter()
            .map(|d| (d.url.as_str(), d.exact))
            .collect();
        assert_eq!(
            dups,
            [
                ("http://a.example/2", false),
                ("http://b.example/", true),
                ("http://c.example/", false)
            ]
        );
        let kept: Vec<&str> = c.keep.iter().map(|p| p.url.as_str()).collect();
        assert_eq!(kept, ["http://a.example/", "http://e.example/"]);
        assert_eq!((c.stats.duplicates, c.stats.exact), (3, 1));
    }

    #[test]
    fn the_answer_does_not_depend_on_the_order_pages_come_in() {
        let one = cluster(corpus(), &TOGETHER).unwrap();
        let mut reversed = corpus();
        reversed.reverse();
        let mut doubled = corpus();
        doubled.extend(corpus());
        let two = cluster(reversed, &TOGETHER).unwrap();
        let three = cluster(doubled, &TOGETHER).unwrap();
        assert_eq!(one.clusters, two.clusters);
        assert_eq!(one.clusters, three.clusters);
        assert_eq!(three.stats.repeated, 5);
    }

    #[test]
    fn siblings_apart_keeps_a_sites_near_copies_and_still_clusters_its_exact_ones() {
        let mut pages = corpus();
        pages.push(page("http://a.example/3", "a.example", 0..1000, "a"));
        let apart = Params {
            siblings: Siblings::Apart,
            ..TOGETHER
        };
        let c = cluster(pages, &apart).unwrap();
        let urls: Vec<&str> = c.clusters[0]
            .duplicates
            .iter()
            .map(|d| d.url.as_str())
            .collect();
        // a.example/2 is a near copy on a.example's own site: kept.
        assert_eq!(
            urls,
            [
                "http://a.example/3",
                "http://b.example/",
                "http://c.example/"
            ]
        );
        assert!(c.keep.iter().any(|p| p.url == "http://a.example/2"));
    }

    #[test]
    fn a_bucket_shared_by_many_unrelated_pages_costs_a_bounded_number_of_comparisons() {
        // Pages whose sketches all differ but share one band key.
        let sketch = |i: usize| (vec![i as u8; 100], None);
        let members: Vec<usize> = (0..10_000).collect();
        let mut stats = BatchStats::default();
        let links = bucket_links(&members, sketch, &TOGETHER, &mut stats);
        assert!(links.len() < 10_000);
        assert!(stats.compared <= 10_000 * MAX_REPRESENTATIVES as u64);
        assert_eq!(stats.full_buckets, 1);
    }

    #[test]
    fn signatures_of_two_shapes_are_refused() {
        let mut pages = corpus();
        pages[0].minhash = shape(14, 8);
        let e = cluster(pages, &TOGETHER).unwrap_err().to_string();
        assert!(e.contains("14x8"), "{e}");
    }
}
