//! Copy detection on a crawl that looks like a real one (issue: "copy detection
//! that survives edits").
//!
//! - **Labeled set**: real article pages of WCXB dev, built the way
//!   `labels build` builds it (raw HTML → extraction → chunks, shingles,
//!   SimHashes → signed file → loaded and verified).
//! - **Copier sites**: each republishes labeled articles inside its own site
//!   template (navigation, sidebar, comment form, footer — template text made
//!   of real paragraphs) after one mutation at one strength, in multiples of
//!   the page's own chunk count (cpp): `add` unrelated real paragraphs,
//!   `modify` one word in a random paragraph per change, `delete` paragraphs
//!   (at least one paragraph of 100+ characters kept). One site per cell, 12 pages each, plus one site of
//!   exact copies.
//! - **Benign sites**: real pages as they were fetched — the other WCXB pages
//!   (hosts of labeled pages left out) and trafilatura-eval's pages, five to a
//!   site; and, when installed, whole real sites from Debian's documentation
//!   packages (`bench/copies.sh` installs them), under their own URL paths.
//!
//! Every page goes through `Pipeline::process` with default settings and the
//! verdicts through neighborhood tracking, interleaved as a crawl would be.
//!
//! Run: `bash bench/copies.sh` (or `cargo run --release -p crawlsieve-bench --example copies -- [RUNS]`).

mod common;

use common::{load, walk, Rng};
use crawlsieve_core::labels::file::{self, Contents, Header};
use crawlsieve_core::labels::{LabeledSet, LabeledSets, LabelsHandle};
use crawlsieve_core::neighborhoods::Neighborhoods;
use crawlsieve_core::{Kind, Page, Pipeline, Settings};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

const DATA: &str = "../shared/data/extraction";
const SOURCES: usize = 150;
const PAGES_PER_COPIER: usize = 12;
const BENIGN_PAGES_PER_SITE: usize = 5;
const MULTIPLES: [f64; 5] = [0.5, 1.0, 2.0, 3.0, 4.0];
const KINDS: [&str; 3] = ["add", "modify", "delete"];
/// Debian documentation sites: (directory, URL prefix).
const DEBIAN_SITES: [(&str, &str); 2] = [
    (
        "/usr/share/doc/apache2-doc/manual",
        "http://httpd.apache.org/docs/2.4",
    ),
    (
        "/usr/share/doc/postgresql-doc-15/html",
        "https://www.postgresql.org/docs/15",
    ),
];

/// A real page: URL, raw HTML, and the site it counts for.
struct Real {
    url: String,
    html: Vec<u8>,
    site: String,
}

