//! Finn's tag plateau (Body Text Extraction), in one linear pass.
//!
//! Tokens are tags (1) and words (0); BTE chooses the span `[a, b]` that
//! maximises *tags outside it plus words inside it*. The number of tags is
//! fixed, so that is the span maximising *words inside − tags inside*: a
//! maximum-subarray problem over +1 (word) / −1 (tag), solved by Kadane's
//! scan. Segments are runs of words with the count of tags before them, and
//! an optimal span always starts and ends on a run of words, so scanning
//! segments is exact and as cheap as the number of text runs.

use crate::analyse::Segment;

/// The best span as segment indices `(first, last)`, inclusive; `None` when
/// there are no words at all.
pub fn plateau(segments: &[Segment]) -> Option<(usize, usize)> {
    plateau_by(segments, |s| s.words as i64, |s| s.tags_before as i64)
}

/// The same scan with the weights given as functions, so callers can weigh
/// words and tags differently (e.g. discount words inside links).
pub fn plateau_by(
    segments: &[Segment],
    word_score: impl Fn(&Segment) -> i64,
    tag_cost: impl Fn(&Segment) -> i64,
) -> Option<(usize, usize)> {
    let mut best: Option<(i64, usize, usize)> = None;
    let mut current = i64::MIN;
    let mut start = 0;
    for (i, seg) in segments.iter().enumerate() {
        let words = word_score(seg);
        let extended = current.saturating_sub(tag_cost(seg)).saturating_add(words);
        if current == i64::MIN || words >= extended {
            current = words;
            start = i;
        } else {
            current = extended;
        }
        if seg.words > 0 && best.is_none_or(|(score, _, _)| current > score) {
            best = Some((current, start, i));
        }
    }
    best.map(|(_, a, b)| (a, b))
}

/// Kadane's scan with real-valued scores over `lo..hi`: the span `(a, b)`
/// maximising `Σ score(i) for i in a..=b − Σ cost(i) for i in a+1..=b`, and
/// that sum. `score(i)` is what segment `i` adds, `cost(i)` what joining it to
/// the segment before costs (the tags between them).
pub fn best_span(
    lo: usize,
    hi: usize,
    score: impl Fn(usize) -> f32,
    cost: impl Fn(usize) -> f32,
) -> Option<(usize, usize, f32)> {
    let mut best: Option<(usize, usize, f32)> = None;
    let mut current = f32::NEG_INFINITY;
    let mut start = lo;
    for i in lo..hi {
        let s = score(i);
        let extended = current - cost(i) + s;
        if current == f32::NEG_INFINITY || s >= extended {
            current = s;
            start = i;
        } else {
            current = extended;
        }
        if best.is_none_or(|(_, _, b)| current > b) {
            best = Some((start, i, current));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(spec: &[(u32, u32)]) -> Vec<Segment> {
        spec.iter()
            .map(|&(tags_before, words)| Segment {
                start: 0,
                end: 0,
                words,
                tags_before,
                links_before: 0,
                block: 0,
                flags: 0,
            })
            .collect()
    }

    /// The O(n²) definition, straight from the lecture: tags outside + words inside.
    fn brute(segments: &[Segment]) -> i64 {
        let total_tags: i64 = segments.iter().map(|s| s.tags_before as i64).sum();
        let mut best = i64::MIN;
        for a in 0..segments.len() {
            for b in a..segments.len() {
                let words: i64 = segments[a..=b].iter().map(|s| s.words as i64).sum();
                let inside: i64 = segments[a + 1..=b]
                    .iter()
                    .map(|s| s.tags_before as i64)
                    .sum();
                best = best.max(total_tags - inside + words);
            }
        }
        best
    }

    fn score(segments: &[Segment], (a, b): (usize, usize)) -> i64 {
        let total_tags: i64 = segments.iter().map(|s| s.tags_before as i64).sum();
        let words: i64 = segments[a..=b].iter().map(|s| s.words as i64).sum();
        let inside: i64 = segments[a + 1..=b]
            .iter()
            .map(|s| s.tags_before as i64)
            .sum();
        total_tags - inside + words
    }

    #[test]
    fn picks_the_dense_text_in_the_middle() {
        // nav links, then an article with few tags, then a footer of links.
        let s = segs(&[
            (5, 1),
            (2, 1),
            (2, 1),
            (3, 40),
            (1, 30),
            (2, 25),
            (4, 1),
            (2, 1),
        ]);
        assert_eq!(plateau(&s), Some((3, 5)));
    }

    #[test]
    fn matches_the_quadratic_definition() {
        // Deterministic pseudo-random sequences.
        let mut x = 0x9E3779B97F4A7C15u64;
        for n in 1..60 {
            let spec: Vec<(u32, u32)> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (((x >> 8) % 6) as u32, ((x >> 20) % 9) as u32 + 1)
                })
                .collect();
            let s = segs(&spec);
            let span = plateau(&s).unwrap();
            assert_eq!(score(&s, span), brute(&s), "n={n} spec={spec:?}");
        }
    }

    #[test]
    fn empty_has_no_plateau() {
        assert_eq!(plateau(&[]), None);
    }
}
