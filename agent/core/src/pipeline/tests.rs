//! The pipeline's filters, matching and error handling, on small pages.
use super::*;
use crate::settings::SiteRule;

const EN: &str =
    "The river towns along the northern valley rebuilt their stone bridges after the flood, \
    and engineers chose local granite because it weathers slowly and matches the older houses.";
const DE: &str =
    "Im Frühjahr haben wir den kleinen Garten hinter dem Haus neu angelegt, mit Hochbeeten \
    aus altem Holz, einer Kräuterspirale und einem schmalen Weg aus Kies, der zum Schuppen führt.";

fn article(paras: &[&str]) -> String {
    let body: String = paras.iter().map(|p| format!("<p>{p}</p>")).collect();
    format!("<html><head><title>t</title></head><body><nav><a href=/>home</a></nav><article>{body}</article></body></html>")
}

fn judge(p: &Pipeline, url: &str, html: &str) -> Verdict {
    p.process(&Page::new(url.to_string(), html.as_bytes().to_vec()))
}

/// These tests are about filters and matching on toy pages, so they use the
/// plain plateau: what the learned scorer keeps of a toy page is not theirs
/// to pin (`extract`'s tests and bench/eval_wcxb.py measure it).
fn pipeline(edit: impl FnOnce(&mut Settings)) -> Pipeline {
    let mut s = Settings::defaults();
    s.extract.scorer = crate::settings::ScorerKind::Plateau;
    edit(&mut s);
    Pipeline::new(s).unwrap()
}

#[test]
fn filters_run_in_order_with_their_reasons() {
    let p = pipeline(|_| {});
    let v = judge(
        &p,
        "http://a.example/",
        "<html><script>x()</script><!-- c --></html>",
    );
    assert_eq!(
        (v.verdict, v.reasons[0]),
        (Kind::Drop, Reason::NoVisibleText)
    );
    let v = judge(
        &p,
        "http://a.example/",
        &article(&["only a few words here"]),
    );
    assert_eq!((v.verdict, v.reasons[0]), (Kind::Drop, Reason::TooShort));
    assert_eq!(v.lang, None, "language is not detected on dropped pages");
    // Two words of text per link keep the plateau over the whole list.
    let links: String = (0..60)
        .map(|i| format!("word {i} <a href=/{i}>l{i}</a> "))
        .collect();
    let v = judge(&p, "http://a.example/", &format!("<p>{links}</p>"));
    assert_eq!((v.verdict, v.reasons[0]), (Kind::Drop, Reason::LinkDense));
    assert!(v.link_density >= 0.2);
    let v = judge(&p, "http://a.example/", &article(&[EN, EN]));
    assert_eq!(v.verdict, Kind::Keep, "{v:?}");
    assert_eq!(v.lang.as_deref(), Some("eng"));
    assert_eq!(v.site.as_deref(), Some("a.example"));
}

#[test]
fn thresholds_come_from_settings() {
    let p = pipeline(|s| s.filters.min_words = 5);
    assert_eq!(
        judge(
            &p,
            "http://a.example/",
            &article(&["one two three four five six"])
        )
        .verdict,
        Kind::Keep
    );
    let p = pipeline(|s| s.filters.max_link_density = 0.01);
    let v = judge(
        &p,
        "http://a.example/",
        &article(&[&format!("{EN} <a href=/x>a link</a> {EN}")]),
    );
    assert_eq!(v.reasons[0], Reason::LinkDense);
}

