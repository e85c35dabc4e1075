//! Connected components (union-find with path halving and union by size):
//! what `styles` and `spun` cluster pages with, in near-linear time.

/// Union-find with path halving and union by size.
pub struct Components {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl Components {
    pub fn new(n: usize) -> Self {
        Components {
            parent: (0..n as u32).collect(),
            size: vec![1; n],
        }
    }

    pub fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let up = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = up;
            x = up;
        }
        x
    }

    pub fn union(&mut self, a: u32, b: u32) -> bool {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return false;
        }
        if self.size[a as usize] < self.size[b as usize] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b as usize] = a;
        self.size[a as usize] += self.size[b as usize];
        true
    }

    /// The components of `ids` with more than one member: each sorted, and
    /// the list sorted.
    pub fn groups(&mut self, ids: impl Iterator<Item = u32>) -> Vec<Vec<u32>> {
        let mut by_root: std::collections::HashMap<u32, Vec<u32>> = Default::default();
        for id in ids {
            by_root.entry(self.find(id)).or_default().push(id);
        }
        let mut groups: Vec<Vec<u32>> = by_root.into_values().filter(|g| g.len() > 1).collect();
        for g in &mut groups {
            g.sort_unstable();
        }
        groups.sort_unstable();
        groups
    }
}
