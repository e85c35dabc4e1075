//! `crawlsieve styles`: pages by hidden style (seed 003) — one page against
//! all (`like`), or the whole crawl in clusters (`cluster`).

use super::ConfigArgs;
use crawlsieve_core::crawl::styles::cluster::{self, Params};
use crawlsieve_core::crawl::styles::rank;
use crawlsieve_core::crawl::styles::store::{PageRef, Store};
use crawlsieve_core::fingerprints::style::{fingerprint, Fingerprint, M};
use crawlsieve_core::input::page::Input;
use crawlsieve_core::input::sources::{self, Limits};
use crawlsieve_core::verdict::VerdictRecord;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Subcommand)]
pub enum StylesCommand {
    /// Cluster pages by style (Procedure 2): one JSON line per cluster of two or more pages.
    Cluster(ClusterArgs),
    /// Every page sorted by style similarity to one page, with the gaps of the curve.
    Like(LikeArgs),
}

/// Where pages come from, and the memory they may take.
#[derive(clap::Args)]
pub struct InputArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Memory for fingerprints (512 bytes a page) before they go to a spill file, in MB.
    #[arg(long, default_value_t = 512)]
    memory_mb: usize,
    /// Where the spill file goes (default: the system's temporary directory).
    #[arg(long)]
    spill_dir: Option<PathBuf>,
    /// Verdict files written with `output.style_fp` (JSONL, `.gz` is fine), or
    /// pages (WARC, JSONL, HTML; plain or `.gz`), or directories of them.
    #[arg(required = true)]
    inputs: Vec<String>,
}

#[derive(clap::Args)]
pub struct ClusterArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Probes: dimensions whose equal values make candidate pairs (p).
    #[arg(long, default_value_t = Params::PAPER.probes)]
    probes: usize,
    /// Check: a candidate pair is an edge when more than this many of 128 dimensions agree (t).
    #[arg(long, default_value_t = Params::PAPER.check)]
    check: u32,
    /// Components a page is checked against within one probe group.
    #[arg(long, default_value_t = Params::PAPER.anchors)]
    anchors: usize,
    /// Smallest cluster written.
    #[arg(long, default_value_t = 2)]
    min_pages: u64,
    /// Member pages listed per cluster (most like the prototype first).
    #[arg(long, default_value_t = 20)]
    members: usize,
    /// Where clusters go (default stdout).
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Also write `{"url","site","cluster"}` for every clustered page here.
    #[arg(long)]
    assignments: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct LikeArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The reference page: the first page of the inputs with this URL.
    #[arg(long, conflicts_with = "html", required_unless_present = "html")]
    url: Option<String>,
    /// The reference page: an HTML file (plain or `.gz`).
    #[arg(long)]
    html: Option<PathBuf>,
    /// Pages written, most similar first (0 = all).
    #[arg(long, default_value_t = 100)]
    limit: usize,
    /// Largest drops of the similarity curve written after the pages.
    #[arg(long, default_value_t = 5)]
    gaps: usize,
    /// Pages at or above this many of 128 dimensions are counted as "alike" (the paper's 20/128).
    #[arg(long, default_value_t = rank::LIKE_THRESHOLD)]
    threshold: u32,
}

pub fn run(cmd: StylesCommand) -> anyhow::Result<i32> {
    match cmd {
        StylesCommand::Cluster(a) => run_cluster(a),
        StylesCommand::Like(a) => run_like(a),
    }
}

/// What reading the inputs found.
#[derive(Default, Debug)]
struct Loaded {
    from_verdicts: u64,
    from_pages: u64,
    /// Verdict lines without `style_fp`.
    no_fingerprint: u64,
    /// Broken records and unreadable verdict lines.
    broken: u64,
}

