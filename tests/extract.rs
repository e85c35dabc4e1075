//! `crawlsieve extract`: paragraphs of the main content.

use crate::common;
use common::*;

#[test]
fn extract_jsonl_keeps_paths_and_separates_paragraphs() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("a.html");
    let html = r#"<html><head><title>T</title><script>no()</script></head><body>
        <ul><li><a href="/">Home</a></li><li><a href="/x">Other</a></li></ul>
        <h1>Heading of the article</h1><p>First paragraph with several words in it.</p>
        <p>Second paragraph, also with words &amp; an entity.</p>
        <div><a href="/1">one</a> <a href="/2">two</a> <a href="/3">three</a></div></body></html>"#;
    std::fs::write(&plain, html).unwrap();
    let gz = dir.path().join("b.html.gz");
    std::fs::write(&gz, gzip(html.as_bytes())).unwrap();
    let out = run(bin().args(["extract", "--jsonl"]).arg(&plain).arg(&gz));
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["path"], plain.to_str().unwrap());
    assert_eq!(
        lines[0]["content"], lines[1]["content"],
        "gzip and plain agree"
    );
    assert_eq!(
        lines[0]["content"],
        "Heading of the article\nFirst paragraph with several words in it.\nSecond paragraph, also with words & an entity."
    );
}

#[test]
fn extract_on_real_benchmark_pages_is_non_empty() {
    let Some(data) = shared_data() else { return };
    let dir = data.join("extraction/wcxb-dev/dev/html");
    let files: Vec<_> = (1..=20)
        .map(|i| dir.join(format!("{i:04}.html.gz")))
        .filter(|p| p.exists())
        .collect();
    assert!(!files.is_empty());
    let out = run(bin().args(["extract", "--jsonl"]).args(&files));
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), files.len());
    let non_empty = lines
        .iter()
        .filter(|l| l["content"].as_str().unwrap().len() > 200)
        .count();
    assert!(
        non_empty * 10 >= files.len() * 8,
        "{non_empty} of {} pages with content",
        files.len()
    );
}

/// `--format json` on a WARC file: one object per HTML record, with the
/// record's URL, the page's metadata, language, type and Markdown.
#[test]
fn extract_json_from_warc_carries_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let html = format!(
        r#"<html lang="en"><head><title>Bridge report | The Gazette</title>
        <meta property="og:site_name" content="The Gazette">
        <meta name="description" content="What the council found.">
        <link rel="canonical" href="/news/bridge">
        <script type="application/ld+json">{{"@type":"NewsArticle","headline":"Bridge report",
          "datePublished":"2025-09-04T08:00:00Z","author":{{"@type":"Person","name":"Ann Lee"}}}}</script>
        </head><body><nav><a href="/">Home</a> <a href="/news">News</a></nav>
        <article><h1>Bridge report</h1><h2>What was measured</h2>{}<ul><li>the river level</li><li>the old stone bridge</li></ul>
        <p>The full method, with every reading and the tables of the last ten years, is described in
        <a href="/method">the method notes</a> that the council published with the report.</p></article></body></html>"#,
        "<p>The council measured the level of the river every morning for a year, and the \
         engineers compared the readings with the records kept since the old stone bridge was \
         built, to decide whether the bridge should be strengthened before the winter floods.</p>"
            .repeat(4)
    );
    let warc = dir.path().join("c.warc.gz");
    let record = warc_response(
        "https://news.example.com/2025/09/04/bridge",
        "<urn:uuid:1>",
        &http_html(html.as_bytes(), ""),
    );
    std::fs::write(&warc, gzip(&record)).unwrap();
    let out = run(bin().args(["extract", "--format", "json"]).arg(&warc));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1);
    let d = &lines[0];
    assert_eq!(d["url"], "https://news.example.com/2025/09/04/bridge");
    assert_eq!(d["title"], "Bridge report");
    assert_eq!(d["author"], "Ann Lee");
    assert_eq!(d["date"], "2025-09-04");
    assert_eq!(d["canonical"], "https://news.example.com/news/bridge");
    assert_eq!(d["site_name"], "The Gazette");
    assert_eq!(d["description"], "What the council found.");
    assert_eq!(d["declared_language"], "en");
    assert_eq!(d["language"], "eng");
    assert!(d["page_type"].is_string());
    let confidence = d["page_type_confidence"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&confidence));
    let md = d["markdown"].as_str().unwrap();
    assert!(md.contains("## What was measured"), "{md}");
    assert!(
        md.contains("- the river level\n- the old stone bridge"),
        "{md}"
    );
    assert!(
        md.contains("[the method notes](https://news.example.com/method)"),
        "{md}"
    );
    assert!(!md.contains("Home"), "{md}");
}

