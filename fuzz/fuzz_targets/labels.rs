//! Labeled-set files and deltas: the parser on arbitrary bytes, and a delta
//! (the input after a 2-byte split point) applied to whatever parsed. What
//! `apply` returns must itself parse.
#![no_main]

use crawlsieve_core::labels::delta;
use crawlsieve_core::labels::file::SetFile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let split = (u16::from_le_bytes([data[0], data[1]]) as usize).min(data.len() - 2);
    let (set, patch) = data[2..].split_at(split);
    let Ok(file) = SetFile::parse(set) else {
        let _ = SetFile::parse(data);
        return;
    };
    let _ = file.keys().count();
    let _ = file.simhashes().count();
    let _ = file.contents();
    if let Ok((applied, _)) = delta::apply(&file, patch) {
        SetFile::parse(&applied).expect("an applied delta is a well-formed set");
    }
});
