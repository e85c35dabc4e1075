//! What `bench/build_novelty.py` reads: for each page (a JSON object with
//! `text` a line, on stdin), the code `language::detect` gives it without
//! the novelty check, and how the page reads under that code's profile.
//!
//! ```sh
//! cargo run --release -p crawlsieve-bench --example profile_costs < pages.jsonl
//! ```
//!
//! Prints one JSON object a line: `code` (null when unknown), `cost` (nats
//! per trigram; null without a profile) and `trigrams`.

use crawlsieve_core::language::{self, profiles::Profiles, Thresholds};
use std::io::BufRead;

fn main() -> anyhow::Result<()> {
    let t = Thresholds {
        novelty_margin: 0.0,
        fasttext_probability: 0.0,
        alphabet_share: 0.0,
        ..Thresholds::default()
    };
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let page: serde_json::Value = serde_json::from_str(&line?)?;
        let text = page["text"].as_str().unwrap_or_default();
        let code = language::detect(text, 1 << 20, t).code;
        let reading = code.and_then(|c| Profiles::shipped().reading(text, c));
        println!(
            "{}",
            serde_json::json!({
                "code": code,
                "cost": reading.map(|r| r.cost),
                "trigrams": reading.map(|r| r.trigrams),
            })
        );
    }
    Ok(())
}
