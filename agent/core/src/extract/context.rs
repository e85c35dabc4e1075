//! What the learned scorer's second stage adds to a block's row: the first
//! stage's probabilities around it.
//!
//! The first stage judges each block from measurements of the block and its
//! surroundings, but not from what it concluded about those surroundings. A
//! product card the first stage is unsure of is likelier content when the
//! other cards of its template were judged content; a short paragraph
//! between two sure paragraphs likelier than one between two menus. The
//! second stage reads those conclusions — stacking (Wolpert 1992), the
//! "auto-context" of sequence labelling — from a few sums over the page:
//! neighbours, a ±5-block window, the block's template and regions, and the
//! page as a whole; and what kind of page it is (the page-type classifier's
//! probabilities: `Layout::kind`). Every sum is a prefix sum or one pass keyed by template,
//! so the stage stays linear in the page.
//!
//! `NAMES` is the contract with `bench/train_extractor.py` (its `CONTEXT`)
//! and the model file's `second.features`.

use super::features::{self, Layout, KINDS, REGION_LEVELS};

/// Offsets of the neighbours whose probabilities a row carries.
const OFFSETS: [isize; 6] = [-3, -2, -1, 1, 2, 3];

/// Blocks a row looks either way for the window's mean.
const WINDOW: usize = 5;

/// How far (in blocks) the distance to a likely block is counted.
const MAX_DISTANCE: f64 = 50.0;

/// The second stage's features, in row order after the first stage's.
pub const NAMES: [&str; 27] = [
    "p",
    "p_prev3",
    "p_prev2",
    "p_prev1",
    "p_next1",
    "p_next2",
    "p_next3",
    "p_window",
    "p_template",
    "p_template_max",
    "p_page_expected_f1",
    "p_page_max",
    "p_page",
    "p_of_max",
    "p_content_before",
    "p_content_after",
    "p_distance",
    "p_region0",
    "p_region1",
    "p_region3",
    "kind_article",
    "kind_collection",
    "kind_documentation",
    "kind_forum",
    "kind_listing",
    "kind_product",
    "kind_service",
];

/// Number of context features.
pub const N: usize = NAMES.len();

/// Length of a second-stage row: the first stage's row, then the context.
pub const ROW: usize = features::N + N;

const _: () = assert!(REGION_LEVELS.len() == 3 && N == 17 + REGION_LEVELS.len() + KINDS.len());

/// The second-stage rows of a page whose blocks have first-stage rows
/// `first` and probabilities `probs` (one per block of `layout`): each
/// block's first-stage row, then its context. Means are weighted by
/// `words + 1`, so that an empty block still counts a little.
pub fn rows(first: &[[f32; features::N]], layout: &Layout, probs: &[f32]) -> Vec<[f32; ROW]> {
    let n = probs.len();
    debug_assert_eq!(n, layout.words.len());
    debug_assert_eq!(n, first.len());
    if n == 0 {
        return Vec::new();
    }
    let p: Vec<f64> = probs.iter().map(|&x| x as f64).collect();
    let w: Vec<f64> = layout.words.iter().map(|&x| x as f64 + 1.0).collect();
    // Prefix sums of p·w and w.
    let mut pw = vec![0f64; n + 1];
    let mut ws = vec![0f64; n + 1];
    for b in 0..n {
        pw[b + 1] = pw[b] + p[b] * w[b];
        ws[b + 1] = ws[b] + w[b];
    }
    let mean = |lo: usize, hi: usize| (pw[hi] - pw[lo]) / (ws[hi] - ws[lo]);
    let templates = layout.template.iter().max().map_or(0, |&t| t as usize + 1);
    let (mut tpw, mut tw, mut tmax) = (
        vec![0f64; templates],
        vec![0f64; templates],
        vec![0f64; templates],
    );
    for b in 0..n {
        let t = layout.template[b] as usize;
        tpw[t] += p[b] * w[b];
        tw[t] += w[b];
        tmax[t] = tmax[t].max(p[b]);
    }
    let fstar = best_expected_f1(p.iter().zip(&layout.words).map(|(&p, &w)| (p, w as f64)));
    let max = p.iter().copied().fold(0f64, f64::max);
    let total = if pw[n] > 0.0 { pw[n] } else { 1.0 };
    let distance = distances(&p);
    (0..n)
        .map(|b| {
            let mut row = [0f32; ROW];
            row[..features::N].copy_from_slice(&first[b]);
            let at = |o: isize| {
                let j = b as isize + o;
                if j >= 0 && (j as usize) < n {
                    p[j as usize]
                } else {
                    -1.0
                }
            };
            let t = layout.template[b] as usize;
            let (lo, hi) = (b.saturating_sub(WINDOW), (b + WINDOW + 1).min(n));
            let mut i = features::N;
            let mut put = |x: f64| {
                row[i] = x as f32;
                i += 1;
            };
            put(p[b]);
            for o in OFFSETS {
                put(at(o));
            }
            put(mean(lo, hi));
            put(tpw[t] / tw[t]);
            put(tmax[t]);
            put(fstar);
            put(max);
            put(mean(0, n));
            put(if max > 0.0 { p[b] / max } else { 0.0 });
            put(pw[b] / total);
            put((pw[n] - pw[b + 1]) / total);
            put(distance[b]);
            for &(lo, hi) in &layout.regions[b] {
                put(mean(lo, hi));
            }
            for &k in &layout.kind {
                put(k as f64);
            }
            row
        })
        .collect()
}

