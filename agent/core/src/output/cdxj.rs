//! CDXJ indexes annotated with verdicts, for pywb-style replay and search.
//!
//! A CDXJ line (pywb, `cdxj-indexer`) is `<urlkey> <timestamp> <json>`, the
//! JSON naming the record's `filename` and byte `offset` in its WARC file.
//! A verdict read from a WARC file names the same two things (its `origin`),
//! so the join is exact: no URL normalisation, no timestamps to match. The
//! annotated line keeps every field as it was, in order, and adds
//! `verdict`, `reasons` (comma-separated, so pywb's `filter=~reasons:…`
//! works), `lang`, `words`, and `contains` / `labels_version` when known.
//! Lines without a verdict pass through unchanged and are counted.

use crate::verdict::VerdictRecord;
use std::collections::HashMap;
use std::io::{BufRead, Write};

/// The fields `annotate` adds.
const FIELDS: [&str; 6] = [
    "verdict",
    "reasons",
    "lang",
    "words",
    "contains",
    "labels_version",
];

/// The fields a verdict adds, in order, by (WARC file name, offset).
#[derive(Default)]
pub struct Verdicts {
    by_record: HashMap<(String, u64), Vec<(&'static str, serde_json::Value)>>,
    /// Verdicts of pages that did not come from a WARC file (nothing to join on).
    pub not_from_warc: u64,
}

/// What `annotate` did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    pub lines: u64,
    pub annotated: u64,
    /// CDXJ lines of records no verdict names (request records, other files).
    pub without_verdict: u64,
    /// Lines that are not `<key> <timestamp> <json object>` (passed through).
    pub not_cdxj: u64,
}

/// The last path segment: indexes name WARC files relative to a collection,
/// verdicts as they were given to `scan`.
fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

impl Verdicts {
    /// Adds one JSONL line of verdicts (site flags and other events are skipped).
    pub fn add_line(&mut self, line: &str) -> anyhow::Result<()> {
        if line.trim().is_empty() {
            return Ok(());
        }
        let v: VerdictRecord = serde_json::from_str(line)?;
        if !v.is_verdict() {
            return Ok(());
        }
        let key = match &v.origin {
            Some(o) if o.kind == "warc" => o.file.as_deref().zip(o.offset),
            _ => None,
        };
        let Some((file, offset)) = key else {
            self.not_from_warc += 1;
            return Ok(());
        };
        let key = (file_name(file).to_string(), offset);
        let mut fields = vec![
            ("verdict", v.verdict.clone().into()),
            ("reasons", v.reasons.join(",").into()),
            ("lang", v.lang.clone().into()),
            ("words", v.words.into()),
        ];
        if let Some(c) = v.contains {
            fields.push(("contains", c.into()));
        }
        if let Some(l) = &v.labels_version {
            fields.push(("labels_version", l.clone().into()));
        }
        self.by_record.insert(key, fields);
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.by_record.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_record.is_empty()
    }

