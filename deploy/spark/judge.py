#!/usr/bin/env python3
"""Judge an archive on Spark: one verdict per page, as Parquet and/or JSON lines.

    python deploy/spark/judge.py --master local[2] -l blind.cslab --public-key HEX \\
        --parquet verdicts.parquet --jsonl verdicts.jsonl /shared/crawl/*.warc.gz

also under `spark-submit`. Every input file is one task, judged as `crawlsieve scan`
judges it (a broken record or an unreadable file is an `error` verdict). Parquet
holds the verdict's columns (docs/verdicts.md; crawlsieve.spark.VERDICT_DDL) plus
`file`, the input it came from, partitioned by nothing: what DuckDB, Polars or
Spark load. The JSON lines are the verdicts exactly as `scan` writes them. Site
flags are not made (they need all of a site's pages in order): run
`crawlsieve report` on the JSON lines.
"""
import argparse
import json
import sys
import time

import crawlsieve.spark as cs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", metavar="INPUT", help="WARC, JSONL or HTML files, or directories")
    ap.add_argument("--master", help="Spark master URL; spark-submit's when omitted")
    ap.add_argument("-c", "--config", help="crawlsieve TOML configuration")
    ap.add_argument("-l", "--labels", action="append", default=[], help="a labeled set (repeatable)")
    ap.add_argument("--public-key", help="the hub's public key (64 hex digits, or a file) for signed sets")
    ap.add_argument("--content", action="store_true", help="verdicts carry the extracted main content")
    ap.add_argument("--parquet", help="write the verdicts as Parquet to this directory")
    ap.add_argument("--jsonl", help="write the verdicts' JSON lines to this directory (Spark text output)")
    a = ap.parse_args(argv)
    if not (a.parquet or a.jsonl):
        ap.error("give --parquet DIR, --jsonl DIR or both")

    spark = cs.session("crawlsieve judge", a.master)
    started = time.time()
    try:
        lines = cs.verdict_lines(
            spark, a.inputs, config=a.config, labels=a.labels, public_key=a.public_key, content=a.content
        ).cache()
        if a.parquet:
            cs.verdicts(lines).write.mode("overwrite").parquet(a.parquet)
        if a.jsonl:
            lines.select("verdict").write.mode("overwrite").text(a.jsonl)
        kinds = {r["verdict"]: r["count"] for r in cs.verdicts(lines).groupBy("verdict").count().collect()}
    finally:
        spark.stop()
    print(
        f"{sum(kinds.values())} verdicts {json.dumps(kinds, sort_keys=True)} in {time.time() - started:.1f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
