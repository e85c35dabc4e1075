//! Heritrix `crawl.log` lines, the form crawl operators already parse.
//!
//! A line is whitespace-separated fields: 1 timestamp, 2 fetch status,
//! 3 size, 4 URL, 5 discovery path, 6 referrer, 7 MIME type, 8 worker thread,
//! 9 fetch timestamp+duration, 10 digest, 11 source tag, 12 annotations
//! (comma-separated, bare or `key:value`, `-` for none), then optional extra
//! fields. Annotating rewrites field 12 only; every other byte of the line,
//! spacing included, stays as it was.

use crate::verdict::SiteFlag;

/// The byte ranges of the whitespace-separated fields of `line`.
fn fields(line: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, line.len()));
    }
    out
}

/// The URL (field 4) of a crawl.log line.
pub fn url(line: &str) -> Option<&str> {
    fields(line).get(3).map(|&(s, e)| &line[s..e])
}

/// Whether `line` has a crawl.log line's fields (12 or more, the last the
/// annotations).
pub fn is_line(line: &str) -> bool {
    fields(line).len() >= 12
}

/// `line` with `add` appended to its annotations (field 12); `None` when
/// the line has fewer than 12 fields (not a crawl.log line).
pub fn annotate(line: &str, add: &[String]) -> Option<String> {
    if add.is_empty() {
        return Some(line.to_string());
    }
    let f = fields(line);
    let &(s, e) = f.get(11)?;
    let current = &line[s..e];
    let joined = add.join(",");
    let new = if current == "-" {
        joined
    } else {
        format!("{current},{joined}")
    };
    Some(format!("{}{}{}", &line[..s], new, &line[e..]))
}

/// A site flag as a crawl.log line: the neighborhood as the URL, and the
/// flag in the annotations (`crawlsieve-site:bad`, `badness:…`, `pages:…`,
/// `threshold:…`).
pub fn flag_line(flag: &SiteFlag) -> String {
    let url = if flag.neighborhood.ends_with('/') {
        format!("http://{}", flag.neighborhood)
    } else {
        format!("domain:{}", flag.neighborhood)
    };
    format!(
        "{} {:>5} {:>10} {} - - - crawlsieve - - - crawlsieve-site:{},badness:{:.4},pages:{},threshold:{:.4}",
        flag.at, 0, "-", url, flag.state, flag.badness, flag.pages, flag.threshold
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = "2026-11-22T10:27:06.445Z   200       9458 http://www.example.org/a - - text/html #042 20261122102706248+90 sha1:3ZHOQDQ - content-size:9700";

    #[test]
    fn annotations_are_added_and_nothing_else_changes() {
        assert_eq!(url(LINE), Some("http://www.example.org/a"));
        let out = annotate(LINE, &["crawlsieve:flag".into()]).unwrap();
        assert_eq!(out, format!("{LINE},crawlsieve:flag"));
        let bare = LINE.replace("content-size:9700", "- {\"extra\":1}");
        let out = annotate(&bare, &["a".into(), "b:c".into()]).unwrap();
        assert!(out.ends_with(" - a,b:c {\"extra\":1}"), "{out}");
        assert_eq!(annotate("too few fields", &["x".into()]), None);
    }

    #[test]
    fn flag_lines_parse_as_crawl_log_lines() {
        let flag = SiteFlag {
            kind: "site_flag".into(),
            neighborhood: "copier.example/wiki/".into(),
            state: "bad".into(),
            badness: 0.9,
            pages: 12,
            threshold: 0.31,
            at: "2026-11-22T10:00:00.000Z".into(),
        };
        let line = flag_line(&flag);
        assert_eq!(url(&line), Some("http://copier.example/wiki/"));
        assert_eq!(fields(&line).len(), 12);
        assert!(line.ends_with("crawlsieve-site:bad,badness:0.9000,pages:12,threshold:0.3100"));
    }
}
