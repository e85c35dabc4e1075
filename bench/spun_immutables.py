#!/usr/bin/env python3
"""Do a page's immutables survive spinning by a thesaurus we do not ship?

The groundwork of spun-content detection (issue "Spun content", DSpin's immutable method:
Zhang, Wang and Voelker, NDSS 2014). A spinner replaces the words its dictionary knows; DSpin
keeps a page's *immutables*, the words no spin can change, and pairs pages that share most of
them (75 %). The dictionary that decides which words are mutable is ours (WordNet, Debian's
`wordnet-base`); the spinner's is another. This measures, on real English articles:

- how many immutables a page keeps under each candidate rule for "mutable";
- the DSpin score (shared immutables / the original's immutables, a repeated immutable made
  distinct by a suffix) between an article and its spin, at spin rates 0.3 / 0.5 / 0.7 / 1.0
  of the words the spinner can replace, by two spinners' thesauri: LibreOffice's en_US
  (`mythes-en-us`, WordNet-derived: the same family as ours) and Aiksaurus (`aiksaurus`, from
  the Moby thesaurus: not ours);
- the same score between unrelated articles (what a threshold must stay above).

Needs: apt-get install wordnet-base mythes-en-us aiksaurus; target/release/crawlsieve.

    bench/spun_immutables.py [--pages 300] [--seed 1]
"""
import argparse, json, random, re, subprocess, sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WN = Path("/usr/share/wordnet")
MYTHES = Path("/usr/share/mythes/th_en_US_v2.dat")
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|\d[\d.,]*")


def wordnet_lemmas():
    """The shipped rule for mutable: WordNet's single-word lemmas that share a synset (bench/build_mutables.py)."""
    from build_mutables import wordnet_mutables
    return wordnet_mutables()


def inflections(lemmas):
    """Lemmas and their regular inflections and WordNet's exceptions: the word forms a spinner meets."""
    forms = set(lemmas)
    for w in lemmas:
        forms.update({w + "s", w + "es", w + "ed", w + "d", w + "ing", w + "er", w + "est", w + "ly"})
        if w.endswith("e"):
            forms.add(w[:-1] + "ing")
        if w.endswith("y"):
            forms.update({w[:-1] + "ies", w[:-1] + "ied", w[:-1] + "ier", w[:-1] + "iest"})
    for pos in ("noun", "verb", "adj", "adv"):
        for line in open(WN / f"{pos}.exc", encoding="latin-1"):
            f = line.split()
            if len(f) >= 2 and f[1] in lemmas:
                forms.add(f[0])
    return forms


def mythes():
    """LibreOffice en_US: word -> synonyms (single words, not 'generic term' relations)."""
    syn = {}
    lines = open(MYTHES, encoding="utf-8").read().split("\n")[1:]
    i = 0
    while i < len(lines):
        if "|" not in lines[i]:
            i += 1
            continue
        word, n = lines[i].rsplit("|", 1)
        out = set()
        for l in lines[i + 1 : i + 1 + int(n)]:
            for s in l.split("|")[1:]:
                if "(" not in s and " " not in s and s.lower() != word.lower():
                    out.add(s.lower())
        if out and " " not in word:
            syn[word.lower()] = sorted(out)
        i += 1 + int(n)
    return syn


def aiksaurus(words):
    """Aiksaurus (Moby): word -> synonyms, for the words given (one call each; cached in target/)."""
    cache = REPO / "target/aiksaurus-cache.json"
    syn = json.loads(cache.read_text()) if cache.exists() else {}
    todo = [w for w in words if w not in syn]
    for w in todo:
        syn[w] = []
        out = subprocess.run(["aiksaurus", w], capture_output=True, text=True).stdout
        if out.startswith("***") or "===" not in out:
            continue
        s = set()
        for line in out.splitlines():
            if line and not line.startswith("==="):
                s.update(x.strip() for x in line.split(",") if x.strip() and " " not in x.strip())
        s.discard(w)
        syn[w] = sorted(s)
    if todo:
        cache.write_text(json.dumps(syn))
    return {w: v for w, v in syn.items() if v}


