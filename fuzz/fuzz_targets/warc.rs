//! The WARC and ARC reader, plain, gzip and LZ4 (the input's first bytes
//! decide, as they do for a file named neither `.warc` nor `.arc`), in memory.
#![no_main]

use crawlsieve_core::input::sources::{warc, Limits, SourceStats};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_page_bytes: 1 << 20,
        html_content_types: vec!["text/html".into(), "application/xhtml+xml".into()],
        resource_records: true,
    };
    let mut stats = SourceStats::default();
    let mut pages = 0u64;
    let mut emit = |_input: crawlsieve_core::Input| -> anyhow::Result<()> {
        pages += 1;
        Ok(())
    };
    let _ = warc::read(data, "fuzz", &limits, &mut emit, &mut stats);
});
