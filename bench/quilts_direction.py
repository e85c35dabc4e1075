#!/usr/bin/env python3
"""Which way do quilts point? (issue "Spun content", item 5.)

A crawl of real English articles (WCXB dev past the first 300, or trafilatura-eval's), each on its
own site, and quilts stitched from them: each quilt takes 2 paragraphs from each of 4-6 articles, and
articles are reused across quilts, so an article gives paragraphs to several quilts. An article whose
paragraphs went into 4 or more quilts is covered by those quilts exactly as a quilt is by its sources;
it is the origin, not a quilt. Runs `crawlsieve quilts` (the paper's pivot: k 5, m 50, c 4, theta .5)
and counts the quilts found and the originals called quilted.

    bench/quilts_direction.py [--corpus wcxb|trafilatura] [--quilts 40] [--articles 60] [--seed 1] [--bin PATH]
"""
import argparse, json, random, subprocess, sys, tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import spun  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", choices=sorted(spun.CORPORA), default="wcxb")
    ap.add_argument("--quilts", type=int, default=40)
    ap.add_argument("--articles", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bin", default=str(spun.BIN))
    a = ap.parse_args()
    rng = random.Random(a.seed)
    arts = [p for p in spun.english_articles(spun.extract(spun.CORPORA[a.corpus]))
            if sum(len(q) >= 80 for q in spun.paragraphs(p["text"])) >= 6]
    if a.corpus == "wcxb":
        arts = arts[300:] if len(arts) > 300 + a.articles else arts
    rng.shuffle(arts)
    arts = arts[: a.articles]
    pages, given = [], Counter()
    for i, art in enumerate(arts):
        pages.append(spun.page(f"original-{i}.example", i, art.get("title"), spun.paragraphs(art["text"]), rng))
    for j in range(a.quilts):
        body = []
        for i in rng.sample(range(len(arts)), rng.randint(4, 6)):
            long = [q for q in spun.paragraphs(arts[i]["text"]) if len(q) >= 80]
            at = rng.randrange(len(long) - 1)
            body += long[at: at + 2]
            given[i] += 1
        pages.append(spun.page(f"quilt-{j}.example", j, "Stitched", body, rng))
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "crawl.jsonl"
        f.write_text("".join(json.dumps(p) + "\n" for p in pages))
        out = subprocess.run([a.bin, "quilts", str(f)], capture_output=True, text=True, check=True).stdout
    found = {json.loads(l)["url"] for l in out.splitlines()}
    quilts_found = sum("//quilt-" in u for u in found)
    originals = [u for u in found if "//original-" in u]
    print("| corpus | articles | quilts | articles in >= 4 quilts | quilts found | originals called quilted |")
    print("|---|---|---|---|---|---|")
    print(f"| {a.corpus} | {len(arts)} | {a.quilts} | {sum(n >= 4 for n in given.values())} | "
          f"{quilts_found}/{a.quilts} | {len(originals)} |")


if __name__ == "__main__":
    main()
