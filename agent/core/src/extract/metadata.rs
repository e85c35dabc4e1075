//! A page's metadata, chosen from what the page states: JSON-LD first (the
//! most deliberate statement a site makes), then `<meta>` tags (Open Graph,
//! Dublin Core, article and Parse.ly conventions), then the markup itself
//! (`<h1>`, `<time>`, bylines), then the URL. Each field takes the first
//! source that gives a usable value; nothing is guessed from free text except
//! a date written out next to the byline.

use super::dates;
use crate::analyse::outline::{Captured, Outline};
use crate::analyse::text::clean;
use crate::analyse::{Analysis, IN_H1};
use serde_json::Value;

/// What a corpus builder wants to know about a page besides its text.
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize)]
pub struct Metadata {
    pub title: Option<String>,
    pub author: Option<String>,
    /// Date published, `YYYY-MM-DD`.
    pub date: Option<String>,
    /// The canonical URL, absolute.
    pub canonical: Option<String>,
    pub site_name: Option<String>,
    pub description: Option<String>,
    /// The language the page declares (`<html lang>`, `og:locale`), as written.
    pub declared_language: Option<String>,
    /// `@type`s of its JSON-LD and its `og:type`, lower case (page-type evidence).
    #[serde(skip)]
    pub types: Vec<String>,
}

/// JSON-LD types that describe the page's main text.
const ARTICLE_TYPES: &[&str] = &[
    "article",
    "newsarticle",
    "blogposting",
    "techarticle",
    "scholarlyarticle",
    "report",
    "analysisnewsarticle",
    "reportagenewsarticle",
    "opinionnewsarticle",
    "review",
    "recipe",
    "howto",
    "discussionforumposting",
    "socialmediaposting",
    "liveblogposting",
    "medicalwebpage",
    "webpage",
];

/// `<meta>` keys that carry the date published, best first.
const DATE_KEYS: &[&str] = &[
    "article:published_time",
    "og:article:published_time",
    "itemprop:datepublished",
    "parsely-pub-date",
    "sailthru.date",
    "dc.date.issued",
    "dcterms.issued",
    "dc.date",
    "dcterms.date",
    "dcterms.created",
    "date",
    "pubdate",
    "publishdate",
    "publish-date",
    "publish_date",
    "article.published",
    "og:published_time",
    "citation_publication_date",
    "citation_date",
];

/// `<meta>` keys that carry the author, best first.
const AUTHOR_KEYS: &[&str] = &[
    "author",
    "article:author",
    "parsely-author",
    "sailthru.author",
    "dc.creator",
    "dcterms.creator",
    "citation_author",
    "byl",
];

/// The page's metadata. `url` resolves a relative canonical link.
pub fn metadata(analysis: &Analysis, url: &str) -> Metadata {
    let empty = Outline::default();
    let o = analysis.outline.as_deref().unwrap_or(&empty);
    let ld = JsonLd::parse(&analysis.json_ld);
    // Attribute values come decoded from the HTML pass: only whitespace is
    // left to collapse (decoding again would turn `&amp;lt;` into `<`).
    let meta = |keys: &[&str]| -> Option<String> {
        keys.iter()
            .flat_map(|k| o.metas(k))
            .map(|v| v.split_whitespace().collect::<Vec<_>>().join(" "))
            .find(|v| !v.is_empty())
    };
    let mut types = ld.types.clone();
    types.extend(meta(&["og:type"]).map(|t| t.to_lowercase()));
    let h1 = first_h1(analysis);
    let title = choose_title(
        h1.as_deref(),
        ld.headline
            .as_deref()
            .or(meta(&["og:title", "twitter:title"]).as_deref()),
        analysis.title.as_deref(),
    );
    let author = ld
        .author
        .clone()
        .or_else(|| meta(AUTHOR_KEYS).filter(|a| !looks_like_url(a)))
        .or_else(|| byline(analysis, o));
    let date = ld
        .published
        .as_deref()
        .and_then(dates::iso)
        .or_else(|| {
            DATE_KEYS
                .iter()
                .flat_map(|k| o.metas(k))
                .find_map(dates::iso)
        })
        .or_else(|| o.times.iter().find_map(|t| dates::iso(t)))
        .or_else(|| dates::in_url(url))
        .or_else(|| written_date(analysis, o));
    let canonical = o
        .canonical
        .clone()
        .or_else(|| meta(&["og:url"]))
        .and_then(|c| absolute(url, &c));
    let site_name = meta(&[
        "og:site_name",
        "application-name",
        "apple-mobile-web-app-title",
    ])
    .or_else(|| ld.site_name.clone());
    let description = meta(&["description", "og:description", "twitter:description"]);
    let declared_language = o
        .lang
        .as_deref()
        .map(clean)
        .filter(|l| !l.is_empty())
        .or_else(|| meta(&["og:locale", "content-language", "language"]));
    Metadata {
        title,
        author,
        date,
        canonical,
        site_name,
        description,
        declared_language,
        types,
    }
}

