//! crawlsieve's long-running services, over `crawlsieve-core`.
//!
//! - `agent`: pages in from a crawler (HTTP, NATS JetStream, Kafka, a WARC
//!   directory), the core's `Pipeline` on worker threads, verdicts out to
//!   every sink, at least once; it follows a hub for labeled sets and ships
//!   the counts of the pages it judged;
//! - `sinks`: the agent's destinations (rotating JSONL, NATS, Kafka) and the
//!   disk spool that holds verdicts while a broker is down;
//! - `discoverer`: streaming discovery on Kafka for crawls past one hub
//!   (running totals per key range in a consumer group, crossings announced
//!   to the topic the hub publishes from);
//! - `hub`: serves signed labeled sets and their deltas, and discovers blind
//!   sets from the agents' counts; `hub_client`: the one client of its
//!   protocol, the follower's and the publisher's;
//! - `http`: the HTTP server both run under (connection limits, timeouts,
//!   graceful shutdown); `shutdown`: SIGINT/SIGTERM as a future; `backoff`:
//!   the one retry schedule they all wait by.
//!
//! Everything here is asynchronous (tokio); the judging itself is the core's
//! and synchronous, run on worker threads.

pub mod agent;
pub mod auth;
pub mod backoff;
pub mod discoverer;
pub mod http;
pub mod hub;
pub mod hub_client;
pub mod kafka;
pub mod nats;
pub mod shutdown;
pub mod sinks;
pub mod tls;
