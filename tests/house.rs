//! The house rules that a reader relies on, checked: `docs/architecture.md` names every
//! module file, and no production function is past 80 lines.

use crate::common::repo;
use std::path::{Path, PathBuf};

/// Every `.rs` file of the crates' sources, relative to the repository.
fn sources() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for krate in [
        "agent/cli/src",
        "agent/core/src",
        "agent/daemon/src",
        "python/src",
    ] {
        walk(&repo().join(krate), &mut out);
    }
    out.sort();
    out.into_iter()
        .map(|p| p.strip_prefix(repo()).unwrap().to_path_buf())
        .collect()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_architecture_page_names_every_module_file() {
    let doc = std::fs::read_to_string(repo().join("docs/architecture.md")).unwrap();
    let mut missing = Vec::new();
    for path in sources() {
        let name = path.file_name().unwrap().to_str().unwrap();
        let parent = path.parent().unwrap();
        let folder = parent.file_name().unwrap().to_str().unwrap();
        // A folder's own file is named by the folder; a file by its name, in its folder's
        // entry (within a few lines after the folder is named); unit-test files need not be.
        let named = match name {
            "lib.rs" | "main.rs" | "tests.rs" => true,
            "mod.rs" => doc.contains(&format!("{folder}/")),
            _ if folder == "src" => doc.contains(name),
            _ => doc.match_indices(&format!("{folder}/")).any(|(at, _)| {
                doc[at..]
                    .chars()
                    .take(1000)
                    .collect::<String>()
                    .contains(name)
            }),
        };
        if !named {
            missing.push(path.display().to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "docs/architecture.md does not name: {missing:#?}"
    );
}

/// A function past ~80 lines asks to be split along a seam (the house style): none
/// in the crates' sources does, tests apart.
#[test]
fn production_functions_stay_under_eighty_lines() {
    let mut over = Vec::new();
    for path in sources() {
        let text = std::fs::read_to_string(repo().join(&path)).unwrap();
        for (name, lines) in long_functions(&text, 80) {
            over.push(format!("{}: fn {name}: {lines} lines", path.display()));
        }
    }
    assert!(over.is_empty(), "functions past 80 lines: {over:#?}");
}

/// Functions (outside `#[cfg(test)]` modules) longer than `limit` lines, from the `fn`
/// line to the closing brace; comments, strings and characters are blanked first so
/// their braces do not count.
fn long_functions(text: &str, limit: usize) -> Vec<(String, usize)> {
    let code = blank(text);
    let tests: Vec<(usize, usize)> = find_all(&code, "#[cfg(test)]")
        .into_iter()
        .filter_map(|at| {
            let rest = &code[at..];
            let open = rest.find('{')?;
            rest[..open]
                .contains("mod ")
                .then(|| (at, at + close(rest, open)))
        })
        .collect();
    let mut out = Vec::new();
    for at in find_all(&code, "fn ") {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if tests.iter().any(|&(a, b)| (a..b).contains(&at)) {
            continue;
        }
        let rest = &code[at..];
        let Some(open) = body_start(rest) else {
            continue;
        };
        let end = close(rest, open);
        let lines = rest[..end].matches('\n').count() + 1;
        let name: String = rest[3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if lines > limit {
            out.push((name, lines));
        }
    }
    out
}

/// Where the body of the `fn` at the start of `text` opens; None for a declaration
/// (`fn f();` in a trait). Brackets of the signature (`[u8; 4]`) are stepped over.
fn body_start(text: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'{' if depth == 0 => return Some(i),
            b';' if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

fn find_all(text: &str, what: &str) -> Vec<usize> {
    text.match_indices(what).map(|(i, _)| i).collect()
}

/// The byte offset of the brace closing the one at `open`.
fn close(text: &str, open: usize) -> usize {
    let mut depth = 0usize;
    for (i, b) in text.bytes().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    text.len()
}

/// `text` with comments, string and character literals replaced by spaces (newlines kept).
fn blank(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let wipe = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        let ident_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if b[i..].starts_with(b"//") {
            let end = text[i..].find('\n').map_or(b.len(), |e| i + e);
            wipe(&mut out, i, end);
            i = end;
        } else if b[i..].starts_with(b"/*") {
            let (mut depth, mut j) = (0, i);
            while j < b.len() {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            wipe(&mut out, i, j);
            i = j;
        } else if !ident_before
            && (b[i] == b'r' || b[i..].starts_with(b"br"))
            && raw_start(&b[i..]).is_some()
        {
            let (len, hashes) = raw_start(&b[i..]).unwrap();
            let end_mark = format!("\"{}", "#".repeat(hashes));
            let end = text[i + len..]
                .find(&end_mark)
                .map_or(b.len(), |e| i + len + e + end_mark.len());
            wipe(&mut out, i, end);
            i = end;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            wipe(&mut out, i, j + 1);
            i = j + 1;
        } else if b[i] == b'\'' {
            // A character literal ('x', '\n', '\u{..}', '{'); a lifetime has no closing quote.
            let len = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..].iter().position(|&c| c == b'\'').map(|p| p + 3)
            } else {
                let ch = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                (b.get(i + 1 + ch) == Some(&b'\'')).then_some(ch + 2)
            };
            match len {
                Some(len) => {
                    wipe(&mut out, i, i + len);
                    i += len;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// `r"`, `r#"`, `br##"` …: the opening's length and its number of `#`.
fn raw_start(b: &[u8]) -> Option<(usize, usize)> {
    let skip = if b.starts_with(b"br") { 2 } else { 1 };
    let hashes = b[skip..].iter().take_while(|&&c| c == b'#').count();
    (b.get(skip + hashes) == Some(&b'"')).then_some((skip + hashes + 1, hashes))
}
