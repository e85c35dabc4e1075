//! Evaluation data as items: JSONL (one item a line, named fields joined),
//! BIG-bench `task.json`, and plain text (an item a file, or a block).
//!
//! Each item keeps its identity — its task (or source) and its id there —
//! because what a model card states is which benchmark and which item a
//! crawl carries. Bad input (a line that is not JSON, a missing field, bytes
//! that are not UTF-8) is a [`Problem`] naming the file and line: counted,
//! reported, never dropped without a word.

use std::io::Read as _;
use std::path::{Path, PathBuf};

/// How the inputs hold their items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One JSON object a line; `Fields` names what to take.
    Jsonl,
    /// BIG-bench's `task.json`: `examples[].input`, and `target` or the
    /// best of `target_scores` as the answer.
    BigBench,
    /// Each file is one item.
    TextFiles,
    /// Each blank-line block of a file is one item.
    TextBlocks,
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "jsonl" => Ok(Format::Jsonl),
            "bigbench" => Ok(Format::BigBench),
            "text" => Ok(Format::TextFiles),
            "text-blocks" => Ok(Format::TextBlocks),
            _ => Err(format!(
                "`{s}`: the item formats are jsonl, bigbench, text (an item a file), text-blocks (an item a blank-line block)"
            )),
        }
    }
}

/// The JSONL fields an item is made of.
#[derive(Debug, Clone, Default)]
pub struct Fields {
    /// Joined in this order: the part a leaked copy always has (question, options).
    pub question: Vec<String>,
    /// Joined after it: what a copy may leave out (the answer).
    pub answer: Vec<String>,
    /// The item's id (else its line number).
    pub id: Option<String>,
    /// Its task or subset (else the file's name).
    pub task: Option<String>,
}

/// An item as read, before it is made grams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawItem {
    pub task: String,
    pub id: String,
    pub question: String,
    pub answer: String,
}

/// A piece of input that gave no item, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub file: String,
    /// 1-based; `None` for the whole file.
    pub line: Option<usize>,
    pub what: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}: {}", self.file, self.what),
            None => write!(f, "{}: {}", self.file, self.what),
        }
    }
}

/// Items read from some inputs, and what could not be read.
#[derive(Debug, Default)]
pub struct Read {
    pub items: Vec<RawItem>,
    pub problems: Vec<Problem>,
    pub files: usize,
}

/// Reads `inputs` (files, or directories read recursively in name order).
pub fn read(inputs: &[PathBuf], format: Format, fields: &Fields) -> Read {
    let mut out = Read::default();
    for input in inputs {
        let mut files = Vec::new();
        walk(input, &mut files, &mut out.problems);
        for file in files {
            out.files += 1;
            read_file(&file, format, fields, &mut out);
        }
    }
    out
}

fn walk(path: &Path, files: &mut Vec<PathBuf>, problems: &mut Vec<Problem>) {
    if !path.is_dir() {
        files.push(path.to_path_buf());
        return;
    }
    let entries = match std::fs::read_dir(path) {
        Ok(e) => e,
        Err(e) => {
            return problems.push(Problem {
                file: path.display().to_string(),
                line: None,
                what: format!("cannot list: {e}"),
            })
        }
    };
    let mut names: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    names.sort();
    for p in names {
        let hidden = p
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'));
        if !hidden {
            walk(&p, files, problems);
        }
    }
}

/// A file's bytes, gunzipped when its name ends in `.gz`.
fn bytes_of(path: &Path) -> std::io::Result<Vec<u8>> {
    let raw = std::fs::read(path)?;
    if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..]).read_to_end(&mut out)?;
        return Ok(out);
    }
    Ok(raw)
}

/// A file's name without `.gz` and one more extension: a task's default name.
fn stem(path: &Path) -> String {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("items");
    let name = name.strip_suffix(".gz").unwrap_or(name);
    match name.rsplit_once('.') {
        Some((s, _)) if !s.is_empty() => s.to_string(),
        _ => name.to_string(),
    }
}