fn load(
    a: &InputArgs,
    mut seen: impl FnMut(&PageRef, &Fingerprint),
) -> anyhow::Result<(Store, Loaded)> {
    let settings = a.config.load(&[])?;
    let limits = Limits::new(&settings.input);
    let dir = a.spill_dir.clone().unwrap_or_else(std::env::temp_dir);
    let mut store = Store::new(&dir, a.memory_mb << 20)?;
    let mut loaded = Loaded::default();
    for input in sources::expand_inputs(&a.inputs)? {
        anyhow::ensure!(
            input != "-",
            "styles reads files and directories, not stdin"
        );
        if sources::is_verdict_file(Path::new(&input))? {
            read_verdicts(Path::new(&input), &mut store, &mut loaded, &mut seen)?;
            continue;
        }
        let mut source = sources::open(&input, &limits)?;
        let mut stats = sources::SourceStats::default();
        let mut failed: Option<anyhow::Error> = None;
        source.run(
            &mut |page| {
                match page {
                    Input::Page(p) => {
                        let text = crawlsieve_core::input::decode::decode_page(&p);
                        let fp = fingerprint(text.text.as_bytes());
                        let page = PageRef {
                            url: p.url.to_string(),
                            site: crawlsieve_core::input::site::registered_domain(&p.url),
                        };
                        seen(&page, &fp);
                        if let Err(e) = store.push(&fp, &page) {
                            failed = Some(e);
                            anyhow::bail!("spill failed");
                        }
                        loaded.from_pages += 1;
                    }
                    Input::Broken(_) => loaded.broken += 1,
                    // No markup of its own: its capture's is fingerprinted.
                    Input::Revisit(_) => {}
                }
                Ok(())
            },
            &mut stats,
        )?;
        if let Some(e) = failed {
            return Err(e);
        }
        for f in &stats.failures {
            eprintln!("crawlsieve styles: {f}");
        }
    }
    store.seal()?;
    if store.is_empty() && loaded.no_fingerprint > 0 {
        anyhow::bail!(
            "the verdicts hold no style_fp: scan with `--style-fp` (output.style_fp = true), or give the pages themselves"
        );
    }
    Ok((store, loaded))
}

fn read_verdicts(
    path: &Path,
    store: &mut Store,
    loaded: &mut Loaded,
    seen: &mut impl FnMut(&PageRef, &Fingerprint),
) -> anyhow::Result<()> {
    let mut broken = 0;
    let mut no_fingerprint = 0;
    let mut read = 0;
    let unreadable = sources::read_verdict_lines(
        path,
        super::not_a_verdict("styles", path),
        |n, v: VerdictRecord| {
            if v.line_type.is_some() {
                return Ok(()); // site flags and other events
            }
            let Some(encoded) = v.style_fp else {
                no_fingerprint += 1;
                return Ok(());
            };
            let fp = match Fingerprint::decode(&encoded) {
                Ok(fp) => fp,
                Err(e) => {
                    eprintln!("crawlsieve styles: {}:{n}: {e}", path.display());
                    broken += 1;
                    return Ok(());
                }
            };
            let page = PageRef {
                url: v.url,
                site: v.site,
            };
            seen(&page, &fp);
            store.push(&fp, &page)?;
            read += 1;
            Ok(())
        },
    )?;
    loaded.broken += broken + unreadable;
    loaded.no_fingerprint += no_fingerprint;
    loaded.from_verdicts += read;
    Ok(())
}

fn describe(store: &Store, loaded: &Loaded) -> String {
    let mut s = format!(
        "{} pages ({} from verdicts, {} fingerprinted here)",
        store.len(),
        loaded.from_verdicts,
        loaded.from_pages
    );
    if loaded.no_fingerprint > 0 {
        s += &format!(
            ", {} verdicts without style_fp skipped",
            loaded.no_fingerprint
        );
    }
    if loaded.broken > 0 {
        s += &format!(", {} broken records skipped", loaded.broken);
    }
    if store.spilled() {
        s += ", fingerprints spilled to disk";
    }
    s
}

