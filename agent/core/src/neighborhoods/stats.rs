//! Running mean and standard deviation over a changing population (Welford),
//! with removal, so a neighborhood whose badness changes is taken out at its
//! old value and put back at its new one. Numerically stable: no sums of
//! squares, so no cancellation however many neighborhoods there are.

#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Running {
    n: u64,
    mean: f64,
    /// Sum of squared deviations from the mean.
    m2: f64,
}

impl Running {
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        let delta = x - self.mean;
        self.mean += delta / self.n as f64;
        self.m2 += delta * (x - self.mean);
    }

    /// Takes out a value that was added before.
    pub fn remove(&mut self, x: f64) {
        match self.n {
            0 => {}
            1 => *self = Running::default(),
            _ => {
                let delta = x - self.mean;
                self.n -= 1;
                self.mean -= delta / self.n as f64;
                self.m2 = (self.m2 - delta * (x - self.mean)).max(0.0);
            }
        }
    }

    /// Replaces a value that was added before.
    pub fn replace(&mut self, old: f64, new: f64) {
        self.remove(old);
        self.add(new);
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// Population standard deviation.
    pub fn std_dev(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            (self.m2 / self.n as f64).sqrt()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn direct(xs: &[f64]) -> (f64, f64) {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        (mean, var.sqrt())
    }

    #[test]
    fn matches_the_direct_formula_with_changes() {
        let mut r = Running::default();
        let mut xs: Vec<f64> = (0..1000).map(|i| ((i * 37) % 101) as f64 / 100.0).collect();
        for &x in &xs {
            r.add(x);
        }
        // Change a third of them.
        for i in (0..1000).step_by(3) {
            let new = 1.0 - xs[i] / 2.0;
            r.replace(xs[i], new);
            xs[i] = new;
        }
        let (mean, sd) = direct(&xs);
        assert!((r.mean() - mean).abs() < 1e-9);
        assert!((r.std_dev() - sd).abs() < 1e-9);
        for &x in &xs[..999] {
            r.remove(x);
        }
        assert_eq!(r.count(), 1);
        assert!((r.mean() - xs[999]).abs() < 1e-9);
        assert!(r.std_dev() < 1e-6);
    }

    #[test]
    fn stable_on_large_offsets() {
        // Values near 1 with tiny spread: a sum-of-squares formula loses them.
        let mut r = Running::default();
        for i in 0..100_000 {
            r.add(1.0 - 1e-9 * (i % 2) as f64);
        }
        assert!((r.std_dev() - 0.5e-9).abs() < 1e-12, "{}", r.std_dev());
    }
}