    /// The fields for a CDXJ line's JSON, if a verdict names its record.
    fn fields(
        &self,
        json: &serde_json::Map<String, serde_json::Value>,
    ) -> Option<&[(&'static str, serde_json::Value)]> {
        let file = json.get("filename")?.as_str()?;
        let offset = match json.get("offset")? {
            serde_json::Value::String(s) => s.parse().ok()?,
            n => n.as_u64()?,
        };
        self.by_record
            .get(&(file_name(file).to_string(), offset))
            .map(Vec::as_slice)
    }
}

/// Copies `index` to `out`, each line whose record has a verdict annotated.
/// A line annotated before (it has a `verdict` field) is annotated afresh.
pub fn annotate(
    index: impl BufRead,
    mut out: impl Write,
    verdicts: &Verdicts,
) -> anyhow::Result<Stats> {
    let mut stats = Stats::default();
    for line in index.lines() {
        let line = line?;
        stats.lines += 1;
        let mut parts = line.splitn(3, ' ');
        let (Some(key), Some(ts), Some(json_text)) = (parts.next(), parts.next(), parts.next())
        else {
            stats.not_cdxj += 1;
            writeln!(out, "{line}")?;
            continue;
        };
        let Ok(serde_json::Value::Object(mut json)) = serde_json::from_str(json_text) else {
            stats.not_cdxj += 1;
            writeln!(out, "{line}")?;
            continue;
        };
        let Some(fields) = verdicts.fields(&json) else {
            stats.without_verdict += 1;
            writeln!(out, "{line}")?;
            continue;
        };
        stats.annotated += 1;
        let text = if json.contains_key("verdict") {
            // Re-annotation: the old fields go (key order is then the map's).
            for k in FIELDS {
                json.remove(k);
            }
            serde_json::Value::Object(json).to_string()
        } else {
            json_text.trim_end().to_string()
        };
        let body = text[..text.len() - 1].trim_end();
        // In the index's own style: cdxj-indexer writes `"k": v, "k": v`.
        let (comma, colon) = if text.contains("\": ") {
            (", ", ": ")
        } else {
            (",", ":")
        };
        let mut line = format!("{key} {ts} {body}");
        for (i, (k, v)) in fields.iter().enumerate() {
            if i > 0 || !body.ends_with('{') {
                line.push_str(comma);
            }
            line.push_str(&format!("\"{k}\"{colon}{v}"));
        }
        writeln!(out, "{line}}}")?;
    }
    out.flush()?;
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdicts() -> Verdicts {
        let mut v = Verdicts::default();
        v.add_line(r#"{"id":"a","url":"http://x.org/","verdict":"flag","reasons":["labeled_chunks","labeled_text"],"lang":"eng","words":116,"contains":1.0,"labels_version":"news@2c27","origin":{"kind":"warc","file":"/data/crawl/x.warc.gz","offset":445,"record_id":"<urn:uuid:1>"}}"#).unwrap();
        v.add_line(r#"{"type":"site_flag","neighborhood":"x.org/","state":"bad","pages":5}"#)
            .unwrap();
        v.add_line(r#"{"id":"b","url":"http://y.org/","verdict":"keep","reasons":[],"origin":{"kind":"jsonl","file":"p.jsonl","line":1}}"#).unwrap();
        v
    }

    #[test]
    fn the_record_a_verdict_names_is_annotated_and_the_rest_pass_through() {
        let index = concat!(
            "!meta 0 {\"format\":\"cdxj\"}\n",
            "org,x)/ 20261122100000 {\"url\":\"http://x.org/\",\"mime\":\"text/html\",\"status\":\"200\",\"length\":\"900\",\"offset\":\"445\",\"filename\":\"x.warc.gz\"}\n",
            "org,x)/ 20261122100000 {\"url\":\"http://x.org/\",\"offset\":\"1345\",\"filename\":\"x.warc.gz\"}\n",
            "not a cdxj line\n",
        );
        let v = verdicts();
        assert_eq!((v.len(), v.not_from_warc), (1, 1));
        let mut out = Vec::new();
        let stats = annotate(index.as_bytes(), &mut out, &v).unwrap();
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[1],
            "org,x)/ 20261122100000 {\"url\":\"http://x.org/\",\"mime\":\"text/html\",\"status\":\"200\",\"length\":\"900\",\"offset\":\"445\",\"filename\":\"x.warc.gz\",\"verdict\":\"flag\",\"reasons\":\"labeled_chunks,labeled_text\",\"lang\":\"eng\",\"words\":116,\"contains\":1.0,\"labels_version\":\"news@2c27\"}"
        );
        assert_eq!(
            lines[2],
            index.lines().nth(2).unwrap(),
            "no verdict: unchanged"
        );
        assert_eq!(lines[3], "not a cdxj line");
        assert_eq!(
            stats,
            Stats {
                lines: 4,
                annotated: 1,
                without_verdict: 2, // the `!meta` line has the shape, not a record
                not_cdxj: 1
            }
        );
        // Annotating the output again gives each field once, freshly.
        let mut again = Vec::new();
        annotate(out.as_bytes(), &mut again, &v).unwrap();
        let line: serde_json::Value = serde_json::from_str(
            String::from_utf8(again)
                .unwrap()
                .lines()
                .nth(1)
                .unwrap()
                .splitn(3, ' ')
                .nth(2)
                .unwrap(),
        )
        .unwrap();
        assert_eq!(line["verdict"], "flag");
        assert_eq!(line["offset"], "445");
    }
}
