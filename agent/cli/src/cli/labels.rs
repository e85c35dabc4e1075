//! `crawlsieve labels ...`: make, inspect, publish and measure labeled sets.

use super::ConfigArgs;
use crawlsieve_core::crawl::corpus::corpus_keys;
use crawlsieve_core::crawl::discovery::count;
use crawlsieve_core::input::sources::Limits;
use crawlsieve_core::labels::{compact::CompactSet, file, keys};
use crawlsieve_core::Pipeline;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;

mod items;

#[derive(clap::Subcommand)]
pub enum LabelsCommand {
    /// Make an ed25519 key pair: KEY (private, mode 0600) and KEY.pub.
    Keygen {
        #[arg(long, short = 'o')]
        output: PathBuf,
    },
    /// Informed discovery: label every chunk of an expert corpus (WARC, HTML, JSONL, .txt).
    Build(BuildArgs),
    /// Blind discovery, step 1: count chunk occurrences of a corpus (bounded memory).
    Count(CountArgs),
    /// Blind discovery, step 2: add count files from many machines.
    Merge {
        #[arg(long, short = 'o')]
        output: PathBuf,
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
    },
    /// Blind discovery, step 3: keep chunks seen more than a threshold, minus stop chunks.
    Discover(DiscoverArgs),
    /// Streaming discovery: publish count files to a set's count topic on Kafka as an agent's batches (counts made offline, a backfill).
    SendCounts(SendCountsArgs),
    /// Publish a labeled-set file or hex list to a hub as the set's next version.
    Publish(PublishArgs),
    /// Print a labeled-set file's header (and verify it with a public key).
    Inspect {
        /// Public key file to verify the signature with.
        #[arg(long)]
        public_key_file: Option<PathBuf>,
        file: PathBuf,
    },
    /// Measure the in-memory set: bytes per entry, lookups/s, load time, false matches.
    Bench(BenchArgs),
}

#[derive(clap::Args)]
pub struct BuildArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// The set's name (e.g. `wikipedia`).
    #[arg(long)]
    name: String,
    /// Private key file to sign with.
    #[arg(long)]
    key: PathBuf,
    #[arg(long, short = 'o')]
    output: PathBuf,
    /// The set's version number.
    #[arg(long, default_value_t = 1)]
    version: u64,
    /// Leave out whole-content hashes (by default a page copied whole matches too).
    #[arg(long)]
    no_whole: bool,
    /// Leave out page SimHashes (by default a near-duplicate of a page matches too).
    #[arg(long)]
    no_simhash: bool,
    /// Leave out immutable grams (by default a spun copy of a page in a language with a
    /// mutables dictionary matches too; the file is then format 4).
    #[arg(long)]
    no_immutables: bool,
    /// An origin site of the set besides the corpus's own (repeatable): a domain
    /// (`example.org`: every host under it) or a URL prefix (`https://example.org/blog/`).
    /// Pages there are the originals: kept with `labeled_origin`, never flagged by this set.
    #[arg(long = "origin", value_name = "SITE")]
    origins: Vec<String>,
    /// Leave out the corpus's own sites (the registered domains of its pages) from the
    /// origin; only `--origin` sites are then recorded.
    #[arg(long)]
    no_corpus_origins: bool,
    /// Worker threads (default: one per core).
    #[arg(long, short = 'j')]
    workers: Option<usize>,
    #[command(flatten)]
    item: items::ItemArgs,
    #[arg(required = true)]
    inputs: Vec<String>,
}

#[derive(clap::Args)]
pub struct CountArgs {
    #[command(flatten)]
    config: ConfigArgs,
    #[arg(long, short = 'o')]
    output: PathBuf,
    /// Memory for occurrences before a sorted run is spilled to disk, in MB.
    #[arg(long, default_value_t = 512)]
    memory_mb: usize,
    /// Where runs are spilled (default: beside the output).
    #[arg(long)]
    spill_dir: Option<PathBuf>,
    #[arg(long, short = 'j')]
    workers: Option<usize>,
    #[arg(required = true)]
    inputs: Vec<String>,
}

