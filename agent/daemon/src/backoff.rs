//! The one retry schedule of the daemons: wait, double, up to a ceiling; start
//! over after a success. The follower, the sources' supervisor, the counts'
//! shipper and the spool's replay each pick their own first wait and ceiling
//! (how soon a broker or hub is asked again against how hard it is hammered).

use std::time::Duration;

#[derive(Debug, Clone)]
pub struct Backoff {
    first: Duration,
    max: Duration,
    next: Duration,
}

impl Backoff {
    pub const fn new(first: Duration, max: Duration) -> Self {
        Backoff {
            first,
            max,
            next: first,
        }
    }

    /// The wait before the next attempt (what a log line's `retry_in` says).
    pub fn peek(&self) -> Duration {
        self.next
    }

    /// The wait for this failure; the next one waits twice as long, up to the ceiling.
    pub fn step(&mut self) -> Duration {
        let now = self.next;
        self.next = (self.next * 2).min(self.max);
        now
    }

    /// A success: the next failure waits the first wait again.
    pub fn reset(&mut self) {
        self.next = self.first;
    }

    /// Sleeps this failure's wait.
    pub async fn sleep(&mut self) {
        tokio::time::sleep(self.step()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_to_the_ceiling_and_starts_over() {
        let ms = Duration::from_millis;
        let mut b = Backoff::new(ms(500), ms(3000));
        let waits: Vec<_> = (0..5).map(|_| b.step()).collect();
        assert_eq!(waits, [ms(500), ms(1000), ms(2000), ms(3000), ms(3000)]);
        b.reset();
        assert_eq!(b.peek(), ms(500));
    }
}
