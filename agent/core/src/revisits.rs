//! Revisit records: a deduplicating crawler (Heritrix, wget, Browsertrix)
//! stores a page it fetched before with the same payload as a `revisit`
//! record, without the content, naming the capture it repeats. So that every
//! URL of such a crawl has a verdict, a revisit gets the verdict of that
//! capture, with the note `revisit` and `revisit_of` saying which it was.
//!
//! The captures are remembered as a scan writes their verdicts (in input
//! order, so a revisit after its capture finds it) and can be read from the
//! verdict files of earlier runs (`input.revisit_verdicts`, a crawl that
//! revisits the last one). A revisit names its capture by record id
//! (`WARC-Refers-To`), by URL and date (`WARC-Refers-To-Target-URI`,
//! `WARC-Refers-To-Date`, what Heritrix and warcio write), or by the payload
//! digest they share; any of them finds it. Memory is bounded: the last
//! `input.revisit_memory` captures, about 200 bytes each; an older capture's
//! revisit is unresolved, an `error` verdict that names the capture.

use crate::input::page::{Origin, RevisitOf};
use crate::verdict::{Kind, LabelCount, Reason, Verdict};
use std::collections::{HashMap, VecDeque};
use std::path::Path;

/// What a revisit takes from its capture's verdict.
#[derive(Debug, Clone)]
struct Judged {
    id: String,
    verdict: Kind,
    reasons: Vec<Reason>,
    lang: Option<String>,
    labels: Vec<LabelCount>,
    contains: Option<f64>,
    words: u32,
    content_sha1: Option<String>,
}

/// The captures remembered, by each key a revisit may name them by.
#[derive(Debug, Default)]
pub struct Captures {
    keys: HashMap<u64, usize>,
    /// (slot number, keys) in arrival order, for eviction past `limit`.
    order: VecDeque<(usize, Vec<u64>)>,
    slots: HashMap<usize, Judged>,
    next: usize,
    limit: usize,
}

fn key(kind: &str, parts: &[&str]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(kind.as_bytes());
    for p in parts {
        h.update(&[0]);
        h.update(p.trim().as_bytes());
    }
    h.digest()
}

fn keys_of(
    record_id: Option<&str>,
    url: &str,
    date: Option<&str>,
    digest: Option<&str>,
) -> Vec<u64> {
    let mut keys = Vec::with_capacity(3);
    if let Some(id) = record_id {
        keys.push(key("id", &[id]));
    }
    if let Some(date) = date {
        keys.push(key("at", &[url, date]));
    }
    if let Some(d) = digest {
        keys.push(key("digest", &[d]));
    }
    keys
}

/// The error text of a revisit whose capture is not known.
pub fn unresolved(of: &RevisitOf) -> String {
    let what = match (&of.url, &of.date, &of.record_id) {
        (Some(u), Some(d), _) => format!("{u} at {d}"),
        (_, _, Some(id)) => id.clone(),
        (Some(u), None, None) => u.clone(),
        _ => of
            .payload_digest
            .clone()
            .unwrap_or_else(|| "an unnamed capture".into()),
    };
    format!(
        "revisit of {what}: that capture's verdict is not known (not judged earlier in this run; \
         give the verdicts of the run that judged it with --revisit-verdicts)"
    )
}

impl Captures {
    /// Remembers up to `limit` captures (0: none, revisits stay unresolved).
    pub fn new(limit: usize) -> Self {
        Captures {
            limit,
            ..Default::default()
        }
    }

    fn insert(&mut self, keys: Vec<u64>, judged: Judged) {
        if self.limit == 0 || keys.is_empty() {
            return;
        }
        let slot = self.next;
        self.next += 1;
        for k in &keys {
            self.keys.insert(*k, slot);
        }
        self.slots.insert(slot, judged);
        self.order.push_back((slot, keys));
        while self.order.len() > self.limit {
            let Some((old, keys)) = self.order.pop_front() else {
                break;
            };
            self.slots.remove(&old);
            for k in keys {
                if self.keys.get(&k) == Some(&old) {
                    self.keys.remove(&k);
                }
            }
        }
    }

