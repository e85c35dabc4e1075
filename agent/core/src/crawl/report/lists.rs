//! The pages and sites a reader acts on: flagged pages, pages that could not
//! be judged, the site flags the stream carried, and bad neighborhoods with
//! the ones nested in a bad one folded into it (a site, its host and its
//! `/mirror/` path are one finding, not three).

use super::esc;
use crate::verdict::VerdictRecord;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

/// At most this many pages of each list are kept (the counts stay exact):
/// the report's memory does not grow with the crawl.
pub const KEPT: usize = 100;

/// A page named in a list.
#[derive(Debug, Clone)]
pub struct Named {
    pub url: String,
    /// Reasons, or the error.
    pub why: String,
    pub contains: Option<f64>,
}

/// The lists, gathered line by line.
#[derive(Debug, Default)]
pub struct Listed {
    pub flagged: Vec<Named>,
    pub flagged_total: u64,
    pub errors: Vec<Named>,
    pub errors_total: u64,
    /// The last state of each site flag in the stream: (state, badness, pages, at).
    pub site_flags: BTreeMap<String, (String, f64, u32, String)>,
}

impl Listed {
    pub fn add(&mut self, v: &VerdictRecord) {
        let (list, total) = match v.verdict.as_deref() {
            Some("flag") => (&mut self.flagged, &mut self.flagged_total),
            Some("error") => (&mut self.errors, &mut self.errors_total),
            _ => return,
        };
        *total += 1;
        if list.len() < KEPT {
            let url = match (&v.url, &v.origin) {
                (u, _) if !u.is_empty() => u.clone(),
                (_, Some(o)) => o.file.clone().unwrap_or_default(),
                _ => String::new(),
            };
            let why = match &v.error {
                Some(e) => e.clone(),
                None => v.reasons.join(", "),
            };
            list.push(Named {
                url,
                why,
                contains: v.contains,
            });
        }
    }

    /// A `site_flag` line of the stream.
    pub fn add_flag(&mut self, line: &str) {
        if let Ok(f) = serde_json::from_str::<crate::verdict::SiteFlag>(line) {
            if self.site_flags.len() < 10 * KEPT || self.site_flags.contains_key(&f.neighborhood) {
                self.site_flags
                    .insert(f.neighborhood, (f.state, f.badness, f.pages, f.at));
            }
        }
    }

    pub fn pages_section(&self, h: &mut String) {
        page_table(
            h,
            "Flagged pages",
            "copied from a labeled set",
            &self.flagged,
            self.flagged_total,
            true,
        );
        page_table(
            h,
            "Pages not judged (error)",
            "broken input: see each verdict's <code>error</code>",
            &self.errors,
            self.errors_total,
            false,
        );
    }

    pub fn flags_section(&self, h: &mut String) {
        let bad: Vec<(String, f64, u32)> = self
            .site_flags
            .iter()
            .filter(|(_, f)| f.0 == "bad")
            .map(|(n, f)| (n.clone(), f.1, f.2))
            .collect();
        if self.site_flags.is_empty() {
            return;
        }
        let _ = write!(
            h,
            "<h2>Site flags in the stream</h2><p>What the scan or agent flagged as it went (the last state of each); {} still bad.</p>",
            bad.len()
        );
        neighborhood_table(h, &collapse(bad));
    }
}

fn page_table(
    h: &mut String,
    title: &str,
    what: &str,
    pages: &[Named],
    total: u64,
    contains: bool,
) {
    let _ = write!(h, "<h2>{title}</h2>");
    if total == 0 {
        h.push_str("<p>None.</p>");
        return;
    }
    let pages_word = if total == 1 { "page" } else { "pages" };
    let _ = write!(
        h,
        "<p>{total} {pages_word}, {what}.</p><table><tr><th>page</th><th>why</th>"
    );
    if contains {
        h.push_str("<th>contains</th>");
    }
    h.push_str("</tr>");
    for p in pages {
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=muted>{}</td>",
            esc(&p.url),
            esc(&p.why)
        );
        if contains {
            let _ = write!(
                h,
                "<td class=n>{}</td>",
                p.contains.map(|c| format!("{c:.2}")).unwrap_or_default()
            );
        }
        h.push_str("</tr>");
    }
    h.push_str("</table>");
    if total > pages.len() as u64 {
        let _ = write!(
            h,
            "<p class=muted>… and {} more (the verdicts have them all).</p>",
            total - pages.len() as u64
        );
    }
}