#[test]
fn language_allow_list_and_unknown_policy() {
    let p = pipeline(|s| s.language.allow = vec!["eng".into()]);
    let v = judge(&p, "http://a.example/", &article(&[DE, DE]));
    assert_eq!(
        (v.verdict, v.reasons[0], v.lang.as_deref()),
        (Kind::Drop, Reason::Language, Some("deu"))
    );
    assert_eq!(
        judge(&p, "http://a.example/", &article(&[EN, EN])).verdict,
        Kind::Keep
    );
    // Digits and symbols only: no reliable language.
    let noise = "12 34 56 78 90 ".repeat(20);
    let p = pipeline(|s| s.language.unknown = UnknownLanguage::Drop);
    let v = judge(&p, "http://a.example/", &article(&[&noise]));
    assert_eq!(
        (v.verdict, v.reasons[0], v.lang.as_deref()),
        (Kind::Drop, Reason::Language, Some("unknown"))
    );
    let p = pipeline(|_| {});
    let v = judge(&p, "http://a.example/", &article(&[&noise]));
    assert_eq!(v.verdict, Kind::Keep);
    assert!(v.reasons.contains(&Reason::LanguageUnknown));
}

#[test]
fn content_tag_rule_applies_to_its_site_only() {
    let p = pipeline(|s| {
        s.site = vec![SiteRule {
            host: "wiki.example".into(),
            content: "div#bodyContent".into(),
        }]
    });
    let without = article(&[EN, EN]);
    let v = judge(&p, "http://en.wiki.example/x", &without);
    assert_eq!(
        (v.verdict, v.reasons[0]),
        (Kind::Drop, Reason::NoContentTag)
    );
    assert_eq!(
        judge(&p, "http://other.example/x", &without).verdict,
        Kind::Keep
    );
    let with = format!("<div id=nav>{EN}</div><div id=bodyContent><p>{DE}</p><p>{DE}</p></div>");
    let v = judge(&p, "http://wiki.example/x", &with);
    assert_eq!(
        (v.verdict, v.lang.as_deref()),
        (Kind::Keep, Some("deu")),
        "content is the selected element"
    );
    let mut bad = Settings::defaults();
    bad.site = vec![SiteRule {
        host: "x".into(),
        content: "div[[".into(),
    }];
    let err = Pipeline::new(bad).err().unwrap().to_string();
    assert!(err.contains("content") && err.contains("div[["), "{err}");
}

#[test]
fn contains_and_flags() {
    let p = pipeline(|_| {});
    let page = article(&[EN, "A short paragraph of about ten words sits here.", DE]);
    let hashes = p
        .matchable_chunks(&Page::new("http://a.example/", page.as_bytes()))
        .unwrap()
        .chunks;
    assert_eq!(hashes.len(), 2, "the short paragraph is not matchable");
    // Label only the English paragraph: contains = 1/2, at the default threshold 0.5.
    let sets = LabeledSets::from_text(&chunks::to_hex(&hashes[0]), "wiki").unwrap();
    let p = Pipeline::with_labels(Settings::defaults(), LabelsHandle::new(sets)).unwrap();
    let v = judge(&p, "http://copy.example/", &page);
    assert_eq!(v.contains, Some(0.5));
    assert_eq!(
        (v.verdict, v.reasons[0]),
        (Kind::Flag, Reason::LabeledChunks)
    );
    assert_eq!(
        v.labels,
        vec![crate::verdict::LabelCount {
            label: "wiki".into(),
            chunks: 1,
            shingles: 0,
            immutables: 0,
        }]
    );
    assert_eq!((v.chunks, v.short_chunks, v.matched_chunks), (3, 1, 1));
    // Below the threshold: kept, with the figures.
    let mut s = Settings::defaults();
    s.labels.flag_threshold = 0.6;
    let p = Pipeline::with_labels(s, p.labels.clone()).unwrap();
    assert_eq!(judge(&p, "http://copy.example/", &page).verdict, Kind::Keep);
}

#[test]
fn whole_content_match_flags() {
    let mut s = Settings::defaults();
    s.filters.min_words = 1;
    let page = "<html><body><p>tiny page</p></body></html>";
    let v = judge(
        &Pipeline::new(s.clone()).unwrap(),
        "http://a.example/",
        page,
    );
    let sets = LabeledSets::from_text(
        v.content_sha1.as_deref().unwrap_or_else(|| panic!("{v:?}")),
        "files",
    )
    .unwrap();
    let p = Pipeline::with_labels(s, LabelsHandle::new(sets)).unwrap();
    let v = judge(&p, "http://b.example/", page);
    assert!(v.whole_match);
    assert_eq!(
        (v.verdict, v.reasons[0]),
        (Kind::Flag, Reason::WholeContent)
    );
    assert_eq!(v.contains, None, "no chunk is long enough to count");
}