/// A page of the crawl.
struct CrawlPage {
    url: String,
    html: Vec<u8>,
    /// `Some((kind, multiple))` for copier pages (`("exact", 0)` for exact copies).
    cell: Option<(&'static str, f64)>,
    site: String,
}

fn escape(s: &str) -> String {
    html_escape::encode_text(s).into_owned()
}

/// A copier site's template around `paragraphs`: real text in its navigation,
/// sidebar and footer, as copier sites carry.
fn template(site: usize, title: &str, paragraphs: &[String], chrome: &Chrome) -> String {
    let mut s = format!(
        "<!doctype html><html><head><title>{} | Daily{site}</title></head><body><header><nav><ul>",
        escape(title)
    );
    for (i, w) in chrome.nav.iter().enumerate() {
        s.push_str(&format!(
            "<li><a href=\"/section/{i}\">{}</a></li>",
            escape(w)
        ));
    }
    s.push_str("</ul></nav></header><div class=\"layout\"><main><article>");
    s.push_str(&format!("<h1>{}</h1>", escape(title)));
    for p in paragraphs {
        s.push_str(&format!("<p>{}</p>", escape(p)));
    }
    s.push_str(
        "</article><section class=\"comments\"><h3>Leave a comment</h3><form><textarea name=\"c\"></textarea>\
         <input type=\"submit\" value=\"Post\"></form></section></main><aside class=\"sidebar\"><h3>Popular</h3><ul>",
    );
    for (i, t) in chrome.popular.iter().enumerate() {
        s.push_str(&format!(
            "<li><a href=\"/articles/p{i}.html\">{}</a></li>",
            escape(t)
        ));
    }
    s.push_str(&format!(
        "</ul><p>{}</p></aside></div><footer><p>© 2026 daily{site}.example. {}</p></footer></body></html>",
        escape(&chrome.blurb),
        escape(&chrome.footer)
    ));
    s
}

/// A copier site's own template text, from real paragraphs.
struct Chrome {
    nav: Vec<String>,
    popular: Vec<String>,
    blurb: String,
    footer: String,
}

/// A copy of `paragraphs` after `kind` at `multiple` × its paragraph count
/// (at least one substantive paragraph kept).
fn mutate(
    paragraphs: &[String],
    kind: &str,
    multiple: f64,
    filler: &[String],
    rng: &mut Rng,
) -> Vec<String> {
    let mut p = paragraphs.to_vec();
    let k = (multiple * paragraphs.len() as f64).round() as usize;
    if kind != "exact" {
        common::mutate(&mut p, kind, k, filler, true, rng);
    }
    p
}

#[derive(Default)]
struct Cell {
    pages: u32,
    flagged: u32,
}

fn main() -> anyhow::Result<()> {
    let runs: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(3);
    let settings = Settings::defaults();
    let base = Pipeline::new(settings.clone())?;

    // WCXB dev: id → (page type, domain).
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(format!("{DATA}/wcxb-dev/metadata.json"))?)?;
    let files = meta["files"]
        .as_object()
        .ok_or_else(|| anyhow::anyhow!("metadata.json: no files"))?;
    let mut sources = Vec::new();
    let mut wcxb_rest = Vec::new();
    for (id, m) in files {
        if m["split"] != "dev" {
            continue;
        }
        let path = PathBuf::from(format!("{DATA}/wcxb-dev/dev/html/{id}.html.gz"));
        let Some(html) = load(&path) else { continue };
        let domain = m["domain"].as_str().unwrap_or("unknown").to_string();
        let page = Real {
            url: format!("https://{domain}/wcxb/{id}.html"),
            html,
            site: domain,
        };
        if m["page_type"] == "article" && sources.len() < SOURCES {
            // A labeled source needs content to copy: three paragraphs or more.
            let x = base
                .extractor()
                .extract(&Page::new(page.url.as_str(), &page.html[..]));
            if x.is_ok_and(|x| x.content.split('\n').count() >= 3) {
                sources.push(page);
                continue;
            }
        }
        wcxb_rest.push(page);
    }
    anyhow::ensure!(sources.len() == SOURCES, "not enough WCXB article pages");
    let source_hosts: HashSet<&str> = sources.iter().map(|s| s.site.as_str()).collect();

    // The labeled set, built and signed as `labels build` does.
    let started = Instant::now();
    let mut contents = Contents::default();
    let mut source_paragraphs = Vec::new();
    for s in &sources {
        let page = Page::new(s.url.as_str(), &s.html[..]);
        let m = base.matchable_chunks(&page).map_err(anyhow::Error::msg)?;
        contents
            .keys
            .extend(m.chunks.iter().map(crawlsieve_core::labels::key));
        contents
            .keys
            .extend(m.whole.iter().map(crawlsieve_core::labels::key));
        contents.keys.extend_from_slice(&m.shingles);
        contents.simhashes.extend(m.simhash);
        let x = base
            .extractor()
            .extract(&page)
            .map_err(anyhow::Error::msg)?;
        let paras: Vec<String> = x.content.split('\n').map(str::to_string).collect();
        source_paragraphs.push((x.title.unwrap_or_default(), paras));
    }
    contents.keys.sort_unstable();
    contents.keys.dedup();
    contents.simhashes.sort_unstable();
    contents.simhashes.dedup();
    let key = ed25519_dalek::SigningKey::from_bytes(&[5; 32]);
    let bytes = file::encode(
        &Header::new("news", 1, 0, settings.chunks.min_chars),
        &contents,
        &key,
    );
    let set = LabeledSet::from_bytes(&bytes, &key.verifying_key())?;
    let memory = set.set.heap_bytes() + set.simhashes.bytes();
    let sets = LabeledSets::empty()
        .with_set(Arc::new(set))
        .map_err(anyhow::Error::msg)?;
    let pipeline = Pipeline::with_labels(settings.clone(), LabelsHandle::new(sets))?;
    let cpp = source_paragraphs
        .iter()
        .map(|(_, p)| p.len())
        .sum::<usize>() as f64
        / SOURCES as f64;
    println!(
        "labeled set: {SOURCES} WCXB article pages → {} keys (chunks, whole contents, shingles) + {} SimHashes; \
         file {} bytes, in memory {} bytes = {:.0} bytes per labeled document; built in {:.2} s; mean paragraphs per page {cpp:.1}",
        contents.keys.len(),
        contents.simhashes.len(),
        bytes.len(),
        memory,
        memory as f64 / SOURCES as f64,
        started.elapsed().as_secs_f64()
    );

