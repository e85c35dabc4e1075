//! What a discoverer did and holds: counters its log lines print at every
//! checkpoint and `/metrics` exports (`--listen`), so that an operator sees
//! whether the group keeps up (the count topic's lag), what its state costs
//! (keys, bytes) and what it refused, without reading logs.
//!
//! The counters are `prometheus-client` counters (an atomic each), updated
//! where the work happens; the gauges of the state are set when they are
//! read (a scrape or a log line), from the partitions owned at that moment;
//! the lag comes from librdkafka's statistics, every few seconds.

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

/// A discoverer's counters and gauges.
#[derive(Default)]
pub struct Stats {
    pub slices: Counter,
    pub duplicates: Counter,
    pub refused: Counter,
    /// Refused because their agent's key did not sign them (among `refused`).
    pub unsigned: Counter,
    pub records: Counter,
    pub announced: Counter,
    pub checkpoints: Counter,
    pub checkpoint_failures: Counter,
    /// Distinct keys held over the partitions owned.
    pub keys: Gauge,
    pub partitions: Gauge,
    /// The running totals' and shares' tables, in bytes.
    pub state_bytes: Gauge,
    /// Slices on the count topic not read yet, over the partitions owned.
    pub lag: Gauge,
}

impl Stats {
    /// A registry exporting every figure (`crawlsieve_discoverer_…`).
    pub fn registry(&self) -> Registry {
        let mut r = Registry::with_prefix("crawlsieve_discoverer");
        for (name, help, c) in [
            (
                "slices",
                "Slices of counts taken (a batch's records in one partition)",
                &self.slices,
            ),
            (
                "duplicate_slices",
                "Slices of a batch taken before (added nothing)",
                &self.duplicates,
            ),
            (
                "refused_slices",
                "Slices refused: malformed, another layout, or not signed by their agent",
                &self.refused,
            ),
            (
                "unsigned_slices",
                "Slices refused because their agent's key did not sign them",
                &self.unsigned,
            ),
            ("records", "Count records added", &self.records),
            (
                "announced",
                "Keys announced as they crossed the threshold",
                &self.announced,
            ),
            (
                "checkpoints",
                "Checkpoints written and committed",
                &self.checkpoints,
            ),
            (
                "checkpoint_failures",
                "Checkpoints that failed (offsets not committed)",
                &self.checkpoint_failures,
            ),
        ] {
            r.register(name, help, c.clone());
        }
        for (name, help, g) in [
            (
                "keys",
                "Distinct keys held over the partitions owned",
                &self.keys,
            ),
            (
                "partitions",
                "Partitions of the count topic owned",
                &self.partitions,
            ),
            (
                "state_bytes",
                "Bytes of the running totals' tables",
                &self.state_bytes,
            ),
            (
                "lag",
                "Slices on the count topic not read yet, over the partitions owned",
                &self.lag,
            ),
        ] {
            r.register(name, help, g.clone());
        }
        r
    }

    /// The count topic's lag from librdkafka's statistics: the sum over the
    /// partitions assigned (a partition not fetched yet reports -1).
    pub fn take_lag(&self, statistics: &rdkafka::Statistics, topic: &str) {
        if let Some(t) = statistics.topics.get(topic) {
            let lag: i64 = t
                .partitions
                .values()
                .filter(|p| p.partition >= 0 && p.desired && p.consumer_lag >= 0)
                .map(|p| p.consumer_lag)
                .sum();
            self.lag.set(lag);
        }
    }
}
