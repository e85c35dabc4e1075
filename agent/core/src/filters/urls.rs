//! URL rules: block and allow lists of domains, hosts and URL prefixes, and
//! the banned words of FineWeb's URL filter — the first step of FineWeb's
//! pipeline, and the cheapest: a blocked page is dropped before its HTML
//! is read.
//!
//! Lists are in the form the UT1 blacklists (Université Toulouse 1, the
//! lists squidGuard and datatrove use) are published in: a list is a
//! directory holding `domains` (one domain a line: it and every host under
//! it) and `urls` (one `host/path` a line: every URL at or under it), or
//! one such file, where a line with a `/` is a URL prefix and any other a
//! domain. Files may be gzipped; `#` starts a comment line. The list's name
//! is its directory's or file's name (`adult`). An allow list's entry
//! overrides every block list: a site's exceptions.
//!
//! Entries are held as 64-bit hashes (UT1's 4.6 million adult domains take
//! ≈ 50 MB); a URL is looked up once per host suffix and path prefix, at
//! most `MAX_LABELS` × `MAX_SEGMENTS` lookups whatever its length.

use crate::verdict::UrlListed;
use aho_corasick::AhoCorasick;
use rustc_hash::FxHashSet;
use serde::Deserialize;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::xxh3_64;

/// `[filters.urls]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UrlSettings {
    /// Block lists (directories or files, UT1's form).
    #[serde(default)]
    pub block: Vec<PathBuf>,
    /// Allow lists: an entry here keeps a URL whatever a block list says.
    #[serde(default)]
    pub allow: Vec<PathBuf>,
    /// FineWeb's URL words (datatrove's `URLFilter`, shipped as
    /// `rules/url_words.tsv`): a banned word, `soft_word_threshold` soft
    /// words, or a banned subword in a URL blocks it.
    #[serde(default)]
    pub words: bool,
    #[serde(default = "two")]
    pub soft_word_threshold: usize,
}

fn two() -> usize {
    2
}

impl Default for UrlSettings {
    fn default() -> Self {
        UrlSettings {
            block: Vec::new(),
            allow: Vec::new(),
            words: false,
            soft_word_threshold: 2,
        }
    }
}

/// FineWeb's URL words, as datatrove ships them.
const URL_WORDS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../rules/url_words.tsv"
));

/// Host labels and path segments looked up at most per URL.
const MAX_LABELS: usize = 16;
const MAX_SEGMENTS: usize = 32;

/// One list, loaded.
struct List {
    name: String,
    domains: FxHashSet<u64>,
    prefixes: FxHashSet<u64>,
}

/// The banned words, loaded.
struct Words {
    banned: FxHashSet<String>,
    soft: FxHashSet<String>,
    subwords: AhoCorasick,
    subword_list: Vec<String>,
    soft_threshold: usize,
}

/// The URL rules of a configuration, loaded once at start-up.
#[derive(Default)]
pub struct UrlRules {
    block: Vec<List>,
    allow: Vec<List>,
    words: Option<Words>,
}

impl UrlRules {
    /// Loads the lists `settings` names; a list that cannot be read stops
    /// the start, naming its key and path.
    pub fn load(settings: &UrlSettings) -> anyhow::Result<Self> {
        let lists = |paths: &[PathBuf], key: &str| -> anyhow::Result<Vec<List>> {
            paths
                .iter()
                .map(|p| {
                    List::load(p).map_err(|e| {
                        anyhow::anyhow!(
                            "configuration: key `filters.urls.{key}`: {}: {e}",
                            p.display()
                        )
                    })
                })
                .collect()
        };
        anyhow::ensure!(
            settings.soft_word_threshold >= 1,
            "configuration: key `filters.urls.soft_word_threshold`: must be at least 1"
        );
        Ok(UrlRules {
            block: lists(&settings.block, "block")?,
            allow: lists(&settings.allow, "allow")?,
            words: settings
                .words
                .then(|| Words::shipped(settings.soft_word_threshold)),
        })
    }

    /// Whether there is any rule (no URL is parsed when there is none).
    pub fn is_empty(&self) -> bool {
        self.block.is_empty() && self.words.is_none()
    }

    /// The entry that blocks `url`, or `None` when it may be fetched (an
    /// allow list's entry keeps it). A URL that does not parse is judged by
    /// its words alone.
    pub fn blocked(&self, url: &str) -> Option<UrlListed> {
        if self.is_empty() {
            return None;
        }
        let key = Key::of(url);
        if let Some(key) = &key {
            if self.allow.iter().any(|l| l.holds(key).is_some()) {
                return None;
            }
            for list in &self.block {
                if let Some(entry) = list.holds(key) {
                    return Some(UrlListed {
                        list: list.name.clone(),
                        entry,
                    });
                }
            }
        }
        self.words.as_ref().and_then(|w| w.blocked(url))
    }
}

