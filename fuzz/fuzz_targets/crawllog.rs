//! crawl.log lines: reading the URL and annotating never panics, and an
//! annotated line keeps its URL.
#![no_main]

use crawlsieve_core::output::crawllog;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for line in text.lines() {
        let url = crawllog::url(line);
        if let Some(annotated) = crawllog::annotate(line, &["copied:news".to_string()]) {
            assert_eq!(crawllog::url(&annotated), url);
        }
    }
});
