//! The scan report: one self-contained HTML page a person reads — verdicts
//! by kind and reason, languages, the distribution of neighborhood badness
//! with the threshold marked (histogram and CDF, like seed 001's Figure 12),
//! and the flagged neighborhoods. Charts are inline SVG; no scripts, no
//! network.

use crate::crawl::quilts::cover::Quilt;
use crate::crawl::styles::cluster::Cluster;
use crate::neighborhoods::Neighborhoods;
use crate::verdict::VerdictRecord;
use std::collections::BTreeMap;
use std::fmt::Write;

mod analyses;
mod chart;
pub mod contamination;
mod lists;
pub mod opt_out;

use chart::chart;
pub use lists::Listed;

/// Everything the report shows, gathered from a verdict stream.
pub struct Report {
    pub sources: Vec<String>,
    pub verdicts: u64,
    pub kinds: BTreeMap<String, u64>,
    pub reasons: BTreeMap<String, u64>,
    pub languages: BTreeMap<String, u64>,
    pub hoods: Neighborhoods,
    pub unreadable: u64,
    /// Style clusters (`crawlsieve styles cluster`), in their rank order.
    pub style_clusters: Vec<Cluster>,
    /// Quilted pages (`crawlsieve quilts`), most patched first.
    pub quilts: Vec<Quilt>,
    /// Spun clusters and duplicate groups (`crawlsieve spun`).
    pub spun: Vec<crate::crawl::spun::Line>,
    /// Flagged and error pages, and the stream's site flags.
    pub lists: Listed,
    /// Items of item sets found, per set and task.
    pub contamination: contamination::Contamination,
    /// Pages that say they are not to be used for AI training, per site.
    pub opt_out: opt_out::OptOuts,
}

/// The report's figures as JSON (`report --json`).
#[derive(serde::Serialize)]
pub struct Summary<'a> {
    pub sources: &'a [String],
    pub verdicts: u64,
    pub kinds: &'a BTreeMap<String, u64>,
    pub reasons: &'a BTreeMap<String, u64>,
    pub languages: &'a BTreeMap<String, u64>,
    pub unreadable_lines: u64,
    pub contamination: Vec<contamination::SetSummary>,
    pub opt_out: opt_out::Summary,
}

impl Report {
    pub fn new(hoods: Neighborhoods) -> Self {
        Report {
            sources: Vec::new(),
            verdicts: 0,
            kinds: BTreeMap::new(),
            reasons: BTreeMap::new(),
            languages: BTreeMap::new(),
            hoods,
            unreadable: 0,
            style_clusters: Vec::new(),
            quilts: Vec::new(),
            spun: Vec::new(),
            lists: Listed::default(),
            contamination: Default::default(),
            opt_out: Default::default(),
        }
    }

    /// The figures a program reads (`report --json`).
    pub fn summary(&self) -> Summary<'_> {
        Summary {
            sources: &self.sources,
            verdicts: self.verdicts,
            kinds: &self.kinds,
            reasons: &self.reasons,
            languages: &self.languages,
            unreadable_lines: self.unreadable,
            contamination: self.contamination.summary(),
            opt_out: self.opt_out.summary(),
        }
    }

    /// Adds one line of a verdict stream.
    pub fn add_line(&mut self, line: &str) {
        let Ok(v) = serde_json::from_str::<VerdictRecord>(line) else {
            self.unreadable += 1;
            return;
        };
        if v.line_type.as_deref() == Some("site_flag") {
            self.lists.add_flag(line);
        }
        if !v.is_verdict() {
            return;
        }
        self.verdicts += 1;
        self.lists.add(&v);
        self.contamination.add(&v);
        self.opt_out.add(&v);
        *self
            .kinds
            .entry(v.verdict.clone().unwrap_or_default())
            .or_default() += 1;
        for r in &v.reasons {
            *self.reasons.entry(r.clone()).or_default() += 1;
        }
        if let Some(l) = &v.lang {
            *self.languages.entry(l.clone()).or_default() += 1;
        }
        if let Some(c) = v.contribution() {
            self.hoods.observe(&v.url, c);
        }
    }

    /// The HTML page.
    pub fn html(&mut self) -> String {
        self.hoods.sweep();
        let threshold = self.hoods.threshold();
        let min_pages = self.hoods.min_pages();
        let mut judged: Vec<(String, f64, u32, bool)> = self
            .hoods
            .iter()
            .filter(|(_, h)| h.pages >= min_pages)
            .map(|(n, h)| (n.to_string(), h.badness(), h.pages, h.bad))
            .collect();
        judged.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.2.cmp(&a.2)).then(a.0.cmp(&b.0)));
        let bad: Vec<_> = judged.iter().filter(|j| j.3).collect();

        let mut h = String::new();
        h.push_str("<!doctype html><html lang=en><head><meta charset=utf-8><title>crawlsieve scan report</title><style>");
        h.push_str("body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:980px;color:#222}h1{font-size:1.6em}h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid #ddd}table{border-collapse:collapse;margin:.5em 0}td,th{padding:.2em .8em;text-align:left;border-bottom:1px solid #eee}td.n{text-align:right;font-variant-numeric:tabular-nums}.grid{display:flex;gap:3em;flex-wrap:wrap}.muted{color:#777}.bad{color:#b00020;font-weight:600}");
        h.push_str("</style></head><body>");
        let _ = write!(
            h,
            "<h1>crawlsieve scan report</h1><p class=muted>{} · {} verdicts{}</p>",
            esc(&self.sources.join(", ")),
            self.verdicts,
            if self.unreadable > 0 {
                format!(" · {} unreadable lines skipped", self.unreadable)
            } else {
                String::new()
            }
        );
        if self.verdicts == 0 {
            h.push_str("<h2>Nothing judged yet</h2><p>The verdict files hold no verdicts: no page has been judged. \
                        Run <code>crawlsieve scan</code> (or let the agent take pages) and make the report again.</p></body></html>\n");
            return h;
        }
        h.push_str("<div class=grid>");
        table(&mut h, "Verdicts", &self.kinds, self.verdicts);
        table(&mut h, "Reasons", &self.reasons, self.verdicts);
        table(&mut h, "Languages", &self.languages, self.verdicts);
        h.push_str("</div>");

        let _ = write!(
            h,
            "<h2>Neighborhood badness</h2><p>{} neighborhoods (URL-path prefixes and registered domains) from {} judged pages; \
             {} have at least {} pages and are judged. Badness is the mean <code>contains</code> of a neighborhood's pages. \
             Threshold <b>{:.3}</b> ({}); <span class=bad>{} bad</span>. Traps left out: {} repeated-component prefixes, {} too long.</p>",
            self.hoods.len(),
            self.hoods.pages,
            judged.len(),
            min_pages,
            threshold,
            if self.hoods.fixed_threshold() { "fixed" } else { "mean + one standard deviation" },
            bad.len(),
            self.hoods.traps_repeated,
            self.hoods.traps_too_long
        );
        let values: Vec<f64> = judged.iter().map(|j| j.1).collect();
        h.push_str(&chart(&values, threshold));

        let folded = lists::collapse(bad.iter().map(|(n, b, p, _)| (n.clone(), *b, *p)).collect());
        let _ = write!(
            h,
            "<h2>Flagged sites</h2><p>Bad neighborhoods, each with the bad ones inside it folded in ({} in all).</p>",
            bad.len()
        );
        lists::neighborhood_table(&mut h, &folded);
        self.lists.flags_section(&mut h);
        self.contamination.section(&mut h);
        self.opt_out.section(&mut h, esc);
        self.lists.pages_section(&mut h);
        self.styles_section(&mut h);
        self.quilts_section(&mut h);
        self.spun_section(&mut h);
        h.push_str("</body></html>\n");
        h
    }
}