    // Benign pages: WCXB pages of other hosts, trafilatura-eval pages, Debian sites.
    let mut benign: Vec<Real> = wcxb_rest
        .into_iter()
        .filter(|p| !source_hosts.contains(p.site.as_str()))
        .collect();
    let mut traf = Vec::new();
    walk(
        Path::new(&format!("{DATA}/trafilatura-eval/tests/cache")),
        &mut traf,
    );
    traf.sort();
    for path in traf {
        let Some(html) = load(&path) else { continue };
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        benign.push(Real {
            url: format!(
                "https://{}/traf/{name}",
                name.split(".html").next().unwrap_or("x")
            ),
            html,
            site: String::new(),
        });
    }
    // Group the single pages five to a site (real pages, a synthetic site).
    for (i, p) in benign.iter_mut().enumerate() {
        let site = i / BENIGN_PAGES_PER_SITE;
        p.site = format!("site{site}.example");
        let tail = p.url.rsplit('/').next().unwrap_or("p.html").to_string();
        p.url = format!("http://site{site}.example/pages/{tail}");
    }
    // The filler for `add`: paragraphs of benign pages (not labeled content).
    let mut filler = Vec::new();
    for p in benign.iter().step_by(7).take(120) {
        if let Ok(x) = base
            .extractor()
            .extract(&Page::new(p.url.as_str(), &p.html[..]))
        {
            filler.extend(
                x.content
                    .split('\n')
                    .filter(|s| s.split(' ').count() >= 12)
                    .map(str::to_string),
            );
        }
    }
    let mut debian_pages = 0;
    for (dir, prefix) in DEBIAN_SITES {
        let mut paths = Vec::new();
        walk(Path::new(dir), &mut paths);
        paths.sort();
        for path in paths.iter().take(400) {
            let Some(html) = load(path) else { continue };
            let rel = path.strip_prefix(dir).unwrap_or(path).to_string_lossy();
            let url = format!("{prefix}/{}", rel.trim_end_matches(".gz"));
            let site = crawlsieve_core::input::site::registered_domain(&url).unwrap_or_default();
            benign.push(Real { url, html, site });
            debian_pages += 1;
        }
    }
    let benign_sites: HashSet<&str> = benign.iter().map(|p| p.site.as_str()).collect();
    println!(
        "benign: {} real pages on {} sites ({debian_pages} of them from Debian documentation sites); \
         filler for `add`: {} real paragraphs; {runs} runs",
        benign.len(),
        benign_sites.len(),
        filler.len()
    );