fn read_file(path: &Path, format: Format, fields: &Fields, out: &mut Read) {
    let file = path.display().to_string();
    let problem = |line: Option<usize>, what: String| Problem {
        file: file.clone(),
        line,
        what,
    };
    let bytes = match bytes_of(path) {
        Ok(b) => b,
        Err(e) => {
            return out
                .problems
                .push(problem(None, format!("cannot read: {e}")))
        }
    };
    match format {
        Format::Jsonl => jsonl(&bytes, path, fields, out, problem),
        Format::BigBench => bigbench(&bytes, path, out, problem),
        Format::TextFiles | Format::TextBlocks => {
            let text = match std::str::from_utf8(&bytes) {
                Ok(t) => t,
                Err(e) => {
                    let line = bytes[..e.valid_up_to()]
                        .iter()
                        .filter(|&&b| b == b'\n')
                        .count()
                        + 1;
                    return out
                        .problems
                        .push(problem(Some(line), "not UTF-8".to_string()));
                }
            };
            let task = stem(path);
            if format == Format::TextFiles {
                return push_text(out, &task, &task, text);
            }
            for (n, block) in text
                .split("\n\n")
                .filter(|b| !b.trim().is_empty())
                .enumerate()
            {
                push_text(out, &task, &format!("{task}#{}", n + 1), block);
            }
        }
    }
}

fn push_text(out: &mut Read, task: &str, id: &str, text: &str) {
    if text.trim().is_empty() {
        return;
    }
    out.items.push(RawItem {
        task: task.to_string(),
        id: id.to_string(),
        question: text.trim().to_string(),
        answer: String::new(),
    });
}

fn jsonl(
    bytes: &[u8],
    path: &Path,
    fields: &Fields,
    out: &mut Read,
    problem: impl Fn(Option<usize>, String) -> Problem,
) {
    let default_task = stem(path);
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line_no = Some(n + 1);
        let Ok(line) = std::str::from_utf8(line) else {
            out.problems.push(problem(line_no, "not UTF-8".into()));
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                out.problems
                    .push(problem(line_no, format!("not JSON ({e})")));
                continue;
            }
        };
        let mut missing = Vec::new();
        let mut join = |names: &[String]| {
            let mut text = String::new();
            for name in names {
                match field(&value, name) {
                    Some(t) => {
                        if !text.is_empty() && !t.is_empty() {
                            text.push(' ');
                        }
                        text.push_str(&t);
                    }
                    None => missing.push(name.clone()),
                }
            }
            text
        };
        let question = join(&fields.question);
        let answer = join(&fields.answer);
        let id = match &fields.id {
            Some(f) => field(&value, f).ok_or(f.clone()),
            None => Ok((n + 1).to_string()),
        };
        let task = match &fields.task {
            Some(f) => field(&value, f).ok_or(f.clone()),
            None => Ok(default_task.clone()),
        };
        let (id, task) = match (id, task) {
            (Ok(id), Ok(task)) if missing.is_empty() => (id, task),
            (id, task) => {
                missing.extend(id.err());
                missing.extend(task.err());
                out.problems.push(problem(
                    line_no,
                    format!("no field {}", missing.join(", no field ")),
                ));
                continue;
            }
        };
        out.items.push(RawItem {
            task,
            id,
            question,
            answer,
        });
    }
}

