#!/usr/bin/env python3
"""The Python package's throughput on real pages held in memory, beside the
CLI's `crawlsieve bench` on the same pages and trafilatura in the same run.

usage (after .ci/run, which builds the wheel into target/py-venv):
    target/py-venv/bin/pip install trafilatura==2.3.1   # the peer, once
    target/py-venv/bin/python bench/python_throughput.py [--corpus wcxb|trafilatura-eval] [--pages 400] [--repeat 3]
"""
import argparse
import gzip
import json
import os
import subprocess
import time
from pathlib import Path

import crawlsieve

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "extraction"


def corpus(name, n):
    """`(url, html)` of up to `n` pages, and their files (for the CLI)."""
    if name == "wcxb":
        html = DATA / "wcxb-dev" / "dev" / "html"
        files = sorted(html.iterdir())[:n]
        truth = html.parent / "ground-truth"
        urls = [json.loads((truth / (f.name.split(".")[0] + ".json")).read_text())["url"] for f in files]
    else:  # trafilatura's evaluation pages: file names are host.path
        files = sorted((DATA / "trafilatura-eval" / "tests" / "cache").iterdir())[:n]
        urls = ["http://" + f.name.removesuffix(".html.gz").replace(".", "/", 2) for f in files]
    return [(u, gzip.decompress(f.read_bytes())) for u, f in zip(urls, files)], files


def best(f, repeat):
    """Fastest of `repeat` runs (the machine is shared and noisy)."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=400)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--corpus", choices=["wcxb", "trafilatura-eval"], default="wcxb")
    args = ap.parse_args()
    pages, files = corpus(args.corpus, args.pages)
    mb = sum(len(h) for _, h in pages) / 1e6
    p = crawlsieve.Pipeline()
    rows = []
    for threads in (1, 2):
        s = best(lambda: p.process_many(pages, threads=threads), args.repeat)
        rows.append((f"process_many, {threads} thread{'s' if threads > 1 else ''}", s))
    s = best(lambda: [p.process(u, h) for u, h in pages], args.repeat)
    rows.append(("process, one call per page", s))
    cli = REPO / "target" / "release" / "crawlsieve"
    out = subprocess.run([cli, "bench", "--json", "--repeat", str(args.repeat), *map(str, files)],
                         check=True, capture_output=True, text=True).stdout
    cli_mb_s = json.loads(out)["mb_per_s"]
    try:
        import trafilatura
        s = best(lambda: [trafilatura.extract(h.decode("utf-8", "replace"), url=u) for u, h in pages], 1)
        rows.append((f"trafilatura {trafilatura.__version__} extract, 1 thread", s))
    except ImportError:
        pass
    print(f"{len(pages)} {args.corpus} pages ({mb:.1f} MB) in memory; best of {args.repeat}; "
          f"{os.cpu_count()} cores")
    print(f"{'crawlsieve bench (CLI, 1 core)':42} {cli_mb_s:7.1f} MB/s  1.00× CLI")
    for name, s in rows:
        print(f"{name:42} {mb / s:7.1f} MB/s  {len(pages) / s:6.0f} pages/s  {mb / s / cli_mb_s:.2f}× CLI")


if __name__ == "__main__":
    main()
