//! What a model card states: a crawl's contamination by item sets (benchmark
//! questions) — per set and per task, the items found and the pages and
//! sites that carry them.

use crate::verdict::VerdictRecord;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Counts per item set, from verdicts' `items`.
#[derive(Debug, Default)]
pub struct Contamination {
    sets: BTreeMap<String, Counts>,
}

#[derive(Debug, Default)]
struct Counts {
    pages: u64,
    sites: BTreeSet<String>,
    items: BTreeSet<(String, String)>,
    /// Pages whose verdict found more items than it lists (`labels.items.listed`).
    more_than_listed: u64,
    tasks: BTreeMap<String, TaskCounts>,
}

#[derive(Debug, Default)]
struct TaskCounts {
    pages: u64,
    sites: BTreeSet<String>,
    items: BTreeSet<String>,
}

/// One set's figures, as the JSON report writes them.
#[derive(Debug, Serialize)]
pub struct SetSummary {
    pub set: String,
    /// Distinct items found (among those verdicts list).
    pub items: usize,
    pub pages: u64,
    pub sites: usize,
    pub pages_with_more_items_than_listed: u64,
    /// Most pages first.
    pub tasks: Vec<TaskSummary>,
}

#[derive(Debug, Serialize)]
pub struct TaskSummary {
    pub task: String,
    pub items: usize,
    pub pages: u64,
    pub sites: usize,
}

impl Contamination {
    pub fn add(&mut self, v: &VerdictRecord) {
        let site = v.site.clone().unwrap_or_default();
        let mut seen_sets: BTreeSet<&str> = BTreeSet::new();
        let mut seen_tasks: BTreeSet<(&str, &str)> = BTreeSet::new();
        for m in &v.items {
            let set = self.sets.entry(m.set.clone()).or_default();
            if seen_sets.insert(&m.set) {
                set.pages += 1;
                set.sites.insert(site.clone());
                set.more_than_listed += u64::from(v.items_found as usize > v.items.len());
            }
            set.items.insert((m.task.clone(), m.id.clone()));
            let task = set.tasks.entry(m.task.clone()).or_default();
            if seen_tasks.insert((&m.set, &m.task)) {
                task.pages += 1;
                task.sites.insert(site.clone());
            }
            task.items.insert(m.id.clone());
        }
    }

    pub fn summary(&self) -> Vec<SetSummary> {
        self.sets
            .iter()
            .map(|(name, c)| {
                let mut tasks: Vec<TaskSummary> = c
                    .tasks
                    .iter()
                    .map(|(t, tc)| TaskSummary {
                        task: t.clone(),
                        items: tc.items.len(),
                        pages: tc.pages,
                        sites: tc.sites.len(),
                    })
                    .collect();
                tasks.sort_by(|a, b| {
                    b.pages
                        .cmp(&a.pages)
                        .then(b.items.cmp(&a.items))
                        .then(a.task.cmp(&b.task))
                });
                SetSummary {
                    set: name.clone(),
                    items: c.items.len(),
                    pages: c.pages,
                    sites: c.sites.len(),
                    pages_with_more_items_than_listed: c.more_than_listed,
                    tasks,
                }
            })
            .collect()
    }

    /// The HTML section (nothing when no verdict found an item).
    pub fn section(&self, h: &mut String) {
        if self.sets.is_empty() {
            return;
        }
        h.push_str("<h2>Contamination by item sets</h2><p>Pages carrying items of item sets (benchmark questions and other short texts; reason <code>labeled_item</code>), by set and by task, the most contaminated tasks first. Items are counted among those verdicts list.</p>");
        for s in self.summary() {
            let _ = write!(
                h,
                "<h3>{}</h3><p>{} items on {} pages of {} sites{}</p><table><tr><th>task</th><th>items</th><th>pages</th><th>sites</th></tr>",
                super::esc(&s.set),
                s.items,
                s.pages,
                s.sites,
                if s.pages_with_more_items_than_listed > 0 {
                    format!("; {} pages hold more items than their verdicts list", s.pages_with_more_items_than_listed)
                } else {
                    String::new()
                }
            );
            for t in s.tasks.iter().take(50) {
                let _ = write!(
                    h,
                    "<tr><td>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td></tr>",
                    super::esc(&t.task),
                    t.items,
                    t.pages,
                    t.sites
                );
            }
            h.push_str("</table>");
        }
    }
}
