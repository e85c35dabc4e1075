#!/usr/bin/env python3
"""Title, author and date accuracy on WCXB dev, crawlsieve beside trafilatura.

WCXB's ground truth gives every page's title (1,497 pages), and the author
(739) and date published (782) where the page has them. Both extractors get the
page with its URL, in the same run: crawlsieve through `crawlsieve extract
--format json -` (pages as JSONL on stdin), trafilatura through
`bare_extraction(html, url=..., with_metadata=True)`.

Scores, per field:
- exact: the normalised value equals the truth (case, whitespace, surrounding
  punctuation and a leading "By" ignored), over the pages that have the field;
- token F1: mean bag-of-words F1 against the truth over those pages (a partly
  right author or title earns part);
- for dates also: wrong (a date that is not the truth) and spurious (a date on a
  page whose truth has none), since a wrong date is worse than none.
Page type (crawlsieve only): accuracy against the truth's type. The shipped model
was trained on these pages: the cross-validated figure is train_pagetype.py's.

Usage: bench/eval_metadata.py [--data DIR] [--binary PATH] [--no-peer]
"""
import argparse, collections, gzip, json, os, re, subprocess, sys, time, unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
WORD = re.compile(r"\w+")


def norm(s):
    s = unicodedata.normalize("NFKC", s or "").casefold()
    s = s.translate(str.maketrans("’‘“”", "''\"\""))
    s = re.sub(r"^\s*by\s+", "", s)
    return " ".join(s.split()).strip(" \t\"'“”‘’.,:;|-–—")


def token_f1(pred, ref):
    p, r = collections.Counter(WORD.findall(norm(pred))), collections.Counter(WORD.findall(norm(ref)))
    if not p or not r:
        return 0.0
    overlap = sum((p & r).values())
    if overlap == 0:
        return 0.0
    prec, rec = overlap / sum(p.values()), overlap / sum(r.values())
    return 2 * prec * rec / (prec + rec)


def load(data):
    gt_dir = os.path.join(data, "dev", "ground-truth")
    meta = json.load(open(os.path.join(data, "metadata.json")))["files"]
    pages = []
    for name in sorted(os.listdir(gt_dir)):
        fid = name[:-5]
        g = json.load(open(os.path.join(gt_dir, name)))
        html = gzip.open(os.path.join(data, "dev", "html", fid + ".html.gz")).read().decode("utf-8", "replace")
        pages.append(dict(id=fid, url=g.get("url") or f"https://{meta[fid]['domain']}/", html=html,
                          truth=g["ground_truth"], type=g["_internal"]["page_type"]["primary"]))
    return pages


def crawlsieve(binary, pages):
    jsonl = "".join(json.dumps({"url": p["url"], "html": p["html"]}) + "\n" for p in pages)
    t = time.perf_counter()
    out = subprocess.run([binary, "extract", "--format", "json", "-"], input=jsonl.encode(),
                         capture_output=True, check=False)
    secs = time.perf_counter() - t
    docs = [json.loads(l) for l in out.stdout.decode().splitlines()]
    assert len(docs) == len(pages), (len(docs), len(pages), out.stderr[-500:])
    return docs, secs


def trafilatura_meta(pages):
    import trafilatura
    docs = []
    t = time.perf_counter()
    for p in pages:
        try:
            d = trafilatura.bare_extraction(p["html"], url=p["url"], with_metadata=True)
            d = d.as_dict() if hasattr(d, "as_dict") else (d or {})
        except Exception:
            d = {}
        docs.append({"title": d.get("title"), "author": d.get("author"), "date": d.get("date")})
    return docs, time.perf_counter() - t


def score(pages, docs):
    out = {}
    for field, truth_key in [("title", "title"), ("author", "author"), ("date", "publish_date")]:
        have = [(p, d) for p, d in zip(pages, docs) if p["truth"].get(truth_key)]
        exact = sum(norm(d.get(field)) == norm(p["truth"][truth_key]) for p, d in have)
        f1 = sum(token_f1(d.get(field), p["truth"][truth_key]) for p, d in have)
        found = sum(bool(d.get(field)) for p, d in have)
        row = dict(pages=len(have), exact=exact / len(have), token_f1=f1 / len(have), found=found / len(have))
        if field == "date":
            wrong = sum(bool(d.get(field)) and d[field][:10] != p["truth"][truth_key][:10] for p, d in have)
            exact = sum(bool(d.get(field)) and d[field][:10] == p["truth"][truth_key][:10] for p, d in have)
            none = [(p, d) for p, d in zip(pages, docs) if not p["truth"].get(truth_key)]
            row.update(exact=exact / len(have), wrong=wrong / len(have),
                       spurious=sum(bool(d.get(field)) for p, d in none) / max(1, len(none)))
        out[field] = row
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "data", "extraction", "wcxb-dev"))
    ap.add_argument("--binary", default=os.path.join(HERE, "..", "target", "release", "crawlsieve"))
    ap.add_argument("--no-peer", action="store_true")
    args = ap.parse_args()
    pages = load(args.data)
    systems = {}
    docs, secs = crawlsieve(args.binary, pages)
    systems["crawlsieve"] = (docs, secs)
    if not args.no_peer:
        systems["trafilatura"] = trafilatura_meta(pages)
    print(f"WCXB dev, {len(pages)} pages")
    print(f"{'system':<12} {'field':<7} {'pages':>5} {'exact':>6} {'tokF1':>6} {'found':>6} {'wrong':>6} {'spur.':>6}")
    for name, (d, secs) in systems.items():
        for field, r in score(pages, d).items():
            extra = f" {r['wrong']:>6.3f} {r['spurious']:>6.3f}" if field == "date" else ""
            print(f"{name:<12} {field:<7} {r['pages']:>5} {r['exact']:>6.3f} {r['token_f1']:>6.3f} {r['found']:>6.3f}{extra}")
        print(f"{name:<12} time    {secs:.1f} s ({len(pages) / secs:.0f} pages/s, metadata with extraction)")
    right = sum(d.get("page_type") == p["type"] for p, d in zip(pages, docs))
    by_type = collections.defaultdict(lambda: [0, 0])
    for p, d in zip(pages, docs):
        by_type[p["type"]][0] += d.get("page_type") == p["type"]
        by_type[p["type"]][1] += 1
    print(f"crawlsieve page type: {right / len(pages):.3f} right (in-sample: the shipped model saw these pages); "
          + ", ".join(f"{t} {a / n:.2f}" for t, (a, n) in sorted(by_type.items())))


if __name__ == "__main__":
    main()
