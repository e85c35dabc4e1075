#!/usr/bin/env python3
"""Duplicates in the stream (issue "Seen before?"): does `scan --dedup` name the first page of a content?

A crawl of real pages with known duplicates, made from ../shared/data:
- **originals**: real pages of one extraction corpus (`--pages`, those whose content has 100 words or more);
- for a third of them (the *sources*), five duplicates, each on a site of its own:
  `exact` (the same HTML at another URL), `edited` (a comment block added and every year changed),
  `words3` (3 % of the words of the page's text replaced), `template` (its extracted content in another
  site's template), `prefix80` (the first 80 % of its content's words, in another template).
The pages are shuffled, so a source's duplicate often comes before it.

Prints, per kind: pages not first of their content, found (`duplicate_of` names a page of the same
content), and the pairs named wrongly; pairs between two originals are checked against the
benchmark's own mirrors (content Jaccard ≥ .8 of their 6-word shingles). Recall is also given over the
pairs whose true Jaccard (6-word shingles of the extracted content) is ≥ .8. With `--datatrove`,
datatrove's MinHash deduplication (FineWeb's parameters: 5-grams, 14 buckets × 8 hashes) on the same
content text, same pairs. With `--speed`, the scan's throughput with the check on and off, interleaved.

Needs: target/release/crawlsieve; for --datatrove, target/dedup-venv (python3 -m venv target/dedup-venv &&
target/dedup-venv/bin/pip install datatrove regex xxhash tokenizers orjson spacy; datatrove 0.10.1 measured).

    bench/dedup.py [--corpus wcxb|trafilatura] [--pages 600] [--seed 1] [--datatrove] [--speed] [--batch]
"""
import argparse
import os, html, json, random, re, subprocess, sys, tempfile, time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared/data"
BIN = REPO / "target/release/crawlsieve"
VENV = REPO / "target/dedup-venv/bin/python"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from spun import TEMPLATE, extract  # noqa: E402

CORPORA = {
    "wcxb": SHARED / "extraction/wcxb-dev/dev/html",
    "trafilatura": SHARED / "extraction/trafilatura-eval/tests/cache",
}
KINDS = ("exact", "edited", "words3", "template", "prefix80")
WORD = re.compile(r"\w+")
SKIP = re.compile(r"(<script.*?</script>|<style.*?</style>|<[^>]*>)", re.S | re.I)


def raw(path):
    import gzip
    data = gzip.open(path).read() if str(path).endswith(".gz") else open(path, "rb").read()
    return data.decode("utf-8", "replace")


def shingles(text, k=6):
    w = [x.lower() for x in WORD.findall(text)]
    return {tuple(w[i:i + k]) for i in range(len(w) - k + 1)}


def jaccard(a, b):
    return len(a & b) / max(1, len(a | b))


def change_words(doc, share, vocab, rng):
    """Replaces `share` of the words of the page's text (not of its markup or scripts)."""
    parts = SKIP.split(doc)
    for i in range(0, len(parts), 2):
        parts[i] = WORD.sub(lambda m: rng.choice(vocab) if rng.random() < share else m.group(0), parts[i])
    return "".join(parts)


def edited(doc, rng):
    comments = "".join(f"<p>{c}</p>" for c in rng.sample(
        ["Great post, thanks for sharing!", "I disagree with the second point.", "Bookmarked.",
         "Where can I find more on this?", "This helped me a lot, cheers."], 3))
    doc = re.sub(r"\b(19[5-9]\d|20[0-2]\d)\b", lambda m: str(int(m.group(1)) + 1), doc)
    block = f'<div class="comments"><h3>3 comments</h3>{comments}</div>'
    return doc.replace("</body>", block + "</body>") if "</body>" in doc else doc + block


def templated(site, n, title, paragraphs):
    body = "\n".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    doc = TEMPLATE.format(title=html.escape(title or "Article"), site=site, author="Jane Porter",
                          category="Home", body=body)
    return {"url": f"http://{site}/articles/{n}.html", "html": doc}


def prefix(paragraphs, share):
    total = sum(len(p.split()) for p in paragraphs)
    out, words = [], 0
    for p in paragraphs:
        w = p.split()
        if words + len(w) > share * total:
            out.append(" ".join(w[: int(share * total) - words]))
            break
        out.append(p)
        words += len(w)
    return [p for p in out if p]


