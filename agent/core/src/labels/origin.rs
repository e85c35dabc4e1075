//! A set's origin: the sites its content comes from.
//!
//! Ardi & Heidemann label content so that *other* sites' reuse of it can be
//! found; the content's home is not reuse. A set built from Wikipedia would
//! otherwise flag every page of wikipedia.org, and a publisher's set its own
//! articles. So a set names its origin — registered domains (every host
//! under them) or URL prefixes — and a page there is judged the original:
//! its matches against that set neither flag it nor count in its
//! neighborhoods (`labeled_origin` notes them). Its chunks are still
//! counted for blind discovery.

use super::file::{MAX_ORIGINS, MAX_ORIGIN_LEN};
use crate::input::site;

/// Origin sites, parsed for matching.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origins {
    /// Lower-case domains, without leading or trailing dots.
    domains: Vec<String>,
    /// URL prefixes with scheme (`https://example.org/blog/`).
    prefixes: Vec<String>,
}

/// An origin site that is not one, or too many of them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OriginError {
    #[error("origin `{0}`: must be 1 to {MAX_ORIGIN_LEN} bytes")]
    Length(String),
    #[error("origin `{0}`: not a URL prefix ({1})")]
    NotUrl(String, url::ParseError),
    #[error("origin `{0}`: a URL prefix needs a host")]
    NoHost(String),
    #[error("origin `{0}`: a domain (example.org) or a URL prefix (https://example.org/blog/)")]
    NotDomain(String),
    #[error("{0} origin sites: a set names at most {MAX_ORIGINS}")]
    TooMany(usize),
}

/// One origin site in its normal form: a domain lower-cased, or a URL
/// prefix as the URL standard writes it. A mistake says what is wrong.
pub fn normalise(site: &str) -> Result<String, OriginError> {
    let s = site.trim();
    if s.is_empty() || s.len() > MAX_ORIGIN_LEN {
        return Err(OriginError::Length(s.to_string()));
    }
    if s.contains("://") {
        let url = url::Url::parse(s).map_err(|e| OriginError::NotUrl(s.to_string(), e))?;
        if url.host_str().is_none() {
            return Err(OriginError::NoHost(s.to_string()));
        }
        return Ok(url.to_string());
    }
    let d = s.trim_matches('.').to_ascii_lowercase();
    if d.is_empty() || d.contains(|c: char| c == '/' || c.is_whitespace() || c == ':') {
        return Err(OriginError::NotDomain(s.to_string()));
    }
    Ok(d)
}

/// A set's origin sites as its file holds them: each `normalise`d, sorted
/// and distinct, at most `file::MAX_ORIGINS`.
pub fn normalise_all<S: AsRef<str>>(
    sites: impl IntoIterator<Item = S>,
) -> Result<Vec<String>, OriginError> {
    let mut out = sites
        .into_iter()
        .map(|s| normalise(s.as_ref()))
        .collect::<Result<Vec<_>, _>>()?;
    out.sort();
    out.dedup();
    if out.len() > MAX_ORIGINS {
        return Err(OriginError::TooMany(out.len()));
    }
    Ok(out)
}

impl Origins {
    /// Origins from their normal forms (`normalise`d, as set files hold them).
    pub fn new<S: AsRef<str>>(list: &[S]) -> Result<Self, OriginError> {
        let mut o = Origins::default();
        for s in list {
            let n = normalise(s.as_ref())?;
            if n.contains("://") {
                o.prefixes.push(n);
            } else {
                o.domains.push(n);
            }
        }
        o.domains.sort();
        o.domains.dedup();
        o.prefixes.sort();
        o.prefixes.dedup();
        Ok(o)
    }

    pub fn is_empty(&self) -> bool {
        self.domains.is_empty() && self.prefixes.is_empty()
    }

    /// Whether the page at `url` is on one of these sites.
    pub fn holds(&self, url: &str) -> bool {
        if self.is_empty() {
            return false;
        }
        if self.prefixes.iter().any(|p| url.starts_with(p.as_str())) {
            return true;
        }
        let Some(host) = site::host(url) else {
            return false;
        };
        self.domains.iter().any(|d| {
            host == *d
                || (host.len() > d.len()
                    && host.ends_with(d.as_str())
                    && host.as_bytes()[host.len() - d.len() - 1] == b'.')
        })
    }

    /// Every origin, domains first.
    pub fn list(&self) -> Vec<String> {
        self.domains.iter().chain(&self.prefixes).cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_hold_their_hosts_and_prefixes_their_paths() {
        let o = Origins::new(&["News.Example.org.", "https://blog.example.com/archive/"]).unwrap();
        assert_eq!(
            o.list(),
            ["news.example.org", "https://blog.example.com/archive/"]
        );
        assert!(o.holds("http://news.example.org/2026/a"));
        assert!(o.holds("https://www.news.example.org/"));
        assert!(
            !o.holds("http://fakenews.example.org/"),
            "a suffix is not a subdomain"
        );
        assert!(!o.holds("http://example.org/"));
        assert!(o.holds("https://blog.example.com/archive/2020/post"));
        assert!(!o.holds("https://blog.example.com/other"));
        assert!(!Origins::default().holds("http://news.example.org/"));
    }

    #[test]
    fn mistakes_are_named() {
        for bad in ["", "a b", "example.org/path", "http://"] {
            assert!(normalise(bad).is_err(), "{bad}");
        }
    }
}
