//! The model files a `rules_dir` may hold: the block scorer's trees (one or
//! two stages) and the page-type classifier (trees, or the older
//! regression). A malformed file is an error, never a panic.
#![no_main]

use crawlsieve_core::extract::{model, pagetype};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(m) = model::Model::parse(text) {
        use crawlsieve_core::extract::features;
        let row = [0.5f32; features::N];
        let layout = features::Layout {
            words: vec![1],
            template: vec![0],
            regions: vec![[(0, 1); 3]],
            kind: Default::default(),
        };
        let _ = m.decide_all(&[row], &layout);
    }
    if let Ok(m) = pagetype::Model::parse(text) {
        let row = vec![1.0; pagetype::NAMES.len()];
        let _ = m.classify(&row);
        let _ = m.kind(&row);
    }
});
