//! `crawlsieve quilts` through the real binary, on pages made of real English
//! sentences (../shared/data/langid): a page quilted from five sites, one
//! from two (too few sources), a blog home page quilted from its own posts
//! (caught by the definition, left out by `--foreign`), and the same job
//! split over two "machines" and three partitions, which must find exactly
//! what one process finds.

use crate::common;

use common::{bin, json_lines, run, shared_data, succeeded};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn page(url: &str, sentences: &[&str]) -> String {
    let body: String = sentences.iter().map(|s| format!("<p>{s}</p>")).collect();
    serde_json::json!({
        "url": url,
        "html": format!("<html><head><title>t</title></head><body><article>{body}</article></body></html>"),
    })
    .to_string()
}

/// The corpus as page lines, in two halves (two machines' crawls).
fn corpus(sentences: &[String]) -> (Vec<String>, Vec<String>) {
    let s: Vec<&str> = sentences.iter().map(String::as_str).collect();
    let mut a = Vec::new();
    let mut b = Vec::new();
    // Eight source pages of 20 sentences on eight sites.
    for i in 0..8 {
        let url = format!("https://src{i}.example/article.html");
        let p = page(&url, &s[i * 20..i * 20 + 20]);
        if i % 2 == 0 {
            a.push(p)
        } else {
            b.push(p)
        }
    }
    // Quilted from sources 0..5: four sentences of each, two of filler.
    let mut q: Vec<&str> = Vec::new();
    for i in 0..5 {
        q.extend_from_slice(&s[i * 20 + 3..i * 20 + 7]);
    }
    q.extend_from_slice(&s[160..162]);
    a.push(page("https://quilt.example/stitched.html", &q));
    // From two sources only: patched, but fewer than c = 4 sources.
    let mut two: Vec<&str> = s[100..108].to_vec();
    two.extend_from_slice(&s[120..128]);
    b.push(page("https://pair.example/two.html", &two));
    // A blog: four posts and a home page quoting the start of each.
    let mut home: Vec<&str> = Vec::new();
    for i in 0..4 {
        let post = &s[164 + i * 9..164 + i * 9 + 9];
        b.push(page(&format!("https://blog.example/post{i}.html"), post));
        home.extend_from_slice(&post[..4]);
    }
    a.push(page("https://blog.example/", &home));
    (a, b)
}

fn quilts(cmd: &mut Command) -> Vec<Value> {
    json_lines(&run(cmd))
}

/// A run that must fail with exit status 2 and say `why`.
fn fails(cmd: &mut Command, why: &str) {
    let out = run(cmd);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(why), "{stderr}");
}

fn urls(v: &[Value], key: &str) -> Vec<String> {
    let mut u: Vec<String> = v
        .iter()
        .map(|q| q[key].as_str().unwrap().to_string())
        .collect();
    u.sort();
    u
}

/// Quilt lines in a canonical order, to compare two runs.
fn canon(v: &[Value]) -> Vec<String> {
    let mut s: Vec<String> = v.iter().map(|q| q.to_string()).collect();
    s.sort();
    s
}

