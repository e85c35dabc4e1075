//! Linear on every input: each adversarial shape (`bench/shapes.rs`) judged
//! at 100 KB and at 400 KB takes about 4× as long, not 16× (quadratic); and
//! the per-page budget stops a page that runs over it with `too_slow`.
//! The table against an ordinary page: `cargo run --release -p crawlsieve-bench --example adversarial`.

#[path = "../bench/shapes.rs"]
mod shapes;

use crawlsieve_core::{Page, Pipeline, Settings};
use std::time::{Duration, Instant};

fn fastest(p: &Pipeline, ct: &str, body: &[u8], runs: usize) -> Duration {
    (0..runs)
        .map(|_| {
            let page = Page::new("http://adversarial.example/", body).with_content_type(ct);
            let t = Instant::now();
            let v = p.process(&page);
            assert_ne!(v.verdict.as_str(), "error", "{:?}", v.error);
            t.elapsed()
        })
        .min()
        .unwrap()
}

#[test]
fn every_adversarial_shape_is_linear_in_its_size() {
    let p =
        Pipeline::new(Settings::load(None, &[("input.max_page_ms", 0.into())]).unwrap()).unwrap();
    let (small, large) = (shapes::shapes(100_000), shapes::shapes(400_000));
    let mut report = Vec::new();
    for ((name, ct, s), (_, _, l)) in small.iter().zip(&large) {
        // Noise only makes the ratio look worse (another process taking the
        // core during the large page): a shape fails only when three
        // measurements in a row say it is not linear.
        let mut ratio = f64::INFINITY;
        for _ in 0..3 {
            let ts = fastest(&p, ct, s, 3);
            let tl = fastest(&p, ct, l, 3);
            let r = tl.as_secs_f64() / ts.as_secs_f64();
            report.push(format!(
                "{name}: {:.1} ms → {:.1} ms ({r:.1}×)",
                ts.as_secs_f64() * 1e3,
                tl.as_secs_f64() * 1e3
            ));
            // Below 20 ms the fixed costs and the clock's noise dominate the ratio.
            ratio = if tl > Duration::from_millis(20) {
                ratio.min(r)
            } else {
                0.0
            };
            if ratio < 8.0 {
                break;
            }
        }
        assert!(
            ratio < 8.0,
            "{name}: 4× the bytes took {ratio:.1}× the time (quadratic is 16×)\n{}",
            report.join("\n")
        );
    }
    eprintln!("{}", report.join("\n"));
}

#[test]
fn a_page_over_its_budget_gets_too_slow_and_the_worker_moves_on() {
    let p =
        Pipeline::new(Settings::load(None, &[("input.max_page_ms", 1.into())]).unwrap()).unwrap();
    let (_, ct, body) = shapes::shapes(4_000_000).remove(0);
    let page = Page::new("http://adversarial.example/deep", &body[..]).with_content_type(ct);
    let t = Instant::now();
    let v = p.process(&page);
    let took = t.elapsed();
    assert_eq!(v.verdict.as_str(), "error");
    assert_eq!(
        v.reasons.iter().map(|r| r.as_str()).collect::<Vec<_>>(),
        ["too_slow"]
    );
    assert!(
        v.error.as_deref().unwrap().contains("input.max_page_ms"),
        "{:?}",
        v.error
    );
    // Stopped at the budget (plus one 64 KB feed), not after the whole page.
    let whole = {
        let p0 = Pipeline::new(Settings::load(None, &[("input.max_page_ms", 0.into())]).unwrap())
            .unwrap();
        let t = Instant::now();
        p0.process(&page);
        t.elapsed()
    };
    assert!(
        took * 4 < whole,
        "stopped after {took:?}; the whole page takes {whole:?}"
    );
    // The default budget leaves ordinary pages alone.
    let v = Pipeline::new(Settings::defaults())
        .unwrap()
        .process(&Page::new("http://example.org/", &b"<p>hello</p>"[..]));
    assert!(!v.reasons.iter().any(|r| r.as_str() == "too_slow"));
}
