//! `/metrics` in the Prometheus text format (`prometheus-client`).

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct VerdictLabel {
    pub verdict: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ReasonLabel {
    pub reason: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SinkLabel {
    pub sink: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct WhyLabel {
    pub why: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SetLabel {
    pub set: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SourceLabel {
    pub source: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RestartLabel {
    pub source: String,
    pub why: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OutcomeLabel {
    pub outcome: String,
}

/// Every figure the agent exports.
pub struct Metrics {
    registry: Registry,
    pub pages_in: Counter,
    pub verdicts_out: Family<VerdictLabel, Counter>,
    pub reasons: Family<ReasonLabel, Counter>,
    /// Pages refused (and not acknowledged): queue full, spool full, not a page.
    pub rejected: Family<WhyLabel, Counter>,
    pub sink_failures: Family<SinkLabel, Counter>,
    pub sink_duplicates: Family<SinkLabel, Counter>,
    pub spool_depth: Family<SinkLabel, Gauge>,
    pub site_flags: Counter,
    /// Verdicts of pages from sources not in `agent.trusted_sources`: they
    /// fed no neighborhood and no count.
    pub untrusted: Counter,
    /// Pages each queue-like source took (`nats-0`, `kafka-1`, `warc_dir-2`).
    pub source_pages: Family<SourceLabel, Counter>,
    /// Source runs that ended and were started again, and why.
    pub source_restarts: Family<RestartLabel, Counter>,
    pub labeled_set_version: Family<SetLabel, Gauge>,
    /// From a page's arrival to its verdict accepted by every sink.
    pub latency: Histogram,
    /// `[agent.counts]`: occurrences counted, batches by outcome
    /// (cut, shipped, duplicate, rejected, send_failure, lost), batches waiting.
    pub counts_occurrences: Counter,
    pub counts_batches: Family<OutcomeLabel, Counter>,
    pub counts_outbox: Gauge,
    pub counts_held: Gauge,
    /// Partitioned sources' neighborhood state: partitions adopted and
    /// released, checkpoints written and failed, pages read again (judged,
    /// not counted twice) and pages that finished after their partition moved.
    pub handover: Family<OutcomeLabel, Counter>,
    /// Partitions whose neighborhood state this agent holds.
    pub handover_partitions: Gauge,
}

impl Metrics {
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("crawlsieve");
        let m = Metrics {
            pages_in: Counter::default(),
            verdicts_out: Family::default(),
            reasons: Family::default(),
            rejected: Family::default(),
            sink_failures: Family::default(),
            sink_duplicates: Family::default(),
            spool_depth: Family::default(),
            site_flags: Counter::default(),
            untrusted: Counter::default(),
            source_pages: Family::default(),
            source_restarts: Family::default(),
            labeled_set_version: Family::default(),
            latency: Histogram::new(exponential_buckets(0.0005, 2.0, 16)),
            counts_occurrences: Counter::default(),
            counts_batches: Family::default(),
            counts_outbox: Gauge::default(),
            counts_held: Gauge::default(),
            handover: Family::default(),
            handover_partitions: Gauge::default(),
            registry: Registry::default(),
        };
        m.register(&mut registry);
        Metrics { registry, ..m }
    }

    /// Names and describes every metric in `registry` (in this order in the
    /// exposition): pages and verdicts, sources and sets, counts and
    /// neighborhoods.
    fn register(&self, registry: &mut Registry) {
        self.register_pages(registry);
        self.register_sources(registry);
        self.register_counts(registry);
    }

    fn register_pages(&self, registry: &mut Registry) {
        registry.register("pages_in", "Pages received", self.pages_in.clone());
        registry.register(
            "verdicts_out",
            "Verdicts accepted by every sink, by kind",
            self.verdicts_out.clone(),
        );
        registry.register("reasons", "Verdict reasons", self.reasons.clone());
        registry.register(
            "rejected",
            "Pages refused and not acknowledged (the source retries)",
            self.rejected.clone(),
        );
        registry.register(
            "sink_failures",
            "Sends that failed and were spooled",
            self.sink_failures.clone(),
        );
        registry.register(
            "sink_duplicates",
            "Messages the broker recognised as duplicates",
            self.sink_duplicates.clone(),
        );
        registry.register(
            "spool_depth",
            "Verdicts waiting in a sink's spool",
            self.spool_depth.clone(),
        );
        registry.register("site_flags", "Site flags emitted", self.site_flags.clone());
        registry.register(
            "untrusted_pages",
            "Verdicts of pages from sources that may not feed neighborhoods or counts",
            self.untrusted.clone(),
        );
    }

    fn register_sources(&self, registry: &mut Registry) {
        registry.register(
            "source_pages",
            "Pages taken by each queue-like source",
            self.source_pages.clone(),
        );
        registry.register(
            "source_restarts",
            "Source runs started again: failed, panicked, stream_closed, stalled",
            self.source_restarts.clone(),
        );
        registry.register(
            "labeled_set_version",
            "Version of each labeled set in use",
            self.labeled_set_version.clone(),
        );
        registry.register(
            "page_latency_seconds",
            "Arrival to verdict accepted by every sink",
            self.latency.clone(),
        );
    }

    fn register_counts(&self, registry: &mut Registry) {
        registry.register(
            "counts_occurrences",
            "Chunk and shingle occurrences counted for the hub",
            self.counts_occurrences.clone(),
        );
        registry.register(
            "counts_batches",
            "Batches of counts: cut, shipped, duplicate, rejected, send_failure, lost (only at a stop with the disk failing)",
            self.counts_batches.clone(),
        );
        registry.register(
            "counts_outbox",
            "Batches of counts waiting to be shipped",
            self.counts_outbox.clone(),
        );
        registry.register(
            "counts_held",
            "1 while counting holds on a failing disk under agent.counts.dir (pages wait; nothing is dropped)",
            self.counts_held.clone(),
        );
        registry.register(
            "neighborhood_handover",
            "Partition neighborhood state: adopted, released, checkpoint, checkpoint_failed, restore_failed, replayed, unowned",
            self.handover.clone(),
        );
        registry.register(
            "neighborhood_partitions",
            "Partitions whose neighborhood state this agent holds",
            self.handover_partitions.clone(),
        );
    }

    /// The text exposition.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}
