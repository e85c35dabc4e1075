//! What a page says about being used for AI training, and where it says it.
//!
//! Three conventions are in use, none of them a standard of the robots
//! exclusion protocol itself:
//! - the robots directives `noai` and `noimageai` (DeviantArt's, 2022, taken
//!   up by hosting platforms), in `<meta name="robots">` or the
//!   `X-Robots-Tag` response header, where a crawler's own name may stand
//!   for `robots` (`<meta name="CCBot">`, `X-Robots-Tag: CCBot: noai`);
//! - the W3C TDM Reservation Protocol (TDMRep, 2024): `tdm-reservation: 1`
//!   reserves the rights to text and data mining, `tdm-policy` points to the
//!   terms on which they are offered; as response headers or `<meta>`.
//!
//! Every verdict lists the signals its page carries (`opt_out`); a page
//! carrying one that `filters.opt_out.drop` names is dropped (`opt_out`).
//! TDMRep's site-wide file (`/.well-known/tdmrep.json`) is a fetch of its
//! own, not part of a page, and is not read.

use crate::verdict::{OptOut, Signal, SignalSource};
use serde::Deserialize;

/// `[filters.opt_out]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptOutSettings {
    /// The signals that drop a page (`noai`, `noimageai`, `tdm_reservation`,
    /// `tdm_policy`); none by default: signals are noted, pages kept.
    #[serde(default)]
    pub drop: Vec<Signal>,
    /// Crawler names whose own directives count besides `robots`'s: the
    /// crawl's user-agent token (`<meta name="mybot" content="noai">`,
    /// `X-Robots-Tag: mybot: noai`). Directives for other crawlers do not.
    #[serde(default)]
    pub agents: Vec<String>,
}

impl OptOutSettings {
    /// Whether `signals` hold one that drops the page.
    pub fn drops(&self, signals: &[OptOut]) -> bool {
        signals.iter().any(|s| self.drop.contains(&s.signal))
    }

    fn names_agent(&self, name: &str) -> bool {
        name.eq_ignore_ascii_case("robots")
            || self.agents.iter().any(|a| a.eq_ignore_ascii_case(name))
    }
}

/// The signals of a page's kept response headers (`Page::headers`) and
/// terms metas (`Analysis::terms`), each signal once per source, in the
/// order met.
pub fn signals(
    headers: &[(String, String)],
    metas: &[(String, String)],
    settings: &OptOutSettings,
) -> Vec<OptOut> {
    let mut found = Vec::new();
    let mut add = |signal: Signal, from: SignalSource, value: Option<&str>| {
        if !found
            .iter()
            .any(|o: &OptOut| o.signal == signal && o.from == from)
        {
            found.push(OptOut {
                signal,
                from,
                value: value.map(str::to_string),
            });
        }
    };
    for (from, entries) in [(SignalSource::Header, headers), (SignalSource::Meta, metas)] {
        for (name, value) in entries {
            match name.as_str() {
                "tdm-reservation" if value.trim() == "1" => add(Signal::TdmReservation, from, None),
                "tdm-policy" if !value.trim().is_empty() => {
                    add(Signal::TdmPolicy, from, Some(value.trim()))
                }
                "x-robots-tag" if from == SignalSource::Header => {
                    robots_header(value, settings, |s| add(s, from, None))
                }
                name if from == SignalSource::Meta && settings.names_agent(name) => {
                    directives(value, |s| add(s, from, None))
                }
                _ => {}
            }
        }
    }
    found
}

/// The `noai` / `noimageai` among a robots meta's directives.
fn directives(list: &str, mut found: impl FnMut(Signal)) {
    for d in list.split([',', ' ', '\t']) {
        if d.eq_ignore_ascii_case("noai") {
            found(Signal::Noai);
        } else if d.eq_ignore_ascii_case("noimageai") {
            found(Signal::Noimageai);
        }
    }
}

/// Robots directives that carry a value after a colon; any other word
/// before a colon names the crawler the directives after it are for
/// (`X-Robots-Tag: otherbot: noindex, nofollow`, as Google reads it).
const VALUED: [&str; 4] = [
    "unavailable_after",
    "max-snippet",
    "max-image-preview",
    "max-video-preview",
];

/// The signals of one `X-Robots-Tag` header: its directives for every
/// crawler, and those for a crawler `settings` names.
fn robots_header(value: &str, settings: &OptOutSettings, mut found: impl FnMut(Signal)) {
    let mut applies = true;
    for item in value.split(',') {
        let mut directive = item.trim();
        if let Some((before, after)) = directive.split_once(':') {
            let before = before.trim();
            if !VALUED.iter().any(|v| v.eq_ignore_ascii_case(before)) {
                applies = settings.names_agent(before);
                directive = after.trim();
            }
        }
        if applies {
            directives(directive, &mut found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    fn names(found: &[OptOut]) -> Vec<(&'static str, SignalSource)> {
        found.iter().map(|o| (o.signal.as_str(), o.from)).collect()
    }

    #[test]
    fn robots_directives_count_for_every_crawler_or_for_ours() {
        let s = OptOutSettings {
            agents: vec!["MyBot".into()],
            ..Default::default()
        };
        let metas = pairs(&[
            ("robots", "index, follow, NoAI"),
            ("googlebot", "noimageai"),
            ("mybot", "noimageai"),
        ]);
        let headers = pairs(&[
            (
                "x-robots-tag",
                "otherbot: noai, unavailable_after: 2030-01-01",
            ),
            ("x-robots-tag", "max-snippet: 20, noimageai"),
        ]);
        let found = signals(&headers, &metas, &s);
        use SignalSource::*;
        assert_eq!(
            names(&found),
            vec![("noimageai", Header), ("noai", Meta), ("noimageai", Meta)]
        );
        let h = pairs(&[("x-robots-tag", "mybot: noai")]);
        assert_eq!(names(&signals(&h, &[], &s)), vec![("noai", Header)]);
        assert!(signals(&h, &[], &OptOutSettings::default()).is_empty());
    }

    #[test]
    fn tdm_reservation_is_one_and_the_policy_keeps_its_url() {
        let s = OptOutSettings::default();
        let headers = pairs(&[
            ("tdm-reservation", "1"),
            ("tdm-policy", " https://e.com/policy.json "),
        ]);
        let metas = pairs(&[("tdm-reservation", "0")]);
        let found = signals(&headers, &metas, &s);
        assert_eq!(found.len(), 2);
        assert_eq!(found[1].value.as_deref(), Some("https://e.com/policy.json"));
        assert!(!s.drops(&found));
        let drop = OptOutSettings {
            drop: vec![Signal::TdmReservation],
            ..Default::default()
        };
        assert!(drop.drops(&found));
    }
}
