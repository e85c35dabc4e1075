//! Counters for a run: pages in, verdicts out by kind and reason, skipped
//! records, throughput. Every page that came in is accounted for.

use crate::input::sources::SourceStats;
use crate::verdict::{Kind, Reason, Verdict};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

#[derive(Debug, Default, Clone, Serialize)]
pub struct Summary {
    /// Inputs handed to the pipeline (pages and broken records).
    pub pages_in: u64,
    pub verdicts_out: u64,
    pub verdicts: BTreeMap<Kind, u64>,
    pub reasons: BTreeMap<Reason, u64>,
    pub languages: BTreeMap<String, u64>,
    /// Records read but not pages (non-HTML, request/metadata records, ...).
    pub skipped: BTreeMap<String, u64>,
    /// Inputs that could not be read to the end.
    pub failures: Vec<String>,
    /// Page bytes judged.
    pub page_bytes: u64,
    /// Input bytes read (compressed where the input is).
    pub input_bytes: u64,
    pub seconds: f64,
    /// Sum of per-page pipeline time, for per-core throughput.
    pub cpu_seconds: f64,
    /// What the index of pages seen did (`dedup.check`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dedup: Option<crate::dedup::SeenStats>,
}

impl Summary {
    pub fn count(&mut self, v: &Verdict) {
        self.verdicts_out += 1;
        *self.verdicts.entry(v.verdict).or_default() += 1;
        for r in &v.reasons {
            *self.reasons.entry(*r).or_default() += 1;
        }
        if let Some(lang) = &v.lang {
            *self.languages.entry(lang.clone()).or_default() += 1;
        }
        self.page_bytes += v.bytes;
        self.cpu_seconds += v.elapsed_us as f64 / 1e6;
    }

    pub fn add_source(&mut self, s: SourceStats) {
        for (k, n) in s.skipped {
            *self.skipped.entry(k).or_default() += n;
        }
        self.failures.extend(s.failures);
        self.input_bytes += s.bytes;
    }

    /// Whether the run lost anything to its inputs: an `error` verdict, a
    /// record too corrupt to become a page, or an input not read to its end.
    /// `--fail-on-error` exits 1 on any of them.
    pub fn had_errors(&self) -> bool {
        self.verdicts.get(&Kind::Error).copied().unwrap_or(0) > 0
            || self.skipped.get("corrupt_record").copied().unwrap_or(0) > 0
            || !self.failures.is_empty()
    }

    /// The input problems, one line each: what `-q` still prints.
    pub fn problems(&self) -> String {
        let mut out = String::new();
        if let Some(n) = self.verdicts.get(&Kind::Error).filter(|n| **n > 0) {
            out.push_str(&format!(
                "input problem: {n} pages could not be judged (error verdicts)\n"
            ));
        }
        if let Some(n) = self.skipped.get("corrupt_record") {
            out.push_str(&format!("input problem: {n} records too corrupt to read\n"));
        }
        for failure in &self.failures {
            out.push_str(&format!("input problem: {failure}\n"));
        }
        out
    }

    pub fn finish(&mut self, elapsed: Duration) {
        self.seconds = elapsed.as_secs_f64();
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mb = self.page_bytes as f64 / 1e6;
        writeln!(
            f,
            "pages in: {}   verdicts out: {}   ({:.1} MB of pages in {:.2} s: {:.1} MB/s, {:.0} pages/s; per core {:.1} MB/s)",
            self.pages_in,
            self.verdicts_out,
            mb,
            self.seconds,
            mb / self.seconds.max(1e-9),
            self.verdicts_out as f64 / self.seconds.max(1e-9),
            mb / self.cpu_seconds.max(1e-9),
        )?;
        let kinds: Vec<String> = Kind::ALL
            .iter()
            .map(|k| {
                format!(
                    "{} {}",
                    k.as_str(),
                    self.verdicts.get(k).copied().unwrap_or(0)
                )
            })
            .collect();
        writeln!(f, "verdicts: {}", kinds.join(", "))?;
        if !self.reasons.is_empty() {
            let mut reasons: Vec<_> = self.reasons.iter().collect();
            reasons.sort_by(|a, b| b.1.cmp(a.1));
            let list: Vec<String> = reasons
                .iter()
                .map(|(r, n)| format!("{} {n}", r.as_str()))
                .collect();
            writeln!(f, "reasons: {}", list.join(", "))?;
        }
        if !self.languages.is_empty() {
            let mut langs: Vec<_> = self.languages.iter().collect();
            langs.sort_by(|a, b| b.1.cmp(a.1));
            let list: Vec<String> = langs
                .iter()
                .take(10)
                .map(|(l, n)| format!("{l} {n}"))
                .collect();
            writeln!(f, "languages: {}", list.join(", "))?;
        }
        if !self.skipped.is_empty() {
            let list: Vec<String> = self
                .skipped
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            writeln!(f, "skipped records: {}", list.join(", "))?;
        }
        if let Some(d) = &self.dedup {
            writeln!(
                f,
                "seen before: {} of {} pages looked up ({} exact, {} near; {} in earlier crawls); {} not indexed (index full), {} not looked up (index failed)",
                d.exact + d.near,
                d.checked,
                d.exact,
                d.near,
                d.previous,
                d.unindexed,
                d.unchecked
            )?;
        }
        for failure in &self.failures {
            writeln!(f, "input problem: {failure}")?;
        }
        Ok(())
    }
}
