//! Bad neighborhoods (seed 001 §3.3, §6.3): a site whose pages are mostly
//! copied is flagged as a whole.
//!
//! Every page with content adds what it copies to each of its neighborhoods
//! (URL-path prefixes and the registered domain, see `prefixes`): 1 when a
//! copy rule flagged it, else its containment (`verdict::contribution`). A
//! neighborhood's *badness* is the mean over its pages. A neighborhood with at
//! least `min_pages` pages is bad when its badness exceeds the threshold —
//! fixed, or the paper's mean + one standard deviation over all such
//! neighborhoods, kept as a running statistic (`stats`) — and is at least
//! `min_badness`.
//!
//! **Steady when copiers are many.** Mean + σ is a statement about the crawl:
//! when copier sites are a large share of the neighborhoods judged, the mean
//! rises towards their badness and they "recover" while their pages stay
//! copies. So the moving threshold is capped at `max_threshold` (0.5 by
//! default): a neighborhood whose pages are mostly copies is bad whatever the
//! rest of the crawl looks like; below the cap the paper's rule still adapts.
//!
//! **One flag per fact.** A copier site makes its domain, its host root and
//! every directory bad at once. A `SiteFlag` is announced for the broadest bad
//! neighborhood only; a deeper one is announced when it is bad and none of
//! its ancestors is (a bad directory on a clean site), and a `recovered`
//! follows only an announced `bad`.
//!
//! The threshold moves as pages arrive, so a neighborhood is re-judged when
//! one of its own pages arrives, and every neighborhood every `sweep_every`
//! pages and at the end of a run.
//!
//! **Memory** per neighborhood: its name (the prefix, < 97 bytes by the trap
//! rule; ~25 on typical URLs) plus 16 bytes of figures (`Hood`), plus the hash
//! map's overhead (~1.1 × 8 bytes of control and pointer-sized slot data).
//! **State** saves to and loads from a JSONL snapshot; states from several
//! agents merge by adding pages and sums (`merge`).

pub mod config;
pub mod prefixes;
pub mod shards;
pub mod stats;
pub mod tracker;

pub use crate::verdict::SiteFlag;
use crate::verdict::Verdict;
pub use config::NeighborhoodSettings;
use serde::{Deserialize, Serialize};
use stats::Running;
use std::collections::HashMap;
use std::io::{BufRead, BufWriter, Write};
use std::path::Path;

/// The figures of one neighborhood.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Hood {
    pub pages: u32,
    /// Sum of the pages' `contains`.
    pub sum: f64,
    /// Currently bad.
    pub bad: bool,
    /// A `bad` flag was announced for it (and no `recovered` since).
    pub announced: bool,
}

impl Hood {
    pub fn badness(&self) -> f64 {
        if self.pages == 0 {
            0.0
        } else {
            self.sum / self.pages as f64
        }
    }
}

/// Every neighborhood seen, with the running statistic over the judged ones.
#[derive(Clone)]
pub struct Neighborhoods {
    settings: NeighborhoodSettings,
    hoods: HashMap<String, Hood>,
    /// Badness of the neighborhoods with at least `min_pages` pages.
    judged: Running,
    /// Pages observed (judged pages only).
    pub pages: u64,
    /// Prefixes left out as traps.
    pub traps_repeated: u64,
    pub traps_too_long: u64,
}

impl Neighborhoods {
    pub fn new(settings: NeighborhoodSettings) -> Self {
        Neighborhoods {
            settings,
            hoods: HashMap::new(),
            judged: Running::default(),
            pages: 0,
            traps_repeated: 0,
            traps_too_long: 0,
        }
    }

    /// The current badness threshold.
    pub fn threshold(&self) -> f64 {
        if self.settings.threshold > 0.0 {
            self.settings.threshold
        } else {
            (self.judged.mean() + self.judged.std_dev()).min(self.settings.max_threshold)
        }
    }

