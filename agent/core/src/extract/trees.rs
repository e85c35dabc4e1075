//! Gradient-boosted trees as data: the form a model file gives them in
//! (`Tree`, checked by `check`) and the form they are walked in
//! (`Ensemble`). The block scorer's stages and the page-type classifier
//! read the same trees.

use serde::Deserialize;

/// One tree as parallel arrays; `feature < 0` marks a leaf. The page-type
/// model's trees come in the same form.
#[derive(Debug, Deserialize)]
pub(crate) struct Tree {
    feature: Vec<i32>,
    threshold: Vec<f32>,
    left: Vec<u32>,
    right: Vec<u32>,
    value: Vec<f32>,
}

/// Deeper trees are refused: complete storage doubles with every level.
pub const MAX_DEPTH: u32 = 8;

/// One sum of trees, checked and stored complete to the depth of the
/// deepest tree (a leaf above that depth becomes splits that always go left,
/// down to copies of it), so a walk is `depth` steps of
/// `i = 2i + 1 + (x > threshold)`: no branch to mispredict, and the walks of
/// successive trees overlap in the CPU.
#[derive(Debug)]
pub(crate) struct Ensemble {
    bias: f32,
    depth: u32,
    /// Per tree, `2^depth - 1` splits in breadth-first order.
    splits: Vec<Split>,
    /// Per tree, `2^depth` leaf values.
    leaves: Vec<f32>,
}

#[derive(Debug, Clone, Copy)]
struct Split {
    feature: u32,
    threshold: f32,
}

impl Ensemble {
    /// Checks the trees (features below `features`) and stores them
    /// complete; a malformed tree is refused with its index and the reason.
    pub(crate) fn build(
        bias: f32,
        trees: &[Tree],
        features: usize,
    ) -> Result<Ensemble, (usize, &'static str)> {
        let mut depth = 0;
        for (i, t) in trees.iter().enumerate() {
            depth = depth.max(check(t, features, MAX_DEPTH).map_err(|why| (i, why))?);
        }
        let (inner, outer) = ((1usize << depth) - 1, 1usize << depth);
        let mut splits = Vec::with_capacity(trees.len() * inner);
        let mut leaves = Vec::with_capacity(trees.len() * outer);
        for t in trees {
            let base = splits.len();
            splits.resize(
                base + inner,
                Split {
                    feature: 0,
                    threshold: f32::INFINITY,
                },
            );
            leaves.resize(leaves.len() + outer, 0.0);
            let lbase = leaves.len() - outer;
            // (node in the file, slot in the complete tree, level)
            let mut todo = vec![(0usize, 0usize, 0u32)];
            while let Some((n, slot, level)) = todo.pop() {
                if t.feature[n] >= 0 {
                    splits[base + slot] = Split {
                        feature: t.feature[n] as u32,
                        threshold: t.threshold[n],
                    };
                    todo.push((t.left[n] as usize, 2 * slot + 1, level + 1));
                    todo.push((t.right[n] as usize, 2 * slot + 2, level + 1));
                } else {
                    // Always-left splits below a shallow leaf: its value lands
                    // on the leftmost leaf of its subtree.
                    let mut leaf = slot;
                    for _ in level..depth {
                        leaf = 2 * leaf + 1;
                    }
                    leaves[lbase + leaf - inner] = t.value[n];
                }
            }
        }
        Ok(Ensemble {
            bias,
            depth,
            splits,
            leaves,
        })
    }

    /// The raw score of one row with the first `trees` trees. `build`
    /// checked every feature index against the row length `M`.
    pub(crate) fn score_with<const M: usize>(&self, row: &[f32; M], trees: usize) -> f32 {
        let inner = (1usize << self.depth) - 1;
        let mut s = self.bias;
        for (splits, leaves) in self.trees().take(trees) {
            let mut i = 0usize;
            for _ in 0..self.depth {
                let sp = splits[i];
                i = 2 * i + 1 + (row[sp.feature as usize] > sp.threshold) as usize;
            }
            s += leaves[i - inner];
        }
        s
    }

    /// Each tree's splits and leaves (a depth-0 tree has no splits, one leaf).
    fn trees(&self) -> impl Iterator<Item = (&[Split], &[f32])> {
        let inner = (1usize << self.depth) - 1;
        self.leaves
            .chunks_exact(inner + 1)
            .enumerate()
            .map(move |(t, leaves)| (&self.splits[t * inner..(t + 1) * inner], leaves))
    }

    /// `score_with` for every row, with the first `trees` trees (boosting
    /// adds trees that correct the ones before, so a prefix is a coarser
    /// model). Rows go through each tree eight at a time (then four, then
    /// one): independent walks keep the CPU busy while each waits on its
    /// loads (eight lanes scored the learned scorer's pages 10–15 % faster
    /// than four here; bench/HISTORY.md).
    pub(crate) fn score_first<const M: usize>(&self, rows: &[[f32; M]], trees: usize) -> Vec<f32> {
        self.score_range(rows, 0, trees)
    }

    /// The full score of every row, with an early exit: after the first
    /// `trees` trees, a row whose score is past `margin` either way keeps
    /// it, and only the others walk the rest (`model::Settle`).
    pub(crate) fn score_settling<const M: usize>(
        &self,
        rows: &[[f32; M]],
        trees: usize,
        margin: f32,
    ) -> Vec<f32> {
        let mut scores = self.score_range(rows, 0, trees);
        let open: Vec<usize> = (0..rows.len())
            .filter(|&i| scores[i].abs() <= margin)
            .collect();
        let rest: Vec<[f32; M]> = open.iter().map(|&i| rows[i]).collect();
        for (&i, more) in open.iter().zip(self.score_range(&rest, trees, usize::MAX)) {
            scores[i] += more;
        }
        scores
    }

