#!/usr/bin/env python3
"""Spun copies of labeled articles, in the stream (issue "Spun content"): does the default scan find them?

- **Labeled set**: real English articles (WCXB dev past the 300 the immutables were studied on, or
  trafilatura-eval's), built with `crawlsieve labels build` from their raw HTML (immutables included).
- **Spun copies**: each article's extracted text, every word the spinner's thesaurus knows replaced at
  rate 0.3 / 0.5 / 0.7 / 1.0, by two thesauri we do not ship: Aiksaurus (the Moby thesaurus) and
  LibreOffice's en_US (`mythes-en-us`, WordNet-derived: the family of our dictionary). Each copy is put in
  an article-directory template (navigation, "popular articles", an author box, a footer), one site a
  copy, `copies` copies a cell.
- **Quotes**: an unlabeled real article with one paragraph of a labeled article put in its middle.
- **Benign**: with `--benign`, every page of ../shared/data (both extraction corpora, every WARC) scanned
  against the same set: no page may be called spun.

Needs: apt-get install aiksaurus mythes-en-us; target/release/crawlsieve.

    bench/spun.py [--corpus wcxb|trafilatura] [--copies 30] [--benign] [--seed 1]
    bench/spun.py --crawl [--corpus wcxb|trafilatura] [--seed 1]

`--crawl` measures `crawlsieve spun` instead: a crawl of spun variants of unlabeled articles (an
original and four spins on five sites, or four spins alone), exact and near copies (one word changed
in every paragraph) of other articles, and other real articles as benign pages; it prints the spun
clusters' pair precision and recall and how the exact and near copies were reported.

Prints one table row per cell: copies found by any rule, found by `spun`, and the spun similarity's
5th percentile; then the quotes and the benign pages.
"""
import argparse, html, json, random, re, subprocess, sys, tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared/data"
BIN = REPO / "target/release/crawlsieve"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from spun_immutables import aiksaurus, mythes  # noqa: E402

WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
RATES = (0.3, 0.5, 0.7, 1.0)
CORPORA = {
    "wcxb": SHARED / "extraction/wcxb-dev/dev/html",
    "trafilatura": SHARED / "extraction/trafilatura-eval/tests",
}


def extract(directory):
    # Exit status 1 says some page could not be read; the others are printed.
    out = subprocess.run([str(BIN), "extract", "--format", "json", str(directory)],
                         capture_output=True, text=True).stdout
    return [json.loads(l) for l in out.splitlines()]


def english_articles(pages):
    return [p for p in pages if p.get("language") == "eng" and p.get("page_type") == "article"
            and (p.get("words") or 0) >= 150]


def spin(text, syn, rate, rng):
    """Replaces each word the thesaurus knows with one of its synonyms, at `rate`, keeping capitals."""
    def swap(m):
        w = m.group(0)
        alts = syn.get(w.lower())
        if not alts or rng.random() >= rate:
            return w
        s = rng.choice(alts)
        return s.capitalize() if w[0].isupper() else s
    return WORD.sub(swap, text)


TEMPLATE = """<!doctype html><html><head><meta charset="utf-8"><title>{title} | {site}</title></head><body>
<header><a href="/">{site}</a> <nav><a href="/latest">Latest</a> <a href="/categories">Categories</a>
<a href="/submit">Submit an article</a> <a href="/login">Log in</a></nav></header>
<div class="main"><article><h1>{title}</h1><p class="meta">Submitted by {author} in {category}</p>
{body}
<div class="author-box"><h3>About the author</h3><p>{author} writes about {category} for readers who
want plain answers. Reprint this article freely with this box intact.</p></div></article>
<aside><h3>Popular articles</h3><ul><li><a href="/a/1">Ten ways to save on your energy bill</a></li>
<li><a href="/a/2">How to choose a reliable contractor</a></li><li><a href="/a/3">Why your credit score
matters more than you think</a></li></ul></aside></div>
<footer>Copyright {site}. Articles are the opinion of their authors. <a href="/terms">Terms</a>
<a href="/privacy">Privacy</a></footer></body></html>"""


def page(site, n, title, paragraphs, rng):
    body = "\n".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    author = rng.choice(["Mark Ellison", "Jane Porter", "Sam Okafor", "Lee Wong"])
    category = rng.choice(["Business", "Health", "Home", "Finance", "Travel"])
    doc = TEMPLATE.format(title=html.escape(title or "Article"), site=site, author=author,
                          category=category, body=body)
    return {"url": f"http://{site}/articles/{n}.html", "html": doc}


def paragraphs(text):
    return [p for p in text.split("\n") if p.strip()]


def scan(inputs, labels, public, tmp):
    out = Path(tmp) / "verdicts.jsonl"
    subprocess.run([str(BIN), "scan", "-q", "-l", str(labels), "--set", f"labels.public_key={public}",
                    "-o", str(out), *map(str, inputs)], check=True)
    return [json.loads(l) for l in out.read_text().splitlines() if l.startswith("{")]