/// A JSON value as item text: a string, a number, or a list of them (the
/// options of a multiple-choice item) joined with spaces; `a.b` reads a
/// nested field.
fn field(value: &serde_json::Value, name: &str) -> Option<String> {
    let mut v = value;
    for part in name.split('.') {
        v = match v {
            serde_json::Value::Object(m) => m.get(part)?,
            serde_json::Value::Array(a) => a.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    text(v)
}

fn text(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        serde_json::Value::Bool(b) => Some(b.to_string()),
        serde_json::Value::Array(a) => {
            Some(a.iter().filter_map(text).collect::<Vec<_>>().join(" "))
        }
        serde_json::Value::Object(m) => {
            Some(m.values().filter_map(text).collect::<Vec<_>>().join(" "))
        }
        serde_json::Value::Null => None,
    }
}

fn bigbench(
    bytes: &[u8],
    path: &Path,
    out: &mut Read,
    problem: impl Fn(Option<usize>, String) -> Problem,
) {
    let value: serde_json::Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            return out.problems.push(problem(
                Some(e.line()),
                format!("not a BIG-bench task.json ({e})"),
            ))
        }
    };
    let task = value
        .get("name")
        .and_then(|n| n.as_str())
        .map(str::to_string)
        .unwrap_or_else(|| stem(path));
    let Some(examples) = value.get("examples").and_then(|e| e.as_array()) else {
        return out.problems.push(problem(
            None,
            "no `examples` list (not a BIG-bench task.json)".into(),
        ));
    };
    for (i, ex) in examples.iter().enumerate() {
        let Some(input) = ex.get("input").and_then(text) else {
            out.problems
                .push(problem(None, format!("examples[{i}]: no `input`")));
            continue;
        };
        out.items.push(RawItem {
            task: task.clone(),
            id: i.to_string(),
            question: input,
            answer: bigbench_answer(ex).unwrap_or_default(),
        });
    }
}

/// The reference answer: `target` (its first string when a list), else the
/// best-scoring key of `target_scores`.
fn bigbench_answer(ex: &serde_json::Value) -> Option<String> {
    match ex.get("target") {
        Some(serde_json::Value::Array(a)) => return a.first().and_then(text),
        Some(t) => return text(t),
        None => {}
    }
    let scores = ex.get("target_scores")?.as_object()?;
    scores
        .iter()
        .filter_map(|(k, v)| Some((k, v.as_f64()?)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(k, _)| k.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonl_names_bad_lines_and_missing_fields() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("quiz.jsonl");
        std::fs::write(
            &p,
            b"{\"q\":\"What is it?\",\"choices\":[\"a\",\"b\"],\"a\":\"b\",\"id\":7}\n\
              not json\n\
              {\"q\":\"No answer here\",\"choices\":[],\"id\":8}\n\
              \xff\xfe\n\
              \n\
              {\"q\":\"Last\",\"choices\":[\"x\"],\"a\":1,\"id\":\"n9\"}\n",
        )
        .unwrap();
        let fields = Fields {
            question: vec!["q".into(), "choices".into()],
            answer: vec!["a".into()],
            id: Some("id".into()),
            task: None,
        };
        let r = read(&[p], Format::Jsonl, &fields);
        let ids: Vec<&str> = r.items.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, ["7", "n9"]);
        assert_eq!(r.items[0].question, "What is it? a b");
        assert_eq!(r.items[0].answer, "b");
        assert_eq!(r.items[0].task, "quiz");
        let lines: Vec<Option<usize>> = r.problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, [Some(2), Some(3), Some(4)]);
        assert!(
            r.problems[1].what.contains("no field a"),
            "{}",
            r.problems[1]
        );
        assert!(r.problems[2].what.contains("UTF-8"));
    }

    #[test]
    fn bigbench_takes_input_and_the_best_target() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.json");
        std::fs::write(
            &p,
            r#"{"name":"snarks","examples":[
                {"input":"Which is it? (a) x (b) y","target_scores":{"(a)":0,"(b)":1}},
                {"input":"Say hi","target":["hi","hello"]},
                {"target":"lost"}]}"#,
        )
        .unwrap();
        let r = read(&[p], Format::BigBench, &Fields::default());
        assert_eq!(r.items.len(), 2);
        assert_eq!(
            (r.items[0].task.as_str(), r.items[0].answer.as_str()),
            ("snarks", "(b)")
        );
        assert_eq!(r.items[1].answer, "hi");
        assert_eq!(r.problems.len(), 1);
        assert!(r.problems[0].what.contains("examples[2]"));
    }
}
