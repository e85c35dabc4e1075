//! The NATS JetStream sink: published and acked, or spooled.

mod config;
mod sink;

pub use config::Config;
pub use sink::NatsSink;
