#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60) on the seed corpora
# (fuzz/seeds.py), with a per-input timeout and memory limit; exits non-zero
# on the first crash, hang (-timeout) or memory blow-up (-rss_limit_mb), with
# the input left in fuzz/artifacts/<target>/. Needs nightly and cargo-fuzz.
#   fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
python3 seeds.py >/dev/null
cargo +nightly fuzz build -O
for t in "${targets[@]}"; do
  case "$t" in
    pipeline) dict=(-dict=dict/html.dict -max_len=65536) ;;
    warc | jsonl) dict=(-dict=dict/warc.dict) ;;
    hub) dict=(-dict=dict/hub.dict) ;;
    *) dict=() ;;
  esac
  echo "== fuzz $t for ${seconds}s"
  log=$(mktemp)
  if ! cargo +nightly fuzz run -O "$t" -- -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "${dict[@]}" >"$log" 2>&1; then
    tail -60 "$log"
    echo "fuzz target $t failed: the input is in fuzz/artifacts/$t/" >&2
    exit 1
  fi
  grep -E "DONE|stat::number_of_executed_units|stat::peak_rss_mb" "$log" || true
  rm -f "$log"
done