#[derive(clap::Args)]
pub struct DiscoverArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Keep chunks seen more than this many times (the paper: 10^3 files, 10^5 chunks on Common Crawl).
    #[arg(long)]
    threshold: u64,
    #[arg(long)]
    name: String,
    #[arg(long)]
    key: PathBuf,
    #[arg(long, short = 'o')]
    output: PathBuf,
    #[arg(long, default_value_t = 1)]
    version: u64,
    /// Also write stop-chunk candidates (frequent chunks seen on at least --stop-min-sites sites) here, for review.
    #[arg(long)]
    propose_stop: Option<PathBuf>,
    #[arg(long, default_value_t = 100)]
    stop_min_sites: u64,
    counts: PathBuf,
}

#[derive(clap::Args)]
pub struct SendCountsArgs {
    /// Kafka bootstrap servers.
    #[arg(long, default_value = "127.0.0.1:9092")]
    kafka: String,
    /// The blind set (topic `crawlsieve.counts.SET`, made by its discoverers).
    #[arg(long)]
    set: String,
    /// The sender's name: each (agent, batch) is counted once.
    #[arg(long)]
    agent: String,
    /// The agent's private key: signs each slice, for discoverers that check agents' keys.
    #[arg(long)]
    signing_key: Option<PathBuf>,
    /// The first file's batch number; the next files take the next numbers.
    #[arg(long, default_value_t = 1)]
    first_batch: u64,
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

#[derive(clap::Args)]
pub struct PublishArgs {
    /// The hub's base URL.
    #[arg(long, default_value = "http://127.0.0.1:7600")]
    hub: String,
    #[arg(long)]
    name: String,
    /// File holding the publish token (else CRAWLSIEVE_HUB_TOKEN).
    #[arg(long)]
    token_file: Option<PathBuf>,
    /// With an https:// hub: trust only the certificates in this PEM file
    /// (a private CA, a self-signed hub); else the system's roots.
    #[arg(long)]
    ca_file: Option<PathBuf>,
    /// Publish a set file under another name than the one it was built with.
    #[arg(long)]
    rename: bool,
    file: PathBuf,
}

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Entries in the set.
    #[arg(long, default_value_t = 100_000_000)]
    entries: usize,
    /// Lookups to time (half members, half not).
    #[arg(long, default_value_t = 50_000_000)]
    lookups: usize,
    /// Where the signed file is written for the load-time measurement.
    #[arg(long)]
    dir: Option<PathBuf>,
    #[arg(long)]
    json: bool,
}

pub fn run(cmd: LabelsCommand) -> anyhow::Result<i32> {
    match cmd {
        LabelsCommand::Keygen { output } => {
            let public = keys::generate(&output)?;
            eprintln!(
                "private key: {}\npublic key:  {} ({})",
                output.display(),
                keys::public_path(&output).display(),
                hex::encode(public.as_bytes())
            );
            Ok(0)
        }
        LabelsCommand::Build(a) => build_set(a),
        LabelsCommand::Count(a) => count_corpus(a),
        LabelsCommand::Merge { output, inputs } => {
            let n = count::merge(&inputs, &output)?;
            eprintln!("{n} distinct chunks in {}", output.display());
            Ok(0)
        }
        LabelsCommand::Discover(a) => discover(a),
        LabelsCommand::Publish(a) => publish(a),
        LabelsCommand::SendCounts(a) => send_counts(a),
        LabelsCommand::Inspect {
            public_key_file,
            file,
        } => inspect(&file, public_key_file.as_deref()),
        LabelsCommand::Bench(a) => bench(a),
    }
}

/// `labels send-counts`: count files to a blind set's count topic, as an agent would.
fn send_counts(a: SendCountsArgs) -> anyhow::Result<i32> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    let signing = a
        .signing_key
        .as_deref()
        .map(keys::read_signing)
        .transpose()?;
    rt.block_on(crawlsieve_daemon::agent::counts::kafka::send_files(
        &a.kafka,
        &a.set,
        &a.agent,
        signing,
        a.first_batch,
        &a.files,
    ))?;
    eprintln!(
        "{} batches of {} sent to set {}",
        a.files.len(),
        a.agent,
        a.set
    );
    Ok(0)
}

