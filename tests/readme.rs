//! Every command block of the README and of `docs/` marked as an example
//! (```` ```sh example ````) runs as written: in a fresh directory holding
//! `examples/` and `rules/`, with the built binary first on `PATH` as
//! `crawlsieve`. The README stays short enough to read first.

use crate::common;

use common::*;
use std::process::Command;

/// The README's example blocks, in order.
fn examples(readme: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in readme.lines() {
        match &mut current {
            None if line.trim() == "```sh example" => current = Some(String::new()),
            Some(block) if line.trim() == "```" => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    assert!(current.is_none(), "an example block is not closed");
    blocks
}

#[test]
fn the_readme_is_short() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines: the reference belongs in docs/"
    );
    // The two commands come first, as they are.
    let first = readme.find("```sh\n").expect("a first command block");
    let block = &readme[first..first + readme[first..].find("\n```\n").unwrap()];
    assert!(block.contains(
        "cargo run --release -- scan --labels examples/labels.txt examples/crawl.warc.gz"
    ));
    assert!(block.contains("bash .ci/run"));
}

#[test]
fn every_example_in_the_docs_runs() {
    let mut docs: Vec<_> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    let mut n = 0;
    for doc in docs {
        let blocks = examples(&std::fs::read_to_string(&doc).unwrap());
        n += blocks.len();
        run_blocks(blocks);
    }
    assert!(n >= 2, "examples found in docs/: {n}");
}

#[test]
fn every_example_in_the_readme_runs() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let blocks = examples(&readme);
    assert!(blocks.len() >= 3, "examples found: {}", blocks.len());
    run_blocks(blocks);
}

fn run_blocks(blocks: Vec<String>) {
    let bin_dir = std::path::PathBuf::from(env!("CARGO_BIN_EXE_crawlsieve"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for block in blocks {
        let dir = tempfile::tempdir().unwrap();
        for d in ["examples", "rules"] {
            std::os::unix::fs::symlink(repo().join(d), dir.path().join(d)).unwrap();
        }
        let script = block.replace("cargo run --release --", "crawlsieve");
        let out = Command::new("bash")
            .args(["-euo", "pipefail", "-c", &script])
            .current_dir(dir.path())
            .env("PATH", &path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "README example failed ({}):\n{block}\nstdout:\n{}\nstderr:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !out.stdout.is_empty(),
            "an example shows something:\n{block}"
        );
    }
}
