#!/usr/bin/env python3
"""Builds rules/words.tsv.gz: the 20,000 most frequent words of each language
that some other language is mistaken for (agent/core/src/language/words.rs).

Why: the declarations' check (rules/udhr.tsv.gz) compares letter trigrams,
and a close relative — Crimean Tatar for Turkish, Asturian for Spanish,
Maithili for Hindi — can read within its margin of the language it is taken
for. Words tell them apart where letters do not: a Crimean Tatar page has
half its words outside Turkish's 20,000 most frequent, a Turkish page a
fifth. The agent looks a page's words up only where a relative reads close.

Source: the PyPI package `wordfreq` (code Apache-2.0; its word lists
CC BY-SA 4.0, built from Wikipedia, subtitles, news, books, web text and
Twitter by Robyn Speer et al.: https://github.com/rspeer/wordfreq), so
rules/words.tsv.gz is CC BY-SA 4.0 too (rules/words.NOTICE).

Which languages: those rules/udhr.tsv.gz lists as mistaken for (the only
codes the check runs on) that wordfreq has. Per language, the file also
carries the share of its own declaration's words outside the list: the
baseline a page's share is measured against (Finnish and Turkish text
always has more forms outside 20,000 words than English).

Chosen on wordfreq and the declarations only; neither ../shared/data/langid
nor the gettext corpus is read here.

    target/peers-venv/bin/pip install wordfreq regex
    target/peers-venv/bin/python bench/build_words.py
"""
import argparse, gzip, os

import regex
from wordfreq import top_n_list

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
SIZE = 20_000
# crawlsieve's code -> wordfreq's. Serbo-Croatian's wordfreq list is Latin.
# Not Chinese, Japanese or Korean (words are not space-delimited there), and
# only languages with a declaration of their own to measure the baseline on
# (the package has no Malay or Serbo-Croatian under those codes).
WORDFREQ = {"ara": "ar", "bul": "bg", "cat": "ca", "deu": "de", "eng": "en", "fin": "fi", "fra": "fr",
            "hin": "hi", "ind": "id", "ita": "it", "nld": "nl", "pes": "fa", "por": "pt", "ron": "ro",
            "rus": "ru", "spa": "es", "tgl": "fil", "tur": "tr", "urd": "ur"}
# A word as the agent reads it: letters and the marks on them, lower-cased;
# capitalised words (mostly names) are not read.
WORD = regex.compile(r"[\p{Alphabetic}\p{M}]{2,}")


def words(text):
    return [w.lower() for w in WORD.findall(text) if not w[0].isupper()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "rules", "words.tsv.gz"))
    a = ap.parse_args()
    targets, own = set(), {}
    for line in gzip.open(os.path.join(ROOT, "rules", "udhr.tsv.gz"), "rt", encoding="utf-8"):
        if line.startswith("#"):
            continue
        code, role, mistaken_for, _, text = line.rstrip("\n").split("\t")
        if role != "known":
            targets.update(c for c in mistaken_for.split(",") if c)
        else:
            own.setdefault(code, []).append(text)
    rows = []
    for code in sorted(targets & WORDFREQ.keys()):
        # Only words as the agent reads them (wordfreq keeps "don't", "l'eau").
        listed = [w for w in top_n_list(WORDFREQ[code], SIZE) if WORD.fullmatch(w)]
        vocabulary = set(listed)
        shares = [sum(w not in vocabulary for w in ws) / len(ws) for ws in map(words, own[code])]
        baseline = min(shares)
        rows.append((code, baseline, listed))
        print(f"{code}: {len(listed)} words, own declaration outside the list {baseline:.3f}")
    with gzip.open(a.out, "wt", encoding="utf-8", compresslevel=9) as f:
        f.write(f"# wordfreq top {SIZE} (CC BY-SA 4.0, rules/words.NOTICE), built by bench/build_words.py: "
                "code, share of its declaration's words outside the list, words\n")
        for code, baseline, listed in rows:
            f.write(f"{code}\t{baseline:.3f}\t{' '.join(listed)}\n")
    print(f"wrote {a.out}: {len(rows)} languages, {os.path.getsize(a.out)} bytes")


if __name__ == "__main__":
    main()
