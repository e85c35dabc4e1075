//! What every Kafka client here asks the brokers.

use rdkafka::consumer::{Consumer, ConsumerContext};
use std::time::Duration;

/// The partitions of `topic` (none when it does not exist, or not yet).
pub fn partition_ids<C: ConsumerContext>(
    consumer: &impl Consumer<C>,
    topic: &str,
) -> rdkafka::error::KafkaResult<Vec<i32>> {
    let metadata = consumer.fetch_metadata(Some(topic), Duration::from_secs(10))?;
    Ok(metadata
        .topics()
        .iter()
        .filter(|t| t.name() == topic && t.error().is_none())
        .flat_map(|t| t.partitions().iter().map(|p| p.id()))
        .collect())
}