/// The headline. The page's `<h1>` is what a reader sees as the title; when
/// it agrees with what the page declares (`og:title`, JSON-LD `headline`, or
/// `<title>`, which usually adds the site's name), it is the title. A page
/// whose `<h1>` is a logo or a section name declares its title instead.
fn choose_title(h1: Option<&str>, declared: Option<&str>, title: Option<&str>) -> Option<String> {
    let title_part = title.map(strip_site_name);
    if let Some(h1) = h1 {
        // Agreement both ways: a logo's "Site" is all in "Site | Bread at home", but not the reverse.
        let within = |other: Option<&str>| other.is_some_and(|o| overlap(h1, o) >= 0.5);
        let covers = |other: Option<&str>| other.is_some_and(|o| overlap(o, h1) >= 0.3);
        let agrees = |other: Option<&str>| within(other) && covers(other);
        if agrees(declared)
            || agrees(title_part.as_deref())
            || (declared.is_none() && title.is_none())
        {
            return Some(h1.to_string());
        }
    }
    declared
        .map(str::to_string)
        .or(title_part)
        .or_else(|| h1.map(str::to_string))
        .filter(|t| !t.is_empty())
}

/// `<title>` without the site's name: the longest part between separators.
fn strip_site_name(title: &str) -> String {
    const SEPARATORS: &[&str] = &[" | ", " - ", " – ", " — ", " :: ", " · ", " • ", " » "];
    let mut parts = vec![title];
    for sep in SEPARATORS {
        parts = parts.iter().flat_map(|p| p.split(sep)).collect();
    }
    parts
        .into_iter()
        .map(str::trim)
        .max_by_key(|p| p.chars().count())
        .unwrap_or(title)
        .to_string()
}

/// The share of `a`'s words that are in `b` (case-insensitive).
fn overlap(a: &str, b: &str) -> f32 {
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let (a, b) = (words(a), words(b));
    if a.is_empty() {
        return 0.0;
    }
    a.iter().filter(|w| b.contains(w)).count() as f32 / a.len() as f32
}

fn first_h1(analysis: &Analysis) -> Option<String> {
    let seg = analysis.segments.iter().find(|s| s.flags & IN_H1 != 0)?;
    let block = analysis.blocks.get(seg.block as usize)?;
    let text = clean(analysis.slice(block.start, block.end));
    (!text.is_empty() && text.chars().count() <= 400).then_some(text)
}

/// The text of the first byline element that reads as a name: without a
/// leading "By" and without the date or role that often follows it.
fn byline(analysis: &Analysis, o: &Outline) -> Option<String> {
    o.captures
        .iter()
        // A byline is short: longer ranges (a wrapper named "author-page") are
        // not read, and only the first few are, whatever the page nests.
        .filter(|c| c.what == Captured::Byline && c.end > c.start && c.end - c.start <= 400)
        .take(32)
        .filter_map(|c| {
            let end = (c.end as usize).min(analysis.text.len());
            analysis.text.get(c.start as usize..end)
        })
        .map(|t| name_of_byline(&clean(t)))
        .find(|t| {
            let words = t.split_whitespace().count();
            (1..=8).contains(&words)
                && !looks_like_url(t)
                && t.chars().next().is_some_and(char::is_alphabetic)
        })
}

fn name_of_byline(t: &str) -> String {
    let mut t = t.trim();
    loop {
        let lower = t.to_lowercase();
        let before = t.len();
        for prefix in [
            "written by",
            "posted by",
            "reviewed by",
            "by",
            "author:",
            "author",
            "von",
            "par",
        ] {
            let rest = lower.strip_prefix(prefix);
            if rest.is_some_and(|r| {
                r.is_empty() || r.starts_with(|c: char| c.is_whitespace() || c == ':')
            }) {
                t = t[prefix.len()..].trim_start_matches(':').trim();
                break;
            }
        }
        if t.len() == before {
            break;
        }
    }
    // What follows the name: a date, "Published ...", "Updated ...".
    let mut cut = t.len();
    for marker in [
        " Published",
        " Updated",
        " Posted",
        " on ",
        " | ",
        " - ",
        " – ",
        " • ",
        " · ",
    ] {
        if let Some(i) = t.find(marker) {
            cut = cut.min(i);
        }
    }
    if let Some(i) = t.find(|c: char| c.is_ascii_digit()) {
        cut = cut.min(i);
    }
    t[..cut]
        .trim()
        .trim_end_matches([',', '-', '|'])
        .trim()
        .to_string()
}