    fn is_bad(&self, h: &Hood, threshold: f64) -> bool {
        h.pages >= self.settings.min_pages
            && h.badness() > threshold
            && h.badness() >= self.settings.min_badness
    }

    /// What a verdict contributes: 1 for a page a copy rule flagged (also a
    /// dropped one), else its containment; nothing for a page without
    /// content to match.
    pub fn contribution(v: &Verdict) -> Option<f64> {
        crate::verdict::contribution(v.copied(), v.contains, v.shingle_contains)
    }

    /// Adds a judged verdict; returns the flags that changed.
    pub fn observe_verdict(&mut self, v: &Verdict) -> Vec<SiteFlag> {
        match Self::contribution(v) {
            Some(c) => self.observe(&v.url, c),
            None => Vec::new(),
        }
    }

    /// Adds a page of `url` with `contains`; returns the flags that changed.
    pub fn observe(&mut self, url: &str, contains: f64) -> Vec<SiteFlag> {
        let Some(p) = prefixes::prefixes(url) else {
            return Vec::new();
        };
        // Saturating: the figures may come from a snapshot file.
        self.pages = self.pages.saturating_add(1);
        self.traps_repeated = self.traps_repeated.saturating_add(p.repeated as u64);
        self.traps_too_long = self.traps_too_long.saturating_add(p.too_long as u64);
        let min = self.settings.min_pages;
        let names: Vec<String> = p.domain.into_iter().chain(p.paths).collect();
        for name in &names {
            let h = self.hoods.entry(name.clone()).or_default();
            let before = *h;
            h.pages = h.pages.saturating_add(1);
            h.sum += contains;
            let after = *h;
            if before.pages >= min {
                self.judged.replace(before.badness(), after.badness());
            } else if after.pages >= min {
                self.judged.add(after.badness());
            }
        }
        let threshold = self.threshold();
        // Broadest first, so a deeper neighborhood sees its ancestors' new state.
        for name in &names {
            self.rejudge(name, threshold);
        }
        let mut flags = Vec::new();
        for name in &names {
            self.announce(name, threshold, &mut flags);
        }
        if self.pages % self.settings.sweep_every == 0 {
            flags.extend(self.sweep());
        }
        flags
    }

    /// Sets a neighborhood's state from its figures and the threshold.
    fn rejudge(&mut self, name: &str, threshold: f64) {
        if let Some(&h) = self.hoods.get(name) {
            let bad = self.is_bad(&h, threshold);
            if let Some(stored) = self.hoods.get_mut(name) {
                stored.bad = bad;
            }
        }
    }

    /// Announces a change of state, one flag per fact (see the module docs).
    fn announce(&mut self, name: &str, threshold: f64, flags: &mut Vec<SiteFlag>) {
        let Some(&h) = self.hoods.get(name) else {
            return;
        };
        let state = if h.bad && !h.announced {
            let covered = prefixes::ancestors(name)
                .iter()
                .any(|a| self.hoods.get(a).is_some_and(|p| p.bad));
            if covered {
                return;
            }
            "bad"
        } else if !h.bad && h.announced {
            "recovered"
        } else {
            return;
        };
        if let Some(stored) = self.hoods.get_mut(name) {
            stored.announced = h.bad;
        }
        flags.push(SiteFlag {
            kind: "site_flag".into(),
            neighborhood: name.to_string(),
            state: state.into(),
            badness: h.badness(),
            pages: h.pages,
            threshold,
            at: humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string(),
        });
    }