/// A URL as lists see it: host lower case without a trailing dot, path
/// lower case (UT1's entries are), no scheme, port, query or fragment.
struct Key {
    host: String,
    path: String,
    ip: bool,
}

impl Key {
    fn of(url: &str) -> Option<Key> {
        let parsed = url::Url::parse(url).ok()?;
        let host = parsed
            .host_str()?
            .trim_end_matches('.')
            .to_ascii_lowercase();
        let ip = !matches!(parsed.host(), Some(url::Host::Domain(_)));
        Some(Key {
            host,
            path: parsed.path().to_lowercase(),
            ip,
        })
    }

    /// The host and each suffix of it at a label (`a.b.c`, `b.c`, `c`); an
    /// IP address only whole.
    fn hosts(&self) -> impl Iterator<Item = &str> {
        let ip = self.ip;
        std::iter::once(self.host.as_str())
            .chain(
                self.host
                    .match_indices('.')
                    .map(|(i, _)| &self.host[i + 1..])
                    .filter(move |_| !ip),
            )
            .take(MAX_LABELS)
    }

    /// The path's prefixes at a segment, shortest first: none (the whole
    /// host: an entry `host/`), `/a`, `/a/b`.
    fn prefixes(&self) -> impl Iterator<Item = &str> {
        let p = self.path.trim_end_matches('/');
        std::iter::once("")
            .chain(p.match_indices('/').skip(1).map(move |(i, _)| &p[..i]))
            .chain((!p.is_empty()).then_some(p))
            .take(MAX_SEGMENTS)
    }
}

impl List {
    fn load(path: &Path) -> anyhow::Result<List> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().trim_end_matches(".gz").to_string())
            .unwrap_or_default();
        let mut list = List {
            name,
            domains: FxHashSet::default(),
            prefixes: FxHashSet::default(),
        };
        if path.is_dir() {
            let mut found = false;
            for (file, urls) in [("domains", false), ("urls", true)] {
                for candidate in [file.to_string(), format!("{file}.gz")] {
                    let p = path.join(candidate);
                    if p.is_file() {
                        list.read(&p, Some(urls))?;
                        found = true;
                    }
                }
            }
            anyhow::ensure!(
                found,
                "a list directory holds `domains` or `urls`; this one neither"
            );
        } else {
            list.read(path, None)?;
        }
        Ok(list)
    }

    /// Reads one file: all URL prefixes (`Some(true)`), all domains
    /// (`Some(false)`), or each line by its form (`None`).
    fn read(&mut self, path: &Path, urls: Option<bool>) -> anyhow::Result<()> {
        let r = crate::input::sources::open_maybe_gz(path)?;
        for line in r.split(b'\n') {
            let line = line?;
            let line = String::from_utf8_lossy(&line);
            let entry = line.trim();
            if entry.is_empty() || entry.starts_with('#') {
                continue;
            }
            let entry = entry.split_once("://").map_or(entry, |(_, rest)| rest);
            let is_prefix = urls.unwrap_or_else(|| entry.contains('/'));
            let Some(entry) = normalized(entry, is_prefix) else {
                continue;
            };
            let entry = entry.strip_prefix("www.").unwrap_or(&entry);
            if is_prefix {
                self.prefixes.insert(xxh3_64(entry.as_bytes()));
            } else {
                self.domains.insert(xxh3_64(entry.as_bytes()));
            }
        }
        Ok(())
    }

    /// The entry of this list that holds `key`.
    fn holds(&self, key: &Key) -> Option<String> {
        for host in key.hosts() {
            if self.domains.contains(&xxh3_64(host.as_bytes())) {
                return Some(host.to_string());
            }
        }
        if self.prefixes.is_empty() {
            return None;
        }
        let mut candidate = String::with_capacity(key.host.len() + key.path.len());
        for host in key.hosts() {
            for prefix in key.prefixes() {
                candidate.clear();
                candidate.push_str(host);
                candidate.push_str(prefix);
                if self.prefixes.contains(&xxh3_64(candidate.as_bytes())) {
                    return Some(candidate);
                }
            }
        }
        None
    }
}

/// An entry as URLs are looked up: read as a URL is (`Key`), so that what
/// the URL parser does to a URL — IDNA hosts in punycode, `.` and `..`
/// segments resolved, non-ASCII percent-encoded — is done to the entry too.
/// A plain domain (the 4.6 million of UT1's adult list) is taken as it is.
fn normalized(entry: &str, is_prefix: bool) -> Option<String> {
    let plain = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-._".contains(&b);
    if !is_prefix && entry.bytes().all(plain) {
        return Some(entry.trim_end_matches('.').to_string());
    }
    let key = Key::of(&format!("http://{entry}"))?;
    if !is_prefix {
        return Some(key.host);
    }
    Some(key.host + key.path.trim_end_matches('/'))
}

