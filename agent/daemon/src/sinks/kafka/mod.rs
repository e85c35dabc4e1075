//! The Kafka sink: key = site, idempotent producer, acked or spooled.

mod config;
mod sink;

pub use config::Config;
pub use sink::KafkaSink;