/// Per block, how many blocks away the nearest block with `p >= 0.5` is
/// (itself: 0), at most `MAX_DISTANCE`: one pass each way.
fn distances(p: &[f64]) -> Vec<f64> {
    let n = p.len();
    let mut d = vec![MAX_DISTANCE; n];
    let mut last: Option<usize> = None;
    for b in 0..n {
        if p[b] >= 0.5 {
            last = Some(b);
        }
        if let Some(l) = last {
            d[b] = d[b].min((b - l) as f64);
        }
    }
    last = None;
    for b in (0..n).rev() {
        if p[b] >= 0.5 {
            last = Some(b);
        }
        if let Some(l) = last {
            d[b] = d[b].min((l - b) as f64);
        }
    }
    d
}

/// Probability bins of the expected-F1 search (`BINS` in the training script).
const BINS: usize = 1024;

/// The best expected F1 of any cut on a page whose blocks have
/// probabilities and word counts `blocks`, taking each probability as the
/// chance the block's words are content (the expected overlap of a cut over
/// the expected sizes: Jansche 2007's ratio of expectations). Cuts are
/// searched at `BINS` probability bins: one pass over the blocks and one over
/// the bins, so linear in the page where sorting the blocks would not be.
pub fn best_expected_f1(blocks: impl Iterator<Item = (f64, f64)>) -> f64 {
    let mut content = [0f64; BINS];
    let mut words = [0f64; BINS];
    for (p, w) in blocks {
        let bin = ((p * BINS as f64) as usize).min(BINS - 1);
        content[bin] += p * w;
        words[bin] += w;
    }
    let expected: f64 = content.iter().sum();
    if expected <= 0.0 {
        return 0.0;
    }
    let (mut kept_content, mut kept, mut best) = (0.0, 0.0, 0f64);
    for bin in (0..BINS).rev() {
        kept_content += content[bin];
        kept += words[bin];
        best = best.max(2.0 * kept_content / (kept + expected));
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(words: &[u32], template: &[u32]) -> Layout {
        let n = words.len();
        Layout {
            words: words.to_vec(),
            template: template.to_vec(),
            regions: vec![[(0, n); 3]; n],
            kind: [0.0; KINDS.len()],
        }
    }

    fn col(name: &str) -> usize {
        features::N + NAMES.iter().position(|n| *n == name).unwrap()
    }

    /// The second-stage rows of blocks whose first-stage rows are all 0.
    fn context(l: &Layout, probs: &[f32]) -> Vec<[f32; ROW]> {
        rows(&vec![[0f32; features::N]; probs.len()], l, probs)
    }

    #[test]
    fn a_block_reads_its_neighbours_and_its_template() {
        let l = layout(&[10, 0, 30, 10], &[0, 1, 0, 1]);
        let rows = context(&l, &[0.8, 0.1, 0.4, 0.2]);
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[0][col("p_prev1")], -1.0);
        assert_eq!(rows[0][col("p_next1")], 0.1);
        // Template 0: (0.8·11 + 0.4·31) / 42.
        let t0 = ((0.8 * 11.0 + 0.4 * 31.0) / 42.0) as f32;
        assert!((rows[2][col("p_template")] - t0).abs() < 1e-6);
        assert_eq!(rows[2][col("p_template_max")], 0.8);
        assert_eq!(rows[1][col("p_template_max")], 0.2);
        assert_eq!(rows[0][col("p_distance")], 0.0);
        assert_eq!(rows[3][col("p_distance")], 3.0);
        assert_eq!(rows[3][col("p_of_max")], 0.25);
        assert_eq!(rows[0][col("p_content_before")], 0.0);
        assert_eq!(rows[3][col("p_content_after")], 0.0);
    }

    #[test]
    fn every_row_carries_the_kind_of_page() {
        let mut l = layout(&[5, 5], &[0, 0]);
        l.kind = [0.1, 0.0, 0.0, 0.0, 0.2, 0.7, 0.0];
        for row in context(&l, &[0.5, 0.5]) {
            assert_eq!(row[col("kind_product")], 0.7);
            assert_eq!(row[col("kind_listing")], 0.2);
            assert_eq!(row[col("kind_article")], 0.1);
        }
        // The names follow `KINDS`, in its order.
        let named: Vec<String> = KINDS.iter().map(|k| format!("kind_{k}")).collect();
        assert_eq!(NAMES[N - KINDS.len()..], named);
    }

    #[test]
    fn with_no_likely_block_every_distance_is_the_cap() {
        let rows = context(&layout(&[5, 5], &[0, 0]), &[0.1, 0.2]);
        assert!(rows.iter().all(|r| r[col("p_distance")] == 50.0));
        assert!(context(&Layout::default(), &[]).is_empty());
    }

    #[test]
    fn the_expected_f1_of_a_sure_page_is_one() {
        let f = best_expected_f1([(1.0, 10.0), (0.0, 5.0)].into_iter());
        assert!((f - 1.0).abs() < 1e-9);
        assert_eq!(best_expected_f1([(0.0, 5.0)].into_iter()), 0.0);
    }
}
