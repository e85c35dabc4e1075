#!/usr/bin/env python3
"""Blind discovery on Spark: a signed labeled set from the chunks an archive repeats.

    python deploy/spark/discover.py --master local[2] --threshold 1000 --name blind \\
        --key hub.key -o blind.cslab /shared/crawl/*.warc.gz

also under `spark-submit deploy/spark/discover.py ...` (then `--master` comes from
spark-submit). Every input file is one task: its chunks and sampled shingles are
counted as `crawlsieve labels count` counts them, the counts added up exactly by key
in Spark, the threshold and the stop chunks applied once to the totals, and the set
signed here, on the driver (the key file is never shipped). The set equals what
`crawlsieve labels count` + `crawlsieve labels discover` make from the same files;
under the same SOURCE_DATE_EPOCH, byte for byte. Executors need the `crawlsieve`
wheel and the input files at the same paths (docs/spark.md).
"""
import argparse
import json
import sys
import time

import crawlsieve.spark as cs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", metavar="INPUT", help="WARC, JSONL, HTML or text files, or directories")
    ap.add_argument("--master", help="Spark master URL (local[N], spark://..., yarn); spark-submit's when omitted")
    ap.add_argument("--threshold", type=int, required=True, help="keep chunks seen more than this many times")
    ap.add_argument("--name", required=True, help="the set's name")
    ap.add_argument("--key", required=True, help="ed25519 signing key file (crawlsieve labels keygen)")
    ap.add_argument("-o", "--output", required=True, help="the signed set (.cslab)")
    ap.add_argument("--version", type=int, default=1, help="the set's version")
    ap.add_argument("-c", "--config", help="crawlsieve TOML configuration (extraction, chunks, stop chunks)")
    ap.add_argument("--propose-stop", help="also write stop-chunk candidates here, for review")
    ap.add_argument("--stop-min-sites", type=int, default=100, help="a candidate is seen on at least this many sites")
    ap.add_argument("--ranges", type=int, help="key ranges (reduce tasks); default: 4 per core and 1 per GiB of input")
    a = ap.parse_args(argv)

    spark = cs.session(f"crawlsieve discover {a.name}", a.master)
    started = time.time()
    try:
        d = cs.discover(
            spark,
            a.inputs,
            threshold=a.threshold,
            name=a.name,
            key=a.key,
            output=a.output,
            config=a.config,
            version=a.version,
            propose_stop=a.propose_stop,
            stop_min_sites=a.stop_min_sites,
            ranges=a.ranges,
        )
    finally:
        spark.stop()
    print(
        f"{d.files} files, {d.documents} documents ({d.failed} failed), {d.over_threshold} chunks over "
        f"{a.threshold} (stop chunks left out: {d.stop_chunks_skipped}), {d.keys} keys -> {a.output} "
        f"in {time.time() - started:.1f} s",
        file=sys.stderr,
    )
    print(json.dumps(d.__dict__))
    return 0


if __name__ == "__main__":
    sys.exit(main())
