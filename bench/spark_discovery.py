#!/usr/bin/env python3
"""Blind discovery on Spark against `labels count` + `labels discover` on one
machine (issue 49): per-core throughput, linearity from 1x to 8x, shuffle
volume per page, and the set compared byte for byte.

Corpus: every page of ../shared/data/extraction (WCXB dev + trafilatura-eval,
2,487 real pages from as many sites) dealt into 8 JSONL files (1x); k x is the
same files k times over (so counts grow as a crawl's repeats do). One core:
both sides pinned to CPU 0 with taskset, `labels count --workers 1` against
Spark `local[1]`. Linearity: Spark `local[2]` on 1x, 2x, 4x, 8x. The Spark
figures time the job alone (session started and warmed first); shuffle bytes
come from Spark's own stage metrics (its REST API on loopback).

Usage: cargo build --release && (python wheel installed in target/py-venv)
       target/py-venv/bin/python bench/spark_discovery.py [--scales 1,2,4,8]
"""
import argparse, glob, gzip, json, os, statistics, subprocess, sys, time, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, ".."))
BIN = os.path.join(ROOT, "target", "release", "crawlsieve")
EPOCH = "1700000000"


def build_corpus(data, out, files=8):
    pages = sorted(glob.glob(os.path.join(data, "**", "*.html.gz"), recursive=True)
                   + glob.glob(os.path.join(data, "**", "*.html"), recursive=True))
    base = os.path.join(out, "pages")
    os.makedirs(base, exist_ok=True)
    handles = [open(os.path.join(base, f"part-{i}.jsonl"), "w") for i in range(files)]
    size = 0
    for i, p in enumerate(pages):
        raw = gzip.open(p).read() if p.endswith(".gz") else open(p, "rb").read()
        size += len(raw)
        handles[i % files].write(json.dumps({"url": f"http://site{i}.example/page.html",
                                             "html": raw.decode("utf-8", "replace")}) + "\n")
    for h in handles:
        h.close()
    return base, len(pages), size


def scaled(out, base, k):
    d = os.path.join(out, f"x{k}")
    os.makedirs(d, exist_ok=True)
    for r in range(k):
        for f in sorted(x for x in os.listdir(base) if x.startswith("part-")):
            link = os.path.join(d, f"r{r}-{f}")
            if not os.path.exists(link):
                os.symlink(os.path.join(base, f), link)
    return d


def one_machine(inputs, out, threshold, key):
    env = dict(os.environ, SOURCE_DATE_EPOCH=EPOCH)
    counts = os.path.join(out, "one.cscounts")
    t = time.perf_counter()
    subprocess.run(["taskset", "-c", "0", BIN, "labels", "count", "--workers", "1", "-o", counts, inputs],
                   check=True, capture_output=True, env=env)
    count_s = time.perf_counter() - t
    t = time.perf_counter()
    subprocess.run(["taskset", "-c", "0", BIN, "labels", "discover", "--threshold", str(threshold), "--name", "b",
                    "--key", key, "-o", os.path.join(out, "one.cslab"), counts], check=True, capture_output=True,
                   env=env)
    return count_s, time.perf_counter() - t


