//! JSONL page lines: every line is a page or a broken record, never a panic.
#![no_main]

use crawlsieve_core::input::sources::{jsonl, Limits, SourceStats};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_page_bytes: 1 << 20,
        html_content_types: vec!["text/html".into()],
        resource_records: true,
    };
    let mut stats = SourceStats::default();
    let mut inputs = 0u64;
    let mut emit = |_input: crawlsieve_core::Input| -> anyhow::Result<()> {
        inputs += 1;
        Ok(())
    };
    jsonl::read_lines(data, "fuzz.jsonl", &limits, &mut emit, &mut stats)
        .expect("a stream in memory cannot fail to read");
    let lines = data
        .split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .count();
    assert!(
        inputs as usize <= lines,
        "{inputs} inputs from {lines} lines"
    );
});