def articles(n):
    html = REPO.parent / "shared/data/extraction/wcxb-dev/dev/html"
    out = subprocess.run([str(REPO / "target/release/crawlsieve"), "extract", "--format", "json", str(html)],
                         capture_output=True, text=True).stdout
    pages = [json.loads(l) for l in out.splitlines()]
    pages = [p for p in pages if p.get("language") == "eng" and p.get("page_type") == "article" and (p.get("words") or 0) >= 150]
    return [p["text"] for p in pages[:n]]


def immutables(words, mutable):
    """DSpin's immutables: the words not in the dictionary, in order, a repeat made distinct by its count."""
    seen = Counter()
    out = []
    for w in words:
        lw = w.lower()
        if lw in mutable:
            continue
        seen[lw] += 1
        out.append(f"{lw}#{seen[lw]}")
    return out


def score(a, b):
    """Shared immutables over a's own (DSpin §V-D)."""
    if not a:
        return 0.0
    return len(set(a) & set(b)) / len(set(a))


def kgrams(seq, k):
    """The page's immutables in order, as k-grams (no suffixes: order tells pages apart)."""
    words = [w.split("#")[0] for w in seq]
    return {" ".join(words[i : i + k]) for i in range(max(0, len(words) - k + 1))}


def kscore(a, b, k):
    ga = kgrams(a, k)
    return len(ga & kgrams(b, k)) / len(ga) if ga else 0.0


def spin(words, syn, rate, rng):
    out = []
    for w in words:
        lw = w.lower()
        if lw in syn and rng.random() < rate:
            out.append(rng.choice(syn[lw]))
        else:
            out.append(w)
    return out


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    texts = articles(a.pages)
    docs = [WORD.findall(t) for t in texts]
    vocab = sorted({w.lower() for d in docs for w in d if w[0].isalpha()})
    print(f"{len(docs)} English articles of WCXB dev, {sum(map(len, docs))} words, {len(vocab)} distinct", file=sys.stderr)
    wn = wordnet_lemmas()
    rules = {"wordnet lemmas": wn, "wordnet forms": inflections(wn)}
    spinners = {"mythes en_US": mythes(), "aiksaurus": aiksaurus(vocab)}
    # The widest rule: anything either our dictionary or a common thesaurus could replace.
    # (Aiksaurus stands in here for "a thesaurus we do not ship" only in the measurement.)
    for name, m in rules.items():
        imm = [immutables(d, m) for d in docs]
        share = sum(map(len, imm)) / sum(map(len, docs))
        print(f"\n## mutable = {name} ({len(m)} forms): immutables {share:.1%} of words, "
              f"median {pct([len(i) for i in imm], .5)} a page, 5th percentile {pct([len(i) for i in imm], .05)}")
        pairs = [(i, j) for i in range(len(imm)) for j in range(len(imm)) if i != j and (i + j) % 7 == 0]
        measures = {"DSpin set of suffixed immutables": score}
        for k in (2, 3, 4):
            measures[f"immutable {k}-grams in order"] = lambda x, y, k=k: kscore(x, y, k)
        for mname, f in measures.items():
            unrelated = [f(imm[i], imm[j]) for i, j in pairs]
            print(f"\n{mname}: unrelated pairs ({len(unrelated)}) mean {sum(unrelated)/len(unrelated):.3f}, "
                  f"99.9th pct {pct(unrelated, .999):.3f}, max {max(unrelated):.3f}")
            print("| spinner | rate | mean score | 5th pct | min | above the unrelated max |")
            print("|---|---|---|---|---|---|")
            for sname, syn in spinners.items():
                for rate in (0.3, 0.5, 0.7, 1.0):
                    r = random.Random(a.seed)
                    scores = [f(i, immutables(spin(d, syn, rate, r), m)) for d, i in zip(docs, imm)]
                    hit = sum(s > max(unrelated) for s in scores) / len(scores)
                    print(f"| {sname} | {rate} | {sum(scores)/len(scores):.3f} | {pct(scores, .05):.3f} | {min(scores):.3f} | {hit:.3f} |")


if __name__ == "__main__":
    main()