def crawl(a, rng):
    files = sorted(CORPORA[a.corpus].iterdir())
    by_name = {f.name.split(".html")[0]: f for f in files}
    pages = [p for p in extract(CORPORA[a.corpus]) if (p.get("words") or 0) >= 100]
    rng.shuffle(pages)
    pages = pages[: a.pages]
    vocab = sorted({w for p in pages for w in WORD.findall(p.get("text") or "") if len(w) > 3})
    out, truth = [], {}

    def add(page, cluster, kind):
        out.append(page)
        truth[page["url"]] = (cluster, kind)

    for i, p in enumerate(pages):
        name = Path(p["path"]).name.split(".html")[0] if p.get("path") else None
        f = by_name.get(name)
        if f is None:
            continue
        doc = raw(f)
        add({"url": f"http://original-{i}.example/{name}.html", "html": doc}, i, "original")
        if i % 3:
            continue
        paragraphs = [x for x in (p.get("text") or "").split("\n") if x.strip()]
        add({"url": f"http://exact-{i}.example/{name}.html", "html": doc}, i, "exact")
        add({"url": f"http://edited-{i}.example/{name}.html", "html": edited(doc, rng)}, i, "edited")
        add({"url": f"http://words-{i}.example/{name}.html", "html": change_words(doc, 0.03, vocab, rng)}, i, "words3")
        add(templated(f"template-{i}.example", i, p.get("title"), paragraphs), i, "template")
        add(templated(f"prefix-{i}.example", i, p.get("title"), prefix(paragraphs, 0.8)), i, "prefix80")
    rng.shuffle(out)
    return out, truth


def scan(path, tmp, *flags):
    out = Path(tmp) / "verdicts.jsonl"
    started = time.perf_counter()
    subprocess.run([str(BIN), "scan", "-q", "-j", "1", "--content", *flags, "-o", str(out), str(path)], check=True)
    took = time.perf_counter() - started
    return [json.loads(l) for l in out.read_text().splitlines() if l.startswith("{")], took


def score(name, pages, truth, named, text):
    """`named`: url → url of the first page with its content, for the pages called duplicates."""
    seen, rows, wrong, mirrors = {}, {k: [0, 0] for k in ("original",) + KINDS}, 0, 0
    near = [0, 0]
    for v in pages:
        if v["url"] not in text:
            continue
        cluster, kind = truth[v["url"]]
        first = seen.setdefault(cluster, v["url"])
        of = named.get(v["url"])
        if of is not None and truth[of][0] != cluster:
            j = jaccard(shingles(text[v["url"]]), shingles(text.get(of, "")))
            if j >= 0.8:
                mirrors += 1
            else:
                wrong += 1
        if first == v["url"]:
            continue
        hit = of is not None and truth[of][0] == cluster
        rows[kind][0] += 1
        rows[kind][1] += hit
        if jaccard(shingles(text[v["url"]]), shingles(text[first])) >= 0.8:
            near[0] += 1
            near[1] += hit
    pairs = sum(1 for u in named if u in text)
    cells = " | ".join(f"{rows[k][1]}/{rows[k][0]}" for k in rows)
    recall = sum(r[1] for r in rows.values()) / max(1, sum(r[0] for r in rows.values()))
    precision = (pairs - wrong) / max(1, pairs)
    print(f"| {name} | {cells} | {near[1]}/{near[0]} | {recall:.3f} | {precision:.3f} | {wrong} | {mirrors} |")


def datatrove(pages, tmp):
    """datatrove's MinHash deduplication, FineWeb's parameters, on the pages' extracted content."""
    docs = Path(tmp) / "dt-in"
    docs.mkdir()
    with open(docs / "docs.jsonl", "w") as f:
        for v in pages:
            if v.get("content"):
                f.write(json.dumps({"id": v["url"], "text": v["content"]}) + "\n")
    script = r'''
import sys, json
from pathlib import Path
from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.readers import JsonlReader
from datatrove.pipeline.writers import JsonlWriter
from datatrove.pipeline.dedup import MinhashDedupSignature, MinhashDedupBuckets, MinhashDedupCluster, MinhashDedupFilter
from datatrove.pipeline.dedup.minhash import MinhashConfig
from datatrove.utils.hashing import HashConfig
tmp = Path(sys.argv[1])
cfg = MinhashConfig(hash_config=HashConfig(precision=64, hash_fc="sha1"), num_buckets=14, hashes_per_bucket=8, n_grams=5)
read = lambda: JsonlReader(str(tmp / "dt-in"))
run = lambda steps: LocalPipelineExecutor(pipeline=steps, tasks=1, logging_dir=str(tmp / "dt-logs" / str(len(steps)) / steps[-1].name.replace(" ", ""))).run()
run([read(), MinhashDedupSignature(output_folder=str(tmp / "sigs"), config=cfg)])
LocalPipelineExecutor(pipeline=[MinhashDedupBuckets(input_folder=str(tmp / "sigs"), output_folder=str(tmp / "buckets"), config=cfg)], tasks=cfg.num_buckets, logging_dir=str(tmp / "dt-logs/b")).run()
run([MinhashDedupCluster(input_folder=str(tmp / "buckets"), output_folder=str(tmp / "clusters"), config=cfg, save_cluster_id=True)])
run([read(), MinhashDedupFilter(input_folder=str(tmp / "clusters"), load_cluster_ids=True, exclusion_writer=JsonlWriter(str(tmp / "removed"))), JsonlWriter(str(tmp / "kept"))])
'''
    started = time.perf_counter()
    done = subprocess.run([str(VENV), "-c", script, tmp], capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"datatrove failed:\n{done.stderr[-3000:]}")
    took = time.perf_counter() - started
    import gzip
    cluster = {}
    for part in ("kept", "removed"):
        for f in (Path(tmp) / part).glob("*"):
            for line in gzip.open(f, "rt"):
                d = json.loads(line)
                cid = d["metadata"].get("minhash_cluster_id", -1)
                if cid != -1:
                    cluster.setdefault(cid, []).append(d["id"])
    order = {v["url"]: i for i, v in enumerate(pages)}
    named = {}
    for members in cluster.values():
        members.sort(key=order.get)
        for m in members[1:]:
            named[m] = members[0]
    return named, took