    /// The sum of trees `from..to` for every row (the bias too when `from`
    /// is 0), eight rows at a time, then four, then one.
    fn score_range<const M: usize>(&self, rows: &[[f32; M]], from: usize, to: usize) -> Vec<f32> {
        let mut out = Vec::with_capacity(rows.len());
        let mut eights = rows.chunks_exact(8);
        for group in &mut eights {
            out.extend(self.score_lanes::<M, 8>(group, from, to));
        }
        let mut fours = eights.remainder().chunks_exact(4);
        for group in &mut fours {
            out.extend(self.score_lanes::<M, 4>(group, from, to));
        }
        out.extend(
            fours
                .remainder()
                .iter()
                .map(|r| self.score_lanes::<M, 1>(std::slice::from_ref(r), from, to)[0]),
        );
        out
    }

    /// Trees `from..to` for `L` rows at once (`group.len() == L`), walk by
    /// walk interleaved.
    fn score_lanes<const M: usize, const L: usize>(
        &self,
        group: &[[f32; M]],
        from: usize,
        to: usize,
    ) -> [f32; L] {
        let inner = (1usize << self.depth) - 1;
        let mut s = [if from == 0 { self.bias } else { 0.0 }; L];
        let trees = to.saturating_sub(from);
        for (splits, leaves) in self.trees().skip(from).take(trees) {
            let mut i = [0usize; L];
            for _ in 0..self.depth {
                for l in 0..L {
                    let sp = splits[i[l]];
                    i[l] = 2 * i[l] + 1 + (group[l][sp.feature as usize] > sp.threshold) as usize;
                }
            }
            for l in 0..L {
                s[l] += leaves[i[l] - inner];
            }
        }
        s
    }
}

impl Tree {
    /// The leaf value a row reaches, node by node (for models scored once a
    /// page, where the complete-tree layout of `Ensemble` is not worth its
    /// memory). A feature the row lacks reads as 0. `check` made the walk end.
    pub(crate) fn walk(&self, row: &[f32]) -> f32 {
        let mut i = 0;
        while self.feature[i] >= 0 {
            let x = row.get(self.feature[i] as usize).copied().unwrap_or(0.0);
            i = if x > self.threshold[i] {
                self.right[i]
            } else {
                self.left[i]
            } as usize;
        }
        self.value[i]
    }
}

/// Every array has one entry per node, children point forward (so a walk
/// ends), each node but the root has one parent, features are below
/// `features`, the depth is at most `max_depth`; returns the depth.
pub(crate) fn check(t: &Tree, features: usize, max_depth: u32) -> Result<u32, &'static str> {
    let n = t.feature.len();
    if n == 0 {
        return Err("no nodes");
    }
    if [
        t.threshold.len(),
        t.left.len(),
        t.right.len(),
        t.value.len(),
    ] != [n; 4]
    {
        return Err("arrays of different lengths");
    }
    for i in 0..n {
        if t.feature[i] >= 0 {
            if t.feature[i] as usize >= features {
                return Err("feature out of range");
            }
            let (l, r) = (t.left[i] as usize, t.right[i] as usize);
            if l <= i || r <= i || l >= n || r >= n {
                return Err("child out of order");
            }
        }
    }
    // Children come after their parent, so one forward pass gives every
    // depth — if each node has one parent. A node two splits lead to (a
    // file's graph, not a tree) would be walked at two depths, and the
    // complete storage is sized by one of them.
    let mut level = vec![0u32; n];
    let mut parented = vec![false; n];
    let mut depth = 0;
    for i in 0..n {
        if t.feature[i] >= 0 {
            for c in [t.left[i] as usize, t.right[i] as usize] {
                if std::mem::replace(&mut parented[c], true) {
                    return Err("a node with two parents");
                }
                level[c] = level[i] + 1;
                depth = depth.max(level[c]);
            }
        }
    }
    if depth > max_depth {
        return Err("too deep");
    }
    Ok(depth)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by `fuzz/fuzz_targets/models.rs`: node 5 is a child of node 2
    /// (depth 3) and of node 4 (depth 2). The forward pass kept the later,
    /// shallower depth for it and its children and measured 3, where the walk
    /// 0 → 1 → 2 → 5 → 6 goes four deep, past the complete storage: `build`
    /// indexed out of bounds. Now refused as a malformed tree.
    #[test]
    fn a_node_with_two_parents_is_refused() {
        let split = |l: u32, r: u32| (0, l, r);
        let leaf = (-1, 0, 0);
        let nodes = [
            split(1, 4),
            split(2, 3),
            split(5, 10),
            leaf,
            split(5, 11),
            split(6, 7),
            leaf,
            leaf,
            leaf,
            leaf,
            leaf,
            leaf,
        ];
        let t = Tree {
            feature: nodes.iter().map(|n| n.0).collect(),
            threshold: vec![0.5; nodes.len()],
            left: nodes.iter().map(|n| n.1).collect(),
            right: nodes.iter().map(|n| n.2).collect(),
            value: vec![0.0; nodes.len()],
        };
        assert_eq!(check(&t, 1, MAX_DEPTH), Err("a node with two parents"));
        assert!(Ensemble::build(0.0, &[t], 1).is_err());
    }
}
