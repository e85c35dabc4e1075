#!/usr/bin/env python3
"""A second throughput corpus of smaller pages: the HTML responses of the WARC
files in ../shared/data/warc (Common Crawl excerpts, a wget crawl) and the
trafilatura-eval pages (median 94 KB against WCXB's 139 KB), written as plain
HTML files so that every system reads the same bytes.

Usage: bench/small_pages.py [--out target/small-pages]
then:  bench/throughput.py --data target/small-pages
"""
import argparse, glob, gzip, os, shutil

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "shared", "data")


def records(path):
    """(headers, block) of every record of a WARC file, plain or gzipped."""
    raw = gzip.open(path).read() if path.endswith(".gz") else open(path, "rb").read()
    at = 0
    while True:
        start = raw.find(b"WARC/", at)
        if start < 0:
            return
        head_end = raw.find(b"\r\n\r\n", start)
        if head_end < 0:
            return
        headers = {}
        for line in raw[start:head_end].split(b"\r\n")[1:]:
            k, _, v = line.partition(b":")
            headers[k.strip().lower().decode("latin-1")] = v.strip().decode("latin-1")
        n = int(headers.get("content-length", "0"))
        block = raw[head_end + 4:head_end + 4 + n]
        yield headers, block
        at = head_end + 4 + n


def dechunk(body):
    out, at = bytearray(), 0
    while True:
        eol = body.find(b"\r\n", at)
        if eol < 0:
            return bytes(out)
        try:
            n = int(body[at:eol].split(b";")[0], 16)
        except ValueError:
            return bytes(out)
        if n == 0:
            return bytes(out)
        out += body[eol + 2:eol + 2 + n]
        at = eol + 2 + n + 2


def html_responses(path):
    for h, block in records(path):
        if h.get("warc-type") != "response":
            continue
        head, _, body = block.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        if not lines[0].startswith(b"HTTP/") or b" 200" not in lines[0]:
            continue
        fields = {l.partition(b":")[0].strip().lower(): l.partition(b":")[2].strip() for l in lines[1:]}
        if b"html" not in fields.get(b"content-type", b""):
            continue
        if b"chunked" in fields.get(b"transfer-encoding", b"").lower():
            body = dechunk(body)
        if body:
            yield body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "..", "target", "small-pages"))
    a = ap.parse_args()
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    n = size = 0
    for w in sorted(glob.glob(os.path.join(DATA, "warc", "*", "*.warc.gz"))):
        for body in html_responses(w):
            open(os.path.join(a.out, f"warc-{n:04d}.html"), "wb").write(body)
            n += 1
            size += len(body)
    warc = n
    for f in sorted(glob.glob(os.path.join(DATA, "extraction", "trafilatura-eval", "**", "*.html.gz"), recursive=True)):
        body = gzip.open(f).read()
        open(os.path.join(a.out, f"te-{n:04d}.html"), "wb").write(body)
        n += 1
        size += len(body)
    print(f"{n} pages ({warc} from WARC files, {n - warc} trafilatura-eval), {size / 1e6:.1f} MB, "
          f"mean {size / n / 1e3:.0f} KB, in {os.path.relpath(a.out)}")


if __name__ == "__main__":
    main()
