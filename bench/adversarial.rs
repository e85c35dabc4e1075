//! Adversarial input shapes against an ordinary page of the same size: time
//! to judge each (best of 3, one core, no page budget), and the ratio to two
//! ordinary pages — real pages concatenated (mostly markup, script and
//! style) and their content alone in paragraphs (mostly text). The issue's
//! target: every shape within ~3× of an ordinary page.
//!
//! cargo run --release -p crawlsieve-bench --example adversarial -- [MB=2] [../shared/data/extraction/wcxb-dev]

#[path = "common.rs"]
mod common;
#[path = "shapes.rs"]
mod shapes;

use common::{load, walk};
use crawlsieve_core::{Page, Pipeline, Settings};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn best_of_3(p: &Pipeline, page: &Page) -> (Duration, String) {
    let mut best = Duration::MAX;
    let mut verdict = String::new();
    for _ in 0..3 {
        let t = Instant::now();
        let v = p.process(page);
        best = best.min(t.elapsed());
        verdict = format!(
            "{} {:?}",
            v.verdict.as_str(),
            v.reasons.first().map(|r| r.as_str())
        );
    }
    (best, verdict)
}

/// Real pages one after another until `bytes`: an ordinary page of that size.
pub fn ordinary(dir: &std::path::Path, bytes: usize) -> Vec<u8> {
    let mut files = Vec::new();
    walk(dir, &mut files);
    files.sort();
    let mut out = Vec::with_capacity(bytes + (1 << 20));
    for f in files {
        if out.len() >= bytes {
            break;
        }
        if let Some(b) = load(&f) {
            out.extend_from_slice(&b);
        }
    }
    out.truncate(bytes);
    out
}

/// The main content of real pages, one `<p>` per paragraph, until `bytes`:
/// an ordinary page of that size that is nearly all visible text (a long
/// article, a book chapter). Judging text costs per byte of text (chunks,
/// shingles, language), so the shapes that are mostly text compare with this.
pub fn ordinary_text(p: &Pipeline, dir: &std::path::Path, bytes: usize) -> Vec<u8> {
    let mut files = Vec::new();
    walk(dir, &mut files);
    files.sort();
    let mut out = b"<html><body>".to_vec();
    for f in files {
        if out.len() >= bytes {
            break;
        }
        let Some(b) = load(&f) else { continue };
        let Ok(e) = p
            .extractor()
            .extract(&Page::new("http://ordinary.example/", &b[..]))
        else {
            continue;
        };
        for para in e.content.lines() {
            out.extend_from_slice(b"<p>");
            out.extend_from_slice(html_escape::encode_text(para).as_bytes());
            out.extend_from_slice(b"</p>\n");
        }
    }
    out.truncate(bytes);
    out
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let mb: f64 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(2.0);
    let dir = PathBuf::from(
        args.next()
            .unwrap_or_else(|| "../shared/data/extraction/wcxb-dev".into()),
    );
    let bytes = (mb * 1e6) as usize;
    let p = Pipeline::new(Settings::load(None, &[("input.max_page_ms", 0.into())])?)?;
    let base = ordinary(&dir, bytes);
    anyhow::ensure!(
        base.len() >= bytes / 2,
        "no real pages under {}",
        dir.display()
    );
    let ordinary_page = Page::new("http://ordinary.example/", &base[..])
        .with_content_type("text/html; charset=utf-8");
    let (t0, v0) = best_of_3(&p, &ordinary_page);
    let text = ordinary_text(&p, &dir, bytes);
    let text_page = Page::new("http://ordinary.example/", &text[..])
        .with_content_type("text/html; charset=utf-8");
    let (tt, vt) = best_of_3(&p, &text_page);
    println!(
        "{:38} {:>9} {:>9} {:>7} {:>7}  verdict",
        "shape", "bytes", "ms", "×", "× text"
    );
    let ms = |t: Duration| t.as_secs_f64() * 1e3;
    let ratios = |t: Duration| (ms(t) / ms(t0), ms(t) / ms(tt));
    for (name, len, t, v) in [
        ("ordinary (real pages, concatenated)", base.len(), t0, v0),
        ("ordinary text (their content, in <p>)", text.len(), tt, vt),
    ] {
        let (r, rt) = ratios(t);
        println!("{name:38} {len:>9} {:>9.1} {r:>7.2} {rt:>7.2}  {v}", ms(t));
    }
    let (mut worst, mut worst_of_both) = (0f64, 0f64);
    for (name, ct, body) in shapes::shapes(bytes) {
        let page = Page::new("http://adversarial.example/", &body[..]).with_content_type(ct);
        let (t, v) = best_of_3(&p, &page);
        let (r, rt) = ratios(t);
        worst = worst.max(r);
        worst_of_both = worst_of_both.max(r.min(rt));
        println!(
            "{name:38} {:>9} {:>9.1} {r:>7.2} {rt:>7.2}  {v}",
            body.len(),
            ms(t)
        );
    }
    println!(
        "worst: {worst:.2}× the ordinary page; {worst_of_both:.2}× the nearer of the two ordinary pages"
    );
    Ok(())
}