def spark_run(master, inputs, output, threshold, key, pin):
    cmd = [sys.executable, __file__, "--run", master, "--threshold", str(threshold), "--key", key,
           "--output", output, inputs]
    if pin:
        cmd = ["taskset", "-c", "0"] + cmd
    out = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, SOURCE_DATE_EPOCH=EPOCH))
    if out.returncode != 0:
        sys.exit(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_one(a):
    """In a child process: one Spark session, a warm-up, the timed job, its shuffle bytes."""
    import crawlsieve.spark as cs
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (SparkSession.builder.master(a.run).appName("bench")
             .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
             .config("spark.ui.port", "4747").config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.extraJavaOptions", cs.LOCAL_JAVA_OPTIONS).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    # JVM up and a Python worker started (a SQL job alone starts no Python
    # worker: the daemon's start, ~0.6 s of imports, would be timed as the job's).
    spark.range(100).selectExpr("sum(id)").collect()
    spark.sparkContext.parallelize(range(4), 1).map(lambda x: x + 1).collect()
    t = time.perf_counter()
    d = cs.discover(spark, a.inputs, threshold=a.threshold, name="b", key=a.key, output=a.output)
    seconds = time.perf_counter() - t
    app = spark.sparkContext.applicationId
    stages = json.load(urllib.request.urlopen(f"http://127.0.0.1:4747/api/v1/applications/{app}/stages"))
    shuffle = sum(s.get("shuffleWriteBytes", 0) for s in stages)
    spark.stop()
    print(json.dumps({"seconds": seconds, "documents": d.documents, "keys": d.keys, "shuffle_bytes": shuffle}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "extraction"))
    ap.add_argument("--out", default=os.path.join(ROOT, "target", "spark-bench"))
    ap.add_argument("--scales", default="1,2,4,8")
    ap.add_argument("--threshold", type=int, help="default: the scale k (k copies of a page count k: only the corpus's own repeats pass, as at 1x)")
    ap.add_argument("--one-core-scale", type=int, default=4, help="the input the one-core comparison runs on")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each side in the one-core comparison")
    ap.add_argument("--run", help=argparse.SUPPRESS)
    ap.add_argument("--key", help=argparse.SUPPRESS)
    ap.add_argument("--output", help=argparse.SUPPRESS)
    ap.add_argument("inputs", nargs="*", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.run:
        return run_one(a)
    os.makedirs(a.out, exist_ok=True)
    key = os.path.join(a.out, "hub.key")
    if not os.path.exists(key):
        subprocess.run([BIN, "labels", "keygen", "-o", key], check=True, capture_output=True)
    base, pages, size = build_corpus(a.data, a.out)
    print(f"corpus 1x: {pages} pages, {size / 1e6:.1f} MB in 8 JSONL files ({a.out})")
    cmd = "target/py-venv/bin/python bench/spark_discovery.py"
    k = a.one_core_scale
    inputs = scaled(a.out, base, k)
    # Both sides in turn, `--repeat` times: on a shared 2-core machine one run
    # of either varies by 20 %; the ratio is of the medians, the spread shown.
    machine, spark = [], []
    for _ in range(a.repeat):
        machine.append(sum(one_machine(inputs, a.out, a.threshold or k, key)))
        one = spark_run("local[1]", inputs, os.path.join(a.out, "spark1.cslab"), a.threshold or k, key, pin=True)
        spark.append(one["seconds"])
    same = open(os.path.join(a.out, "one.cslab"), "rb").read() == open(os.path.join(a.out, "spark1.cslab"), "rb").read()
    n = pages * k
    m, s = statistics.median(machine), statistics.median(spark)
    print(f"| one core, {k}x ({n} pages), median of {a.repeat} | labels count + discover {m:.1f} s "
          f"({min(machine):.1f}-{max(machine):.1f}; {n / m:.0f} pages/s) | Spark local[1] {s:.1f} s "
          f"({min(spark):.1f}-{max(spark):.1f}; {n / s:.0f} pages/s) | Spark / one machine {m / s:.2f} "
          f"(pairs {min(x / y for x, y in zip(machine, spark)):.2f}-{max(x / y for x, y in zip(machine, spark)):.2f})"
          f" | set identical: {same} | {one['keys']} keys | `{cmd}` |")
    first = None
    for k in [int(x) for x in a.scales.split(",")]:
        d = scaled(a.out, base, k)
        r = spark_run("local[2]", d, os.path.join(a.out, f"spark-x{k}.cslab"), a.threshold or k, key, pin=False)
        per_page = r["seconds"] / (pages * k)
        first = first or per_page
        print(f"| local[2], {k}x | {pages * k} pages | {r['seconds']:.1f} s | {pages * k / r['seconds']:.0f} pages/s"
              f" | time per page vs 1x {per_page / first:.2f} | shuffle {r['shuffle_bytes'] / (pages * k):.0f} B/page"
              f" | {r['keys']} keys | `{cmd} --scales {a.scales}` |")


if __name__ == "__main__":
    main()
