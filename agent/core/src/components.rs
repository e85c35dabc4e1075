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
}
