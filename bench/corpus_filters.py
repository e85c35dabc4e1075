#!/usr/bin/env python3
"""The corpus rule sets against datatrove's, on the same text.

For each document of a corpus, the text is given to `crawlsieve scan` as a text input
(JSONL `{"url", "text"}`) with one rule set on, and to datatrove 0.10's filter of that set;
the keep/drop decisions are compared. The DSpin filters are turned off (`min_words = 0`) and
language does not drop, so that only the rule set decides.

Corpora (texts):
- wcxb: crawlsieve's extracted content of the WCXB dev pages (1,497 HTML pages);
- wcxb-truth: WCXB's ground-truth main texts (written by people, not by an extractor);
- trafilatura: crawlsieve's extracted content of trafilatura's evaluation pages;
- warc: crawlsieve's extracted content of the real crawl WARCs in ../shared/data/warc (Common Crawl
  excerpts, Dolma samples), every page with a word of content.

    target/dt-venv/bin/pip install datatrove==0.10.1 spacy regex orjson
    python3 bench/corpus_filters.py [--corpus wcxb|wcxb-truth|trafilatura|warc|all] [--show 5] [--speed]

Prints, per rule set: documents, kept by each, agreement, and the disagreements' rules
and values. `--speed`: each filter's time in datatrove and the rule set's time in
crawlsieve on the same texts (text alone, one core), via `crawlsieve bench-rules`.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
BIN = REPO / "target/release/crawlsieve"
SETS = ["gopher_repetition", "gopher_quality", "c4", "fineweb"]


def extracted(directory):
    out = subprocess.run([str(BIN), "extract", "--format", "json", str(directory)],
                         capture_output=True, text=True).stdout
    docs = []
    for line in out.splitlines():
        p = json.loads(line)
        if p.get("text"):
            docs.append((p.get("path") or p.get("url") or str(len(docs)), p["text"]))
    return docs


def truth():
    docs = []
    for f in sorted((SHARED / "extraction/wcxb-dev/dev/ground-truth").glob("*.json")):
        text = json.load(open(f))["ground_truth"].get("main_content") or ""
        if text.strip():
            docs.append((f.name, text))
    return docs


def warcs():
    """Extracted content of the real crawl WARCs beside the repository (Common Crawl, Dolma samples)."""
    files = [*sorted((SHARED / "warc").glob("*/*.warc.gz"))]
    with tempfile.TemporaryDirectory() as d:
        conf = Path(d) / "all.toml"
        conf.write_text('[filters]\nmin_words = 1\nmax_link_density = 1000\n[output]\ncontent = true\n')
        out = subprocess.run([str(BIN), "scan", "--config", str(conf), *map(str, files)],
                             capture_output=True, text=True).stdout
    docs = []
    for line in out.splitlines():
        v = json.loads(line)
        if v.get("content"):
            docs.append((v["url"], v["content"]))
    return docs


CORPORA = {
    "wcxb": lambda: extracted(SHARED / "extraction/wcxb-dev/dev/html"),
    "wcxb-truth": truth,
    "trafilatura": lambda: extracted(SHARED / "extraction/trafilatura-eval/tests/cache"),
    "warc": warcs,
}


def ours(docs, rule_set):
    """{id: (kept, rule, value)} from crawlsieve scan with one rule set on."""
    with tempfile.TemporaryDirectory() as d:
        pages = Path(d) / "docs.jsonl"
        with open(pages, "w") as f:
            for i, (_, text) in enumerate(docs):
                f.write(json.dumps({"url": f"http://doc.example/{i}", "text": text}) + "\n")
        conf = Path(d) / "rules.toml"
        conf.write_text(f'[filters]\nmin_words = 0\nrules = ["{rule_set}"]\n[language]\nunknown = "keep"\n')
        out = subprocess.run([str(BIN), "scan", "--config", str(conf), str(pages)],
                             capture_output=True, text=True, check=True).stdout
    res = {}
    for line in out.splitlines():
        v = json.loads(line)
        if "verdict" not in v:
            continue
        i = int(v["url"].rsplit("/", 1)[1])
        r = v.get("rule_failed") or {}
        dropped_by_set = rule_set in v["reasons"]
        other = v["verdict"] == "drop" and not dropped_by_set
        res[i] = (not dropped_by_set, r.get("rule") or ("other:" + ",".join(v["reasons"]) if other else None),
                  r.get("value"))
    return res


def theirs(docs, rule_set):
    from datatrove.data import Document
    from datatrove.pipeline.filters import (C4QualityFilter, FineWebQualityFilter, GopherQualityFilter,
                                            GopherRepetitionFilter)
    f = {"gopher_repetition": GopherRepetitionFilter, "gopher_quality": GopherQualityFilter,
         "c4": C4QualityFilter, "fineweb": FineWebQualityFilter}[rule_set]()
    res, started = {}, time.process_time()
    for i, (_, text) in enumerate(docs):
        try:
            r = f.filter(Document(text=text, id=str(i)))
        except ZeroDivisionError:
            r = (False, "ZeroDivisionError")
        res[i] = (True, None) if r is True else (False, r[1])
    return res, time.process_time() - started


def compare(name, docs, rule_set, show):
    a = ours(docs, rule_set)
    b, seconds = theirs(docs, rule_set)
    n = len(docs)
    agree = sum(1 for i in range(n) if a[i][0] == b[i][0])
    # Of the documents both drop, those dropped for the same rule.
    both = [i for i in range(n) if not a[i][0] and not b[i][0]]
    same_rule = sum(1 for i in both if a[i][1] == b[i][1])
    kept_a = sum(1 for i in range(n) if a[i][0])
    kept_b = sum(1 for i in range(n) if b[i][0])
    print(f"{name:12} {rule_set:18} docs {n:5}  kept: crawlsieve {kept_a:5} datatrove {kept_b:5}  "
          f"agree {agree}/{n} = {agree / n:.4f}, same rule {same_rule}/{len(both)}  (datatrove {seconds:.2f} s CPU)")
    shown = 0
    for i in range(n):
        if a[i][0] != b[i][0] and shown < show:
            shown += 1
            print(f"    {docs[i][0]}: crawlsieve {'keep' if a[i][0] else 'drop ' + str(a[i][1]) + '=' + str(a[i][2])}"
                  f" | datatrove {'keep' if b[i][0] else 'drop ' + str(b[i][1])}")
    return agree, n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", choices=[*CORPORA, "all"], default="all")
    ap.add_argument("--sets", nargs="*", default=SETS)
    ap.add_argument("--show", type=int, default=5)
    a = ap.parse_args()
    names = list(CORPORA) if a.corpus == "all" else [a.corpus]
    worst = 1.0
    for name in names:
        docs = CORPORA[name]()
        for s in a.sets:
            agree, n = compare(name, docs, s, a.show)
            worst = min(worst, agree / n)
    print(f"lowest agreement: {worst:.4f}")


if __name__ == "__main__":
    main()