/// `--format markdown` on real pages: every page renders, and Markdown adds
/// structure, never words: its words are the text's words.
#[test]
fn extract_markdown_on_real_pages_keeps_the_words() {
    let Some(data) = shared_data() else { return };
    let dir = data.join("extraction/wcxb-dev/dev/html");
    let files: Vec<_> = (1..=12)
        .map(|i| dir.join(format!("{i:04}.html.gz")))
        .filter(|p| p.exists())
        .collect();
    let out = run(bin().args(["extract", "--format", "json"]).args(&files));
    assert!(out.status.success());
    // "1" is left out: Markdown numbers ordered items "1.", and a text may start with "1." too.
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty() && *w != "1")
            .map(str::to_lowercase)
            .collect()
    };
    let mut with_headings = 0;
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let d: serde_json::Value = serde_json::from_str(line).unwrap();
        let md = d["markdown"].as_str().unwrap();
        let text = d["text"].as_str().unwrap();
        let (mut a, mut b) = (words(&without_link_targets(md)), words(text));
        a.sort();
        b.sort();
        if a != b {
            let only = |x: &[String], y: &[String]| -> Vec<String> {
                x.iter()
                    .filter(|w| !y.contains(w))
                    .take(10)
                    .cloned()
                    .collect()
            };
            panic!(
                "{}: Markdown only {:?}, text only {:?}",
                d["path"],
                only(&a, &b),
                only(&b, &a)
            );
        }
        with_headings += md.lines().any(|l| l.starts_with('#')) as usize;
    }
    assert!(
        with_headings * 2 >= files.len(),
        "{with_headings} of {}",
        files.len()
    );
}

/// Markdown without its link targets, the words it adds to the text.
fn without_link_targets(md: &str) -> String {
    let mut out = String::new();
    let mut rest = md;
    while let Some(i) = rest.find("](") {
        out.push_str(&rest[..i]);
        rest = &rest[i + 2..];
        rest = rest.split_once(')').map_or("", |(_, r)| r);
    }
    out.push_str(rest);
    out
}

/// A `rules_dir` may hold its own page-type model; a malformed one fails at
/// start-up with the file's name.
#[test]
fn a_malformed_page_type_model_is_a_start_up_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pagetype.json"), r#"{"format": 1}"#).unwrap();
    let page = dir.path().join("p.html");
    std::fs::write(&page, "<p>text</p>").unwrap();
    let out = run(bin()
        .args(["extract", "--format", "json", "--set"])
        .arg(format!("rules_dir={}", dir.path().display()))
        .arg(&page));
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("pagetype.json"), "{err}");
}

/// The content ends at a closing heading ("3 Comments"); a `rules_dir` may
/// give its own list, an empty one keeps what follows, and a line no
/// heading could match fails at start-up with the file's name.
#[test]
fn closing_headings_come_from_the_rules_dir() {
    let dir = tempfile::tempdir().unwrap();
    let para = |n: u32| {
        format!(
            "<p>Paragraph {n} of the story goes on with enough words to be prose, \
             and it tells the reader what happened in the town on that day.</p>"
        )
    };
    let html = format!(
        "<html><body><article>{}{}<h3>3 Comments</h3><p>Great piece, thanks.</p></article></body></html>",
        para(1),
        para(2)
    );
    let page = dir.path().join("p.html");
    std::fs::write(&page, html).unwrap();
    let extract = |rules: Option<&std::path::Path>| {
        let mut cmd = bin();
        // The plateau alone, so that the closing headings are all that cuts
        // the article (the default's model may also call a heading chrome).
        cmd.args(["extract", "--set", "extract.scorer=plateau"]);
        if let Some(r) = rules {
            cmd.arg("--set").arg(format!("rules_dir={}", r.display()));
        }
        run(cmd.arg(&page))
    };
    let shipped = extract(None);
    assert!(shipped.status.success());
    let text = String::from_utf8(shipped.stdout).unwrap();
    assert!(
        text.contains("Paragraph 2") && !text.contains("Comments"),
        "{text}"
    );

    let rules = tempfile::tempdir().unwrap();
    std::fs::write(rules.path().join("closing_headings.txt"), "# none\n").unwrap();
    let kept = extract(Some(rules.path()));
    let text = String::from_utf8(kept.stdout).unwrap();
    assert!(
        text.contains("3 Comments") && text.contains("Great piece"),
        "{text}"
    );

    std::fs::write(rules.path().join("closing_headings.txt"), "related\n123\n").unwrap();
    let bad = extract(Some(rules.path()));
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("closing_headings.txt") && err.contains("line 2"),
        "{err}"
    );
}