/// A date written out in a byline or a `<time>`/`<address>` element.
fn written_date(analysis: &Analysis, o: &Outline) -> Option<String> {
    let bylines = o
        .captures
        .iter()
        .filter(|c| c.what == Captured::Byline)
        .map(|c| (c.start, c.end));
    let meta_segments = analysis
        .segments
        .iter()
        .filter(|s| s.flags & crate::analyse::IN_META != 0)
        .map(|s| (s.start, s.end));
    bylines.chain(meta_segments).take(64).find_map(|(s, e)| {
        let e = (e as usize).min(analysis.text.len());
        analysis.text.get(s as usize..e).and_then(dates::written)
    })
}

fn looks_like_url(s: &str) -> bool {
    s.starts_with("http://") || s.starts_with("https://") || s.starts_with('/')
}

fn absolute(base: &str, href: &str) -> Option<String> {
    let base = url::Url::parse(base).ok();
    let joined = match base {
        Some(b) => b.join(href.trim()).ok()?,
        None => url::Url::parse(href.trim()).ok()?,
    };
    matches!(joined.scheme(), "http" | "https").then(|| joined.to_string())
}

/// What the page's JSON-LD says, from its first object of each kind.
#[derive(Default)]
struct JsonLd {
    types: Vec<String>,
    headline: Option<String>,
    author: Option<String>,
    published: Option<String>,
    site_name: Option<String>,
}

impl JsonLd {
    fn parse(scripts: &[String]) -> JsonLd {
        let docs = documents(scripts);
        let mut objects = Vec::new();
        for v in &docs {
            flatten(v, &mut objects, 0);
        }
        let mut ld = JsonLd::default();
        for obj in &objects {
            ld.types.extend(types_of(obj));
        }
        let is_article = |o: &Value| {
            types_of(o)
                .iter()
                .any(|t| ARTICLE_TYPES.contains(&t.as_str()))
        };
        // The article's own fields first, then any object's.
        let articles = objects.iter().copied().filter(|o| is_article(o));
        for obj in articles.chain(objects.iter().copied()) {
            if ld.headline.is_none() && is_article(obj) {
                ld.headline = string(obj.get("headline")).or_else(|| {
                    // A WebPage's name is often the site's; only articles' names are titles.
                    types_of(obj)
                        .iter()
                        .any(|t| t != "webpage")
                        .then(|| string(obj.get("name")))
                        .flatten()
                });
            }
            if ld.author.is_none() {
                ld.author = obj.get("author").and_then(names);
            }
            if ld.published.is_none() {
                ld.published = string(obj.get("datePublished"));
            }
        }
        for obj in &objects {
            let types = types_of(obj);
            if ld.site_name.is_none() {
                if types.iter().any(|t| t == "website") {
                    ld.site_name = string(obj.get("name"));
                } else if let Some(p) = obj.get("publisher") {
                    ld.site_name = string(p.get("name"));
                }
            }
        }
        ld
    }
}

/// The scripts that parse as JSON; the others are left out.
pub(super) fn documents<'a>(scripts: impl IntoIterator<Item = &'a String>) -> Vec<Value> {
    let mut docs = Vec::new();
    for script in scripts {
        // Sites wrap JSON-LD in comments or CDATA now and then.
        let text = script
            .trim()
            .trim_start_matches("<!--")
            .trim_end_matches("-->")
            .trim_start_matches("//<![CDATA[")
            .trim_end_matches("//]]>");
        if let Ok(v) = serde_json::from_str::<Value>(text.trim()) {
            docs.push(v);
        }
    }
    docs
}

/// Every object of a JSON-LD document (`@graph` members, arrays, nested
/// `mainEntity`), depth-bounded.
pub(super) fn flatten<'a>(v: &'a Value, out: &mut Vec<&'a Value>, depth: usize) {
    if depth > 4 || out.len() > 200 {
        return;
    }
    match v {
        Value::Array(items) => items.iter().for_each(|i| flatten(i, out, depth + 1)),
        Value::Object(map) => {
            out.push(v);
            for key in ["@graph", "mainEntity", "mainEntityOfPage"] {
                if let Some(inner) = map.get(key) {
                    flatten(inner, out, depth + 1);
                }
            }
        }
        _ => {}
    }
}

