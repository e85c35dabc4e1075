//! One page against all (seed 003, §4.1): every page sorted by its style
//! similarity to a reference page. The sorted curve falls in steps; its gaps
//! mark where one template ends and the next begins (the paper's Figure 4),
//! and a threshold of 20/128 made a site detector that needs no URL.

use super::store::Store;
use crate::fingerprints::style::{Fingerprint, M};
use serde::Serialize;

/// The paper's one-to-all threshold: 20 of 128 dimensions.
pub const LIKE_THRESHOLD: u32 = 20;

/// Every page's `Sim_b` to `reference`, most similar first: `(matched, page)`.
pub fn rank(store: &Store, reference: &Fingerprint) -> anyhow::Result<Vec<(u32, u32)>> {
    let mut out = Vec::with_capacity(store.len());
    store.scan(|i, fp| out.push((fp.matched(reference), i as u32)))?;
    out.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    Ok(out)
}

/// A drop in the sorted similarity curve.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gap {
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The last rank before the drop (ranks from 1).
    pub after_rank: usize,
    pub from: f64,
    pub to: f64,
}

/// The `top` largest drops of the curve, in rank order.
pub fn gaps(ranked: &[(u32, u32)], top: usize) -> Vec<Gap> {
    let mut drops: Vec<(u32, usize)> = ranked
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[0].0 > w[1].0)
        .map(|(i, w)| (w[0].0 - w[1].0, i))
        .collect();
    drops.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    drops.truncate(top);
    drops.sort_unstable_by_key(|d| d.1);
    drops
        .into_iter()
        .map(|(_, i)| Gap {
            kind: "gap",
            after_rank: i + 1,
            from: ranked[i].0 as f64 / M as f64,
            to: ranked[i + 1].0 as f64 / M as f64,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_are_the_largest_drops_in_rank_order() {
        let ranked = vec![(128, 0), (100, 1), (98, 2), (40, 3), (39, 4), (5, 5)];
        let g = gaps(&ranked, 2);
        assert_eq!(g.len(), 2);
        assert_eq!((g[0].after_rank, g[1].after_rank), (3, 5));
        assert_eq!(g[0].from, 98.0 / 128.0);
        assert!(gaps(&[(3, 0)], 5).is_empty());
    }
}
