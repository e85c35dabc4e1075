#!/bin/sh
# Rebuilds rules/languages.tsv.gz (crawlsieve's trigram language profiles)
# from lingua-rs's language models, fetched from crates.io at pinned versions
# (bench/langmodel/Cargo.lock). The output is deterministic: a rebuild gives
# the same bytes.
set -eu
cd "$(dirname "$0")/langmodel"
cargo run --release --locked -- --top 4000 ../../rules/languages.tsv.gz