def copy_rules(v):
    return [r for r in v.get("reasons", []) if r in
            ("whole_content", "labeled_chunks", "labeled_shingles", "labeled_text", "near_duplicate", "spun")]


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def spun_crawl(a, arts, spinners, rng):
    """`crawlsieve spun` on a crawl of spun variants, copies and benign articles."""
    n = min(40, len(arts) // 4)
    spun_src, copy_src, benign = arts[:n], arts[n: n + n // 2], arts[n + n // 2:]
    pages, source = [], {}

    def add(site, i, art, text, tag):
        p = page(site, i, art.get("title"), paragraphs(text), rng)
        pages.append(p)
        source[p["url"]] = tag

    kinds = [("aiksaurus", 0.5), ("aiksaurus", 1.0), ("mythes en_US", 0.7), ("mythes en_US", 1.0)]
    for i, art in enumerate(spun_src):
        if i % 2 == 0:
            add(f"original-{i}.example", i, art, art["text"], ("spun", i))
        for j, (sname, rate) in enumerate(kinds):
            add(f"farm{j}-{i}.example", i, art, spin(art["text"], spinners[sname], rate, rng), ("spun", i))
    for i, art in enumerate(copy_src):
        add(f"source-{i}.example", i, art, art["text"], ("copy", i))
        add(f"mirror-{i}.example", i, art, art["text"], ("exact", i))
        edited = "\n".join(re.sub(r"\b([a-z]{4,})\b", "very \\1", p, count=1) for p in paragraphs(art["text"]))
        add(f"edited-{i}.example", i, art, edited, ("near", i))
    for i, art in enumerate(benign[:200]):
        add(f"benign-{i}.example", i, art, art["text"], ("benign", i))
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "crawl.jsonl"
        f.write_text("".join(json.dumps(p) + "\n" for p in pages))
        out = subprocess.run([str(BIN), "spun", *a.spun_args.split(), str(f)], capture_output=True, text=True, check=True)
    print(out.stderr.strip(), file=sys.stderr)
    lines = [json.loads(l) for l in out.stdout.splitlines()]
    clusters = [set(m["url"] for m in l["members"]) for l in lines if l["type"] == "spun_cluster"]
    in_cluster = {u: k for k, c in enumerate(clusters) for u in c}
    spun_pages = [u for u, t in source.items() if t[0] == "spun"]
    tp = fp = fn = 0
    for x in range(len(spun_pages)):
        for y in range(x + 1, len(spun_pages)):
            u, v = spun_pages[x], spun_pages[y]
            same = source[u] == source[v]
            together = u in in_cluster and in_cluster.get(u) == in_cluster.get(v)
            tp += same and together
            fn += same and not together
    members = [u for c in clusters for u in c]
    for c in clusters:
        c = sorted(c)
        for x in range(len(c)):
            for y in range(x + 1, len(c)):
                fp += source.get(c[x]) != source.get(c[y])
    prec = tp / max(1, tp + fp)
    rec = tp / max(1, tp + fn)
    groups = {t: [set(l["urls"]) for l in lines if l["type"] == t] for t in ("exact_duplicates", "near_duplicates")}
    exact_found = sum(any({f"http://source-{i}.example/articles/{i}.html", f"http://mirror-{i}.example/articles/{i}.html"} <= g
                          for g in groups["exact_duplicates"]) for i in range(len(copy_src)))
    near_found = sum(any(f"http://edited-{i}.example/articles/{i}.html" in g for g in groups["near_duplicates"])
                     for i in range(len(copy_src)))
    copies_clustered = sum(source[u][0] in ("copy", "exact", "near") for u in members)
    benign_clustered = sum(source[u][0] == "benign" for u in members)
    print(f"| corpus | pages | spun sources | clusters | pair precision | pair recall | exact pairs found | near copies found | copies in clusters | benign in clusters |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print(f"| {a.corpus} | {len(pages)} | {len(spun_src)} | {len(clusters)} | {prec:.3f} | {rec:.3f} | "
          f"{exact_found}/{len(copy_src)} | {near_found}/{len(copy_src)} | {copies_clustered} | {benign_clustered} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", choices=sorted(CORPORA), default="wcxb")
    ap.add_argument("--copies", type=int, default=30)
    ap.add_argument("--sources", type=int, default=150, help="labeled articles")
    ap.add_argument("--benign", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--crawl", action="store_true", help="measure `crawlsieve spun` across a crawl")
    ap.add_argument("--spun-args", default="", help="with --crawl: options for `crawlsieve spun`, e.g. '--threshold 0.08'")
    ap.add_argument("--no-immutables", action="store_true", help="build the set without immutables (the scan before `spun`)")
    ap.add_argument("--verbose", action="store_true", help="list the copies missed and the quotes flagged")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    arts = english_articles(extract(CORPORA[a.corpus]))
    if a.corpus == "wcxb":
        arts = arts[300:]  # the first 300 were studied (bench/spun_immutables.py)
    rng.shuffle(arts)
    labeled, others = arts[: a.sources], arts[a.sources:]
    if len(others) < a.copies:  # a small corpus: quote from its own labeled half
        labeled, others = arts[: len(arts) // 2], arts[len(arts) // 2:]
    print(f"{a.corpus}: {len(arts)} English articles; {len(labeled)} labeled, {len(others)} unlabeled",
          file=sys.stderr)
    vocab = sorted({w.lower() for p in arts for w in WORD.findall(p["text"])})
    spinners = {"aiksaurus": aiksaurus(vocab), "mythes en_US": mythes()}
    if a.crawl:
        return spun_crawl(a, others if len(others) >= 160 else arts, spinners, rng)
    with tempfile.TemporaryDirectory() as tmp:
        key = Path(tmp) / "key"
        subprocess.run([str(BIN), "labels", "keygen", "-o", str(key)], check=True, capture_output=True)
        public = (Path(tmp) / "key.pub").read_text().strip()
        labels = Path(tmp) / "set.cslabels"
        subprocess.run([str(BIN), "labels", "build", "--name", "articles", "--key", str(key), "-o", str(labels),
                        *(["--no-immutables"] if a.no_immutables else []), *[p["path"] for p in labeled]], check=True)
        pages, cells = [], {}
        for sname, syn in spinners.items():
            for rate in RATES:
                cell = f"{sname} {rate}"
                for i in range(a.copies):
                    src = labeled[(i * 7 + int(rate * 10)) % len(labeled)]
                    site = f"{sname.split()[0].lower()}-{int(rate * 100)}-{i}.example"
                    p = page(site, i, src.get("title"), paragraphs(spin(src["text"], syn, rate, rng)), rng)
                    cells[p["url"]] = cell
                    pages.append(p)
        for i in range(a.copies):
            own = paragraphs(others[i % len(others)]["text"])
            quoted = [q for q in paragraphs(labeled[i % len(labeled)]["text"]) if len(q) >= 200][:1]
            if not quoted or len(own) < 2:
                continue
            body = own[: len(own) // 2] + quoted + own[len(own) // 2:]
            p = page(f"quotes-{i}.example", i, others[i % len(others)].get("title"), body, rng)
            cells[p["url"]] = "quote"
            pages.append(p)
        # Short copies: the first 56 words of a labeled article as one-line paragraphs of 7 words
        # (all shorter than chunks.min_chars), one word changed.
        for i in range(a.copies):
            words = labeled[(i * 11) % len(labeled)]["text"].split()[:56]
            words[len(words) // 2] = "banana"
            lines = [" ".join(words[j: j + 7]) for j in range(0, len(words), 7)]
            p = page(f"short-{i}.example", i, "Short", lines, rng)
            cells[p["url"]] = "short 56 words"
            pages.append(p)
        crawl = Path(tmp) / "crawl.jsonl"
        crawl.write_text("".join(json.dumps(p) + "\n" for p in pages))
        verdicts = scan([crawl], labels, public, tmp)
        print("| spinner | rate | copies | found (any rule) | found by `spun` | spun_contains 5th pct |")
        print("|---|---|---|---|---|---|")
        for cell in dict.fromkeys(cells.values()):
            vs = [v for v in verdicts if cells.get(v["url"]) == cell]
            found = sum(bool(copy_rules(v)) for v in vs)
            spun = sum("spun" in v.get("reasons", []) for v in vs)
            sim = pct([v.get("spun_contains") or 0 for v in vs], 0.05)
            name, _, rate = cell.rpartition(" ") if cell.split()[0] not in ("quote", "short") else (cell, "", "-")
            print(f"| {name} | {rate} | {len(vs)} | {found} ({found / max(1, len(vs)):.2f}) | {spun} | {sim:.3f} |")
            if a.verbose:
                for v in vs:
                    if bool(copy_rules(v)) == (cell == "quote") and (cell != "quote" or "spun" in v["reasons"]):
                        print(f"    {v['url']} {v.get('reasons')} grams {v.get('immutables')} matched "
                              f"{v.get('matched_immutables')} spread {v.get('spun_spread')}")
        if a.benign:
            inputs = [SHARED / "extraction"] + sorted(SHARED.glob("warc/*/*.warc.gz"))
            inputs = [i for i in inputs if not str(i).endswith((".wat.gz", ".wet.gz"))]
            vs = scan(inputs, labels, public, tmp)
            spun = [v for v in vs if "spun" in v.get("reasons", [])]
            # The pages no other rule calls copies: how close the rule comes to calling one spun.
            clean = [v for v in vs if not copy_rules(v)]
            top = sorted(((v.get("spun_contains") or 0) for v in clean
                          if (v.get("spun_spread") or 0) >= 0.6 and (v.get("matched_immutables") or 0) >= 3), reverse=True)[:5]
            print(f"\nbenign: {len(vs)} pages of ../shared/data, {len(spun)} called spun; highest spun_contains "
                  f"of the others no rule flags (spread and size as the rule's): {', '.join(f'{t:.3f}' for t in top)}")
            for v in spun[:10]:
                print(f"  spun: {v['url']} {v.get('spun_contains'):.3f} spread {v.get('spun_spread')}")


if __name__ == "__main__":
    main()