    /// Remembers a verdict a scan wrote, when it is a WARC capture's (a
    /// response or resource record, not itself a revisit, not an error).
    pub fn remember(&mut self, v: &Verdict) {
        if v.revisit_of.is_some() || v.verdict == Kind::Error {
            return;
        }
        let Origin::Warc {
            record_id,
            payload_digest,
            ..
        } = &v.origin
        else {
            return;
        };
        let keys = keys_of(
            record_id.as_deref(),
            &v.url,
            v.fetched_at.as_deref(),
            payload_digest.as_deref(),
        );
        self.insert(keys, judged(v));
    }

    /// Puts the verdict of the capture a revisit repeats into `v` (a
    /// revisit's unresolved verdict); false when the capture is not known.
    pub fn resolve(&self, v: &mut Verdict) -> bool {
        let Some(of) = &v.revisit_of else {
            return false;
        };
        let url = of.url.as_deref().unwrap_or(&v.url);
        let keys = keys_of(
            of.record_id.as_deref(),
            url,
            of.date.as_deref(),
            of.payload_digest.as_deref(),
        );
        let Some(j) = keys
            .iter()
            .find_map(|k| self.keys.get(k).and_then(|slot| self.slots.get(slot)))
        else {
            return false;
        };
        v.verdict = j.verdict;
        v.reasons = j.reasons.clone();
        v.reasons.push(Reason::Revisit);
        v.error = None;
        v.lang = j.lang.clone();
        v.labels = j.labels.clone();
        v.contains = j.contains;
        v.words = j.words;
        v.content_sha1 = j.content_sha1.clone();
        if let Some(of) = &mut v.revisit_of {
            of.record_id.get_or_insert_with(|| j.id.clone());
        }
        true
    }

    /// Remembers the captures of a verdict file written by an earlier run
    /// (JSONL, plain or `.gz`), by their record ids and URLs and dates.
    /// Returns the lines read and the lines that were not verdicts.
    pub fn read_verdicts(&mut self, path: &Path) -> anyhow::Result<(u64, u64)> {
        let mut read = 0;
        let skipped = crate::input::sources::read_verdict_lines::<serde_json::Value>(
            path,
            |n, e| {
                tracing::warn!(
                    "input.revisit_verdicts: {}:{n}: not a verdict: {e}",
                    path.display()
                )
            },
            |_, line| {
                read += 1;
                let Some(judged) = judged_from_json(&line) else {
                    return Ok(());
                };
                let record_id = line["origin"]["record_id"].as_str();
                let url = line["url"].as_str().unwrap_or("");
                let keys = keys_of(record_id, url, line["fetched_at"].as_str(), None);
                self.insert(keys, judged);
                Ok(())
            },
        )?;
        Ok((read, skipped))
    }
}

fn judged(v: &Verdict) -> Judged {
    Judged {
        id: v.id.clone(),
        verdict: v.verdict,
        reasons: v.reasons.clone(),
        lang: v.lang.clone(),
        labels: v.labels.clone(),
        contains: v.contains,
        words: v.words,
        content_sha1: v.content_sha1.clone(),
    }
}

/// A verdict line of a file read back: its kind and reasons must be ones
/// this version knows (a line that is a site flag, or from an unknown
/// version, is left out).
fn judged_from_json(line: &serde_json::Value) -> Option<Judged> {
    let verdict: Kind = serde_json::from_value(line.get("verdict")?.clone()).ok()?;
    if verdict == Kind::Error || line.get("revisit_of").is_some_and(|r| !r.is_null()) {
        return None;
    }
    let reasons: Vec<Reason> = serde_json::from_value(line["reasons"].clone()).unwrap_or_default();
    Some(Judged {
        id: line["id"].as_str().unwrap_or("").to_string(),
        verdict,
        reasons,
        lang: line["lang"].as_str().map(str::to_string),
        labels: Vec::new(),
        contains: line["contains"].as_f64(),
        words: line["words"].as_u64().unwrap_or(0) as u32,
        content_sha1: line["content_sha1"].as_str().map(str::to_string),
    })
}
