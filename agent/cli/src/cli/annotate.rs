//! `crawlsieve annotate-log`: a Heritrix crawl.log, written back with each
//! judged URL annotated with its verdict and each line of a bad neighborhood
//! annotated with the neighborhood.

use super::ConfigArgs;
use crawlsieve_core::neighborhoods::Neighborhoods;
use crawlsieve_core::output::crawllog;
use crawlsieve_core::verdict::VerdictRecord;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Seek, Write};
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args)]
pub struct AnnotateArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Verdicts (the JSONL `scan` writes); site flags are recomputed from them with `[neighborhoods]`.
    #[arg(long, required = true)]
    verdicts: Vec<PathBuf>,
    /// Where the annotated log goes (default stdout).
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Keep reading as the crawl.log (and the verdict files) grow, like `tail -f`.
    #[arg(long, short = 'f')]
    follow: bool,
    /// The crawl.log (`-` for stdin).
    #[arg(default_value = "-")]
    crawl_log: String,
}

/// What is known about URLs: verdicts, and the neighborhoods they add up to.
struct Known {
    verdicts: HashMap<String, (String, Option<String>)>,
    hoods: Neighborhoods,
    /// Bytes of each verdict file read so far (for `--follow`).
    offsets: Vec<u64>,
    files: Vec<PathBuf>,
    bad_lines: u64,
}

impl Known {
    fn read_more(&mut self) -> anyhow::Result<()> {
        for (i, path) in self.files.iter().enumerate() {
            let mut f = std::fs::File::open(path)
                .map_err(|e| anyhow::anyhow!("verdicts {}: {e}", path.display()))?;
            f.seek(std::io::SeekFrom::Start(self.offsets[i]))?;
            let mut text = String::new();
            f.read_to_string(&mut text)?;
            // Only whole lines: a line being written is read next time.
            let complete = text.rfind('\n').map_or(0, |n| n + 1);
            for line in text[..complete].lines() {
                match serde_json::from_str::<VerdictRecord>(line) {
                    Ok(v) if v.is_verdict() => {
                        if let Some(c) = v.contribution() {
                            self.hoods.observe(&v.url, c);
                        }
                        let reason = v.reasons.first().cloned();
                        self.verdicts
                            .insert(v.url.clone(), (v.verdict.unwrap_or_default(), reason));
                    }
                    Ok(_) => {}
                    Err(_) => self.bad_lines += 1,
                }
            }
            self.offsets[i] += complete as u64;
        }
        self.hoods.sweep();
        Ok(())
    }

    fn annotations(&self, url: &str) -> Vec<String> {
        let mut add = Vec::new();
        if let Some((verdict, reason)) = self.verdicts.get(url) {
            add.push(format!("crawlsieve:{verdict}"));
            if let Some(r) = reason {
                add.push(format!("crawlsieve-reason:{r}"));
            }
        }
        if let Some(n) = self.hoods.bad_neighborhood_of(url) {
            add.push(format!("crawlsieve-bad-site:{n}"));
        }
        add
    }
}

/// A crawl log being read, and where its annotated lines go.
type Files = (BufReader<Box<dyn Read>>, Box<dyn Write>);

/// The crawl log (`-`: stdin) and where the annotated log goes (stdout by default).
fn open_files(a: &AnnotateArgs) -> anyhow::Result<Files> {
    let input: Box<dyn Read> = if a.crawl_log == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(
            std::fs::File::open(&a.crawl_log)
                .map_err(|e| anyhow::anyhow!("crawl log {}: {e}", a.crawl_log))?,
        )
    };
    let out: Box<dyn Write> = match &a.output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout())),
    };
    Ok((BufReader::new(input), out))
}

pub fn run(a: AnnotateArgs) -> anyhow::Result<i32> {
    let settings = a.config.load(&[])?;
    let mut known = Known {
        verdicts: HashMap::new(),
        hoods: Neighborhoods::new(settings.neighborhoods.clone()),
        offsets: vec![0; a.verdicts.len()],
        files: a.verdicts.clone(),
        bad_lines: 0,
    };
    known.read_more()?;
    let (mut input, mut out) = open_files(&a)?;
    let (mut lines, mut annotated, mut not_crawl_log) = (0u64, 0u64, 0u64);
    let mut pending = String::new();
    loop {
        let mut buf = String::new();
        let n = input.read_line(&mut buf)?;
        if n == 0 {
            if !a.follow {
                break;
            }
            out.flush()?;
            std::thread::sleep(Duration::from_millis(500));
            known.read_more()?;
            continue;
        }
        pending.push_str(&buf);
        if !pending.ends_with('\n') {
            if a.follow {
                continue; // the rest of the line is still being written
            }
            pending.push('\n');
        }
        let line = std::mem::take(&mut pending);
        let body = line.trim_end_matches(['\n', '\r']);
        lines += 1;
        let add = crawllog::url(body)
            .map(|u| known.annotations(u))
            .unwrap_or_default();
        match crawllog::annotate(body, &add).filter(|_| crawllog::is_line(body)) {
            Some(new) => {
                if !add.is_empty() {
                    annotated += 1;
                }
                writeln!(out, "{new}")?;
            }
            None => {
                not_crawl_log += 1;
                writeln!(out, "{body}")?;
            }
        }
    }
    out.flush()?;
    // A file with lines but none of a crawl.log's is the wrong file (a wget
    // log, a verdict file): saying "0 annotated" and exiting 0 hides that.
    if lines > 0 && not_crawl_log == lines {
        eprintln!(
            "crawlsieve annotate-log: {}: none of its {lines} lines is a Heritrix crawl.log line \
             (timestamp, status, size, URL, hop path, via, MIME type, thread, ...)",
            a.crawl_log
        );
        return Ok(2);
    }
    eprintln!(
        "{lines} lines, {annotated} annotated, {not_crawl_log} not crawl.log lines (left as they were); {} verdicts known, {} bad neighborhoods, {} unreadable verdict lines",
        known.verdicts.len(),
        known.hoods.iter().filter(|(_, h)| h.bad).count(),
        known.bad_lines
    );
    Ok(0)
}