/// The two machines' page files, in a temporary directory.
fn crawl() -> Option<(tempfile::TempDir, PathBuf, PathBuf)> {
    let data = shared_data()?;
    let sentences: Vec<String> = std::fs::read_to_string(data.join("langid/sentences/en.txt"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert!(sentences.len() >= 200);
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = corpus(&sentences);
    let (fa, fb) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    std::fs::write(&fa, a.join("\n") + "\n").unwrap();
    std::fs::write(&fb, b.join("\n") + "\n").unwrap();
    Some((dir, fa, fb))
}

fn find(fa: &Path, fb: &Path, options: &[&str]) -> Vec<Value> {
    quilts(bin().arg("quilts").args(options).arg(fa).arg(fb))
}

#[test]
fn quilted_pages_are_found_with_their_sources() {
    let Some((_dir, fa, fb)) = crawl() else {
        return;
    };
    let one = find(&fa, &fb, &[]);
    assert_eq!(
        urls(&one, "url"),
        [
            "https://blog.example/",
            "https://quilt.example/stitched.html"
        ]
    );
    let q = one
        .iter()
        .find(|q| q["url"] == "https://quilt.example/stitched.html")
        .unwrap();
    assert_eq!(
        urls(q["sources"].as_array().unwrap(), "url"),
        (0..5)
            .map(|i| format!("https://src{i}.example/article.html"))
            .collect::<Vec<_>>()
    );
    let f = q["patch_fraction"].as_f64().unwrap();
    assert!(f > 0.7 && f < 1.0, "patch fraction {f}");
    assert_eq!(q["covered"], q["patch_grams"]);
    for s in q["sources"].as_array().unwrap() {
        assert!(s["grams"].as_u64().unwrap() >= 50, "{s}");
    }

    // Sources on the page's own site do not count with --foreign.
    let foreign = find(&fa, &fb, &["--foreign"]);
    assert_eq!(
        urls(&foreign, "url"),
        ["https://quilt.example/stitched.html"]
    );
    // c is the definition's: five sources are not six.
    assert!(find(&fa, &fb, &["--min-sources", "6"]).is_empty());
    // Each source gives a fifth or a quarter of a quilt's patch grams: a least share of 1 % keeps
    // them all, one of a half none.
    assert_eq!(
        canon(&find(&fa, &fb, &["--min-share", "0.01"])),
        canon(&one)
    );
    assert!(find(&fa, &fb, &["--min-share", "0.5"]).is_empty());
    fails(bin().args(["quilts", "--theta", "2"]).arg(&fa), "--theta 2");
}

#[test]
fn a_job_split_over_machines_finds_what_one_process_finds() {
    let Some((dir, fa, fb)) = crawl() else { return };
    let one = find(&fa, &fb, &[]);
    // Two machines, three partitions, two cover workers.
    let parts = dir.path().join("parts");
    for (name, file) in [("a", &fa), ("b", &fb)] {
        succeeded(
            bin()
                .args(["quilts", "grams", "--partitions", "3", "--name", name])
                .arg("--out")
                .arg(&parts)
                .arg(file),
        );
    }
    let mut patches = Vec::new();
    for p in 0..3 {
        let out = dir.path().join(format!("p{p}.patches"));
        let grams = |m: &str| parts.join(format!("{m}.p{p}-of-3.grams"));
        succeeded(
            bin()
                .args(["quilts", "patches", "-o"])
                .arg(&out)
                .arg(grams("a"))
                .arg(grams("b")),
        );
        patches.push(out);
    }
    let docs = [parts.join("a.docs.jsonl"), parts.join("b.docs.jsonl")];
    let cover = |part: &str, docs: &[PathBuf], patches: &[PathBuf]| {
        let mut c = bin();
        c.args(["quilts", "cover", "--part", part, "--docs"])
            .args(docs)
            .arg("--")
            .args(patches);
        c
    };
    let mut split = quilts(&mut cover("0/2", &docs, &patches));
    split.extend(quilts(&mut cover("1/2", &docs, &patches)));
    assert_eq!(canon(&split), canon(&one));

    // A missing partition or docs table is an error, not a smaller answer.
    fails(
        &mut cover("0/1", &docs, &patches[..2]),
        "[2] of 3 are missing",
    );
    fails(
        &mut cover("0/1", &docs[..1], &patches),
        "the docs tables are of machines [\"a\"], the patches merge the grams of [\"a\", \"b\"]",
    );
    // A partition merged without one machine's grams file: an error too.
    let partial = dir.path().join("p0-a-only.patches");
    succeeded(
        bin()
            .args(["quilts", "patches", "-o"])
            .arg(&partial)
            .arg(parts.join("a.p0-of-3.grams")),
    );
    let mut incomplete = patches.clone();
    incomplete[0] = partial;
    fails(
        &mut cover("0/1", &docs, &incomplete),
        "a machine's grams file is missing",
    );
}

#[test]
fn verdicts_with_content_give_the_same_quilts_and_the_report_shows_them() {
    let Some((dir, fa, fb)) = crawl() else { return };
    let qfile = dir.path().join("q.jsonl");
    succeeded(bin().arg("quilts").arg(&fa).arg(&fb).arg("-o").arg(&qfile));
    let one: Vec<Value> = std::fs::read_to_string(&qfile)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let verdicts = dir.path().join("v.jsonl");
    succeeded(
        bin()
            .args(["scan", "-q", "--content", "-o"])
            .arg(&verdicts)
            .arg(&fa)
            .arg(&fb),
    );
    let from_verdicts = quilts(bin().arg("quilts").arg(&verdicts));
    assert_eq!(canon(&from_verdicts), canon(&one));

    let html = dir.path().join("r.html");
    succeeded(
        bin()
            .args(["report", "--html"])
            .arg(&html)
            .arg("--quilts")
            .arg(&qfile)
            .arg(&verdicts),
    );
    let html = std::fs::read_to_string(&html).unwrap();
    assert!(
        html.contains("<h2>Quilted pages</h2><p>2 pages on 2 sites"),
        "{html}"
    );
    assert!(html.contains("https://quilt.example/stitched.html"));
}
