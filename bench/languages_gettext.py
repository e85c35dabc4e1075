#!/usr/bin/env python3
"""A second corpus for language detection: the translations installed on
this machine (gettext catalogs under /usr/share/locale, ~190 locales).

Software messages, not web prose: short, technical, full of placeholders and
borrowed words — a harder domain than ../shared/data/langid, and one with
many languages neither detector knows (Galician, Kyrgyz, Tatar, Pashto,
Uyghur, Asturian, Breton, ...). For those, any code is wrong; the figure to
watch is how often they get one.

Per locale: the msgstr strings of every catalog but the ISO and keyboard
name lists, placeholders removed, strings of 4 words or more, joined into
pages of about 1 KB (at most 20 per locale), judged by `crawlsieve scan` as
HTML. Truth: the locale's language as ISO 639-3 (Debian's iso-codes).

    cargo build --release
    python3 bench/languages_gettext.py [--binary target/release/crawlsieve] [--set KEY=VALUE]...
"""
import argparse
import collections
import gettext
import html
import json
import os
import re
import subprocess
import sys

LOCALES = "/usr/share/locale"
# Locale codes whose language crawlsieve names differently from ISO 639-3's
# individual code (whatlang's codes; macrolanguages the locale stands for).
ALIASES = {"zh": "cmn", "fa": "pes", "ms": "msa", "no": "nor", "nb": "nob", "nn": "nno",
           "et": "est", "lv": "lav", "sq": "sqi", "ar": "ara", "uz": "uzb", "az": "aze",
           "mn": "mon", "sw": "swa", "yi": "yid", "ne": "nep", "or": "ori", "kmr": "kur"}
PLACEHOLDER = re.compile(r"%[-+ #0-9.*]*[a-zA-Z]|%\([^)]*\)[a-z]|\{[^}]*\}|\$\{?[A-Za-z_]+\}?|<[^>]+>|_")


def iso3():
    table = json.load(open("/usr/share/iso-codes/json/iso_639-3.json"))["639-3"]
    out = {}
    for row in table:
        out[row["alpha_3"]] = row["alpha_3"]
        if "alpha_2" in row:
            out[row["alpha_2"]] = row["alpha_3"]
    return out


def strings(locale_dir):
    seen = set()
    msgs = os.path.join(locale_dir, "LC_MESSAGES")
    for name in sorted(os.listdir(msgs)) if os.path.isdir(msgs) else []:
        if not name.endswith(".mo") or name.startswith(("iso_", "xkeyboard")):
            continue
        try:
            catalog = gettext.GNUTranslations(open(os.path.join(msgs, name), "rb"))._catalog
        except Exception:
            continue
        for key, value in catalog.items():
            if not key or not isinstance(value, str):
                continue
            text = " ".join(PLACEHOLDER.sub(" ", value).split())
            if len(text.split()) >= 4 and text not in seen:
                seen.add(text)
                yield text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="target/release/crawlsieve")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--pages", type=int, default=20)
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--dump", help="also write the pages as JSONL {truth, known, text}")
    args = ap.parse_args()
    codes = iso3()
    listing = subprocess.run([args.binary, "languages"], capture_output=True, text=True, check=True).stdout
    known = {line.split("\t")[0] for line in listing.splitlines()[1:]}
    macros = {"msa": {"msa", "ind", "zsm"}, "hbs": {"hrv", "bos", "srp"}, "nor": {"nob", "nno"},
              "kur": {"kmr", "ckb", "sdh"}}

    pages = []
    for loc in sorted(os.listdir(LOCALES)):
        if "_" in loc or "@" in loc or loc.startswith("en"):
            continue
        truth = ALIASES.get(loc) or codes.get(loc)
        if truth is None:
            continue
        page, n = "", 0
        for s in strings(os.path.join(LOCALES, loc)):
            page = f"{page} {s}" if page else s
            if len(page.encode()) >= args.size:
                pages.append((loc, truth, page))
                page, n = "", n + 1
                if n >= args.pages:
                    break
    if args.dump:
        with open(args.dump, "w") as f:
            for loc, truth, text in pages:
                f.write(json.dumps({"truth": truth, "known": truth in known, "text": text}) + "\n")
    jsonl = "".join(
        json.dumps({"url": f"http://example.com/{i}",
                    "html": f"<html><body><article><p>{html.escape(t)}</p></article></body></html>"}) + "\n"
        for i, (_, _, t) in enumerate(pages))
    cmd = [args.binary, "scan", "-q", "--set", "filters.min_words=0", "-"]
    for kv in args.set:
        cmd[3:3] = ["--set", kv]
    out = subprocess.run(cmd, input=jsonl, capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(out) == len(pages), (len(out), len(pages))

    tally = {True: collections.Counter(), False: collections.Counter()}
    wrong = collections.Counter()
    per_lang = collections.defaultdict(collections.Counter)
    for (loc, truth, _), line in zip(pages, out):
        got = json.loads(line).get("lang") or "unknown"
        is_known = truth in known
        if got == "unknown":
            kind = "unknown"
        elif got == truth or (truth == "msa" and got == "ind"):
            kind = "right"
        elif got in macros and truth in macros[got]:
            kind = "macrolanguage"
        else:
            kind = "wrong"
            wrong[(truth, got)] += 1
        tally[is_known][kind] += 1
        per_lang[truth][kind] += 1

    print(f"{len(pages)} pages of ~{args.size} B from {len(per_lang)} locales' gettext catalogs")
    for is_known, label in ((True, "languages crawlsieve knows"), (False, "languages it does not know")):
        t = tally[is_known]
        n = sum(t.values()) or 1
        langs = sum(1 for l in per_lang if (l in known) == is_known)
        print(f"{label}: {langs} languages, {sum(t.values())} pages: right {t['right']/n:.3f}, "
              f"macrolanguage {t['macrolanguage']/n:.3f}, unknown {t['unknown']/n:.3f}, wrong {t['wrong']/n:.3f}")
    print("wrong codes (truth → given × pages):")
    for (truth, got), n in wrong.most_common():
        print(f"  {truth} → {got} ×{n}{'' if truth in known else '  (a language crawlsieve does not know)'}")


if __name__ == "__main__":
    sys.exit(main())