/// `labels inspect`: a set file's header and items; its signature when a key is given.
fn inspect(
    path: &std::path::Path,
    public_key_file: Option<&std::path::Path>,
) -> anyhow::Result<i32> {
    let bytes = std::fs::read(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let parsed = file::SetFile::parse(&bytes)?;
    writeln!(
        std::io::stdout(),
        "{}",
        serde_json::to_string_pretty(&parsed.header)?
    )?;
    if let Some(table) = crawlsieve_core::labels::items::ItemTable::of(&parsed)? {
        items::describe(&table, &mut std::io::stdout().lock())?;
    }
    match public_key_file {
        Some(k) => {
            let public = keys::read_public(k)?;
            parsed.verify(&public).map_err(|e| {
                anyhow::anyhow!("signature: does not verify with {} ({e})", k.display())
            })?;
            eprintln!(
                "signature: good (public key {}, fingerprint {})",
                k.display(),
                keys::fingerprint(&public)
            );
        }
        None => eprintln!(
            "signature: not checked (give --public-key-file to verify it as an agent would)"
        ),
    }
    Ok(0)
}

fn build_set(a: BuildArgs) -> anyhow::Result<i32> {
    a.item.check()?;
    if let Some(format) = a.item.items {
        return items::build_items(&a, format);
    }
    let key = keys::read_signing(&a.key)?;
    let settings = a.config.load(&[])?;
    let limits = Limits::new(&settings.input);
    let workers = super::workers(a.workers.unwrap_or(settings.workers));
    let min_chars = settings.chunks.min_chars;
    let pipeline = Pipeline::new(settings)?;
    let started = Instant::now();
    let (contents, stats) = corpus_keys(
        &pipeline,
        &a.inputs,
        &limits,
        workers,
        !a.no_whole,
        !a.no_simhash,
        !a.no_immutables,
    )?;
    let mut header = file::Header::new(&a.name, a.version, 0, min_chars);
    if !a.no_immutables {
        header = header.with_immutables();
    }
    let corpus = (!a.no_corpus_origins).then_some(&stats.sites);
    header.origins = crawlsieve_core::labels::origin::normalise_all(
        corpus.into_iter().flatten().chain(&a.origins),
    )
    .map_err(|e| anyhow::anyhow!("{e} (name them with --origin and --no-corpus-origins)"))?;
    let bytes = file::encode(&header, &contents, &key);
    std::fs::write(&a.output, &bytes)
        .map_err(|e| anyhow::anyhow!("{}: {e}", a.output.display()))?;
    eprintln!(
        "{} documents ({} failed), {} keys (chunks, shingles and {} immutable grams), {} page SimHashes, origin: {} -> {} ({} bytes) in {:.1} s",
        stats.documents,
        stats.failed,
        contents.keys.len(),
        stats.immutables,
        contents.simhashes.len(),
        if header.origins.is_empty() { "none".to_string() } else { header.origins.join(" ") },
        a.output.display(),
        bytes.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(0)
}

fn count_corpus(a: CountArgs) -> anyhow::Result<i32> {
    let settings = a.config.load(&[])?;
    let limits = Limits::new(&settings.input);
    let workers = super::workers(a.workers.unwrap_or(settings.workers));
    let min_chars = settings.chunks.min_chars;
    let pipeline = Pipeline::new(settings)?;
    let spill = a.spill_dir.clone().unwrap_or_else(|| {
        a.output
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("."))
    });
    let mut counter = count::Counter::new(&spill, a.memory_mb << 20)?;
    let mut error = None;
    let stats = crawlsieve_core::crawl::corpus::occurrences(
        &pipeline,
        &a.inputs,
        &limits,
        workers,
        |h, site| {
            if let Err(e) = counter.add(h, site) {
                error.get_or_insert(e);
            }
        },
    )?;
    if let Some(e) = error {
        return Err(e);
    }
    let occurrences = counter.occurrences;
    let (distinct, runs) = counter.finish(&a.output, min_chars)?;
    eprintln!(
        "{} documents ({} failed), {occurrences} chunk occurrences, {distinct} distinct, {runs} sorted runs merged -> {}",
        stats.documents,
        stats.failed,
        a.output.display()
    );
    Ok(0)
}

fn discover(a: DiscoverArgs) -> anyhow::Result<i32> {
    let key = keys::read_signing(&a.key)?;
    let pipeline = Pipeline::new(a.config.load(&[])?)?;
    let found = count::discover(
        &a.counts,
        a.threshold,
        a.propose_stop.as_ref().map(|_| a.stop_min_sites),
        |h| pipeline.is_stop_chunk(h),
    )?;
    let header = file::Header::new(&a.name, a.version, 0, found.min_chars);
    let contents = file::Contents {
        keys: found.keys.clone(),
        simhashes: Vec::new(),
    };
    std::fs::write(&a.output, file::encode(&header, &contents, &key))?;
    if let Some(path) = &a.propose_stop {
        std::fs::write(path, found.stop_candidates_text())?;
    }
    eprintln!(
        "{} chunks read, {} over {} (stop chunks left out: {}), {} stop-chunk candidates -> {}",
        found.chunks_read,
        found.keys.len(),
        a.threshold,
        found.stop_chunks_skipped,
        found.stop_candidates.len(),
        a.output.display()
    );
    Ok(0)
}

fn publish(a: PublishArgs) -> anyhow::Result<i32> {
    let token = match &a.token_file {
        Some(p) => keys::read_secret(p)?,
        None => std::env::var("CRAWLSIEVE_HUB_TOKEN").map_err(|_| {
            anyhow::anyhow!("publishing needs --token-file or CRAWLSIEVE_HUB_TOKEN")
        })?,
    };
    let body = std::fs::read(&a.file).map_err(|e| anyhow::anyhow!("{}: {e}", a.file.display()))?;
    // A set file names the set it was built as; published under another
    // name, agents following that name would load another set's content.
    if body.starts_with(file::MAGIC) {
        let built = file::SetFile::parse(&body)
            .map_err(|e| anyhow::anyhow!("{}: {e}", a.file.display()))?
            .header
            .name
            .clone();
        anyhow::ensure!(
            built == a.name || a.rename,
            "{}: the set was built as `{built}`, not `{}`; publish it as `{built}`, or give --rename to publish it under the new name",
            a.file.display(),
            a.name
        );
    }
    let text = crawlsieve_daemon::hub::publish::publish(
        &a.hub,
        &a.name,
        &token,
        a.ca_file.as_deref(),
        body,
    )?;
    writeln!(std::io::stdout(), "{text}")?;
    Ok(0)
}

#[derive(serde::Serialize)]
struct BenchReport {
    entries: usize,
    bytes_per_entry: f64,
    expected_false_match_rate: f64,
    false_matches: usize,
    non_member_lookups: usize,
    lookups_per_s: f64,
    batched_lookups_per_s: f64,
    build_s: f64,
    file_bytes: usize,
    write_s: f64,
    load_s: f64,
}

fn bench(a: BenchArgs) -> anyhow::Result<i32> {
    // Keys as uniform as SHA-1 prefixes (splitmix64), sorted.
    let mut next = splitmix64(0x853c49e6748fea9bu64);
    eprintln!("generating {} keys...", a.entries);
    let mut keys: Vec<u64> = (0..a.entries).map(|_| next()).collect();
    keys.sort_unstable();
    keys.dedup();

    let t = Instant::now();
    let set = CompactSet::from_sorted(keys.iter().copied())?;
    let build_s = t.elapsed().as_secs_f64();

    let n = a.lookups.min(keys.len() * 2).max(2);
    let lookups = bench_lookups(&set, &keys, n, &mut next)?;

    // Load time: read, verify the signature, build — what an agent does at start.
    let dir = a.dir.clone().unwrap_or_else(std::env::temp_dir);
    let entries = keys.len();
    drop(set);
    let (loaded, file_bytes, write_s, load_s) = bench_file(keys, &dir)?;

    let report = BenchReport {
        entries,
        bytes_per_entry: loaded.set.heap_bytes() as f64 / entries as f64,
        expected_false_match_rate: loaded.set.false_match_rate(),
        false_matches: lookups.false_matches,
        non_member_lookups: n / 2,
        lookups_per_s: n as f64 / lookups.single_s,
        batched_lookups_per_s: n as f64 / lookups.batch_s,
        build_s,
        file_bytes,
        write_s,
        load_s,
    };
    print_bench(&report, a.json)
}

/// A splitmix64 stream from `state`: keys as uniform as SHA-1 prefixes.
fn splitmix64(mut state: u64) -> impl FnMut() -> u64 {
    move || crawlsieve_core::fingerprints::splitmix64(&mut state)
}

/// What the lookups measured.
struct Lookups {
    single_s: f64,
    batch_s: f64,
    false_matches: usize,
}

/// `n` lookups, members and non-members interleaved in a random order, one
/// at a time and batched; the false matches counted exactly.
fn bench_lookups(
    set: &CompactSet,
    keys: &[u64],
    n: usize,
    next: &mut impl FnMut() -> u64,
) -> anyhow::Result<Lookups> {
    let mut queries = Vec::with_capacity(n);
    let mut idx = next();
    for i in 0..n {
        if i % 2 == 0 {
            idx = idx
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            queries.push(keys[(idx >> 20) as usize % keys.len()]);
        } else {
            queries.push(next());
        }
    }
    let t = Instant::now();
    let mut hits = 0usize;
    for q in &queries {
        hits += set.contains(*q) as usize;
    }
    let single_s = t.elapsed().as_secs_f64();
    let mut answers = vec![false; 1024];
    let t = Instant::now();
    let mut batch_hits = 0usize;
    for qs in queries.chunks(1024) {
        set.contains_many(qs, &mut answers[..qs.len()]);
        batch_hits += answers[..qs.len()].iter().filter(|&&a| a).count();
    }
    let batch_s = t.elapsed().as_secs_f64();
    anyhow::ensure!(batch_hits == hits, "batched and single lookups agree");
    // Exact false matches among the non-member queries.
    let mut false_matches = 0;
    for q in queries.iter().skip(1).step_by(2) {
        if set.contains(*q) && keys.binary_search(q).is_err() {
            false_matches += 1;
        }
    }
    anyhow::ensure!(hits >= n / 2, "members must match");
    Ok(Lookups {
        single_s,
        batch_s,
        false_matches,
    })
}

/// The set written as a signed file in `dir` and loaded back as an agent
/// loads it (read, verify, build): the set, the file's size, the seconds
/// writing and loading took.
fn bench_file(
    keys: Vec<u64>,
    dir: &std::path::Path,
) -> anyhow::Result<(crawlsieve_core::labels::LabeledSet, usize, f64, f64)> {
    let path = dir.join(format!("crawlsieve-bench-{}.cslab", std::process::id()));
    let key = ed25519_dalek::SigningKey::from_bytes(&[7; 32]);
    let t = Instant::now();
    let contents = file::Contents {
        keys,
        simhashes: Vec::new(),
    };
    let bytes = file::encode(&file::Header::new("bench", 1, 0, 100), &contents, &key);
    std::fs::write(&path, &bytes)?;
    let write_s = t.elapsed().as_secs_f64();
    let file_bytes = bytes.len();
    drop(bytes);
    drop(contents);
    let t = Instant::now();
    let bytes = std::fs::read(&path)?;
    let loaded = crawlsieve_core::labels::LabeledSet::from_bytes(&bytes, &key.verifying_key())?;
    let load_s = t.elapsed().as_secs_f64();
    drop(bytes);
    let _ = std::fs::remove_file(&path);
    Ok((loaded, file_bytes, write_s, load_s))
}

fn print_bench(report: &BenchReport, json: bool) -> anyhow::Result<i32> {
    if json {
        writeln!(std::io::stdout(), "{}", serde_json::to_string(report)?)?;
    } else {
        writeln!(
            std::io::stdout(),
            "{} entries: {:.2} bytes/entry in memory; {:.1} M lookups/s on one core one at a time, {:.1} M/s batched; \
             expected false matches {:.2e}/lookup, measured {} in {} non-member lookups; \
             build {:.2} s; file {:.0} MB written+signed in {:.2} s; load (read + verify + build) {:.2} s",
            report.entries,
            report.bytes_per_entry,
            report.lookups_per_s / 1e6,
            report.batched_lookups_per_s / 1e6,
            report.expected_false_match_rate,
            report.false_matches,
            report.non_member_lookups,
            report.build_s,
            report.file_bytes as f64 / 1e6,
            report.write_s,
            report.load_s
        )?;
    }
    Ok(0)
}