def two_scans_sharing(a, path, tmp, pages, truth, sets):
    """The crawl dealt alternately to two scans run at once on one shared index: as two agents of a crawl."""
    halves = [Path(tmp) / f"half-{i}.jsonl" for i in (0, 1)]
    for i, h in enumerate(halves):
        h.write_text("".join(json.dumps(p) + "\n" for p in pages[i::2]))
    namespace = f"bench-{os.getpid()}-{time.time_ns()}"
    flags = ["--dedup-shared", a.shared, "--set", f"dedup.namespace={namespace}", *sets]
    started = time.perf_counter()
    procs = [subprocess.Popen([str(BIN), "scan", "-q", "-j", "1", "--content", *flags, "-o", f"{h}.out", str(h)])
             for h in halves]
    assert all(p.wait() == 0 for p in procs)
    took = time.perf_counter() - started
    by_url = {}
    for h in halves:
        for l in Path(f"{h}.out").read_text().splitlines():
            if l.startswith("{"):
                v = json.loads(l)
                by_url[v["url"]] = v
    kept = [by_url[p["url"]] for p in pages if by_url.get(p["url"], {}).get("verdict") in ("keep", "flag")]
    text = {v["url"]: v.get("content") or "" for v in kept}
    named = {v["url"]: v["duplicate_of"]["url"] for v in kept if v.get("duplicate_of")}
    firsts = {v["url"] for v in kept if not v.get("duplicate_of")}
    dangling = sum(1 for u in named.values() if u not in firsts)
    # Which page of a content came first is the agents' race, not the file's order: the page kept
    # first is scored as its content's first.
    start = {}
    for i, v in enumerate(kept):
        start.setdefault(truth[v["url"]][0], i)
    kept.sort(key=lambda v: (start[truth[v["url"]][0]], v["url"] not in firsts))
    twice = len(firsts) - len({truth[u][0] for u in firsts})
    score("two scans at once, one Redis index", kept, truth, named, text)
    print(f"two scans sharing: {took:.2f} s wall; {len(firsts)} pages kept first, "
          f"{dangling} duplicates naming a page not kept first, {twice} contents kept first twice or more")
    _, local = scan(path, tmp, "--dedup", *sets)
    _, shared = scan(path, tmp, "--dedup-shared", a.shared, "--set", f"dedup.namespace={namespace}-one", *sets)
    n = len(kept) or 1
    print(f"one scan -j 1: index in memory {local:.2f} s, shared in Redis {shared:.2f} s: "
          f"{(shared - local) / n * 1000:.3f} ms more a page looked up ({n} pages)")


