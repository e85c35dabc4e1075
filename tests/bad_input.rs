//! Broken input never stops a scan: each case gets an `error` verdict or is
//! counted as a skipped/corrupt record, and the pages around it are judged.

mod common;
use common::*;

fn scan_bytes(bytes: &[u8], name: &str) -> (Vec<serde_json::Value>, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    let out = run(bin().args(["scan", "-j", "2"]).arg(&path));
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    (verdicts(&out), stderr)
}

fn good(i: usize) -> Vec<u8> {
    warc_response(
        &format!("http://example.com/{i}"),
        &format!("<urn:uuid:{i}>"),
        &http_html(article(80).as_bytes(), ""),
    )
}

#[test]
fn corrupt_gzip_member_is_skipped_and_the_rest_is_read() {
    let mut file = Vec::new();
    file.extend(gzip(&good(1)));
    let mut bad = gzip(&good(2));
    let mid = bad.len() / 2;
    for b in &mut bad[mid..mid + 8] {
        *b ^= 0xff;
    }
    file.extend(bad);
    file.extend(gzip(&good(3)));
    let (vs, stderr) = scan_bytes(&file, "corrupt.warc.gz");
    let urls: Vec<&str> = vs.iter().map(|v| v["url"].as_str().unwrap()).collect();
    assert!(
        urls.contains(&"http://example.com/1") && urls.contains(&"http://example.com/3"),
        "{urls:?}"
    );
    assert!(stderr.contains("corrupt_record"), "{stderr}");
}

#[test]
fn truncated_warc_gz_keeps_what_was_read() {
    let mut file = Vec::new();
    for i in 0..5 {
        file.extend(gzip(&good(i)));
    }
    file.truncate(file.len() * 7 / 10);
    let (vs, stderr) = scan_bytes(&file, "truncated.warc.gz");
    assert!(vs.len() >= 3, "{} verdicts", vs.len());
    assert!(stderr.contains("input problem"), "{stderr}");
}

#[test]
fn record_cut_off_in_a_plain_warc_gets_an_error_verdict() {
    let mut file = good(1);
    let cut = good(2);
    file.extend(&cut[..cut.len() - 200]);
    let (vs, _) = scan_bytes(&file, "cut.warc");
    assert_eq!(vs.len(), 2);
    assert_eq!(vs[1]["verdict"], "error");
    assert!(vs[1]["error"].as_str().unwrap().contains("cut off"));
}

#[test]
fn garbage_between_records_resynchronises() {
    let mut file = good(1);
    file.extend(b"this is not a WARC record at all\r\n\r\n");
    file.extend(good(2));
    let (vs, stderr) = scan_bytes(&file, "junk.warc");
    let urls: Vec<&str> = vs.iter().map(|v| v["url"].as_str().unwrap()).collect();
    assert_eq!(urls, vec!["http://example.com/1", "http://example.com/2"]);
    assert!(stderr.contains("corrupt_record 1"), "{stderr}");
}

#[test]
fn binary_bodies_bad_charsets_and_bad_encodings() {
    let mut file = Vec::new();
    let binary: Vec<u8> = (0..20_000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    file.extend(warc_response(
        "http://example.com/bin",
        "<urn:uuid:b>",
        &http_html(&binary, ""),
    ));
    file.extend(warc_response(
        "http://example.com/cs",
        "<urn:uuid:c>",
        &http_html(
            article(80).as_bytes(),
            "Content-Type: text/html; charset=no-such-charset\r\n",
        ),
    ));
    file.extend(warc_response(
        "http://example.com/gz",
        "<urn:uuid:g>",
        &http_html(b"\x1f\x8bnot gzip", "Content-Encoding: gzip\r\n"),
    ));
    file.extend(warc_response(
        "http://example.com/hdr",
        "<urn:uuid:h>",
        b"NOT HTTP AT ALL\r\n\r\n<p>x</p>",
    ));
    file.extend(good(9));
    let (vs, _) = scan_bytes(&file, "mixed.warc");
    let get = |u: &str| vs.iter().find(|v| v["url"] == u).unwrap();
    assert_eq!(get("http://example.com/bin")["verdict"], "error");
    assert_eq!(get("http://example.com/bin")["reasons"][0], "binary_body");
    assert_eq!(
        get("http://example.com/cs")["verdict"],
        "keep",
        "unknown charset falls back to UTF-8"
    );
    assert_eq!(get("http://example.com/gz")["verdict"], "error");
    assert_eq!(get("http://example.com/hdr")["verdict"], "error");
    assert_eq!(get("http://example.com/9")["verdict"], "keep");
}

#[test]
fn fifty_megabyte_page_is_truncated_and_says_so() {
    let mut html = String::from("<html><body>");
    while html.len() < 50 << 20 {
        html.push_str("<p>Some words to fill a very large page with text, again and again.</p>\n");
    }
    let file = warc_response(
        "http://example.com/big",
        "<urn:uuid:big>",
        &http_html(html.as_bytes(), ""),
    );
    let (vs, _) = scan_bytes(&file, "big.warc");
    assert_eq!(vs.len(), 1);
    let v = &vs[0];
    assert!(
        v["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r == "truncated"),
        "{v}"
    );
    assert_eq!(v["bytes"], 5 * 1024 * 1024);
}

#[test]
fn bad_jsonl_lines_get_error_verdicts() {
    let input = format!(
        "{}\n{{not json\n{{\"url\": \"http://example.com/nohtml\"}}\n{}\n",
        serde_json::json!({"url": "http://example.com/1", "html": article(80)}),
        serde_json::json!({"url": "http://example.com/2", "html": article(80)}),
    );
    let vs = verdicts(&run_stdin(
        bin().args(["scan", "-q", "-"]),
        input.as_bytes(),
    ));
    assert_eq!(vs.len(), 4);
    assert_eq!(vs[1]["verdict"], "error");
    assert_eq!(vs[2]["verdict"], "error");
    assert_eq!(vs[2]["url"], "http://example.com/nohtml");
    assert_eq!(vs[3]["verdict"], "keep");
}

#[test]
fn malformed_html_is_judged() {
    let pages = [
        "<html><body><p>unclosed <b>bold <i>italic <div>block</p></span></table>",
        "<<<<>>>><p>&&&&;;;&#xZZ;&#99999999;",
        "<svg><script>alert(1)</svg><p>after",
        "\u{0}\u{0}<p>nul bytes</p>",
        "",
    ];
    let input: String = pages
        .iter()
        .enumerate()
        .map(|(i, h)| {
            serde_json::json!({"url": format!("http://example.com/{i}"), "html": h}).to_string()
                + "\n"
        })
        .collect();
    let vs = verdicts(&run_stdin(
        bin().args(["scan", "-q", "-"]),
        input.as_bytes(),
    ));
    assert_eq!(vs.len(), pages.len());
    for (i, v) in vs.iter().enumerate() {
        if i == 3 {
            // NUL bytes are binary data to the MIME sniffing rules.
            assert_eq!(v["reasons"][0], "binary_body", "{v}");
        } else {
            assert_eq!(
                v["verdict"], "drop",
                "short pages are dropped, not errors: {v}"
            );
        }
    }
    assert_eq!(vs[4]["reasons"][0], "no_visible_text");
}