/// A JSON page's `html` is a Unicode string: the charset its `<meta>` (or its
/// `content_type`) declares described the bytes before the crawler decoded
/// them, and must not be applied a second time.
#[test]
fn json_pages_are_text_whatever_charset_they_declare() {
    let html = "<html><head><meta charset=\"iso-8859-1\"><title>Fütterung</title></head><body>\
        <article><h1>Überwachung im Kuhstall</h1><p>Die tägliche Kontrolle der Fütterung, \
        der Gesundheit und des Verhaltens der Kühe gehört zur Arbeit jedes Betriebs; \
        Sensoren ergänzen das geschulte Auge.</p></article></body></html>";
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("latin1.html");
    let (bytes, _, unmappable) = encoding_rs::WINDOWS_1252.encode(html);
    assert!(!unmappable);
    std::fs::write(&file, &bytes).unwrap();
    let from_file = json_lines(&succeeded(bin().args(["extract", "--jsonl"]).arg(&file)));
    let line = serde_json::json!({
        "url": "https://www.example.de/kuhstall",
        "html": html,
        "content_type": "text/html; charset=iso-8859-1",
    });
    let from_json = json_lines(&run_stdin(
        bin().args(["extract", "--jsonl", "-"]),
        format!("{line}\n").as_bytes(),
    ));
    let content = from_file[0]["content"].as_str().unwrap();
    assert!(content.contains("Überwachung im Kuhstall"), "{content}");
    assert!(content.contains("tägliche Kontrolle"), "{content}");
    assert_eq!(from_json[0]["content"], from_file[0]["content"]);
}

/// `extract.scorer = "pruned"` on real article pages: where the plateau keeps
/// a page's text, the output is the plateau's paragraphs less some; on some
/// pages the model does leave paragraphs out.
#[test]
fn the_pruned_scorer_takes_paragraphs_out_of_the_plateaus_choice() {
    let Some(data) = shared_data() else { return };
    let dir = data.join("extraction/trafilatura-eval/tests/cache");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files.truncate(40);
    let contents = |scorer: &str| -> Vec<String> {
        let out = run(bin()
            .env("CRAWLSIEVE_EXTRACT__SCORER", scorer)
            .args(["extract", "--jsonl"])
            .args(&files));
        assert!(out.status.success());
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["content"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect()
    };
    let (plateau, pruned) = (contents("plateau"), contents("pruned"));
    assert_eq!(plateau.len(), files.len());
    let (mut subsets, mut smaller) = (0, 0);
    for (p, q) in plateau.iter().zip(&pruned) {
        let kept: Vec<&str> = p.lines().collect();
        if q.lines().all(|l| kept.contains(&l)) {
            subsets += 1;
            smaller += (q.lines().count() < kept.len()) as usize;
        }
    }
    // The pages the plateau keeps little of go to the model alone.
    assert!(
        subsets * 10 >= files.len() * 9,
        "{subsets} of {} pages",
        files.len()
    );
    assert!(smaller >= 3, "the model pruned {smaller} pages");
}

/// `extract.scorer = "pruned"` with a model file that has no prune cut is a
/// start-up error naming the key, not the plateau's choice in silence.
#[test]
fn pruning_with_a_model_without_a_prune_cut_is_a_start_up_error() {
    let dir = tempfile::tempdir().unwrap();
    let shipped: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("rules/extractor.json")).unwrap(),
    )
    .unwrap();
    let mut old = shipped.clone();
    old.as_object_mut().unwrap().remove("prune");
    std::fs::write(dir.path().join("extractor.json"), old.to_string()).unwrap();
    let page = dir.path().join("p.html");
    std::fs::write(&page, "<p>text</p>").unwrap();
    let extract = |scorer: &str| {
        run(bin()
            .env("CRAWLSIEVE_EXTRACT__SCORER", scorer)
            .args(["extract", "--set"])
            .arg(format!("rules_dir={}", dir.path().display()))
            .arg(&page))
    };
    let out = extract("pruned");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("extract.scorer") && err.contains("prune"),
        "{err}"
    );
    // The same file serves the scorers that do not prune.
    assert!(extract("auto").status.success());
}