    let mut cells: BTreeMap<(usize, usize), Cell> = BTreeMap::new();
    let mut exact = Cell::default();
    let mut rules: BTreeMap<String, u32> = BTreeMap::new();
    let (mut benign_flagged, mut benign_total) = (0u32, 0u32);
    let mut benign_rules: BTreeMap<String, u32> = BTreeMap::new();
    let mut benign_max = (0u32, 0u32, 0f64);
    let (mut copier_sites_bad, mut copier_sites, mut flips) = (0u32, 0u32, 0u32);
    let mut benign_sites_bad = 0u32;
    let mut site_flags = 0u32;
    let mut pages_judged = 0u64;
    let mut judge_secs = 0f64;
    for run in 0..runs {
        let mut rng = Rng(0xC0FFEE + run);
        let mut crawl: Vec<CrawlPage> = Vec::new();
        let mut copier_cells: Vec<Option<(&'static str, f64)>> = vec![Some(("exact", 0.0))];
        for kind in KINDS {
            for m in MULTIPLES {
                copier_cells.push(Some((kind, m)));
            }
        }
        for (site, cell) in copier_cells.iter().enumerate() {
            let (kind, m) = cell.expect("copier cell");
            let chrome = Chrome {
                nav: (0..14)
                    .map(|_| {
                        let f = &filler[rng.below(filler.len())];
                        f.split(' ').take(2).collect::<Vec<_>>().join(" ")
                    })
                    .collect(),
                popular: (0..8)
                    .map(|_| {
                        let f = &filler[rng.below(filler.len())];
                        f.split(' ').take(9).collect::<Vec<_>>().join(" ")
                    })
                    .collect(),
                blurb: filler[rng.below(filler.len())].clone(),
                footer: filler[rng.below(filler.len())].clone(),
            };
            let mut used = HashSet::new();
            for p in 0..PAGES_PER_COPIER {
                let mut s = rng.below(SOURCES);
                while !used.insert(s) {
                    s = rng.below(SOURCES);
                }
                let (title, paras) = &source_paragraphs[s];
                let mutated = mutate(paras, kind, m, &filler, &mut rng);
                crawl.push(CrawlPage {
                    url: format!("http://daily{site}.example/articles/{p}.html"),
                    html: template(site, title, &mutated, &chrome).into_bytes(),
                    cell: *cell,
                    site: format!("daily{site}.example"),
                });
            }
        }
        for b in &benign {
            crawl.push(CrawlPage {
                url: b.url.clone(),
                html: b.html.clone(),
                cell: None,
                site: b.site.clone(),
            });
        }
        for i in (1..crawl.len()).rev() {
            crawl.swap(i, rng.below(i + 1));
        }

        let mut hoods = Neighborhoods::new(settings.neighborhoods.clone());
        for page in &crawl {
            let t = Instant::now();
            let v = pipeline.process(&Page::new(page.url.as_str(), &page.html[..]));
            judge_secs += t.elapsed().as_secs_f64();
            pages_judged += 1;
            let copied = v.copied();
            let flagged = v.verdict == Kind::Flag || (v.verdict == Kind::Drop && copied);
            match page.cell {
                Some(("exact", _)) => {
                    exact.pages += 1;
                    exact.flagged += flagged as u32;
                }
                Some((kind, m)) => {
                    let ki = KINDS.iter().position(|k| *k == kind).expect("kind");
                    let mi = MULTIPLES.iter().position(|x| *x == m).expect("multiple");
                    let c = cells.entry((ki, mi)).or_default();
                    c.pages += 1;
                    c.flagged += flagged as u32;
                    for r in v.reasons.iter().filter(|r| r.is_copy()) {
                        *rules.entry(r.as_str().to_string()).or_default() += 1;
                    }
                }
                None => {
                    benign_total += 1;
                    benign_flagged += flagged as u32;
                    for r in v.reasons.iter().filter(|r| r.is_copy()) {
                        *benign_rules.entry(r.as_str().to_string()).or_default() += 1;
                    }
                    benign_max.0 = benign_max.0.max(v.labeled_chars);
                    benign_max.1 = benign_max.1.max(v.matched_shingles);
                    if v.shingles >= settings.labels.shingle_min {
                        benign_max.2 = benign_max.2.max(v.shingle_contains.unwrap_or(0.0));
                    }
                }
            }
            for f in hoods.observe_verdict(&v) {
                site_flags += 1;
                if f.state == "recovered" && page_site_is_copier(&f.neighborhood) {
                    flips += 1;
                }
            }
        }
        for f in hoods.sweep() {
            site_flags += 1;
            if f.state == "recovered" && page_site_is_copier(&f.neighborhood) {
                flips += 1;
            }
        }
        let copier_domains: HashSet<&str> = crawl
            .iter()
            .filter(|p| p.cell.is_some())
            .map(|p| p.site.as_str())
            .collect();
        for d in &copier_domains {
            copier_sites += 1;
            copier_sites_bad += hoods
                .bad_neighborhood_of(&format!("http://{d}/articles/0.html"))
                .is_some() as u32;
        }
        let benign_domains: HashSet<&str> = crawl
            .iter()
            .filter(|p| p.cell.is_none())
            .map(|p| p.site.as_str())
            .collect();
        for d in benign_domains {
            let bad = hoods.iter().any(|(n, h)| {
                h.bad && (n == d || n.split('/').next().is_some_and(|host| host.ends_with(d)))
            });
            benign_sites_bad += bad as u32;
        }
    }

    println!("\npage recall (copies flagged, also when dropped as too short) — rows: mutation, columns: × cpp");
    print!("{:>8}", "");
    for m in MULTIPLES {
        print!("{m:>10.1}");
    }
    println!();
    for (ki, kind) in KINDS.iter().enumerate() {
        print!("{kind:>8}");
        for mi in 0..MULTIPLES.len() {
            let c = &cells[&(ki, mi)];
            print!(
                "{:>10}",
                format!("{:.2}", c.flagged as f64 / c.pages.max(1) as f64)
            );
        }
        println!();
    }
    println!(
        "exact copies: {}/{} flagged; copier pages by rule: {}",
        exact.flagged,
        exact.pages,
        rules
            .iter()
            .map(|(r, n)| format!("{r} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "benign pages flagged: {benign_flagged}/{benign_total} ({:.2} %){}; highest on a benign page: \
         {} labeled chars (rule at {}), {} labeled shingles (rule at {}), shingle containment {:.3} (rule at {})",
        benign_flagged as f64 * 100.0 / benign_total.max(1) as f64,
        if benign_rules.is_empty() {
            String::new()
        } else {
            format!(" by {benign_rules:?}")
        },
        benign_max.0,
        settings.labels.evidence_chars,
        benign_max.1,
        settings.labels.evidence_shingles,
        benign_max.2,
        settings.labels.shingle_threshold
    );
    println!(
        "copier sites flagged at the end: {copier_sites_bad}/{copier_sites}; copier flags that flipped to recovered: {flips}; \
         benign sites flagged: {benign_sites_bad}/{}; site-flag lines: {site_flags}",
        benign_sites.len() as u64 * runs
    );
    println!(
        "judging: {pages_judged} pages in {judge_secs:.1} s ({:.0} pages/s on one core, labeled set of {SOURCES} pages)",
        pages_judged as f64 / judge_secs.max(1e-9)
    );
    let benign_paragraphs: Vec<Vec<String>> = benign
        .iter()
        .filter_map(|b| {
            base.extractor()
                .extract(&Page::new(b.url.as_str(), &b.html[..]))
                .ok()
        })
        .map(|x| x.content.split('\n').map(str::to_string).collect())
        .collect();
    k_sweep(&base, &source_paragraphs, &benign_paragraphs, &filler);
    Ok(())
}

/// Shingle length by measurement: for each `k`, how many of a modified
/// copy's shingles still match (modify at 2 × cpp), and how much benign
/// pages share with the labeled pages (the most matched shingles on one
/// page, and the share of benign pages with any match).
fn k_sweep(
    base: &Pipeline,
    sources: &[(String, Vec<String>)],
    benign: &[Vec<String>],
    filler: &[String],
) {
    println!(
        "
shingle length k (1 in 4 sampled): modified copies (2 × cpp) keep / benign pages share"
    );
    println!(
        "{:>3} {:>14} {:>22} {:>26}",
        "k", "copy contains", "benign pages w/ match", "most on one benign page"
    );
    let shingles = |paras: &[String], k: usize| {
        let mut s = crawlsieve_core::fingerprints::shingles::Shingler::new(k, 4);
        crawlsieve_core::fingerprints::chunks::chunk_with(
            paras.iter().map(String::as_str),
            |h| base.is_stop_chunk(h),
            &mut s,
        )
        .shingles
    };
    for k in 4..=8 {
        let mut labeled: Vec<u64> = sources.iter().flat_map(|(_, p)| shingles(p, k)).collect();
        labeled.sort_unstable();
        let matched = |sh: &[u64]| {
            sh.iter()
                .filter(|h| labeled.binary_search(h).is_ok())
                .count()
        };
        let mut rng = Rng(k as u64);
        let (mut sum, mut n) = (0.0, 0);
        for (_, p) in sources {
            let sh = shingles(&mutate(p, "modify", 2.0, filler, &mut rng), k);
            if !sh.is_empty() {
                sum += matched(&sh) as f64 / sh.len() as f64;
                n += 1;
            }
        }
        let counts: Vec<usize> = benign.iter().map(|p| matched(&shingles(p, k))).collect();
        let with = counts.iter().filter(|&&c| c > 0).count();
        println!(
            "{k:>3} {:>14.3} {:>22} {:>26}",
            sum / n.max(1) as f64,
            format!("{with}/{}", benign.len()),
            counts.iter().max().unwrap_or(&0)
        );
    }
}

fn page_site_is_copier(neighborhood: &str) -> bool {
    neighborhood.starts_with("daily")
}
