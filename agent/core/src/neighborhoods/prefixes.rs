//! The neighborhoods of a URL (seed 001 §3.3): every URL-path prefix —
//! `host/`, `host/a/`, `host/a/b/` — plus the registered domain. Crawler
//! traps (§3.4.1, Appendix A: "recursion errors" such as `/a/b/a/b/...`)
//! would make endless distinct neighborhoods of one page each; prefixes with
//! a repeated path component, or of 97 characters or more, are left out and
//! counted.

/// Prefixes of this many characters or more are traps.
pub const MAX_PREFIX_CHARS: usize = 97;

/// The neighborhoods of one URL.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Prefixes {
    /// The registered domain (public-suffix aware), e.g. `example.co.uk`.
    pub domain: Option<String>,
    /// Path prefixes, shortest first, each ending in `/`: `www.example.co.uk/`, `www.example.co.uk/a/`.
    pub paths: Vec<String>,
    /// Prefixes left out as traps: a repeated path component.
    pub repeated: u32,
    /// Prefixes left out as traps: too long.
    pub too_long: u32,
}

/// The broader neighborhoods of a neighborhood name: for `host/a/b/`, the
/// registered domain of `host`, `host/` and `host/a/`; a domain has none.
pub fn ancestors(name: &str) -> Vec<String> {
    let Some(slash) = name.find('/') else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(domain) =
        crate::input::site::registered_domain(&format!("http://{}/", &name[..slash]))
    {
        out.push(domain);
    }
    for (i, _) in name.match_indices('/') {
        if i + 1 < name.len() {
            out.push(name[..=i].to_string());
        }
    }
    out
}

/// The neighborhoods of `url`; `None` when it has no host.
pub fn prefixes(url: &str) -> Option<Prefixes> {
    let parsed = url::Url::parse(url).ok()?;
    let host = parsed
        .host_str()?
        .trim_end_matches('.')
        .to_ascii_lowercase();
    let mut out = Prefixes {
        domain: crate::input::site::registered_domain(url),
        ..Default::default()
    };
    let mut prefix = format!("{host}/");
    out.paths.push(prefix.clone());
    // Directories only: the last segment is the page itself unless the path ends in `/`.
    let segments: Vec<&str> = parsed
        .path_segments()
        .map(|s| s.collect())
        .unwrap_or_default();
    let dirs = segments.len().saturating_sub(1);
    let mut seen: Vec<&str> = Vec::new();
    for (i, seg) in segments.iter().take(dirs).enumerate() {
        if seg.is_empty() {
            continue;
        }
        if seen.contains(seg) {
            out.repeated += (dirs - i) as u32;
            break;
        }
        seen.push(seg);
        prefix.push_str(seg);
        prefix.push('/');
        if prefix.chars().count() >= MAX_PREFIX_CHARS {
            out.too_long += (dirs - i) as u32;
            break;
        }
        out.paths.push(prefix.clone());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_prefixes_and_domain() {
        let p = prefixes("http://WWW.Example.co.uk/a/b/page.html?x=1").unwrap();
        assert_eq!(p.domain.as_deref(), Some("example.co.uk"));
        assert_eq!(
            p.paths,
            [
                "www.example.co.uk/",
                "www.example.co.uk/a/",
                "www.example.co.uk/a/b/"
            ]
        );
        let dir = prefixes("https://example.com/a/b/").unwrap();
        assert_eq!(
            dir.paths,
            ["example.com/", "example.com/a/", "example.com/a/b/"]
        );
        assert_eq!(
            prefixes("https://example.com").unwrap().paths,
            ["example.com/"]
        );
        assert!(prefixes("not a url").is_none());
    }

    #[test]
    fn traps_are_left_out_and_counted() {
        let p = prefixes("http://t.example/cal/2024/cal/2024/cal/x.html").unwrap();
        assert_eq!(
            p.paths,
            ["t.example/", "t.example/cal/", "t.example/cal/2024/"]
        );
        assert_eq!(p.repeated, 3);
        let long = format!("http://t.example/{}/{}/p", "a".repeat(60), "b".repeat(40));
        let p = prefixes(&long).unwrap();
        assert_eq!(p.paths.len(), 2, "{:?}", p.paths);
        assert_eq!(p.too_long, 1);
        assert!(p.paths.iter().all(|x| x.chars().count() < MAX_PREFIX_CHARS));
    }
}