/// Two real shop pages (WCXB dev) whose visible HTML lacks the product's
/// description (an accordion shut with `display: none`, a script-opened
/// block): the content ends with the description the page declares in its
/// JSON-LD `Product`.
#[test]
fn a_product_description_hidden_from_the_text_comes_from_its_json_ld() {
    let Some(data) = shared_data() else { return };
    let dir = data.join("extraction/wcxb-dev/dev/html");
    for id in ["0581", "0583"] {
        let path = dir.join(format!("{id}.html.gz"));
        let out = run(bin().args(["extract", "--jsonl"]).arg(&path));
        assert!(out.status.success());
        let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let last = line["content"].as_str().unwrap().lines().last().unwrap();
        let declared = product_description(&gunzip(&std::fs::read(&path).unwrap()));
        let words = |s: &str| -> Vec<String> {
            s.split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .take(12)
                .map(str::to_lowercase)
                .collect()
        };
        assert_eq!(words(last), words(&declared), "{id}");
    }
}

/// The `description` of the first JSON-LD `Product` in `html`, markup out.
fn product_description(html: &[u8]) -> String {
    let html = String::from_utf8_lossy(html);
    for part in html.split("application/ld+json").skip(1) {
        let Some(start) = part.find('>') else {
            continue;
        };
        let Some(end) = part.find("</script>") else {
            continue;
        };
        let Ok(v) = serde_json::from_str::<serde_json::Value>(part[start + 1..end].trim()) else {
            continue;
        };
        let mut stack = vec![&v];
        while let Some(v) = stack.pop() {
            match v {
                serde_json::Value::Array(items) => stack.extend(items.iter()),
                serde_json::Value::Object(map) => {
                    let product = map
                        .get("@type")
                        .is_some_and(|t| t.to_string().contains("Product"));
                    if let (true, Some(d)) =
                        (product, map.get("description").and_then(|d| d.as_str()))
                    {
                        let mut text = String::new();
                        let mut in_tag = false;
                        for c in d.chars() {
                            match c {
                                '<' => in_tag = true,
                                '>' => in_tag = false,
                                _ if !in_tag => text.push(c),
                                _ => {}
                            }
                        }
                        return text;
                    }
                    stack.extend(map.values());
                }
                _ => {}
            }
        }
    }
    panic!("no JSON-LD Product with a description")
}

#[test]
fn saved_pages_get_their_urls_from_a_list() {
    let dir = tempfile::tempdir().unwrap();
    let html = r#"<html><head><title>Tee</title></head><body><h1>Staple tee</h1>
        <p>A regular fit, crafted from mid-weight combed cotton with ribbing at the neck.</p></body></html>"#;
    let (a, b) = (dir.path().join("a.html"), dir.path().join("b.html"));
    std::fs::write(&a, html).unwrap();
    std::fs::write(&b, html).unwrap();
    let list = dir.path().join("urls.tsv");
    std::fs::write(
        &list,
        format!("{}\thttps://shop.example/products/tee\n", a.display()),
    )
    .unwrap();
    // The learned scorer reads the page's kind, which reads the URL.
    let out = succeeded(
        bin()
            .args([
                "extract",
                "--jsonl",
                "--set",
                "extract.scorer=learned",
                "--urls",
            ])
            .arg(&list)
            .arg(&a)
            .arg(&b),
    );
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["url"], "https://shop.example/products/tee");
    assert!(lines[1]["url"].as_str().unwrap().starts_with("file://"));
    assert!(lines[0]["content"]
        .as_str()
        .unwrap()
        .contains("combed cotton"));
    // A line without a tab names the file and the line.
    std::fs::write(&list, "no tab here\n").unwrap();
    let out = run(bin().args(["extract", "--urls"]).arg(&list).arg(&a));
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 1") && err.contains("PATH<TAB>URL"),
        "{err}"
    );
}
