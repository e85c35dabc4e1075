//! What the crawl's pages say about their use for AI training: pages per
//! signal, and per site the pages that carry one and those dropped for it
//! (`filters.opt_out.drop`) — what a training crawl states it honoured.

use crate::verdict::VerdictRecord;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Sites listed in the HTML page at most (the JSON has them all).
const LISTED_SITES: usize = 50;

/// Counts from verdicts' `opt_out`.
#[derive(Debug, Default)]
pub struct OptOuts {
    pages: u64,
    dropped: u64,
    signals: BTreeMap<String, u64>,
    sites: BTreeMap<String, SiteCounts>,
}

/// One site's pages that carry a signal.
#[derive(Debug, Default, Clone, Serialize)]
pub struct SiteCounts {
    pub pages: u64,
    /// Dropped for it (reason `opt_out`).
    pub dropped: u64,
    /// Pages per signal.
    pub signals: BTreeMap<String, u64>,
}

/// The figures as `report --json` writes them.
#[derive(Debug, Serialize)]
pub struct Summary {
    pub pages: u64,
    pub dropped: u64,
    pub signals: BTreeMap<String, u64>,
    /// Most pages first.
    pub sites: Vec<SiteSummary>,
}

#[derive(Debug, Serialize)]
pub struct SiteSummary {
    pub site: String,
    #[serde(flatten)]
    pub counts: SiteCounts,
}

impl OptOuts {
    pub fn add(&mut self, v: &VerdictRecord) {
        if v.opt_out.is_empty() {
            return;
        }
        let dropped = v.reasons.iter().any(|r| r == "opt_out");
        let signals: BTreeSet<&str> = v.opt_out.iter().map(|o| o.signal.as_str()).collect();
        let site = self
            .sites
            .entry(v.site.clone().unwrap_or_default())
            .or_default();
        self.pages += 1;
        site.pages += 1;
        self.dropped += u64::from(dropped);
        site.dropped += u64::from(dropped);
        for s in signals {
            *self.signals.entry(s.to_string()).or_default() += 1;
            *site.signals.entry(s.to_string()).or_default() += 1;
        }
    }

    fn by_pages(&self) -> Vec<(&String, &SiteCounts)> {
        let mut sites: Vec<_> = self.sites.iter().collect();
        sites.sort_by(|a, b| b.1.pages.cmp(&a.1.pages).then(a.0.cmp(b.0)));
        sites
    }

    pub fn summary(&self) -> Summary {
        Summary {
            pages: self.pages,
            dropped: self.dropped,
            signals: self.signals.clone(),
            sites: self
                .by_pages()
                .into_iter()
                .map(|(site, c)| SiteSummary {
                    site: site.clone(),
                    counts: c.clone(),
                })
                .collect(),
        }
    }

    /// The report's section (nothing when no page carries a signal).
    pub fn section(&self, h: &mut String, esc: impl Fn(&str) -> String) {
        if self.pages == 0 {
            return;
        }
        let _ = write!(
            h,
            "<h2>Opt-out signals</h2><p>{} pages on {} sites say they are not to be used for AI training \
             (robots <code>noai</code>/<code>noimageai</code>, TDMRep); {} were dropped for it \
             (<code>filters.opt_out.drop</code>).</p><table><tr><th>site</th><th>pages</th><th>dropped</th>",
            self.pages,
            self.sites.len(),
            self.dropped
        );
        for s in self.signals.keys() {
            let _ = write!(h, "<th>{}</th>", esc(s));
        }
        h.push_str("</tr>");
        for (site, c) in self.by_pages().into_iter().take(LISTED_SITES) {
            let _ = write!(
                h,
                "<tr><td>{}</td><td class=n>{}</td><td class=n>{}</td>",
                esc(site),
                c.pages,
                c.dropped
            );
            for s in self.signals.keys() {
                let _ = write!(h, "<td class=n>{}</td>", c.signals.get(s).unwrap_or(&0));
            }
            h.push_str("</tr>");
        }
        h.push_str("</table>");
        if self.sites.len() > LISTED_SITES {
            let _ = write!(
                h,
                "<p class=muted>{} more sites in <code>report --json</code>.</p>",
                self.sites.len() - LISTED_SITES
            );
        }
    }
}
