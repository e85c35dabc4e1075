#!/usr/bin/env python3
"""Which of Common Crawl's 100 most frequent languages crawlsieve can name.

Reads bench/cc_languages_2024_42.tsv (CC-MAIN-2024-42's share of pages by
primary language, as CLD2 identifies it, from cc-crawl-statistics) and the
codes `crawlsieve languages` prints, and lists the top 100 with the detector
that names each (both, whatlang, profiles, langid, a macrolanguage) or none.
A language with no detector comes out `unknown` at best.

    cargo build --release
    python3 bench/cc_languages.py [--binary target/release/crawlsieve] [--top 100] [--markdown]
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# CLD2's codes where crawlsieve reports another for the same language.
ALIASES = {"zho": "cmn", "fas": "pes"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(HERE, "..", "target", "release", "crawlsieve"))
    ap.add_argument("--top", type=int, default=100)
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    rows = []
    for line in open(os.path.join(HERE, "cc_languages_2024_42.tsv")):
        if line.startswith("#") or line.startswith("code\t"):
            continue
        code, percent = line.split()
        rows.append((float(percent), code))
    rows.sort(reverse=True)
    listing = subprocess.run([a.binary, "languages"], capture_output=True, text=True, check=True).stdout
    by = {}
    for line in listing.splitlines()[1:]:
        code, _script, how = line.split("\t")[:3]
        by[code] = how
    top = rows[: a.top]
    total = sum(p for p, _ in rows)
    covered = [(p, c) for p, c in top if ALIASES.get(c, c) in by]
    missing = [(p, c) for p, c in top if ALIASES.get(c, c) not in by]
    if a.markdown:
        print("| rank | CLD2 code | % of pages | crawlsieve code | named by |")
        print("|---|---|---|---|---|")
    for i, (p, c) in enumerate(top, 1):
        ours = ALIASES.get(c, c)
        how = by.get(ours, "none: unknown at best")
        if a.markdown:
            print(f"| {i} | {c} | {p:.4f} | {ours if ours in by else '—'} | {how} |")
        else:
            print(f"{i:4} {c:4} {p:8.4f}  {ours if ours in by else '-':4} {how}")
    print(f"\n{len(covered)} of the top {len(top)} languages have a code "
          f"({sum(p for p, _ in covered):.3f} % of all pages; the top {len(top)} hold "
          f"{sum(p for p, _ in top):.3f} %, the {len(rows)} listed {total:.3f} %; CLD2 names no language for "
          f"3.278 %).")
    print("without one: " + ", ".join(f"{c} ({p:.4f} %)" for p, c in missing))


if __name__ == "__main__":
    sys.exit(main())