    /// Re-judges every neighborhood against the current threshold.
    pub fn sweep(&mut self) -> Vec<SiteFlag> {
        let threshold = self.threshold();
        let changed: Vec<String> = self
            .hoods
            .iter()
            .filter(|(_, h)| self.is_bad(h, threshold) != h.bad)
            .map(|(n, _)| n.clone())
            .collect();
        for name in &changed {
            self.rejudge(name, threshold);
        }
        // What may need announcing: every change, and bad neighborhoods not
        // yet announced (their bad ancestor may just have recovered).
        let mut names: Vec<String> = self
            .hoods
            .iter()
            .filter(|(_, h)| h.bad != h.announced)
            .map(|(n, _)| n.clone())
            .collect();
        // Broadest first (a domain has no `/`; shorter prefixes before longer), then by name.
        names.sort_by(|a, b| {
            let depth = |n: &str| n.matches('/').count();
            depth(a).cmp(&depth(b)).then_with(|| a.cmp(b))
        });
        let mut flags = Vec::new();
        for name in &names {
            self.announce(name, threshold, &mut flags);
        }
        flags
    }

    /// Every neighborhood with its figures.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Hood)> {
        self.hoods.iter().map(|(n, h)| (n.as_str(), h))
    }

    /// The neighborhood of `url` that is bad, broadest first (domain, then shortest prefix).
    pub fn bad_neighborhood_of(&self, url: &str) -> Option<&str> {
        let p = prefixes::prefixes(url)?;
        p.domain
            .iter()
            .chain(p.paths.iter())
            .find(|n| self.hoods.get(n.as_str()).is_some_and(|h| h.bad))
            .and_then(|n| {
                self.hoods
                    .get_key_value(n.as_str())
                    .map(|(k, _)| k.as_str())
            })
    }

    /// Pages a neighborhood needs before it is judged.
    pub fn min_pages(&self) -> u32 {
        self.settings.min_pages
    }

    /// Whether the threshold is fixed by config (else mean + σ).
    pub fn fixed_threshold(&self) -> bool {
        self.settings.threshold > 0.0
    }

    /// Number of neighborhoods.
    pub fn len(&self) -> usize {
        self.hoods.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hoods.is_empty()
    }

    /// Neighborhoods judged (with at least `min_pages` pages).
    pub fn judged(&self) -> u64 {
        self.judged.count()
    }

    /// Adds another state (e.g. another agent's) to this one, then re-judges.
    pub fn merge(&mut self, other: &Neighborhoods) -> Vec<SiteFlag> {
        for (name, h) in &other.hoods {
            let mine = self.hoods.entry(name.clone()).or_default();
            mine.pages = mine.pages.saturating_add(h.pages);
            mine.sum += h.sum;
        }
        self.pages = self.pages.saturating_add(other.pages);
        self.traps_repeated = self.traps_repeated.saturating_add(other.traps_repeated);
        self.traps_too_long = self.traps_too_long.saturating_add(other.traps_too_long);
        self.rebuild_stats();
        self.sweep()
    }

    fn rebuild_stats(&mut self) {
        let min = self.settings.min_pages;
        self.judged = Running::default();
        for h in self.hoods.values().filter(|h| h.pages >= min) {
            self.judged.add(h.badness());
        }
    }

    /// Saves the state (JSONL: a header line, then one line per neighborhood).
    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        let tmp = path.with_extension("tmp");
        let mut w = BufWriter::new(
            std::fs::File::create(&tmp).map_err(|e| anyhow::anyhow!("{}: {e}", tmp.display()))?,
        );
        self.write_snapshot(&mut w)?;
        // Durable before the rename, so a machine crash leaves the old state or this one.
        w.into_inner()
            .map_err(|e| anyhow::anyhow!("{}: {e}", tmp.display()))?
            .sync_data()?;
        std::fs::rename(&tmp, path)?;
        crate::durable::sync_dir(path)?;
        Ok(())
    }

    /// Writes the state as `save` stores it, to any writer (a file, a
    /// partition's checkpoint message).
    pub fn write_snapshot(&self, w: &mut impl Write) -> anyhow::Result<()> {
        serde_json::to_writer(
            &mut *w,
            &SnapshotHeader {
                crawlsieve_neighborhoods: 1,
                pages: self.pages,
                traps_repeated: self.traps_repeated,
                traps_too_long: self.traps_too_long,
            },
        )?;
        w.write_all(b"\n")?;
        let mut names: Vec<&String> = self.hoods.keys().collect();
        names.sort();
        for name in names {
            let h = &self.hoods[name];
            serde_json::to_writer(
                &mut *w,
                &SnapshotHood {
                    n: name.clone(),
                    p: h.pages,
                    s: h.sum,
                    b: h.bad,
                    a: Some(h.announced),
                },
            )?;
            w.write_all(b"\n")?;
        }
        Ok(())
    }

    /// Loads a state saved by `save`.
    pub fn load(path: &Path, settings: NeighborhoodSettings) -> anyhow::Result<Self> {
        let file = std::fs::File::open(path)
            .map_err(|e| anyhow::anyhow!("neighborhood snapshot {}: {e}", path.display()))?;
        Self::read_snapshot(std::io::BufReader::new(file), settings)
            .map_err(|e| anyhow::anyhow!("neighborhood snapshot {}: {e}", path.display()))
    }

    /// Reads a state written by `write_snapshot`.
    pub fn read_snapshot(r: impl BufRead, settings: NeighborhoodSettings) -> anyhow::Result<Self> {
        let mut lines = r.lines();
        let header: SnapshotHeader =
            serde_json::from_str(&lines.next().ok_or_else(|| anyhow::anyhow!("empty"))??)?;
        anyhow::ensure!(
            header.crawlsieve_neighborhoods == 1,
            "unknown snapshot format"
        );
        let mut n = Neighborhoods::new(settings);
        n.pages = header.pages;
        n.traps_repeated = header.traps_repeated;
        n.traps_too_long = header.traps_too_long;
        for (i, line) in lines.enumerate() {
            let line = line?;
            let h: SnapshotHood =
                serde_json::from_str(&line).map_err(|e| anyhow::anyhow!("line {}: {e}", i + 2))?;
            n.hoods.insert(
                h.n,
                Hood {
                    pages: h.p,
                    sum: h.s,
                    bad: h.b,
                    announced: h.a.unwrap_or(h.b),
                },
            );
        }
        n.rebuild_stats();
        Ok(n)
    }
}

