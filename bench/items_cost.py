#!/usr/bin/env python3
"""What an item set costs the default pipeline (issue "Short labeled items", the ≤ 10 % target).

One core (`taskset -c CORE`), pages in memory: `crawlsieve bench --json --repeat R --against 'labels.files=[]'`
judges the pages with the sets and without in alternating passes of one process, and gives the ratio of each
pair of passes (pages/s with the sets over without). A machine whose speed drifts between processes moves
both passes of a pair alike; two processes interleaved (this script's first version) swung by ±30 % here.
Prints each round's median pair ratio and best-pass ratio, then their median over the rounds, per corpus.

    python3 bench/items_cost.py --key-pub decon.key.pub --sets all20k.csl --sets bigbench.csl,passages.csl \\
        [--rounds 3] [--repeat 10] [--core 1] [CORPUS...]

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


def paired(corpus, core, repeat, sets, key_pub):
    cmd = ["taskset", "-c", str(core), str(BIN), "bench", "--json", "--repeat", str(repeat),
           "--set", "labels.files=" + json.dumps([str(Path(s).resolve()) for s in sets]),
           "--set", f"labels.public_key_file={Path(key_pub).resolve()}",
           "--against", "labels.files=[]", str(corpus)]
    out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    best = out["first"]["pages_per_s"] / out["against"]["pages_per_s"]
    return out["median_ratio"], best, out["against"]["pages_per_s"], out["first"]["pages_per_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpora", nargs="*", default=[SHARED / "wcxb-dev/dev/html", SHARED / "trafilatura-eval/tests/cache"])
    ap.add_argument("--sets", action="append", required=True, help="comma-separated set files judged together (repeatable)")
    ap.add_argument("--key-pub", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--core", type=int, default=1)
    a = ap.parse_args()
    for corpus in a.corpora:
        for sets in (s.split(",") for s in a.sets):
            name = "+".join(Path(s).name for s in sets)
            medians, bests = [], []
            for r in range(a.rounds):
                median, best, without, with_sets = paired(corpus, a.core, a.repeat, sets, a.key_pub)
                medians.append(median)
                bests.append(best)
                print(f"{Path(corpus).name} {name} round {r + 1}: pairs' median {median:.3f}, best passes {best:.3f} "
                      f"({with_sets:.0f} pages/s with, {without:.0f} without)", flush=True)
            print(f"{Path(corpus).name}: {name}: pairs' median {statistics.median(medians):.3f} "
                  f"({min(medians):.3f}–{max(medians):.3f}), best passes {statistics.median(bests):.3f} "
                  f"({min(bests):.3f}–{max(bests):.3f}) of the pages/s without a set, {a.rounds} rounds")


if __name__ == "__main__":
    main()
