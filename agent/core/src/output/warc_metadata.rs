//! Verdicts as WARC/1.1 `metadata` records, so they travel with the archive.
//!
//! Each verdict becomes one record whose block is the verdict's JSON (the
//! same schema as the JSONL output), with `WARC-Target-URI` the page's URL
//! and, for pages read from a WARC file, `WARC-Refers-To` the `response`
//! record judged — the link WARC readers (warcio, pywb's indexers) use to
//! attach metadata to a capture. The file opens with a `warcinfo` record
//! naming the software. A `.gz` path gets one gzip member per record, as the
//! WARC standard's annex recommends, so readers can seek to any record.
//!
//! Record ids are name-based UUIDs (v5) of the verdict id and the labeled-set
//! versions: a rerun over the same input with the same sets writes the same
//! records; a rerun against newer sets writes new ones. Site flags are not
//! about a capture and stay in the JSONL output.

use super::Sink;
use crate::verdict::SiteFlag;
use crate::verdict::Verdict;
use sha1::{Digest, Sha1};
use std::io::{BufWriter, Write};
use std::path::Path;

/// Namespace of crawlsieve's record ids (a fixed random UUID).
const NAMESPACE: uuid::Uuid = uuid::uuid!("5d3c6f0e-2b1a-4c8e-9f47-3a6b0d2e8c11");

pub struct WarcMetadataSink {
    out: BufWriter<std::fs::File>,
    gzip: bool,
    pub records: u64,
}

impl WarcMetadataSink {
    /// Creates (or truncates) `path` and writes its `warcinfo` record.
    pub fn create(path: &Path) -> anyhow::Result<Self> {
        let file = std::fs::File::create(path)
            .map_err(|e| anyhow::anyhow!("--warc-metadata {}: {e}", path.display()))?;
        let mut sink = WarcMetadataSink {
            out: BufWriter::with_capacity(1 << 16, file),
            gzip: path.extension().is_some_and(|e| e == "gz"),
            records: 0,
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let info = format!(
            "software: crawlsieve/{}\r\nformat: WARC File Format 1.1\r\n\
             description: crawlsieve verdicts, one metadata record per page (application/json)\r\n",
            env!("CARGO_PKG_VERSION")
        );
        let id = uuid::Uuid::new_v5(&NAMESPACE, format!("warcinfo {name} {}", now()).as_bytes());
        sink.write_record(
            &[
                ("WARC-Type", "warcinfo"),
                ("WARC-Record-ID", &urn(&id)),
                ("WARC-Date", &now()),
                ("WARC-Filename", &name),
                ("Content-Type", "application/warc-fields"),
            ],
            info.as_bytes(),
        )?;
        Ok(sink)
    }

    fn write_record(&mut self, headers: &[(&str, &str)], block: &[u8]) -> anyhow::Result<()> {
        let mut record = Vec::with_capacity(block.len() + 512);
        record.extend_from_slice(b"WARC/1.1\r\n");
        for (name, value) in headers {
            // A header value never spans lines: a URL from the web could try.
            let value: String = value.chars().filter(|c| !c.is_control()).collect();
            record.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
        }
        let digest = data_encoding::BASE32.encode(&Sha1::digest(block));
        record.extend_from_slice(format!("WARC-Block-Digest: sha1:{digest}\r\n").as_bytes());
        record.extend_from_slice(format!("Content-Length: {}\r\n\r\n", block.len()).as_bytes());
        record.extend_from_slice(block);
        record.extend_from_slice(b"\r\n\r\n");
        if self.gzip {
            let mut gz =
                flate2::write::GzEncoder::new(&mut self.out, flate2::Compression::default());
            gz.write_all(&record)?;
            gz.finish()?;
        } else {
            self.out.write_all(&record)?;
        }
        self.records += 1;
        Ok(())
    }
}

fn urn(id: &uuid::Uuid) -> String {
    format!("<urn:uuid:{id}>")
}

fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

impl Sink for WarcMetadataSink {
    fn send(&mut self, v: &Verdict) -> anyhow::Result<()> {
        let block = serde_json::to_vec(v)?;
        let key = format!("{} {}", v.id, v.labels_version.as_deref().unwrap_or(""));
        let id = urn(&uuid::Uuid::new_v5(&NAMESPACE, key.as_bytes()));
        let date = now();
        let mut headers = vec![
            ("WARC-Type", "metadata"),
            ("WARC-Record-ID", id.as_str()),
            ("WARC-Date", date.as_str()),
            ("WARC-Target-URI", v.url.as_str()),
        ];
        if let Some(refers_to) = v.origin.record_id() {
            headers.push(("WARC-Refers-To", refers_to));
        }
        headers.push(("Content-Type", "application/json"));
        self.write_record(&headers, &block)
    }

    fn send_flag(&mut self, _flag: &SiteFlag) -> anyhow::Result<()> {
        Ok(())
    }

    fn flush(&mut self) -> anyhow::Result<()> {
        self.out.flush()?;
        self.out.get_ref().sync_data()?;
        Ok(())
    }
}