pub(super) fn types_of(v: &Value) -> Vec<String> {
    match v.get("@type") {
        Some(Value::String(t)) => vec![t.to_lowercase()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_lowercase)
            .collect(),
        _ => Vec::new(),
    }
}

fn string(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(clean(s)).filter(|s| !s.is_empty()),
        Value::Array(items) => items.iter().find_map(|i| string(Some(i))),
        _ => None,
    }
}

/// Authors: a name, a `Person`/`Organization` with a name, or a list of them.
fn names(v: &Value) -> Option<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |v: &Value| {
        let name = match v {
            Value::String(s) => Some(clean(s)),
            Value::Object(_) => string(v.get("name")),
            _ => None,
        };
        if let Some(n) = name.filter(|n| !n.is_empty() && !looks_like_url(n)) {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    };
    match v {
        Value::Array(items) => items.iter().take(16).for_each(&mut push),
        other => push(other),
    }
    (!out.is_empty()).then(|| out.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::analyse_outlined;

    fn meta_of(html: &str, url: &str) -> Metadata {
        metadata(&analyse_outlined(html, None).unwrap(), url)
    }

    #[test]
    fn json_ld_comes_first() {
        let html = r#"<html lang="en-GB"><head><title>The river report | Gazette</title>
          <meta name="author" content="Meta Name"><meta property="og:site_name" content="The Gazette">
          <meta name="description" content="  A report   on the river. ">
          <link rel="canonical" href="/news/river">
          <script type="application/ld+json">{"@context":"https://schema.org","@graph":[
            {"@type":"WebSite","name":"Gazette site"},
            {"@type":"NewsArticle","headline":"The river report","datePublished":"2025-09-04T10:00:00+02:00",
             "author":[{"@type":"Person","name":"Ann Lee"},{"@type":"Person","name":"Bo Ng"}]}]}</script>
          </head><body><h1>The river report</h1><p>Text.</p></body></html>"#;
        let m = meta_of(html, "https://example.com/x?y=1");
        assert_eq!(m.title.as_deref(), Some("The river report"));
        assert_eq!(m.author.as_deref(), Some("Ann Lee, Bo Ng"));
        assert_eq!(m.date.as_deref(), Some("2025-09-04"));
        assert_eq!(
            m.canonical.as_deref(),
            Some("https://example.com/news/river")
        );
        assert_eq!(m.site_name.as_deref(), Some("The Gazette"));
        assert_eq!(m.description.as_deref(), Some("A report on the river."));
        assert_eq!(m.declared_language.as_deref(), Some("en-GB"));
        assert!(m.types.contains(&"newsarticle".to_string()));
    }

    #[test]
    fn markup_when_nothing_is_declared() {
        let html = r#"<title>Site | Bread at home, step by step</title><body><div class="logo"><h1>Site</h1></div>
          <div class="post-author">By Jo Baker</div><time datetime="2024-02-29">Feb 29</time>
          <p>Bake it.</p></body>"#;
        let m = meta_of(html, "https://example.com/bread");
        assert_eq!(
            name_of_byline("Written By Jo Baker Published on July 18, 2025"),
            "Jo Baker"
        );
        assert_eq!(name_of_byline("Author: Jo Baker | 5 min read"), "Jo Baker");
        assert_eq!(name_of_byline("By"), "");
        assert_eq!(m.title.as_deref(), Some("Bread at home, step by step"));
        assert_eq!(m.author.as_deref(), Some("Jo Baker"));
        assert_eq!(m.date.as_deref(), Some("2024-02-29"));
    }

    #[test]
    fn dates_from_the_url_and_from_written_text() {
        let m = meta_of("<p>x</p>", "https://example.com/2023/07/15/a-post/");
        assert_eq!(m.date.as_deref(), Some("2023-07-15"));
        let m = meta_of(
            r#"<p>x</p><span class="byline">Mary Smith, March 2, 2021</span>"#,
            "https://example.com/a",
        );
        assert_eq!(m.date.as_deref(), Some("2021-03-02"));
    }

    #[test]
    fn broken_json_ld_is_ignored() {
        let html = r#"<script type="application/ld+json">{"@type": "Article", "headline": </script><h1>Real</h1>"#;
        assert_eq!(
            meta_of(html, "https://e.com/").title.as_deref(),
            Some("Real")
        );
    }
}
