#!/usr/bin/env python3
"""How fast the archive readers are, by container and compression, on the same pages.

The 1,607 pages of ../shared/data/extraction (WCXB dev, trafilatura-eval's cache) are wrapped into WARC
response records (each with its HTTP header), written as WARC (plain; gzip, a member a record),
ARC (plain; gzip) by tests/python/archives.py, and LZ4 WARC by FastWARC's `recompress`. Each is
read by `crawlsieve bench --mode read` (the file held in memory, best of --repeat passes, one
core), in --rounds interleaved rounds; the figures are pages a second and MB/s of the file's bytes.
Targets (issue 79): LZ4 at or above gzip; ARC within 10 % of WARC, plain against plain and gzip
against gzip. Needs a release build (cargo build --release).

Usage: bench/archives.py [--rounds 5] [--repeat 5]
"""
import argparse, gzip, glob, json, os, statistics, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
DATA = os.path.join(ROOT, "..", "shared", "data", "extraction")
OUT = os.path.join(ROOT, "target", "archives-bench")
BIN = os.path.join(ROOT, "target", "release", "crawlsieve")


def venv():
    py = os.path.join(ROOT, "target", "archives-venv", "bin", "python")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", os.path.dirname(os.path.dirname(py))], check=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "-r",
                        os.path.join(ROOT, "tests", "python", "requirements.txt")], check=True)
    return py


def record(i, html):
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n\r\n" % len(html) + html
    head = ("WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\n"
            "WARC-Date: 2026-12-01T00:00:00Z\r\nWARC-Target-URI: http://bench.example/%d\r\n"
            "Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n") % (i, i, len(http))
    return head.encode() + http + b"\r\n\r\n"


def build(py):
    os.makedirs(OUT, exist_ok=True)
    pages = sorted(glob.glob(os.path.join(DATA, "wcxb-dev", "dev", "html", "*.html.gz")))
    pages += sorted(glob.glob(os.path.join(DATA, "trafilatura-eval", "tests", "cache", "*.html.gz")))
    records = [record(i, gzip.open(p).read()) for i, p in enumerate(pages)]
    files = {"warc": os.path.join(OUT, "pages.warc"), "warc.gz": os.path.join(OUT, "pages.warc.gz")}
    with open(files["warc"], "wb") as f:
        f.write(b"".join(records))
    with open(files["warc.gz"], "wb") as f:
        for r in records:
            f.write(gzip.compress(r, 6))
    helper = os.path.join(ROOT, "tests", "python", "archives.py")
    for kind in ("arc", "arc.gz"):
        files[kind] = os.path.join(OUT, "pages." + kind)
        subprocess.run([py, helper, "warc-to-arc", files["warc.gz"], files[kind]], check=True)
    files["warc.lz4"] = os.path.join(OUT, "pages.warc.lz4")
    subprocess.run([py, helper, "lz4", files["warc.gz"], files["warc.lz4"]], check=True)
    return len(records), files


def read(path, repeat):
    out = subprocess.run([BIN, "bench", "--mode", "read", "--json", "--repeat", str(repeat), path],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    n, files = build(venv())
    assert n > 1000, f"{n} pages: is ../shared/data there?"
    runs = {k: [] for k in files}
    for _ in range(a.rounds):
        for k, path in files.items():
            runs[k].append(read(path, a.repeat))
    print(f"{n} pages; `crawlsieve bench --mode read`, best of {a.repeat} passes, {a.rounds} interleaved rounds; median (min-max)")
    med = {}
    for k, rs in runs.items():
        pps = [r["pages_per_s"] for r in rs]
        mbs = [r["mb_per_s"] for r in rs]
        assert all(r["pages"] == n for r in rs), (k, rs[0])
        med[k] = statistics.median(pps)
        print(f"  {k:9} {os.path.getsize(files[k]) / 1e6:7.1f} MB  {med[k]:8.0f} pages/s ({min(pps):.0f}-{max(pps):.0f})"
              f"  {statistics.median(mbs):7.1f} MB/s of the file")
    ratio = lambda a, b: [x["pages_per_s"] / y["pages_per_s"] for x, y in zip(runs[a], runs[b])]
    for a_, b_ in (("warc.lz4", "warc.gz"), ("arc", "warc"), ("arc.gz", "warc.gz")):
        r = ratio(a_, b_)
        print(f"  {a_} / {b_}: {statistics.median(r):.3f} ({min(r):.3f}-{max(r):.3f}) pages/s, round by round")


if __name__ == "__main__":
    main()