fn table(h: &mut String, title: &str, counts: &BTreeMap<String, u64>, total: u64) {
    let mut rows: Vec<(&String, &u64)> = counts.iter().collect();
    rows.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let _ = write!(h, "<div><h2>{}</h2><table>", esc(title));
    for (k, n) in rows.iter().take(20) {
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=n>{}</td><td class='n muted'>{:.1}%</td></tr>",
            esc(k),
            n,
            **n as f64 * 100.0 / total.max(1) as f64
        );
    }
    if rows.is_empty() {
        h.push_str("<tr><td class=muted>none</td></tr>");
    }
    h.push_str("</table></div>");
}

fn esc(s: &str) -> String {
    html_escape::encode_text(s).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_shows_kinds_threshold_and_flagged_sites() {
        let mut r = Report::new(Neighborhoods::new(
            crate::settings::Settings::defaults().neighborhoods,
        ));
        for page in 0..10 {
            for site in 0..10 {
                r.add_line(&format!(
                    r#"{{"url":"http://clean{site}.example/{page}","verdict":"keep","reasons":[],"lang":"eng","contains":0.0}}"#
                ));
            }
            r.add_line(&format!(
                r#"{{"url":"http://copier.example/w/{page}","verdict":"flag","reasons":["labeled_chunks"],"lang":"eng","contains":1.0}}"#
            ));
        }
        r.add_line(r#"{"type":"site_flag","neighborhood":"x"}"#);
        r.add_line("not json");
        r.add_line(
            r#"{"url":"http://art.example/1","site":"art.example","verdict":"drop","reasons":["opt_out"],"opt_out":[{"signal":"noai","from":"meta"},{"signal":"noai","from":"header"},{"signal":"new_kind","from":"meta"}]}"#,
        );
        let html = r.html();
        assert_eq!(r.verdicts, 111);
        assert!(html.contains("Opt-out signals") && html.contains("<td>art.example</td>"));
        let o = r.summary().opt_out;
        assert_eq!(
            (o.pages, o.dropped, o.signals["noai"]),
            (1, 1, 1),
            "a page once per signal"
        );
        assert_eq!(r.unreadable, 1);
        assert!(html.contains("<svg"));
        assert!(html.contains("threshold "));
        assert!(
            html.contains("<td>copier.example</td>"),
            "the site, its paths folded in"
        );
        assert!(html.contains("copier.example/w/"), "named inside it");
        assert!(
            html.contains("<td>http://copier.example/w/3</td>"),
            "flagged pages listed"
        );
        assert!(!html.contains("<td>clean1.example</td>"));
        assert!(html.contains("labeled_chunks"));
    }

    #[test]
    fn an_empty_stream_says_nothing_was_judged() {
        let mut r = Report::new(Neighborhoods::new(
            crate::settings::Settings::defaults().neighborhoods,
        ));
        let html = r.html();
        assert!(html.contains("Nothing judged yet"), "{html}");
        assert!(
            !html.contains("<svg") && !html.contains("threshold"),
            "{html}"
        );
    }
}
