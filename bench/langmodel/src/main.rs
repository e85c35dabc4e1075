//! Builds crawlsieve's trigram language profiles from lingua-rs's models.
//!
//! lingua (Apache-2.0, pemistahl/lingua-rs) ships, per language, an FST of
//! character 1- to 5-grams with their log probabilities (an n-gram's
//! probability given its first n-1 characters), learnt from the Leipzig
//! corpora. Its own detector reads those models at 5–40 ms per 1 KB page and
//! its binary carries 266 MB of them (bench/HISTORY.md, "Language"), too slow
//! and too big for the pipeline; what crawlsieve needs is the part that tells
//! languages apart on a page of text: each language's most frequent letter
//! trigrams with their probabilities. This tool keeps the `--top` most probable
//! trigrams of each language (joint probability: unigram × bigram × trigram,
//! renormalised over what is kept) and writes them, gzipped, as
//!
//! ```text
//! #<ISO 639-3>\t<script>\t<letters>   one header line per language
//! <trigram>\t<cost>             -ln p × 100, rounded
//! ```
//!
//! Usage: `cargo run --release -- [--top N] OUT.tsv.gz` (bench/build_languages.sh).

use flate2::{write::GzEncoder, Compression};
use fst::{IntoStreamer, Streamer};
use std::collections::HashMap;
use std::io::Write;

include!("models.rs");

macro_rules! list {
    ($(($krate:ident, $dir:ident, $code:literal)),* $(,)?) => {
        vec![$(($code, &$krate::$dir)),*]
    };
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut top = 3000usize;
    let mut out = None;
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--top" {
            top = args[i + 1].parse().expect("--top N");
            i += 2;
        } else {
            out = Some(args[i].clone());
            i += 1;
        }
    }
    let out = out.expect("usage: langmodel [--top N] OUT.tsv.gz");
    let models: Vec<(&str, &include_dir::Dir)> = models!(list);
    let mut gz = GzEncoder::new(Vec::new(), Compression::best());
    for (code, dir) in models {
        let code = match code {
            // whatlang's codes for the same languages, so a page's code does
            // not depend on which detector decided.
            "zho" => "cmn",
            "fas" => "pes",
            c => c,
        };
        let file = dir.get_file("ngrams.fst").expect("ngrams.fst");
        let kept = profile(file.contents(), top);
        if kept.is_empty() {
            // Chinese, Japanese, Korean: lingua models them by single
            // characters; their scripts name them (whatlang decides).
            eprintln!("{code}: no trigrams, left out");
            continue;
        }
        let sample: String = kept.iter().take(300).map(|(t, _)| format!("{t} ")).collect();
        let script = whatlang::detect_script(&sample)
            .map(|s| s.name().to_string())
            .unwrap_or_else(|| "Unknown".into());
        writeln!(gz, "#{code}\t{script}\t{}", alphabet(file.contents())).unwrap();
        for (t, cost) in &kept {
            writeln!(gz, "{t}\t{}", (cost * 100.0).round() as u32).unwrap();
        }
        eprintln!("{code} {script} {} trigrams", kept.len());
    }
    std::fs::write(&out, gz.finish().unwrap()).unwrap();
}

/// The letters the language writes: unigrams of probability ≥ 1e-5 (what
/// its training text holds more rarely is names and quotations).
fn alphabet(fst_bytes: &[u8]) -> String {
    let map = fst::Map::new(fst_bytes).expect("an FST map");
    let mut stream = map.into_stream();
    let mut letters = String::new();
    while let Some((k, v)) = stream.next() {
        if let Ok(s) = std::str::from_utf8(k) {
            if s.chars().count() == 1 && f64::from_bits(v) >= (1e-5f64).ln() {
                letters.push_str(s);
            }
        }
    }
    letters
}

/// The `top` most probable trigrams of one model, with -ln p renormalised
/// over them, most probable first.
fn profile(fst_bytes: &[u8], top: usize) -> Vec<(String, f64)> {
    let map = fst::Map::new(fst_bytes).expect("an FST map");
    let mut uni: HashMap<String, f64> = HashMap::new();
    let mut bi: HashMap<String, f64> = HashMap::new();
    let mut tri: Vec<(String, f64)> = Vec::new();
    let mut stream = map.into_stream();
    while let Some((k, v)) = stream.next() {
        let Ok(s) = std::str::from_utf8(k) else { continue };
        let lp = f64::from_bits(v);
        match s.chars().count() {
            1 => drop(uni.insert(s.to_string(), lp)),
            2 => drop(bi.insert(s.to_string(), lp)),
            3 => tri.push((s.to_string(), lp)),
            _ => {}
        }
    }
    let mut joint: Vec<(String, f64)> = tri
        .into_iter()
        .filter_map(|(t, lp3)| {
            let cs: Vec<char> = t.chars().collect();
            let a = uni.get(&cs[0].to_string())?;
            let ab = bi.get(&cs[..2].iter().collect::<String>())?;
            Some((t, a + ab + lp3))
        })
        .collect();
    joint.sort_by(|x, y| y.1.total_cmp(&x.1).then_with(|| x.0.cmp(&y.0)));
    joint.truncate(top);
    let max = joint.first().map(|j| j.1).unwrap_or(0.0);
    let lse = max + joint.iter().map(|j| (j.1 - max).exp()).sum::<f64>().ln();
    joint.into_iter().map(|(t, lp)| (t, lse - lp)).collect()
}