#[derive(Serialize, Deserialize)]
struct SnapshotHeader {
    crawlsieve_neighborhoods: u32,
    pages: u64,
    traps_repeated: u64,
    traps_too_long: u64,
}

#[derive(Serialize, Deserialize)]
struct SnapshotHood {
    n: String,
    p: u32,
    s: f64,
    b: bool,
    /// Announced (older snapshots: taken as `b`, as they announced every bad one).
    #[serde(default)]
    a: Option<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> NeighborhoodSettings {
        crate::settings::Settings::defaults().neighborhoods
    }

    /// 20 clean sites of 10 pages, and one copier site.
    fn crawl(n: &mut Neighborhoods) -> Vec<SiteFlag> {
        let mut flags = Vec::new();
        for page in 0..10 {
            for site in 0..20 {
                flags.extend(n.observe(&format!("http://clean{site}.example/blog/{page}"), 0.0));
            }
            flags.extend(n.observe(&format!("http://copier.example/wiki/{page}"), 0.9));
        }
        flags.extend(n.sweep());
        flags
    }

    #[test]
    fn a_copier_site_is_flagged_and_clean_ones_are_not() {
        let mut n = Neighborhoods::new(settings());
        let flags = crawl(&mut n);
        let bad: Vec<&str> = flags
            .iter()
            .filter(|f| f.state == "bad")
            .map(|f| f.neighborhood.as_str())
            .collect();
        assert_eq!(bad, ["copier.example"], "one flag per fact: the broadest");
        assert!(n.threshold() < 0.9 && n.threshold() > 0.0);
        assert_eq!(
            n.bad_neighborhood_of("http://copier.example/wiki/x"),
            Some("copier.example")
        );
        assert_eq!(n.bad_neighborhood_of("http://clean3.example/blog/1"), None);

        // The copier cleans up: its badness falls and it recovers.
        let mut flags = Vec::new();
        for page in 0..100 {
            flags.extend(n.observe(&format!("http://copier.example/wiki/new{page}"), 0.0));
        }
        flags.extend(n.sweep());
        assert!(flags
            .iter()
            .any(|f| f.state == "recovered" && f.neighborhood == "copier.example"));
    }

