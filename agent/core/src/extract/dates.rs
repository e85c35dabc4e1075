//! Dates as pages write them, to `YYYY-MM-DD`: the numeric forms of
//! metadata (`2025-09-04T10:00:00Z`, `2025/09/04`, `20250904`), dates in URL
//! paths (`/2025/09/04/`), and dates written out in English or German
//! (`September 4, 2025`, `4 Sept. 2025`, `4. September 2025`). Nothing else
//! is guessed: a date that cannot be read is no date.

/// Years outside this range are not publication dates (copyright notices,
/// product numbers).
const YEARS: std::ops::RangeInclusive<u32> = 1995..=2099;

/// The date at the start of a metadata value (ISO 8601 and its relatives).
pub fn iso(value: &str) -> Option<String> {
    let v = value.trim();
    let b = v.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        let s = v.get(r)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    let y = digits(0..4)?;
    let (m, d) = match b.get(4) {
        Some(b'-' | b'/' | b'.') => {
            let sep = b[4];
            // Month and day of one or two digits.
            let rest = &v[5..];
            let (m, rest) = split_number(rest)?;
            let rest = rest.strip_prefix(sep as char)?;
            let (d, _) = split_number(rest)?;
            (m, d)
        }
        Some(c) if c.is_ascii_digit() => (digits(4..6)?, digits(6..8)?),
        _ => return None,
    };
    ymd(y, m, d)
}

/// A `/YYYY/MM/DD/` or `/YYYY-MM-DD` path in a URL.
pub fn in_url(url: &str) -> Option<String> {
    let path = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = &path[path.find('/').unwrap_or(path.len())..];
    let parts: Vec<&str> = path.split('/').collect();
    for w in parts.windows(3) {
        if let (Ok(y), Ok(m), Ok(d)) = (w[0].parse(), w[1].parse(), w[2].parse::<u32>()) {
            if w[0].len() == 4 && w[1].len() <= 2 && w[2].len() <= 2 {
                if let Some(date) = ymd(y, m, d) {
                    return Some(date);
                }
            }
        }
    }
    parts
        .iter()
        .filter(|p| p.len() >= 10)
        .find_map(|p| iso(&p[..10]).filter(|_| p.as_bytes()[4] == b'-'))
}

/// The first date written out in `text`: `Month D, YYYY`, `D Month YYYY`,
/// `D. Month YYYY`, or a numeric ISO date.
pub fn written(text: &str) -> Option<String> {
    let tokens: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',' || c == '|')
        .filter(|t| !t.is_empty())
        .take(200)
        .collect();
    for (i, t) in tokens.iter().enumerate() {
        if t.len() >= 8 && t.as_bytes()[0].is_ascii_digit() {
            if let Some(d) = iso(t) {
                return Some(d);
            }
        }
        let Some(m) = month(t) else { continue };
        let next = tokens.get(i + 1).copied();
        let after = tokens.get(i + 2).copied();
        let prev = i.checked_sub(1).map(|j| tokens[j]);
        // Month D, YYYY
        if let (Some(d), Some(y)) = (next.and_then(day), after.and_then(year)) {
            if let Some(date) = ymd(y, m, d) {
                return Some(date);
            }
        }
        // D Month YYYY
        if let (Some(d), Some(y)) = (prev.and_then(day), next.and_then(year)) {
            if let Some(date) = ymd(y, m, d) {
                return Some(date);
            }
        }
    }
    None
}

fn split_number(s: &str) -> Option<(u32, &str)> {
    let n = s.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 || n > 2 {
        return None;
    }
    Some((s[..n].parse().ok()?, &s[n..]))
}

fn ymd(y: u32, m: u32, d: u32) -> Option<String> {
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) => 29,
        2 => 28,
        _ => return None,
    };
    (YEARS.contains(&y) && (1..=days).contains(&d)).then(|| format!("{y:04}-{m:02}-{d:02}"))
}

fn day(t: &str) -> Option<u32> {
    let t = t.trim_end_matches(['.', ',']);
    let t = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|s| t.strip_suffix(s))
        .unwrap_or(t);
    (t.len() <= 2).then(|| t.parse().ok()).flatten()
}

fn year(t: &str) -> Option<u32> {
    let t = t.trim_end_matches(['.', ',', ';', ')']);
    (t.len() == 4).then(|| t.parse().ok()).flatten()
}

fn month(t: &str) -> Option<u32> {
    const NAMES: [&[&str]; 12] = [
        &["january", "jan", "januar", "jänner"],
        &["february", "feb", "februar"],
        &["march", "mar", "märz", "maerz"],
        &["april", "apr"],
        &["may", "mai"],
        &["june", "jun", "juni"],
        &["july", "jul", "juli"],
        &["august", "aug"],
        &["september", "sep", "sept"],
        &["october", "oct", "oktober", "okt"],
        &["november", "nov"],
        &["december", "dec", "dezember", "dez"],
    ];
    let t = t.trim_end_matches(['.', ',']).to_lowercase();
    NAMES
        .iter()
        .position(|names| names.contains(&t.as_str()))
        .map(|i| i as u32 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_forms() {
        assert_eq!(
            iso("2025-09-04T10:00:00+02:00").as_deref(),
            Some("2025-09-04")
        );
        assert_eq!(iso(" 2025/9/4").as_deref(), Some("2025-09-04"));
        assert_eq!(iso("20250904").as_deref(), Some("2025-09-04"));
        assert_eq!(iso("2025-02-30"), None);
        assert_eq!(iso("2024-02-29").as_deref(), Some("2024-02-29"));
        assert_eq!(iso("1066-10-14"), None);
        assert_eq!(iso("Sep 4"), None);
        assert_eq!(iso("2025-é"), None);
    }

    #[test]
    fn urls() {
        assert_eq!(
            in_url("https://e.com/2025/09/04/post/").as_deref(),
            Some("2025-09-04")
        );
        assert_eq!(
            in_url("https://e.com/news/2025-09-04-post").as_deref(),
            Some("2025-09-04")
        );
        assert_eq!(in_url("https://e.com/2025/post"), None);
        assert_eq!(in_url("https://2025.com/1234/56/78"), None);
    }

    #[test]
    fn written_out() {
        assert_eq!(
            written("Posted on September 4, 2025 by Ann").as_deref(),
            Some("2025-09-04")
        );
        assert_eq!(written("4 Sept. 2025").as_deref(), Some("2025-09-04"));
        assert_eq!(written("am 4. März 2025").as_deref(), Some("2025-03-04"));
        assert_eq!(
            written("Updated Jan 1st, 2020 |").as_deref(),
            Some("2020-01-01")
        );
        assert_eq!(written("May we help you in 2025?"), None);
        assert_eq!(written(""), None);
    }
}
