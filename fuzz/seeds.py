#!/usr/bin/env python3
"""Makes the fuzzers' seed corpora under fuzz/corpus/<target>/ from real data:
small WCXB and trafilatura-eval pages, the real WARC samples of ../shared/data,
the bundled example crawl, the shipped model files, and a labeled set built by
the release binary when there is one. Idempotent; the corpora are not
committed (the fuzzers add to them as they run).

Usage: fuzz/seeds.py [--shared ../shared] [--binary target/release/crawlsieve]
"""
import argparse, gzip, hashlib, json, os, struct, subprocess, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def put(target, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def small_pages(shared, n, limit=60_000):
    pages = []
    for sub in ["extraction/wcxb-dev/dev/html", "extraction/trafilatura-eval/tests/eval"]:
        d = os.path.join(shared, "data", sub)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith(".gz"):
                body = gzip.open(os.path.join(d, name)).read()
                if len(body) <= limit:
                    pages.append(body)
    pages.sort(key=len)
    # Spread over sizes rather than only the very smallest.
    step = max(1, len(pages) // n)
    return pages[::step][:n]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=os.path.join(REPO, "..", "shared"))
    ap.add_argument("--binary", default=os.path.join(REPO, "target", "release", "crawlsieve"))
    a = ap.parse_args()

    pages = small_pages(a.shared, 40)
    for i, body in enumerate(pages):
        put("pipeline", bytes([i % 16]) + body)
    for tiny in [b"", b"<p>a</p>", b"<html><head><meta charset=shift_jis></head><body>\x82\xa0</body>",
                 b'<script type="application/ld+json">{"@type":"Article","headline":"h"}</script><h1>h</h1>',
                 b"<table><tr><td>a<td>b<tr><td>c</table><ol><li>x<li>y</ol><pre>z</pre>"]:
        put("pipeline", b"\x01" + tiny)

    example = os.path.join(REPO, "examples", "crawl.warc.gz")
    put("warc", open(example, "rb").read())
    put("warc", gzip.open(example).read())
    warc_dir = os.path.join(a.shared, "data", "warc")
    for root, _, files in os.walk(warc_dir):
        for name in sorted(files):
            if name.endswith(".warc.gz"):
                raw = open(os.path.join(root, name), "rb").read()
                put("warc", raw[:65536])
                put("warc", gzip.decompress(raw)[:65536])
            elif name.endswith((".arc", ".arc.gz", ".warc")):
                # warcio's test files: ARC (plain, gzip), broken WARCs, revisits.
                put("warc", open(os.path.join(root, name), "rb").read()[:65536])

    lines = [json.dumps({"url": f"https://e{i}.example/p", "html": p.decode("utf-8", "replace"),
                         "status": 200, "content_type": "text/html"}) for i, p in enumerate(pages[:8])]
    put("jsonl", "\n".join(lines).encode())
    put("jsonl", b'{"url": "x"}\nnot json\n{"url": "https://a/", "html": "<p>x</p>"}\n')

    put("crawllog", b"2026-11-22T10:00:01.000Z   200      12345 http://copier.example/a L http://seed.example/ "
                    b"text/html #001 20261122100000000+12 sha1:AAAA - -\nnot a crawl.log line\n")

    for model in ["extractor.json", "pagetype.json"]:
        put("models", open(os.path.join(REPO, "rules", model), "rb").read())

    # Hub requests: a selector byte (method bits 0-1, token bits 2-3), the target, a newline, the body.
    hexes = b"da39a3ee5e6b4b0d3255bfef95601890afd80709\n"
    for selector, target, body in [
        (0, b"/v1/sets", b""), (0, b"/v1/sets/seed", b""), (0, b"/v1/sets/seed/full?version=1", b""),
        (0, b"/v1/sets/seed/delta?from=1", b""), (0, b"/v1/sets/seed/next?after=1&wait=300", b""),
        (0, b"/healthz", b""), (5, b"/v1/sets/new", hexes), (1, b"/v1/sets/new", hexes),
        (9, b"/v1/sets/new", hexes), (5, b"/v1/sets/%2e%2e", hexes), (5, b"/v1/sets/seed", b"CSLABELS\x01"),
    ]:
        put("hub", bytes([selector]) + target + b"\n" + body)

    if os.path.exists(a.binary):
        with tempfile.TemporaryDirectory() as t:
            key = os.path.join(t, "k")
            subprocess.run([a.binary, "labels", "keygen", "-o", key], check=True, capture_output=True)
            out = os.path.join(t, "set.csl")
            subprocess.run([a.binary, "labels", "build", "--name", "fuzz", "--key", key, "-o", out, example],
                           check=True, capture_output=True)
            data = open(out, "rb").read()
            # Two bytes: where the set ends and the delta begins (none here).
            put("labels", struct.pack("<H", min(len(data), 65535)) + data)
    print("corpora:", {t: len(os.listdir(os.path.join(HERE, "corpus", t)))
                       for t in sorted(os.listdir(os.path.join(HERE, "corpus")))})


if __name__ == "__main__":
    main()
