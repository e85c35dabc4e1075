#!/usr/bin/env python3
"""Builds rules/mutables.tsv.gz: the words a spinner's dictionary can replace (DSpin's mutables).

A spinner swaps the words its synonym dictionary knows; every other word of a page survives every
spin of it, in order: the page's immutables (docs/algorithms.md, "Immutables"). The words counted
mutable here are, for English, Princeton WordNet 3.0's single-word lemmas that share a synset with
another lemma (Debian's `wordnet-base`, under the WordNet 3.0 licence: rules/mutables.NOTICE).

Only the lemmas, not their inflections: measured on 300 WCXB articles spun by a thesaurus we do not
ship (bench/HISTORY.md, "Spun content"), counting inflections too leaves mostly function words as
immutables, and unrelated articles then share 3x more immutable 4-grams.

Beside each language's mutables, its 100 most frequent words (from rules/words.tsv.gz, wordfreq): a
gram of immutables counts only with two words outside them (nor one character long), since runs of function words ("of the and
the") are in every article, and a labeled set of many articles holds most of them.

Format: `#` comments, a `version<TAB>N` line, then per language a line of its ISO 639-3 code, a tab,
and its mutables, and a line of `CODE.common`, a tab, and its common words (lower case, ASCII letters
and digits: one word each by the shingle tokenizer's rule; space-separated). The version goes into
labeled sets: the immutables of a page depend on it.

    apt-get install wordnet-base
    bench/build_mutables.py            # writes rules/mutables.tsv.gz
"""
import gzip, re, sys
from pathlib import Path

VERSION = 1
COMMON = 100
REPO = Path(__file__).resolve().parent.parent
WN = Path("/usr/share/wordnet")
ONE_WORD = re.compile(r"^[a-z0-9]+$")


def wordnet_mutables():
    """Single-word lemmas of every synset with more than one lemma."""
    out = set()
    for pos in ("noun", "verb", "adj", "adv"):
        for line in open(WN / f"data.{pos}", encoding="latin-1"):
            if line.startswith("  "):
                continue
            f = line.split()
            n = int(f[3], 16)
            if n < 2:
                continue
            for i in range(n):
                w = re.sub(r"\(.*\)$", "", f[4 + 2 * i].lower())
                if ONE_WORD.match(w):
                    out.add(w)
    return out


def main():
    if not (WN / "data.noun").exists():
        sys.exit("needs Debian's wordnet-base (apt-get install wordnet-base)")
    eng = sorted(wordnet_mutables())
    words = gzip.open(REPO / "rules/words.tsv.gz", "rt", encoding="utf-8").read().splitlines()
    common = [l for l in words if l.startswith("eng\t")][0].split("\t")[2].split()[:COMMON]
    # And every one-character word: wordfreq's list leaves "a" and "i" out, and the tokenizer cuts
    # "it's" and "don't" into "s" and "t".
    common = [w for w in common if ONE_WORD.match(w) and len(w) > 1]
    common += list("abcdefghijklmnopqrstuvwxyz0123456789")
    text = (
        "# crawlsieve mutables: the words a spinner can replace, by ISO 639-3 code (bench/build_mutables.py).\n"
        "# eng: Princeton WordNet 3.0 (Debian wordnet-base), single-word lemmas sharing a synset.\n"
        f"version\t{VERSION}\n"
        f"eng\t{' '.join(eng)}\n"
        f"eng.common\t{' '.join(common)}\n"
    )
    out = REPO / "rules/mutables.tsv.gz"
    # mtime 0: the same words give the same bytes.
    with open(out, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0, compresslevel=9, filename="") as g:
        g.write(text.encode())
    print(f"{out}: eng {len(eng)} words, {len(common)} common, {out.stat().st_size} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
