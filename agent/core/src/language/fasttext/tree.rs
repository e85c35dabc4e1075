//! The labels' tree: fastText's hierarchical softmax, built as fastText
//! builds it, read only where a question needs it.

use super::DIM;

/// fastText's hierarchical softmax: a Huffman tree over the label counts
/// (sorted, most frequent first, as the file holds them), built as
/// fastText builds it. Leaves `0..labels` are the labels; inner node `i`
/// has output row `i - labels`; a label's probability is the product, down
/// its path, of σ(row · h) where the step goes to the `binary` (right)
/// child and 1 − σ where it goes left.
pub struct Tree {
    labels: usize,
    /// Per label: its path up to the root, (inner node's row, goes right).
    paths: Vec<Vec<(u16, bool)>>,
    /// Per inner node (by row): its (left, right) children.
    children: Vec<[usize; 2]>,
}

fn sigmoid(row: &[f32], h: &[f32; DIM]) -> f32 {
    let dot: f32 = row.iter().zip(h).map(|(a, b)| a * b).sum();
    1.0 / (1.0 + (-dot).exp())
}

impl Tree {
    pub fn huffman(counts: &[i64]) -> Tree {
        let osz = counts.len();
        let mut count = vec![i64::MAX / 4; 2 * osz - 1];
        let mut parent = vec![usize::MAX; 2 * osz - 1];
        let mut binary = vec![false; 2 * osz - 1];
        let mut children = Vec::with_capacity(osz - 1);
        count[..osz].copy_from_slice(counts);
        let (mut leaf, mut node) = (osz as isize - 1, osz);
        for i in osz..2 * osz - 1 {
            let mut mini = [0usize; 2];
            for m in &mut mini {
                if leaf >= 0 && count[leaf as usize] < count[node] {
                    *m = leaf as usize;
                    leaf -= 1;
                } else {
                    *m = node;
                    node += 1;
                }
            }
            count[i] = count[mini[0]] + count[mini[1]];
            parent[mini[0]] = i;
            parent[mini[1]] = i;
            binary[mini[1]] = true;
            children.push(mini);
        }
        let paths = (0..osz)
            .map(|i| {
                let mut path = Vec::new();
                let mut j = i;
                while parent[j] != usize::MAX {
                    path.push(((parent[j] - osz) as u16, binary[j]));
                    j = parent[j];
                }
                path
            })
            .collect();
        Tree {
            labels: osz,
            paths,
            children,
        }
    }

    /// One label's probability: its path only.
    pub fn probability(&self, output: &[f32], h: &[f32; DIM], label: usize) -> f32 {
        self.paths[label]
            .iter()
            .map(|&(row, right)| {
                let row = row as usize;
                let f = sigmoid(&output[row * DIM..(row + 1) * DIM], h);
                if right {
                    f
                } else {
                    1.0 - f
                }
            })
            .product()
    }

    /// Every label at least `min` probable, with its probability: from the
    /// root down, leaving a branch once its probability is under `min`.
    pub fn descend(
        &self,
        output: &[f32],
        h: &[f32; DIM],
        min: f32,
        visit: &mut impl FnMut(usize, f32),
    ) {
        let mut stack = vec![(2 * self.labels - 2, 1.0f32)];
        while let Some((node, p)) = stack.pop() {
            if p < min {
                continue;
            }
            if node < self.labels {
                visit(node, p);
                continue;
            }
            let row = node - self.labels;
            let f = sigmoid(&output[row * DIM..(row + 1) * DIM], h);
            let [left, right] = self.children[row];
            stack.push((left, p * (1.0 - f)));
            stack.push((right, p * f));
        }
    }
}
