//! The page pipeline on arbitrary bytes: the first byte picks the HTTP
//! content type (charsets included) and the scorer; the rest is the body.
//! Every page must get a verdict, and extraction with metadata and Markdown
//! must not panic, nor language detection on the body as text. (A panic aborts here: libFuzzer reports it as a crash.)
#![no_main]

use crawlsieve_core::settings::{ScorerKind, Settings};
use crawlsieve_core::{Kind, Page, Pipeline, Reason};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const CONTENT_TYPES: &[Option<&str>] = &[
    None,
    Some("text/html"),
    Some("text/html; charset=utf-8"),
    Some("text/html; charset=windows-1252"),
    Some("text/html; charset=shift_jis"),
    Some("text/html; charset=utf-16le"),
    Some("application/xhtml+xml; charset=iso-8859-1"),
    Some("text/html; charset=bogus"),
];

fn pipelines() -> &'static [Pipeline; 2] {
    static P: OnceLock<[Pipeline; 2]> = OnceLock::new();
    P.get_or_init(|| {
        let plateau = Pipeline::new(Settings::defaults()).expect("defaults are valid");
        let mut s = Settings::defaults();
        s.extract.scorer = ScorerKind::Learned;
        let learned = Pipeline::new(s).expect("the shipped model loads");
        [plateau, learned]
    })
}

fuzz_target!(|data: &[u8]| {
    let (choice, body) = data.split_first().map_or((0, data), |(c, b)| (*c, b));
    let content_type = CONTENT_TYPES[choice as usize % CONTENT_TYPES.len()];
    let pipeline = &pipelines()[(choice as usize / CONTENT_TYPES.len()) % 2];
    let mut page = Page::new("https://www.example.com/2025/09/04/a?b=1", body);
    if let Some(ct) = content_type {
        page = page.with_content_type(ct);
    }
    let v = pipeline.process(&page);
    assert!(
        !(v.verdict == Kind::Error && v.reasons.contains(&Reason::InternalError)),
        "internal error: {:?}",
        v.error
    );
    let _ = pipeline.extractor().document(&page, true);
    // Language detection on the raw bytes as text, whatever the filters
    // decided: pages rarely pass them here, and both detectors must take any
    // text (any script, cut anywhere) without a panic.
    let text = String::from_utf8_lossy(body);
    let _ = crawlsieve_core::language::detect(&text, 1 + choice as usize * 8, Default::default());
});
