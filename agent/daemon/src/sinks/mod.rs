//! The agent's sinks: asynchronous, acknowledged per message, spooled to
//! disk (`spool`) while a broker is down. (`scan`'s synchronous sinks are
//! the core's `output`.)

pub mod kafka;
pub mod nats;
pub mod rotating;
pub mod spool;
