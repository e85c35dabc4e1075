#!/usr/bin/env python3
"""FineWeb's URL filter at fetch time against datatrove's own, URL by URL.

crawlsieve's `filters.urls` (the UT1 adult list as a block list, and FineWeb's URL words) and datatrove
0.10's `URLFilter` (the same list, from its wheel, and the same words) judge the same URLs: the real
URLs of the extraction benchmark and the crawl WARCs in ../shared/data, and URLs made from the list's
own entries (a listed domain, a host under it, a listed URL prefix), where the two must block. Every
disagreement is put in a documented class (docs/corpus-filters.md, "URL rules") or printed.

    python3 -m venv /tmp/dtv && /tmp/dtv/bin/pip install datatrove==0.10.1 tldextract pyahocorasick regex fasteners
    /tmp/dtv/bin/python bench/url_filter.py --ut1 /tmp/ut1-adult

`--ut1` is the list extracted from datatrove's wheel (the command in docs/corpus-filters.md).
"""

import argparse
import glob
import gzip
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def real_urls(shared):
    urls = []
    for f in sorted(glob.glob(f"{shared}/data/extraction/wcxb-dev/dev/ground-truth/*.json")):
        urls.append(json.load(open(f)).get("url") or "")
    for f in sorted(glob.glob(f"{shared}/data/warc/*/*")):
        opener = gzip.open if f.endswith(".gz") else open
        try:
            with opener(f, "rb") as r:
                for line in r:
                    if line.startswith(b"WARC-Target-URI:"):
                        urls.append(line.split(b":", 1)[1].strip().decode("utf-8", "replace"))
        except (OSError, EOFError):
            pass
    return sorted(set(u for u in urls if u.startswith("http")))


def made_urls(ut1, n, seed):
    rng = random.Random(seed)
    domains = [l.strip() for l in open(f"{ut1}/domains") if l.strip() and l[0] != "#"]
    prefixes = [l.strip() for l in open(f"{ut1}/urls") if l.strip() and l[0] != "#"]
    made = []
    for d in rng.sample(domains, n):
        made.append(("listed domain", f"https://{d}/"))
        made.append(("host under a listed domain", f"https://blog.{d}/a/page.html"))
    for p in rng.sample(prefixes, min(n, len(prefixes))):
        made.append(("listed URL prefix", f"http://{p}"))
    return made


def ours(binary, ut1, urls):
    with tempfile.TemporaryDirectory() as d:
        pages = os.path.join(d, "urls.jsonl")
        with open(pages, "w") as w:
            for u in urls:
                w.write(json.dumps({"url": u, "text": "a"}) + "\n")
        started = time.time()
        out = subprocess.run(
            [binary, "scan", "-j", "1", "--set", "filters.urls.words=true",
             "--set", f"filters.urls.block={ut1}", pages],
            check=True, capture_output=True, text=True,
        ).stdout
        took = time.time() - started
    verdicts = [json.loads(l) for l in out.splitlines() if l.strip()]
    by_url = {v["url"]: v for v in verdicts}
    return {u: by_url[u].get("url_listed") for u in urls}, took


def theirs(urls):
    from datatrove.data import Document
    from datatrove.pipeline.filters import URLFilter
    from tldextract import TLDExtract

    f = URLFilter()
    # The suffix list datatrove's tldextract would fetch: its bundled snapshot (no network here).
    f.tldextractor = TLDExtract(suffix_list_urls=())
    started = time.time()
    f.download_data()
    decided = {}
    for i, u in enumerate(urls):
        r = f.filter(Document(text="a", id=str(i), metadata={"url": u}))
        decided[u] = None if r is True else r[1]
    return decided, time.time() - started, f.tldextractor


def explain(url, listed, why, extract):
    """A disagreement's documented class, or None."""
    if listed and why is None:
        entry = listed["entry"]
        if "/" in entry:
            return "ours: a listed URL prefix (datatrove's URL entries never match)"
        if re.fullmatch(r"[0-9.]+", entry):
            return "ours: an IP address entry (datatrove's tldextract gives an IP host no domain)"
        info = extract(url)
        if entry not in (info.top_domain_under_public_suffix, info.fqdn):
            return "ours: a host under a listed domain that is not its registered domain"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ut1", required=True)
    ap.add_argument("--shared", default=os.path.join(REPO, "..", "shared"))
    ap.add_argument("--binary", default=os.path.join(REPO, "target/release/crawlsieve"))
    ap.add_argument("--made", type=int, default=5000, help="URLs made from each kind of list entry")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    groups = [("real", u) for u in real_urls(args.shared)] + made_urls(args.ut1, args.made, args.seed)
    urls = sorted(set(u for _, u in groups))
    mine, my_time = ours(args.binary, args.ut1, urls)
    dt, dt_time, extract = theirs(urls)
    print(f"{len(urls)} URLs; crawlsieve {my_time:.1f} s (lists loaded, scan), datatrove {dt_time:.1f} s")
    unexplained = 0
    for group in sorted(set(g for g, _ in groups)):
        us = sorted(set(u for g, u in groups if g == group))
        agree = sum((mine[u] is not None) == (dt[u] is not None) for u in us)
        blocked = sum(mine[u] is not None for u in us), sum(dt[u] is not None for u in us)
        classes = {}
        for u in us:
            if (mine[u] is not None) != (dt[u] is not None):
                c = explain(u, mine[u], dt[u], extract)
                classes[c] = classes.get(c, 0) + 1
                if c is None:
                    unexplained += 1
                    print(f"  unexplained: {u} ours={mine[u]} datatrove={dt[u]}", file=sys.stderr)
        print(f"{group}: {len(us)} URLs, blocked {blocked[0]} (crawlsieve) / {blocked[1]} (datatrove), "
              f"agree {agree / len(us):.4f}")
        for c, n in sorted(classes.items(), key=lambda kv: -kv[1]):
            print(f"    {n} {c or 'UNEXPLAINED'}")
    sys.exit(1 if unexplained else 0)


if __name__ == "__main__":
    main()
