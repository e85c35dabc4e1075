#!/usr/bin/env python3
"""What an item set costs the default pipeline (issue "Short labeled items", the ≤ 10 % target).

Interleaved rounds, one core (`taskset -c CORE`), pages in memory: `crawlsieve bench --json --repeat R` with no
set and with each given set list, pages/s with the sets over pages/s without in the same round; prints each
round and the median (min–max) of the ratios per corpus.

    python3 bench/items_cost.py --key-pub decon.key.pub --sets all20k.csl --sets bigbench.csl,passages.csl \\
        [--rounds 7] [--repeat 5] [--core 1] [CORPUS...]

The sets are `labels build --items` files (docs/items.md). Corpora default to WCXB dev and trafilatura-eval.
"""
import argparse
import json
import statistics
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared/data/extraction"
BIN = REPO / "target/release/crawlsieve"


def pages_per_s(corpus, core, repeat, sets, key_pub):
    cmd = ["taskset", "-c", str(core), str(BIN), "bench", "--json", "--repeat", str(repeat)]
    if sets:
        cmd += ["--set", "labels.files=" + json.dumps([str(Path(s).resolve()) for s in sets]),
                "--set", f"labels.public_key_file={Path(key_pub).resolve()}"]
    out = subprocess.run(cmd + [str(corpus)], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["pages_per_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpora", nargs="*", default=[SHARED / "wcxb-dev/dev/html", SHARED / "trafilatura-eval/tests/cache"])
    ap.add_argument("--sets", action="append", required=True, help="comma-separated set files judged together (repeatable)")
    ap.add_argument("--key-pub", required=True)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--core", type=int, default=1)
    a = ap.parse_args()
    variants = [s.split(",") for s in a.sets]
    for corpus in a.corpora:
        ratios = {i: [] for i in range(len(variants))}
        for r in range(a.rounds):
            base = pages_per_s(corpus, a.core, a.repeat, [], a.key_pub)
            row = [f"{base:.0f}"]
            for i, sets in enumerate(variants):
                x = pages_per_s(corpus, a.core, a.repeat, sets, a.key_pub)
                ratios[i].append(x / base)
                row.append(f"{x:.0f} ({x / base:.3f})")
            print(f"{Path(corpus).name} round {r + 1}: no set {row[0]} pages/s; " + "; ".join(
                f"{'+'.join(Path(s).name for s in v)} {c}" for v, c in zip(variants, row[1:])), flush=True)
        for i, v in enumerate(variants):
            rs = ratios[i]
            print(f"{Path(corpus).name}: {'+'.join(Path(s).name for s in v)}: median {statistics.median(rs):.3f} "
                  f"({min(rs):.3f}–{max(rs):.3f}) of the pages/s without a set, {len(rs)} rounds")


if __name__ == "__main__":
    main()