#[test]
fn broken_input_gets_an_error_verdict() {
    let p = pipeline(|_| {});
    let v = p.process_input(&Input::Broken(Broken {
        url: Some("http://a.example/x".into()),
        origin: crate::input::page::Origin::None,
        reason: "cut off".into(),
    }));
    assert_eq!(
        (v.verdict, v.reasons[0]),
        (Kind::Error, Reason::BrokenInput)
    );
    assert_eq!(v.error.as_deref(), Some("cut off"));
}

/// Deep nesting costs time in proportion to the page: an implied end tag
/// used to walk the whole open-element stack (200,000 nested `<div>`s: 7.8 s),
/// and so did an end tag of an element already closed implicitly.
#[test]
fn deep_nesting_is_linear() {
    let p = pipeline(|_| {});
    let page = |n: usize| {
        let mut s = String::with_capacity(n * 24);
        s.push_str("<html><body>");
        for i in 0..n {
            s.push_str("<div>");
            if i % 100 == 0 {
                // <p> closed implicitly by the <div>, then its own end tag.
                s.push_str("<p>word<div></div></p>");
            }
        }
        s.push_str(EN);
        s
    };
    let time = |n: usize| {
        let html = page(n);
        let t = Instant::now();
        let v = judge(&p, "http://deep.example/", &html);
        assert_ne!(v.verdict, Kind::Error, "{v:?}");
        t.elapsed().as_secs_f64()
    };
    let small = time(25_000);
    let large = time(200_000);
    // Linear: 8× the page, about 8× the time; quadratic would be 64×.
    assert!(
        large < 24.0 * small + 0.05,
        "25k nested: {small:.3} s, 200k nested: {large:.3} s"
    );
}

/// A copier's short page is still matched: dropped first, the copy rule as a note.
#[test]
fn a_short_copy_is_dropped_and_matched() {
    let labeled =
        format!("{EN} The old mill by the water still grinds flour for the bakery on market days.");
    let mut m = pipeline(|_| {}).matchable_text(&labeled);
    let mut keys: Vec<u64> = m.chunks.iter().map(crate::labels::key).collect();
    keys.append(&mut m.shingles);
    keys.sort_unstable();
    keys.dedup();
    let set = crate::labels::LabeledSet {
        name: "news".into(),
        version: "news@1".into(),
        number: 1,
        set: crate::labels::compact::CompactSet::from_sorted(keys.into_iter()).unwrap(),
        simhashes: crate::fingerprints::simhash::SimhashIndex::new(&[m.simhash.unwrap()]),
        origins: Default::default(),
        immutables: false,
        items: None,
    };
    let sets = LabeledSets::empty()
        .with_set(std::sync::Arc::new(set))
        .unwrap();
    let p = Pipeline::with_labels(Settings::defaults(), crate::labels::LabelsHandle::new(sets))
        .unwrap();
    // 43 words: under the 50-word floor.
    let v = judge(&p, "http://short.example/a", &article(&[&labeled]));
    assert_eq!(v.verdict, Kind::Drop, "{v:?}");
    assert_eq!(v.reasons[0], Reason::TooShort);
    assert!(v.copied(), "{v:?}");
    assert!(v.reasons.contains(&Reason::LabeledShingles), "{v:?}");
    assert_eq!(v.near_duplicate, Some(0));
    // The same text with a word changed: chunks no longer match, shingles do.
    let edited = labeled.replacen("granite", "basalt", 2);
    let long = format!("{edited} {edited}");
    let v = judge(&p, "http://short.example/b", &article(&[&edited, &long]));
    assert_eq!(v.matched_chunks, 0, "{v:?}");
    assert_eq!(v.verdict, Kind::Flag, "{v:?}");
    assert!(v.reasons.contains(&Reason::LabeledShingles), "{v:?}");
}