fn run_cluster(a: ClusterArgs) -> anyhow::Result<i32> {
    let params = Params {
        probes: a.probes,
        check: a.check,
        anchors: a.anchors,
    };
    params
        .validate()
        .map_err(|e| anyhow::anyhow!("styles cluster: {e}"))?;
    let started = Instant::now();
    let (store, loaded) = load(&a.input, |_, _| {})?;
    let read = started.elapsed();
    let graph = cluster::components(&store, params)?;
    let mut assignments = match &a.assignments {
        Some(p) => Some(super::output(Some(p))?),
        None => None,
    };
    let mut clustered = 0u64;
    let clusters = cluster::clusters(&store, &graph, a.min_pages, a.members, |page, rank| {
        clustered += 1;
        if let Some(w) = assignments.as_mut() {
            let p = store.page(page)?;
            serde_json::to_writer(
                &mut *w,
                &serde_json::json!({"url": p.url, "site": p.site, "cluster": rank}),
            )?;
            w.write_all(b"\n")?;
        }
        Ok(())
    })?;
    if let Some(mut w) = assignments {
        w.flush()?;
    }
    let mut out = super::output(a.output.as_deref())?;
    for c in &clusters {
        serde_json::to_writer(&mut out, c)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    let s = &graph.stats;
    eprintln!(
        "{}; {} empty fingerprints. {} clusters hold {} pages (p={} t={}: a pair agreeing in {} dimensions is missed with probability ≤ {:.4}). {} candidate groups, {} checks, {} edges; read {:.1} s, clustered {:.1} s",
        describe(&store, &loaded),
        s.empty,
        clusters.len(),
        clustered,
        params.probes,
        params.check,
        params.check,
        params.miss_probability(),
        s.candidate_groups,
        s.checks,
        s.edges,
        read.as_secs_f64(),
        (started.elapsed() - read).as_secs_f64(),
    );
    Ok(0)
}

fn run_like(a: LikeArgs) -> anyhow::Result<i32> {
    let mut reference: Option<Fingerprint> = match &a.html {
        Some(path) => {
            let mut body = Vec::new();
            std::io::Read::read_to_end(
                &mut sources::open_maybe_gz(path)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?,
                &mut body,
            )?;
            let text = crawlsieve_core::input::decode::decode(&body, None);
            Some(fingerprint(text.text.as_bytes()))
        }
        None => None,
    };
    let want = a.url.clone();
    let (store, loaded) = load(&a.input, |page, fp| {
        if reference.is_none() && want.as_deref() == Some(page.url.as_str()) {
            reference = Some(fp.clone());
        }
    })?;
    let Some(reference) = reference else {
        anyhow::bail!(
            "styles like: no page with URL {} in the inputs",
            a.url.unwrap_or_default()
        );
    };
    if reference.filled() == 0 {
        anyhow::bail!(
            "styles like: the reference page has under 32 bytes of markup: no fingerprint"
        );
    }
    let ranked = rank::rank(&store, &reference)?;
    let mut out = super::output(None)?;
    let limit = if a.limit == 0 { ranked.len() } else { a.limit };
    for (r, &(matched, page)) in ranked.iter().take(limit).enumerate() {
        let p = store.page(page as usize)?;
        serde_json::to_writer(
            &mut out,
            &serde_json::json!({
                "rank": r + 1,
                "similarity": matched as f64 / M as f64,
                "matched": matched,
                "url": p.url,
                "site": p.site,
            }),
        )?;
        out.write_all(b"\n")?;
    }
    for g in rank::gaps(&ranked, a.gaps) {
        serde_json::to_writer(&mut out, &g)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    let alike = ranked.iter().filter(|r| r.0 >= a.threshold).count();
    eprintln!(
        "{}; {} alike (≥ {}/128; the reference fills {}/128)",
        describe(&store, &loaded),
        alike,
        a.threshold,
        reference.filled()
    );
    Ok(0)
}
