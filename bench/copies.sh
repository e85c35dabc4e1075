#!/usr/bin/env bash
# Copy detection on a crawl with copier sites inside templates and real benign
# sites (bench/copies.rs). Installs Debian's documentation packages for whole
# real benign sites when missing (root or sudo), then runs the benchmark.
# Usage: bash bench/copies.sh [RUNS]   (from the repository root; ../shared beside it)
set -euo pipefail
cd "$(dirname "$0")/.."
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
if [ ! -d /usr/share/doc/apache2-doc/manual ] || [ ! -d /usr/share/doc/postgresql-doc-15/html ]; then
  as_root apt-get install -y -q apache2-doc postgresql-doc-15
fi
cargo run --release --locked -p crawlsieve-bench --example copies -- "${1:-3}"
