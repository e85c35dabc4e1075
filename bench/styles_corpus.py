#!/usr/bin/env python3
"""The corpus of the style-similarity measurements (issue 16, seed 003): every
page of ../shared/data/extraction with its URL, as JSONL page lines
({"url", "html"}), so that pages can be paired by registered domain. The WARC
files of ../shared/data/warc carry their own URLs and are read as they are.

Usage: bench/styles_corpus.py [--out target/styles-corpus.jsonl]
then:  cargo run --release -p crawlsieve-bench --example styles -- target/styles-corpus.jsonl ../shared/data/warc
"""
import argparse, glob, gzip, json, os

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "shared", "data", "extraction")


def read(path):
    raw = gzip.open(path).read() if path.endswith(".gz") else open(path, "rb").read()
    return raw.decode("utf-8", errors="replace")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "..", "target", "styles-corpus.jsonl"))
    a = ap.parse_args()
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    n = 0
    with open(a.out, "w") as out:
        wcxb = os.path.join(DATA, "wcxb-dev", "dev")
        for gt in sorted(glob.glob(os.path.join(wcxb, "ground-truth", "*.json"))):
            page = os.path.join(wcxb, "html", os.path.basename(gt)[:-5] + ".html.gz")
            if not os.path.exists(page):
                continue
            url = json.load(open(gt)).get("url")
            if url:
                out.write(json.dumps({"url": url, "html": read(page)}) + "\n")
                n += 1
        tests = os.path.join(DATA, "trafilatura-eval", "tests")
        for url, item in sorted(json.load(open(os.path.join(tests, "evaldata.json"))).items()):
            for cand in ("cache/" + item["file"], "cache/" + item["file"] + ".gz",
                         "eval/" + item["file"], "eval/" + item["file"] + ".gz"):
                path = os.path.join(tests, cand)
                if os.path.exists(path):
                    out.write(json.dumps({"url": url, "html": read(path)}) + "\n")
                    n += 1
                    break
    print(f"{n} pages -> {a.out}")


if __name__ == "__main__":
    main()
