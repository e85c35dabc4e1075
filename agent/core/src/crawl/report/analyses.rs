//! The report's sections for the crawl analyses run beside the scan: style
//! clusters, quilted pages and spun content.

use super::{esc, Report};
use crate::crawl::spun::Line;
use std::fmt::Write;

impl Report {
    /// The largest style clusters: pages of one template or generator
    /// (seed 003), ranked by mean similarity × sites as the paper's Table 1.
    pub(super) fn styles_section(&self, h: &mut String) {
        if self.style_clusters.is_empty() {
            return;
        }
        let pages: u64 = self.style_clusters.iter().map(|c| c.pages).sum();
        let _ = write!(
            h,
            "<h2>Style clusters</h2><p>{} of pages sharing their markup (hidden style, seed 003) {} {} pages; \
             ranked by mean similarity × sites. Many sites in one cluster: a shared template, mirrors or a link farm.</p>\
             <table><tr><th>#</th><th>pages</th><th>sites</th><th>mean similarity</th><th>top sites</th><th>sample URLs</th></tr>",
            match self.style_clusters.len() {
                1 => "1 cluster".to_string(),
                n => format!("{n} clusters"),
            },
            if self.style_clusters.len() == 1 { "holds" } else { "hold" },
            pages
        );
        for c in self.style_clusters.iter().take(30) {
            let sites: Vec<String> = c
                .top_sites
                .iter()
                .take(5)
                .map(|(s, n)| format!("{} ({n})", esc(if s.is_empty() { "?" } else { s })))
                .collect();
            let urls: Vec<String> = std::iter::once(&c.prototype)
                .chain(c.members.iter())
                .take(3)
                .map(|m| esc(&m.url))
                .collect();
            let _ = write!(
                h,
                "<tr><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{:.2}</td><td>{}</td><td class=muted>{}</td></tr>",
                c.cluster,
                c.pages,
                c.sites,
                c.mean_similarity,
                sites.join(", "),
                urls.join("<br>")
            );
        }
        h.push_str("</table>");
        if self.style_clusters.len() > 30 {
            let _ = write!(
                h,
                "<p class=muted>… and {} more.</p>",
                self.style_clusters.len() - 30
            );
        }
    }

    /// Quilted pages (seed 000): pages stitched from patches of several
    /// others, with the sources that gave the most.
    pub(super) fn quilts_section(&self, h: &mut String) {
        if self.quilts.is_empty() {
            return;
        }
        let sites: std::collections::BTreeSet<&str> = self
            .quilts
            .iter()
            .filter_map(|q| q.site.as_deref())
            .collect();
        let _ = write!(
            h,
            "<h2>Quilted pages</h2><p>{} pages on {} sites are stitched together from patches of other pages \
             (seed 000: at least the patch fraction θ of their word 5-grams occur in 2 to m pages, covered by at least c \
             sources). Aggregators and blog home pages are quilts too; spam is the rest.</p>\
             <table><tr><th>page</th><th>patch fraction</th><th>sources</th><th>largest sources (patch grams)</th></tr>",
            self.quilts.len(),
            sites.len()
        );
        for q in self.quilts.iter().take(50) {
            let sources: Vec<String> = q
                .sources
                .iter()
                .take(4)
                .map(|s| format!("{} ({})", esc(&s.url), s.grams))
                .collect();
            let _ = write!(
                h,
                "<tr><td>{}</td><td class=n>{:.2}</td><td class=n>{}</td><td class=muted>{}</td></tr>",
                esc(&q.url),
                q.patch_fraction,
                q.sources.len(),
                sources.join("<br>")
            );
        }
        h.push_str("</table>");
        if self.quilts.len() > 50 {
            let _ = write!(
                h,
                "<p class=muted>… and {} more.</p>",
                self.quilts.len() - 50
            );
        }
    }

    /// Spun content (DSpin): clusters of pages rewritten from one source,
    /// with exact and near duplicates counted apart.
    pub(super) fn spun_section(&self, h: &mut String) {
        if self.spun.is_empty() {
            return;
        }
        let clusters: Vec<&crate::crawl::spun::Cluster> = self
            .spun
            .iter()
            .filter_map(|l| match l {
                Line::Cluster(c) => Some(c),
                Line::Group(_) => None,
            })
            .collect();
        let groups = |kind: &str| {
            self.spun
                .iter()
                .filter(|l| matches!(l, Line::Group(g) if g.kind == kind))
                .count()
        };
        let sites: std::collections::BTreeSet<&str> = clusters
            .iter()
            .flat_map(|c| c.sites.iter().map(String::as_str))
            .collect();
        let _ = write!(
            h,
            "<h2>Spun content</h2><p>{} clusters of pages rewritten from one source with synonyms (DSpin: their \
             immutables, the words no spinner changes, match in order), {} pages on {} sites; {} groups of exact \
             duplicates and {} of near duplicates are counted apart.</p>\
             <table><tr><th>pages</th><th>sites</th><th>center</th><th>members (similarity to the center)</th></tr>",
            clusters.len(),
            clusters.iter().map(|c| c.size).sum::<usize>(),
            sites.len(),
            groups("exact_duplicates"),
            groups("near_duplicates"),
        );
        for c in clusters.iter().take(50) {
            let members: Vec<String> = c
                .members
                .iter()
                .skip(1)
                .take(4)
                .map(|m| format!("{} ({:.2})", esc(&m.url), m.similarity))
                .collect();
            let _ = write!(
                h,
                "<tr><td class=n>{}</td><td class=n>{}</td><td>{}</td><td class=muted>{}</td></tr>",
                c.size,
                c.sites.len(),
                esc(&c.center),
                members.join("<br>")
            );
        }
        h.push_str("</table>");
        if clusters.len() > 50 {
            let _ = write!(h, "<p class=muted>… and {} more.</p>", clusters.len() - 50);
        }
    }
}
