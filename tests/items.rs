//! Item sets, by the real binary: a set built from the real BIG-bench tasks
//! of `../shared/data`, items leaked into real pages found however they are
//! set out, unmodified pages and a quotation of 8 words left alone, bad
//! evaluation data named by file and line, and the report's contamination.

use crate::common;

use common::{bin, ok, run, shared_data};
use std::path::Path;

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The first example of BIG-bench task `task` whose input has at least
/// `min_words` words: (index, input, answer).
fn item(data: &Path, task: &str, min_words: usize) -> (usize, String, String) {
    use std::io::Read;
    let raw =
        std::fs::read(data.join(format!("decontamination/bigbench-dev/{task}.json.gz"))).unwrap();
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(&raw[..])
        .read_to_string(&mut text)
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let (i, ex) = v["examples"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .find(|(_, ex)| ex["input"].as_str().unwrap().split_whitespace().count() >= min_words)
        .unwrap();
    let answer = match &ex["target"] {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(a) => a[0].as_str().unwrap().to_string(),
        _ => {
            let scores = ex["target_scores"].as_object().unwrap();
            let best = scores
                .iter()
                .max_by(|a, b| a.1.as_f64().unwrap().total_cmp(&b.1.as_f64().unwrap()))
                .unwrap();
            best.0.clone()
        }
    };
    (i, ex["input"].as_str().unwrap().to_string(), answer)
}

/// `page` with `block` after its first paragraph end outside scripts (or
/// before `</body>`).
fn leak_into(page: &str, block: &str) -> String {
    let at = page
        .find("</p>")
        .map(|i| i + 4)
        .or_else(|| page.rfind("</body>"))
        .unwrap_or(page.len());
    format!("{}{block}{}", &page[..at], &page[at..])
}

fn scan(dir: &Path, set: &Path, public: &Path, extra: &[&str]) -> Vec<serde_json::Value> {
    let out = run(bin()
        .args(["scan", "--quiet", "--labels"])
        .arg(set)
        .arg("--set")
        .arg(format!("labels.public_key_file={}", public.display()))
        .args(extra)
        .arg(dir));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    common::verdicts(&out)
}

#[test]
fn leaked_items_are_found_however_they_are_set_out_and_clean_pages_are_not() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (key, public) = common::keygen(dir.path());
    let set = dir.path().join("bigbench.csl");
    let built = run(bin()
        .args([
            "labels", "build", "--items", "bigbench", "--name", "bigbench", "--key",
        ])
        .arg(&key)
        .arg("-o")
        .arg(&set)
        .arg(data.join("decontamination/bigbench-dev")));
    let stderr = String::from_utf8_lossy(&built.stderr).to_string();
    assert!(built.status.success(), "{stderr}");
    assert!(
        stderr.contains("of 27 tasks from 27 files (0 problems)"),
        "{stderr}"
    );

    // labels inspect names the tasks and their items.
    let inspected = ok(bin()
        .args(["labels", "inspect"])
        .arg(&set)
        .output()
        .unwrap());
    assert!(inspected.contains("\"item_version\": 1"), "{inspected}");
    assert!(inspected.contains("27 tasks"), "{inspected}");
    assert!(inspected.contains("  snarks\n"), "{inspected}");

    let pages = common::wcxb_pages(&data, 6, 20_000..200_000);
    let (si, sq, sa) = item(&data, "snarks", 13);
    let (ti, tq, ta) = item(&data, "social_support", 20);
    let (pi, pq, _) = item(&data, "physics", 20);
    let words: Vec<&str> = tq.split_whitespace().collect();
    let rewrapped = words
        .chunks(5)
        .map(|c| html_escape(&c.join(" ")))
        .collect::<Vec<_>>()
        .join("<br>\n");
    let leaks = [
        (
            "own-paragraph",
            format!("<p>{} {}</p>", html_escape(&sq), html_escape(&sa)),
            "snarks",
            si,
        ),
        (
            "rewrapped",
            format!("<p>{rewrapped} {}</p>", html_escape(&ta)),
            "social_support",
            ti,
        ),
        (
            "options",
            {
                let (head, tail) = words.split_at(words.len() / 2);
                let lis: String = tail
                    .chunks(3)
                    .map(|c| format!("<li>{}</li>", html_escape(&c.join(" "))))
                    .collect();
                format!("<p>{}</p><ul>{lis}</ul>", html_escape(&head.join(" ")))
            },
            "social_support",
            ti,
        ),
        (
            "question-alone",
            format!("<p>{}</p>", html_escape(&pq)),
            "physics",
            pi,
        ),
        (
            "hidden-answer",
            format!(
                "<div style=\"display:none\"><p>{} {}</p></div>",
                html_escape(&sq),
                html_escape(&sa)
            ),
            "snarks",
            si,
        ),
    ];
    let leaked = dir.path().join("leaked");
    std::fs::create_dir(&leaked).unwrap();
    for (i, (name, block, _, _)) in leaks.iter().enumerate() {
        std::fs::write(
            leaked.join(format!("{name}.html")),
            leak_into(&pages[i], block),
        )
        .unwrap();
    }
    // Eight words of an item, quoted: not the item.
    let quote: Vec<&str> = sq.split_whitespace().skip(3).take(8).collect();
    std::fs::write(
        leaked.join("quote.html"),
        leak_into(
            &pages[5],
            &format!(
                "<p>As they put it, “{}”, and so on.</p>",
                html_escape(&quote.join(" "))
            ),
        ),
    )
    .unwrap();

    let vs = scan(&leaked, &set, &public, &[]);
    for (name, _, task, index) in &leaks {
        let v = vs
            .iter()
            .find(|v| {
                v["url"]
                    .as_str()
                    .unwrap()
                    .ends_with(&format!("/{name}.html"))
            })
            .unwrap();
        let items = v["items"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: {v}"));
        assert_eq!(items[0]["task"], *task, "{name}: {v}");
        assert_eq!(items[0]["id"], index.to_string(), "{name}: {v}");
        assert_eq!(items[0]["set"], "bigbench");
        assert!(
            common::reasons(v).contains(&"labeled_item".to_string()),
            "{v}"
        );
        assert!(v["items_found"].as_u64().unwrap() >= 1);
    }
    let quoted = vs
        .iter()
        .find(|v| v["url"].as_str().unwrap().ends_with("/quote.html"))
        .unwrap();
    assert!(quoted.get("items").is_none(), "{quoted}");

    // The unmodified pages: nothing found.
    let clean = dir.path().join("clean");
    std::fs::create_dir(&clean).unwrap();
    for (i, p) in pages.iter().enumerate() {
        std::fs::write(clean.join(format!("{i}.html")), p).unwrap();
    }
    for v in scan(&clean, &set, &public, &[]) {
        assert!(v.get("items").is_none(), "{v}");
    }

    // The report states the crawl's contamination per set and task.
    let verdicts = dir.path().join("verdicts.jsonl");
    std::fs::write(
        &verdicts,
        vs.iter().map(|v| format!("{v}\n")).collect::<String>(),
    )
    .unwrap();
    let report = dir.path().join("report.json");
    ok(bin()
        .args(["report", "--json"])
        .arg(&report)
        .arg(&verdicts)
        .output()
        .unwrap());
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let c = &r["contamination"][0];
    assert_eq!(c["set"], "bigbench", "{r}");
    assert_eq!(c["pages"], 5, "{c}");
    assert_eq!(c["items"], 3, "{c}");
    let tasks: Vec<&str> = c["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["task"].as_str().unwrap())
        .collect();
    assert_eq!(tasks[0], "snarks", "the task with most pages first: {c}");
}

#[test]
fn bad_evaluation_data_is_named_by_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let (key, _) = common::keygen(dir.path());
    let data = dir.path().join("mmlu.jsonl");
    std::fs::write(
        &data,
        b"{\"question\":\"Which planet in the solar system has the longest day of all the planets?\",\"choices\":[\"Venus\",\"Mars\"],\"answer\":0,\"id\":\"q1\"}\n\
          {\"question\": broken\n\
          {\"question\":\"A question without its choices field in this line\",\"answer\":1,\"id\":\"q3\"}\n\
          \xff\n",
    )
    .unwrap();
    let out = run(bin()
        .args([
            "labels",
            "build",
            "--items",
            "jsonl",
            "--fields",
            "question,choices",
            "--answer-fields",
            "answer",
            "--id-field",
            "id",
            "--name",
            "mmlu",
            "--key",
        ])
        .arg(&key)
        .arg("-o")
        .arg(dir.path().join("mmlu.csl"))
        .arg(&data));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("mmlu.jsonl:2: not JSON"), "{stderr}");
    assert!(
        stderr.contains("mmlu.jsonl:3: no field choices"),
        "{stderr}"
    );
    assert!(stderr.contains("mmlu.jsonl:4: not UTF-8"), "{stderr}");
    assert!(
        stderr.contains("1 items of 1 tasks from 1 files (3 problems)"),
        "{stderr}"
    );

    // A mistake in the flags is a clear error, not an empty set.
    let out = run(bin()
        .args([
            "labels", "build", "--items", "jsonl", "--name", "m", "--key",
        ])
        .arg(&key)
        .arg("-o")
        .arg(dir.path().join("m.csl"))
        .arg(&data));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--fields"));
}