/// A bad neighborhood with the bad ones nested in it folded in.
#[derive(Debug, Clone, PartialEq)]
pub struct Folded {
    pub name: String,
    pub badness: f64,
    pub pages: u32,
    /// Bad neighborhoods inside this one (its hosts and paths).
    pub nested: Vec<String>,
}

/// Folds each bad neighborhood into the broadest bad one that holds it: a
/// registered domain holds its hosts' prefixes, a prefix its longer ones.
/// Each name is looked up by its own ancestors (its shorter `/` prefixes and
/// its host's parent domains), so this is linear in the names' lengths.
pub fn collapse(mut bad: Vec<(String, f64, u32)>) -> Vec<Folded> {
    // Broadest first: an ancestor is always shorter than what it holds.
    bad.sort_by(|a, b| a.0.len().cmp(&b.0.len()).then(a.0.cmp(&b.0)));
    let mut kept: Vec<Folded> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (name, badness, pages) in bad {
        let holder = ancestors(&name).find_map(|a| index.get(a).copied());
        match holder {
            Some(i) => kept[i].nested.push(name),
            None => {
                index.insert(name.clone(), kept.len());
                kept.push(Folded {
                    name,
                    badness,
                    pages,
                    nested: Vec::new(),
                });
            }
        }
    }
    kept.sort_by(|a, b| {
        b.badness
            .total_cmp(&a.badness)
            .then(b.pages.cmp(&a.pages))
            .then(a.name.cmp(&b.name))
    });
    kept
}

/// The neighborhoods that could hold `name`: for `host/a/b/`, `host/a/`,
/// `host/`, and the host's parent domains (`example.net` for
/// `copies.example.net/`).
fn ancestors(name: &str) -> impl Iterator<Item = &str> {
    let host_end = name.find('/').unwrap_or(name.len());
    let host = &name[..host_end];
    let prefixes = name[..name.len().saturating_sub(1)]
        .match_indices('/')
        .map(move |(i, _)| &name[..=i]);
    let domains = host.match_indices('.').map(move |(i, _)| &host[i + 1..]);
    let host_itself = (host_end < name.len()).then_some(host);
    prefixes.chain(host_itself).chain(domains)
}

pub fn neighborhood_table(h: &mut String, folded: &[Folded]) {
    if folded.is_empty() {
        h.push_str("<p>None.</p>");
        return;
    }
    h.push_str("<table><tr><th>site or path</th><th>badness</th><th>pages</th><th>also bad inside it</th></tr>");
    for f in folded.iter().take(50) {
        let nested: Vec<String> = f.nested.iter().take(5).map(|n| esc(n)).collect();
        let more = f.nested.len().saturating_sub(5);
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=n>{:.3}</td><td class=n>{}</td><td class=muted>{}{}</td></tr>",
            esc(&f.name),
            f.badness,
            f.pages,
            nested.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() }
        );
    }
    h.push_str("</table>");
    if folded.len() > 50 {
        let _ = write!(h, "<p class=muted>… and {} more.</p>", folded.len() - 50);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_bad_neighborhoods_fold_into_the_broadest() {
        let bad = vec![
            ("copies.example.net/posts/".to_string(), 1.0, 5),
            ("example.net".to_string(), 1.0, 5),
            ("copies.example.net/".to_string(), 1.0, 5),
            ("other.example/w/".to_string(), 0.8, 6),
            ("other.example/wiki/".to_string(), 0.9, 7),
        ];
        let folded = collapse(bad);
        let names: Vec<&str> = folded.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            ["example.net", "other.example/wiki/", "other.example/w/"]
        );
        assert_eq!(
            folded[0].nested,
            ["copies.example.net/", "copies.example.net/posts/"]
        );
        assert!(folded[1].nested.is_empty(), "/w/ does not hold /wiki/");
    }
}
