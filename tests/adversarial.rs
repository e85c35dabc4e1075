//! Linear on every input: each adversarial shape (`bench/shapes.rs`) judged
//! at 100 KB and at 400 KB (or at larger sizes, where those are too fast to
//! time) takes about 4× as long, not 16× (quadratic); and
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

/// The sizes a shape is judged at, small and 4× larger: a shape whose large
/// page takes under [`MEASURABLE`] is judged again at 4× the sizes, up to
/// pages of [`LARGEST`] bytes (under the 5 MB a page is cut at). At 100 KB
/// and 400 KB, a page of many small JSON-LD scripts took 1.0 → 11.0 ms: 11×,
/// quadratic, yet under the clock's noise floor.
const SIZES: [(usize, usize); 3] = [
    (100_000, 400_000),
    (400_000, 1_600_000),
    (1_000_000, 4_000_000),
];
const LARGEST: usize = 4_000_000;
/// Below this the fixed costs and the clock's noise dominate the ratio.
const MEASURABLE: Duration = Duration::from_millis(20);

/// The ratio of the large page's time to the small one's for shape `i`, at
/// the first sizes where the large page is measurable (or the largest);
/// `None` when even the largest is too fast to tell. Each step in `report`.
fn growth(p: &Pipeline, i: usize, report: &mut Vec<String>) -> Option<f64> {
    for (small, large) in SIZES {
        let (name, ct, s) = shapes::shapes(small).swap_remove(i);
        let (_, _, l) = shapes::shapes(large).swap_remove(i);
        // Noise only makes the ratio look worse (another process taking the
        // core during the large page): a shape fails only when three
        // measurements in a row say it is not linear.
        let mut ratio = f64::INFINITY;
        let mut measurable = false;
        for _ in 0..3 {
            let ts = fastest(p, ct, &s, 3);
            let tl = fastest(p, ct, &l, 3);
            let r = tl.as_secs_f64() / ts.as_secs_f64();
            report.push(format!(
                "{name} at {} KB: {:.1} ms → {:.1} ms ({r:.1}×)",
                small / 1000,
                ts.as_secs_f64() * 1e3,
                tl.as_secs_f64() * 1e3
            ));
            measurable = tl >= MEASURABLE;
            if !measurable {
                break;
            }
            ratio = ratio.min(r);
            if ratio < 8.0 {
                break;
            }
        }
        if measurable || large == LARGEST {
            return measurable.then_some(ratio);
        }
    }
    None
}

/// Every shape through `p`; `label` names the configuration in the report.
fn all_linear(p: &Pipeline, label: &str) {
    let mut report = vec![label.to_string()];
    for (i, (name, _, _)) in shapes::shapes(0).iter().enumerate() {
        if let Some(ratio) = growth(p, i, &mut report) {
            assert!(
                ratio < 8.0,
                "{label}, {name}: 4× the bytes took {ratio:.1}× the time (quadratic is 16×)\n{}",
                report.join("\n")
            );
        }
    }
    eprintln!("{}", report.join("\n"));
}

#[test]
fn every_adversarial_shape_is_linear_in_its_size() {
    let p =
        Pipeline::new(Settings::load(None, &[("input.max_page_ms", 0.into())]).unwrap()).unwrap();
    all_linear(&p, "the default");
}

/// The corpus rule sets read the content's words, lines and n-grams: a page
/// of one repeated line or one endless word is what their counts meet worst.
#[test]
fn every_adversarial_shape_is_linear_with_every_rule_set() {
    let sets = vec!["gopher_repetition", "gopher_quality", "c4", "fineweb"];
    let settings = Settings::load(
        None,
        &[
            ("input.max_page_ms", 0.into()),
            ("filters.rules", sets.into()),
        ],
    )
    .unwrap();
    all_linear(&Pipeline::new(settings).unwrap(), "every rule set");
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

/// The learned scorer reads the page a second way (the outlined pass, the
/// metadata, the second stage's context); the content, the style
/// fingerprint and the duplicate index are the outputs off by default.
#[test]
fn every_adversarial_shape_is_linear_with_the_learned_scorer_and_every_output() {
    let settings = Settings::load(
        None,
        &[
            ("input.max_page_ms", 0.into()),
            ("extract.scorer", "learned".into()),
            ("output.content", true.into()),
            ("output.style_fp", true.into()),
            ("dedup.check", true.into()),
        ],
    )
    .unwrap();
    all_linear(&Pipeline::new(settings).unwrap(), "learned, every output");
}
