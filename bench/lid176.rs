//! lid.176 as crawlsieve reads it (`language::fasttext`). Two uses:
//!
//! - plain lines on standard input: each line's best label and that label's
//!   probability, tab-separated — what `bench/fasttext_port.py` compares with
//!   `fasttext-predict`'s answer;
//! - JSON lines `{"text": ..., "code": ...}`: the code crawlsieve decides with
//!   this check off (`decided`), the probability lid.176 gives `code` on
//!   the head it reads (`p`; null where it lacks the language) and its
//!   three likeliest labels there (`top`) — what `bench/build_fasttext.py`
//!   takes each code's floor and the outsiders from.
//!
//! `cargo run --release -p crawlsieve-bench --example lid176 < lines.txt`

use crawlsieve_core::analyse::text::prefix;
use crawlsieve_core::language::{self, fasttext::Model, Thresholds};
use std::io::{BufRead, Write};

fn main() -> anyhow::Result<()> {
    let model = Model::shipped();
    let off = Thresholds {
        fasttext_probability: 0.0,
        alphabet_share: 0.0,
        ..Thresholds::default()
    };
    let out = std::io::stdout();
    let mut out = out.lock();
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        if let Some(page) = serde_json::from_str::<serde_json::Value>(&line)
            .ok()
            .filter(|v| v.is_object())
        {
            let text = page["text"].as_str().unwrap_or_default();
            let code = page["code"].as_str().unwrap_or_default();
            let decided = language::detect(text, 1024, off).code;
            let j = language::fasttext_judgement(text, code, 0.0);
            let p = j.and_then(|j| j.code);
            // The three likeliest labels, whatever rules/lid176.codes.tsv
            // says of them (the table is what this output writes).
            let head = prefix(text, language::FASTTEXT_BYTES);
            let top: Vec<(&str, f32)> = model.probabilities(head).map_or(vec![], |p| {
                let mut ranked: Vec<usize> = (0..p.len()).collect();
                ranked.sort_by(|&a, &b| p[b].total_cmp(&p[a]));
                ranked[..3]
                    .iter()
                    .map(|&i| (model.labels()[i].as_str(), p[i]))
                    .collect()
            });
            writeln!(
                out,
                "{}",
                serde_json::json!({"decided": decided, "p": p, "top": top})
            )?;
            continue;
        }
        match model.probabilities(&line) {
            Some(p) => {
                let (best, prob) = p
                    .iter()
                    .enumerate()
                    .max_by(|a, b| a.1.total_cmp(b.1))
                    .expect("lid.176 has labels");
                writeln!(out, "{}\t{prob:.4}", model.labels()[best])?;
            }
            None => writeln!(out, "-\t0")?,
        }
    }
    Ok(())
}
