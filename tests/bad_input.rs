//! Broken input never stops a scan: each case gets an `error` verdict or is
//! counted as a skipped/corrupt record, and the pages around it are judged.

use crate::common;
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

/// Runs `cmd` as user `nobody` when the tests run as root (root reads a
/// file whatever its mode, so "permission denied" needs another user).
fn as_unprivileged(cmd: &mut std::process::Command) -> &mut std::process::Command {
    let root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !root {
        return cmd;
    }
    let program = cmd.get_program().to_owned();
    let args: Vec<_> = cmd.get_args().map(|a| a.to_owned()).collect();
    let mut wrapped = std::process::Command::new("setpriv");
    wrapped
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(program)
        .args(args);
    *cmd = wrapped;
    cmd
}

/// Every kind of broken input beside good ones, in one directory: each good
/// page gets its verdict, each bad input exactly one `error` verdict or one
/// named input problem, and the scan goes on to its end.
#[test]
fn an_input_zoo_is_accounted_for_to_the_last_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    // The unprivileged user must reach the directory.
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let zoo = dir.path().join("zoo");
    std::fs::create_dir(&zoo).unwrap();
    let outputs = dir.path().join("out");
    std::fs::create_dir(&outputs).unwrap();
    std::fs::set_permissions(&outputs, std::fs::Permissions::from_mode(0o777)).unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = zoo.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let page = |i: usize| {
        serde_json::json!({"url": format!("http://example.com/j{i}"), "html": article(80)})
            .to_string()
    };
    // Good inputs: 3 WARC records, 3 JSONL pages, 1 HTML file.
    write(
        "good.warc.gz",
        &[gzip(&good(1)), gzip(&good(2)), gzip(&good(3))].concat(),
    );
    write("good.html", article(80).as_bytes());
    // JSONL: a stray header line first, good pages, a cut line naming its url.
    let cut = "{\"url\": \"http://example.com/j99\", \"html\": \"<p>cut off here";
    let mixed = format!(
        "not json, a header\n{}\n{}\n{cut}\n{}\n",
        page(1),
        page(2),
        page(3)
    );
    write("mixed.jsonl", mixed.as_bytes());
    // Unreadable: a file others may not read, a directory that cannot be
    // listed, a link whose target is gone.
    let secret = write("secret.warc", &good(4));
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o000)).unwrap();
    let locked = zoo.join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::write(locked.join("inside.html"), article(80)).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    std::os::unix::fs::symlink(zoo.join("gone.html"), zoo.join("dangling.html")).unwrap();
    // Empty and random-byte archives, zero-byte pages.
    write("empty.warc", b"");
    write("empty.html", b"");
    write("empty.jsonl", b"");
    let random: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    write("random.warc.gz", &random);
    // A gzip member cut mid-way (the record before it is judged).
    let mut cut_member = [gzip(&good(5)), gzip(&good(6))].concat();
    cut_member.truncate(cut_member.len() - 300);
    write("cut-member.warc.gz", &cut_member);
    // A record whose Content-Length is not a number, between good ones.
    let mut bad_length = good(7);
    bad_length.extend(
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.com/len\r\nContent-Length: lots\r\n\r\nxx\r\n\r\n",
    );
    bad_length.extend(good(8));
    write("bad-length.warc", &bad_length);
    // A 100 MB file of one line: as JSONL a line too long to be a page; as
    // HTML a page cut at the size cap.
    let long = vec![b'x'; 100 << 20];
    write(
        "long.jsonl",
        &[
            b"{\"url\": \"http://example.com/long\", \"html\": \"".as_slice(),
            &long,
        ]
        .concat(),
    );
    write("long.html", &long);
    drop(long);

    let scan = |fail_on_error: bool| {
        let mut cmd = bin();
        cmd.args(["scan", "-j", "2", "--summary-json"])
            .arg(outputs.join(format!("summary-{fail_on_error}.json")));
        if fail_on_error {
            cmd.arg("--fail-on-error");
        }
        cmd.arg(&zoo);
        as_unprivileged(&mut cmd);
        run(&mut cmd)
    };
    let out = scan(false);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let vs = verdicts(&out);
    let by_url = |u: &str| vs.iter().filter(|v| v["url"] == u).count();
    for u in [
        "http://example.com/1",
        "http://example.com/2",
        "http://example.com/3",
        "http://example.com/j1",
        "http://example.com/j2",
        "http://example.com/j3",
        "http://example.com/5",
        "http://example.com/7",
        "http://example.com/8",
    ] {
        assert_eq!(by_url(u), 1, "{u}: {stderr}");
        let v = vs.iter().find(|v| v["url"] == u).unwrap();
        assert_ne!(v["verdict"], "error", "{v}");
    }
    let errors: Vec<String> = vs
        .iter()
        .filter(|v| v["verdict"] == "error")
        .map(|v| format!("{} {}", v["url"], v["error"]))
        .collect();
    let has = |needle: &str| errors.iter().filter(|e| e.contains(needle)).count();
    assert_eq!(has("JSONL page (line 1)"), 1, "{errors:#?}");
    assert_eq!(has("j99"), 1, "the cut line names its page: {errors:#?}");
    assert_eq!(has("secret.warc"), 1, "{errors:#?}");
    assert_eq!(has("locked"), 1, "{errors:#?}");
    assert_eq!(has("dangling.html"), 1, "{errors:#?}");
    assert_eq!(has("longer than"), 1, "{errors:#?}");
    assert_eq!(errors.len(), 6, "{errors:#?}");
    // No file judged as one page but the HTML ones.
    assert!(
        vs.iter()
            .all(|v| !v["url"].as_str().unwrap_or("").ends_with(".warc.gz")),
        "{stderr}"
    );
    assert_eq!(
        by_url(&format!("file://{}", zoo.join("long.html").display())),
        1,
        "{stderr}"
    );
    // The input problems are named, each once.
    for problem in [
        "empty.warc: empty file",
        "empty.html: empty file",
        "empty.jsonl: empty file",
        "random.warc.gz",
        "cut-member.warc.gz",
        "bad-length.warc",
    ] {
        assert_eq!(
            stderr
                .lines()
                .filter(|l| l.starts_with("input problem") && l.contains(problem))
                .count(),
            1,
            "{problem}: {stderr}"
        );
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(outputs.join("summary-false.json")).unwrap())
            .unwrap();
    assert_eq!(summary["pages_in"], summary["verdicts_out"]);
    assert_eq!(summary["verdicts_out"].as_u64().unwrap() as usize, vs.len());
    assert_eq!(scan(true).status.code(), Some(1), "--fail-on-error");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
}