impl Words {
    fn shipped(soft_threshold: usize) -> Words {
        let (mut banned, mut soft, mut subword_list) =
            (FxHashSet::default(), FxHashSet::default(), Vec::new());
        for line in URL_WORDS.lines().filter(|l| !l.starts_with('#')) {
            match line.split_once('\t') {
                Some(("banned", w)) => drop(banned.insert(w.to_string())),
                Some(("soft", w)) => drop(soft.insert(w.to_string())),
                Some(("subword", w)) => subword_list.push(w.to_string()),
                _ => {}
            }
        }
        Words {
            subwords: AhoCorasick::new(&subword_list).expect("the shipped subwords build"),
            banned,
            soft,
            subword_list,
            soft_threshold,
        }
    }

    /// datatrove's checks in its order. Its words are the URL's runs of
    /// ASCII letters and digits, case kept (so `Porn` is not `porn`, as in
    /// datatrove); its subwords are looked for in the URL lower case with
    /// everything else removed.
    fn blocked(&self, url: &str) -> Option<UrlListed> {
        let listed = |list: &str, entry: &str| UrlListed {
            list: list.to_string(),
            entry: entry.to_string(),
        };
        let words: FxHashSet<&str> = url.split(|c: char| !c.is_ascii_alphanumeric()).collect();
        if let Some(w) = words.iter().find(|w| self.banned.contains(**w)) {
            return Some(listed("banned_words", w));
        }
        let mut soft: Vec<&str> = words
            .iter()
            .copied()
            .filter(|w| self.soft.contains(*w))
            .collect();
        if soft.len() >= self.soft_threshold {
            soft.sort_unstable();
            return Some(listed("soft_banned_words", &soft.join(" ")));
        }
        let squeezed: String = url
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        let found = self.subwords.find(&squeezed)?;
        Some(listed(
            "banned_subwords",
            &self.subword_list[found.pattern().as_usize()],
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(dir: &Path, name: &str, domains: &str, urls: &str) -> PathBuf {
        let d = dir.join(name);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("domains"), domains).unwrap();
        std::fs::write(d.join("urls"), urls).unwrap();
        d
    }

    #[test]
    fn domains_hold_their_hosts_and_prefixes_their_paths_and_allow_wins() {
        let dir = tempfile::tempdir().unwrap();
        let block = list(
            dir.path(),
            "adult",
            "# comment\nbad.example\n10.0.0.1\n",
            "shop.example/Private\nwww.mixed.example/x/y/\nxxx.example/./Dots\nbücher.example/é\nwhole.example/./\n",
        );
        let allow = dir.path().join("exceptions.txt");
        std::fs::write(&allow, "ok.bad.example\n").unwrap();
        let rules = UrlRules::load(&UrlSettings {
            block: vec![block],
            allow: vec![allow],
            ..Default::default()
        })
        .unwrap();
        let entry = |u: &str| rules.blocked(u).map(|l| (l.list, l.entry));
        let adult = |e: &str| Some(("adult".to_string(), e.to_string()));
        assert_eq!(entry("https://bad.example/"), adult("bad.example"));
        assert_eq!(entry("http://a.b.BAD.example./p?q"), adult("bad.example"));
        assert_eq!(entry("https://ok.bad.example/p"), None, "allowed");
        assert_eq!(entry("https://notbad.example/"), None);
        assert_eq!(entry("http://10.0.0.1:8080/"), adult("10.0.0.1"));
        assert_eq!(entry("http://1.10.0.0.1/"), None);
        assert_eq!(
            entry("https://shop.example/private/cart"),
            adult("shop.example/private")
        );
        assert_eq!(entry("https://shop.example/privately"), None);
        assert_eq!(
            entry("https://m.mixed.example/x/y"),
            adult("mixed.example/x/y")
        );
        assert_eq!(entry("https://mixed.example/x"), None);
        assert_eq!(
            entry("http://xxx.example/dots/1"),
            adult("xxx.example/dots")
        );
        assert_eq!(entry("http://whole.example/any"), adult("whole.example"));
        assert_eq!(
            entry("http://xn--bcher-kva.example/%C3%A9"),
            adult("xn--bcher-kva.example/%c3%a9")
        );
        assert_eq!(entry("not a url"), None);
    }

    #[test]
    fn a_long_url_is_looked_up_a_bounded_number_of_times() {
        let host = "a.".repeat(5000) + "example";
        let path = "/s".repeat(50_000);
        let key = Key::of(&format!("https://{host}{path}")).unwrap();
        assert_eq!(key.hosts().count(), MAX_LABELS);
        assert_eq!(key.prefixes().count(), MAX_SEGMENTS);
    }

    #[test]
    fn a_missing_list_names_its_key() {
        let e = UrlRules::load(&UrlSettings {
            block: vec!["/nonexistent/list".into()],
            ..Default::default()
        })
        .err()
        .unwrap()
        .to_string();
        assert!(
            e.contains("filters.urls.block") && e.contains("/nonexistent/list"),
            "{e}"
        );
    }
}