    #[test]
    fn min_pages_and_fixed_threshold() {
        let mut s = settings();
        s.threshold = 0.5;
        let mut n = Neighborhoods::new(s);
        for i in 0..4 {
            assert!(
                n.observe(&format!("http://c.example/{i}"), 1.0).is_empty(),
                "fewer than min_pages"
            );
        }
        let flags = n.observe("http://c.example/4", 1.0);
        assert_eq!(
            flags.len(),
            1,
            "the domain only, not also the host root: {flags:?}"
        );
        assert_eq!(flags[0].neighborhood, "c.example");
        assert_eq!(flags[0].threshold, 0.5);
    }

    #[test]
    fn a_bad_directory_on_a_clean_site_is_announced_and_copiers_stay_bad_when_many() {
        let mut n = Neighborhoods::new(settings());
        let mut flags = Vec::new();
        // A clean site with one copied directory.
        for i in 0..30 {
            flags.extend(n.observe(&format!("http://mixed.example/blog/{i}"), 0.0));
            if i < 10 {
                flags.extend(n.observe(&format!("http://mixed.example/mirror/{i}"), 1.0));
            }
        }
        // Copiers are most of the sites judged: mean + σ rises above their badness
        // of 0.9, but the cap keeps them bad.
        for page in 0..20 {
            for site in 0..12 {
                flags.extend(n.observe(&format!("http://copier{site}.example/a/{page}"), 0.9));
            }
            for site in 0..3 {
                flags.extend(n.observe(&format!("http://clean{site}.example/a/{page}"), 0.0));
            }
        }
        flags.extend(n.sweep());
        assert!(
            flags.iter().all(|f| f.state == "bad"),
            "nothing recovers: {flags:?}"
        );
        let mut bad: Vec<&str> = flags.iter().map(|f| f.neighborhood.as_str()).collect();
        bad.sort();
        let mut want: Vec<String> = (0..12).map(|s| format!("copier{s}.example")).collect();
        want.push("mixed.example/mirror/".into());
        want.sort();
        assert_eq!(bad, want);
        assert!(n.threshold() <= 0.5);
    }

    #[test]
    fn snapshot_round_trip_and_merge_by_addition() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = Neighborhoods::new(settings());
        crawl(&mut a);
        let path = dir.path().join("n.jsonl");
        a.save(&path).unwrap();
        let b = Neighborhoods::load(&path, settings()).unwrap();
        assert_eq!(b.len(), a.len());
        assert_eq!(b.pages, a.pages);
        assert!((b.threshold() - a.threshold()).abs() < 1e-12);
        assert_eq!(
            b.bad_neighborhood_of("http://copier.example/wiki/1"),
            Some("copier.example")
        );

        // Two agents that each saw half a crawl merge into the state of one agent that saw it all.
        let mut half1 = Neighborhoods::new(settings());
        let mut half2 = Neighborhoods::new(settings());
        let mut whole = Neighborhoods::new(settings());
        for page in 0..10 {
            for site in 0..6 {
                let url = format!("http://s{site}.example/a/{page}");
                let c = if site == 0 { 0.8 } else { 0.02 * page as f64 };
                whole.observe(&url, c);
                if page % 2 == 0 {
                    half1.observe(&url, c)
                } else {
                    half2.observe(&url, c)
                };
            }
        }
        half1.merge(&half2);
        assert_eq!(half1.len(), whole.len());
        for (name, h) in whole.iter() {
            let m = half1.hoods[name];
            assert_eq!(m.pages, h.pages);
            assert!((m.sum - h.sum).abs() < 1e-9);
        }
        assert!((half1.threshold() - whole.threshold()).abs() < 1e-9);
    }
}