def batch(a, path, tmp, truth, sets):
    """`crawlsieve dedup` over the whole crawl after the fact: its clusters scored as the stream's
    answers are (each page's content's first in dedup's own order, by URL here), datatrove beside
    it on the same pages in the same order; the signatures made on two "machines" (halves of the
    crawl) and clustered together must give the same clusters."""
    def dedup(inputs, *flags, out="clusters.jsonl"):
        o = Path(tmp) / out
        started = time.perf_counter()
        subprocess.run([str(BIN), "dedup", "-j", "1", *sets, *flags, "-o", str(o), *map(str, inputs)],
                       check=True, capture_output=True)
        return o, time.perf_counter() - started

    clusters, took = dedup([path], "--keep-list", str(Path(tmp) / "keep.tsv"))
    named = {}
    for line in clusters.read_text().splitlines():
        c = json.loads(line)
        for d in c["duplicates"]:
            named[d["url"]] = c["keep"]["url"]
    verdicts, _ = scan(path, tmp)
    kept = sorted((v for v in verdicts if v["verdict"] in ("keep", "flag")), key=lambda v: v["url"])
    text = {v["url"]: v.get("content") or "" for v in kept}
    score("crawlsieve dedup (batch)", kept, truth, named, text)
    apart, _ = dedup([path], "--siblings", "apart", out="apart.jsonl")
    print(f"`--siblings apart`: {sum(1 for _ in apart.read_text().splitlines())} clusters "
          f"(together: {len(clusters.read_text().splitlines())})")
    # Two machines: each half's signatures, clustered together.
    lines = path.read_text().splitlines(keepends=True)
    halves = []
    for i in (0, 1):
        h = Path(tmp) / f"machine-{i}.jsonl"
        h.write_text("".join(lines[i::2]))
        halves.append(dedup([h], "--signatures-only", out=f"sig-{i}.jsonl")[0])
    together, _ = dedup(halves, "--from-signatures", out="from-signatures.jsonl")
    same = together.read_text() == clusters.read_text()
    print(f"signatures on two machines, clustered together: {'identical' if same else 'DIFFERENT'} clusters")
    # The text alone: the verdicts' content, as datatrove reads it.
    content = Path(tmp) / "content.jsonl"
    content.write_text("".join(json.dumps(v) + "\n" for v in kept))
    _, text_took = dedup([content], out="from-content.jsonl")
    if a.datatrove:
        dt_named, dt_took = datatrove(kept, tmp + "/batch-dt")
        score("datatrove MinHash (5-grams, 14 × 8)", kept, truth, dt_named, text)
        print(f"one core: crawlsieve dedup {took:.2f} s with extraction, {text_took:.2f} s on the extracted "
              f"text; datatrove {dt_took:.1f} s on the text ({dt_took / text_took:.0f}× the text alone)")
    else:
        print(f"one core: crawlsieve dedup {took:.2f} s with extraction, {text_took:.2f} s on the text")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", choices=CORPORA, default="wcxb")
    ap.add_argument("--pages", type=int, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--datatrove", action="store_true")
    ap.add_argument("--speed", action="store_true")
    ap.add_argument("--set", action="append", default=[], help="a configuration override for the dedup scan")
    ap.add_argument("--batch", action="store_true",
                    help="also: `crawlsieve dedup` over the crawl after the fact (and datatrove with --datatrove)")
    ap.add_argument("--shared", metavar="REDIS_URL",
                    help="also: the crawl split over two scans at once sharing this Redis index, and its cost")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    pages, truth = crawl(a, rng)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "crawl.jsonl"
        path.write_text("".join(json.dumps(p) + "\n" for p in pages))
        sets = [x for s in a.set for x in ("--set", s)]
        index = Path(tmp) / "seen.redb"
        verdicts, took = scan(path, tmp, "--dedup-index", str(index), *sets)
        kept = [v for v in verdicts if v["verdict"] in ("keep", "flag")]
        text = {v["url"]: v.get("content") or "" for v in kept}
        named = {v["url"]: v["duplicate_of"]["url"] for v in kept if v.get("duplicate_of")}
        print(f"{a.corpus}: {len(pages)} pages, {len(kept)} kept or flagged (the others are not looked up); "
              f"index {index.stat().st_size:,} bytes for {len(kept) - len(named)} pages added")
        print("| method | " + " | ".join(("original",) + KINDS) + " | Jaccard ≥ .8 | recall | pair precision | wrong pairs | benchmark mirrors |")
        print("|---|" + "---|" * (len(KINDS) + 7))
        score("crawlsieve scan --dedup", kept, truth, named, text)
        if a.datatrove:
            dt_named, dt_took = datatrove(kept, tmp)
            score("datatrove MinHash (5-grams, 14 × 8)", kept, truth, dt_named, text)
            print(f"datatrove on the extracted text alone: {dt_took:.1f} s; crawlsieve's scan (extraction included, 1 thread): {took:.1f} s")
        if a.batch:
            os.makedirs(tmp + "/batch-dt")
            batch(a, path, tmp, truth, sets)
        if a.shared:
            two_scans_sharing(a, path, tmp, pages, truth, sets)
        if a.speed:
            on, off = [], []
            for _ in range(3):
                off.append(scan(path, tmp)[1])
                on.append(scan(path, tmp, "--dedup")[1])
            print(f"scan -j 1, best of 3: check off {min(off):.2f} s, on {min(on):.2f} s: "
                  f"{min(off) / min(on):.3f} of the throughput")


if __name__ == "__main__":
    main()
