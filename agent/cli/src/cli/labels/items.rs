//! `labels build --items FORMAT`: an item set from evaluation data.

use crawlsieve_core::crawl::corpus::common_item_grams;
use crawlsieve_core::input::sources::Limits;
use crawlsieve_core::labels::items::{build, read, ItemTable};
use crawlsieve_core::labels::{file, keys};
use crawlsieve_core::Pipeline;
use std::io::Write;
use std::time::Instant;

/// The flags of an item set's build.
#[derive(clap::Args)]
pub struct ItemArgs {
    /// Build an item set: the inputs are evaluation data in this format — `jsonl` (an item a
    /// line), `bigbench` (task.json), `text` (an item a file), `text-blocks` (an item a
    /// blank-line block). Files ending in .gz are gunzipped; directories are read whole.
    #[arg(long, value_name = "FORMAT")]
    pub items: Option<read::Format>,
    /// jsonl: the fields an item's text is, joined in order (the question, its options).
    #[arg(long, value_delimiter = ',', value_name = "FIELD,...")]
    pub fields: Vec<String>,
    /// jsonl: fields joined after them that a leaked copy may leave out (the answer).
    #[arg(long, value_delimiter = ',', value_name = "FIELD,...")]
    pub answer_fields: Vec<String>,
    /// jsonl: the field holding an item's id (default: its line number).
    #[arg(long, value_name = "FIELD")]
    pub id_field: Option<String>,
    /// jsonl: the field holding an item's task or subset (default: the file's name).
    #[arg(long, value_name = "FIELD")]
    pub task_field: Option<String>,
    /// Grams shared by at least this many distinct items are the benchmark's scaffolding: they
    /// count towards an item's run of grams, not towards the share of its own words.
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub common_items: usize,
    /// A reference crawl (WARC, HTML, JSONL, .txt; repeatable): grams of the items found on
    /// pages of at least --common-sites of its sites are dropped as common on the web.
    #[arg(long = "common-in", value_name = "PATH")]
    pub common_in: Vec<String>,
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub common_sites: usize,
    /// Words per gram (4 to 16; the set records it). The default is the measured one
    /// (docs/labels.md, "Item sets"); other values are for measuring.
    #[arg(long, default_value_t = crawlsieve_core::fingerprints::wordgrams::N as u8, value_name = "N",
          value_parser = clap::value_parser!(u8).range(4..=16))]
    pub gram_words: u8,
}

impl ItemArgs {
    /// Item flags given without `--items` are a mistake, not ignored.
    pub fn check(&self) -> anyhow::Result<()> {
        let jsonl_flags = !self.fields.is_empty()
            || !self.answer_fields.is_empty()
            || self.id_field.is_some()
            || self.task_field.is_some();
        match self.items {
            None if jsonl_flags || !self.common_in.is_empty() => {
                anyhow::bail!("--fields, --answer-fields, --id-field, --task-field and --common-in build item sets: give --items FORMAT")
            }
            Some(read::Format::Jsonl) if self.fields.is_empty() => {
                anyhow::bail!("--items jsonl: name the fields an item is made of with --fields (e.g. --fields question,choices --answer-fields answer)")
            }
            Some(f) if f != read::Format::Jsonl && jsonl_flags => {
                anyhow::bail!(
                    "--fields, --answer-fields, --id-field and --task-field are for --items jsonl"
                )
            }
            _ => Ok(()),
        }
    }
}

/// Problems printed one by one before the rest are only counted.
const SHOWN_PROBLEMS: usize = 20;

/// The first problems one by one, then how many more.
fn show_problems(problems: &[impl std::fmt::Display], err: &mut impl Write) -> std::io::Result<()> {
    for p in problems.iter().take(SHOWN_PROBLEMS) {
        writeln!(err, "{p}")?;
    }
    if problems.len() > SHOWN_PROBLEMS {
        writeln!(
            err,
            "... and {} more problems",
            problems.len() - SHOWN_PROBLEMS
        )?;
    }
    Ok(())
}

