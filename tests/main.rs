//! The integration tests: one test binary (`cargo test --test integration`), a module per
//! concern. They run the real `crawlsieve` binary, real brokers and real data from
//! `../shared/data`. One binary links once instead of once a file; a new test file is one
//! `mod` line here, not a manifest entry. One file's tests: `cargo test --test integration scan::`.

mod common;
mod daemon;
mod rogue;

mod adversarial;
mod agent;
mod archives;
mod bad_input;
mod blind;
mod copies;
mod corpus_filters;
mod crash;
mod dedup;
mod dedup_batch;
mod discoverers;
mod edges;
mod extract;
mod first_hour;
mod house;
mod hub;
mod items;
mod labels;
mod languages;
mod many_agents;
mod mistakes;
mod neighborhoods;
mod opt_out;
mod quilts;
mod readme;
mod scan;
mod spun;
mod styles;
mod warc_dir;
