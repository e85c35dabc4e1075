//! The JSON-lines sink: one line a message, in a file rotated by size.

mod config;
mod sink;

pub use config::Config;
pub use sink::RotatingJsonl;