/// The items' grams found on pages of `--common-sites` sites or more of the
/// reference crawl (`--common-in`): dropped from the set.
fn common_in_reference(
    a: &super::BuildArgs,
    settings: crawlsieve_core::Settings,
    items: &[read::RawItem],
    err: &mut impl Write,
) -> anyhow::Result<build::Grams> {
    let limits = Limits::new(&settings.input);
    let workers = super::super::workers(a.workers.unwrap_or(settings.workers));
    let pipeline = Pipeline::new(settings)?;
    let all = build::all_grams(items, a.item.gram_words as usize);
    let (found, stats) = common_item_grams(
        &pipeline,
        &a.item.common_in,
        &limits,
        workers,
        &all,
        a.item.common_sites,
    )?;
    writeln!(
        err,
        "reference crawl: {} documents; {} of the items' grams on pages of {} sites or more",
        stats.documents,
        found.len(),
        a.item.common_sites
    )?;
    Ok(found)
}

pub fn build_items(a: &super::BuildArgs, format: read::Format) -> anyhow::Result<i32> {
    let key = keys::read_signing(&a.key)?;
    let settings = a.config.load(&[])?;
    let started = Instant::now();
    let fields = read::Fields {
        question: a.item.fields.clone(),
        answer: a.item.answer_fields.clone(),
        id: a.item.id_field.clone(),
        task: a.item.task_field.clone(),
    };
    let inputs: Vec<std::path::PathBuf> = a.inputs.iter().map(Into::into).collect();
    let got = read::read(&inputs, format, &fields);
    let mut err = std::io::stderr().lock();
    show_problems(&got.problems, &mut err)?;
    anyhow::ensure!(
        !got.items.is_empty(),
        "no item in {} files ({} problems)",
        got.files,
        got.problems.len()
    );
    let min_grams = settings.labels.items.min_grams as usize;
    let common = if a.item.common_in.is_empty() {
        Default::default()
    } else {
        common_in_reference(a, settings, &got.items, &mut err)?
    };
    let (table, stats) = build::build(
        &got.items,
        a.item.gram_words as usize,
        a.item.common_items,
        &common,
        min_grams,
    );
    let header = file::Header::new(&a.name, a.version, 0, 0);
    let bytes = file::encode_with_items(
        &header,
        &Default::default(),
        Some(&table.section(a.item.gram_words as usize)),
        &key,
    );
    std::fs::write(&a.output, &bytes)
        .map_err(|e| anyhow::anyhow!("{}: {e}", a.output.display()))?;
    // What an agent holds for it: the index it loads.
    let memory =
        crawlsieve_core::labels::items::ItemIndex::new(table.clone(), a.item.gram_words as usize)
            .memory();
    writeln!(
        err,
        "{} items of {} tasks from {} files ({} problems), {} duplicates, {} unmatchable (fewer than {min_grams} grams), {} all scaffolding; \
         {} grams of {} words kept, {} of them scaffolding (in {} items or more), {} dropped as common in the reference crawl -> {} ({} bytes, {:.0} an item; {:.0} bytes an item in an agent's memory) in {:.1} s",
        stats.items,
        table.tasks.len(),
        got.files,
        got.problems.len(),
        stats.duplicates,
        stats.unmatchable,
        stats.all_scaffold,
        stats.grams,
        a.item.gram_words,
        stats.scaffold,
        a.item.common_items,
        stats.dropped_common,
        a.output.display(),
        bytes.len(),
        bytes.len() as f64 / stats.items as f64,
        memory as f64 / stats.items as f64,
        started.elapsed().as_secs_f64()
    )?;
    Ok(0)
}

/// What `labels inspect` adds for an item set: its tasks, with items and grams.
pub fn describe(table: &ItemTable, out: &mut impl std::io::Write) -> std::io::Result<()> {
    let mut per_task = vec![(0usize, 0usize, 0usize); table.tasks.len()];
    for item in &table.items {
        let t = &mut per_task[item.task as usize];
        t.0 += 1;
        t.1 += item.grams.len();
        t.2 += usize::from(item.grams.len() < 3);
    }
    writeln!(
        out,
        "{} tasks, {} items, {} grams",
        table.tasks.len(),
        table.items.len(),
        table.grams()
    )?;
    writeln!(out, "{:>8} {:>9} {:>11}  task", "items", "grams", "under 3")?;
    for (name, (items, grams, few)) in table.tasks.iter().zip(per_task) {
        writeln!(out, "{items:>8} {grams:>9} {few:>11}  {name}")?;
    }
    Ok(())
}
