//! What an agent reads back from the neighborhoods topic when it adopts a
//! partition (a checkpoint: gzip'd JSONL), and a neighborhood snapshot file.
//! A malformed one is an error, never a panic.
#![no_main]

use crawlsieve_core::neighborhoods::shards::Shard;
use crawlsieve_core::neighborhoods::Neighborhoods;
use libfuzzer_sys::fuzz_target;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let settings = crawlsieve_core::settings::Settings::defaults().neighborhoods;
    if let Ok(mut n) = Neighborhoods::read_snapshot(data, settings.clone()) {
        let _ = n.sweep();
        let _ = n.observe("http://a.example/b/c", 0.5);
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(data).unwrap();
    let bytes = gz.finish().unwrap();
    if let Ok((_, mut shard)) = Shard::decode(&bytes, settings.clone()) {
        shard.coverage.mark(shard.coverage.through);
        let _ = shard.hoods.sweep();
    }
    let _ = Shard::decode(data, settings);
});
