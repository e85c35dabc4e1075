#!/usr/bin/env python3
"""Deduplicate an archive on Spark: its duplicate clusters and the pages to keep.

    python deploy/spark/dedup.py --master local[2] --clusters clusters.jsonl --keep-list keep.tsv \\
        [--threshold 0.5] [--siblings together|apart] [--signatures DIR] /shared/crawl/*.warc.gz

also under `spark-submit`. Every input file is one task: its pages judged as `crawlsieve scan` judges
them and the signature of each page kept or flagged made there (what `crawlsieve dedup
--signatures-only` writes). The signatures are gathered on the driver and clustered by the same code as
`crawlsieve dedup --from-signatures`: the clusters and the keep list are byte for byte what one machine
gives on the same files (docs/dedup.md, "Batch"). `--signatures DIR` also keeps the signatures as text
(Spark's output), for a later `crawlsieve dedup --from-signatures DIR` with other parameters.
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
    ap.add_argument("-c", "--config", help="crawlsieve TOML configuration (dedup.bands, dedup.rows, dedup.threshold)")
    ap.add_argument("--threshold", type=float, help="near-duplicate similarity (default: the configuration's dedup.threshold)")
    ap.add_argument("--siblings", choices=("together", "apart"), default="together",
                    help="near duplicates on one site: clustered (together) or kept (apart)")
    ap.add_argument("--clusters", required=True, help="write the clusters here, one JSON line each")
    ap.add_argument("--keep-list", help="write every page to keep here, ID<TAB>URL a line")
    ap.add_argument("--signatures", help="also write the signatures to this directory (Spark text output)")
    a = ap.parse_args(argv)

    spark = cs.session("crawlsieve dedup", a.master)
    started = time.time()
    try:
        if a.signatures:
            frame, _ = cs.dedup_signatures(spark, a.inputs, config=a.config)
            frame.select("signature").write.mode("overwrite").text(a.signatures)
        found = cs.dedup(spark, a.inputs, config=a.config, threshold=a.threshold, siblings=a.siblings)
    finally:
        spark.stop()
    with open(a.clusters, "w") as f:
        f.writelines(line + "\n" for line in found.clusters)
    if a.keep_list:
        with open(a.keep_list, "w") as f:
            f.writelines(f"{i}\t{u}\n" for i, u in found.keep)
    duplicates = sum(len(json.loads(c)["duplicates"]) for c in found.clusters)
    print(json.dumps({"files": found.files, "pages": found.pages, "clusters": len(found.clusters),
                      "duplicates": duplicates, "keep": len(found.keep)}))
    print(f"deduplicated {found.pages} pages of {found.files} files in {time.time() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
