#!/usr/bin/env python3
"""Quilted-page detection (issue 16 part 2, seed 000) on quilts built from real pages.

Corpus: every page of ../shared/data/extraction with its URL (bench/styles_corpus.py), the HTML
responses of ../shared/data/warc, and, when Debian's documentation packages are installed
(`apt-get install apache2-doc postgresql-doc-15`, as bench/copies.sh does), the Apache httpd manual
and the PostgreSQL 15 documentation as two whole real sites.

Quilts: each takes `W` words; a fraction f of them are patches — contiguous runs of the extracted
content of s source pages of the corpus (each source used by one quilt only), in equal parts — and
the rest is filler from a held-out page (not in the corpus), cut into s + 1 pieces between the
patches. Cells: s in {2, 3, 4, 6, 8} x f in {.3, .5, .7, .9} x edits in {none, one word in 40 of each
patch replaced}. The definition at the paper's pivot (k 5, m 50, c 4, theta .5) should catch the cells
with s >= 4 and f well above .5, and none with s < 4 or f < .5.

Runs the real binary: `crawlsieve extract --jsonl` for the contents, `crawlsieve quilts` for the
detection (wall time and peak memory of the child process), then scores the output.

Usage: bench/quilts.py [--bin target/release/crawlsieve] [--per-cell 8] [--seed 1] [--scale]
"""
import argparse, glob, json, os, random, re, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
WARC = os.path.join(ROOT, "..", "shared", "data", "warc")
DEBIAN = [("/usr/share/doc/apache2-doc/manual", "http://httpd.apache.org/docs/2.4"),
          ("/usr/share/doc/postgresql-doc-15/html", "https://www.postgresql.org/docs/15")]
W = 500
SOURCES = [2, 3, 4, 6, 8]
FRACTIONS = [0.3, 0.5, 0.7, 0.9]
EDITS = [0, 40]


def run(cmd):
    """Runs a child; returns its stdout."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {p.stderr.decode()[-2000:]}")
    return p.stdout


def peak_of(cmd):
    """Wall seconds, peak RSS (MB) and stderr of one run of cmd."""
    t = time.time()
    actions = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
               (os.POSIX_SPAWN_OPEN, 2, "/tmp/quilts-bench.err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)]
    pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=actions)
    _, status = os.waitpid(pid, 0)
    secs = time.time() - t
    if status != 0:
        sys.exit(f"{' '.join(cmd)} failed: {open('/tmp/quilts-bench.err').read()[-2000:]}")
    err = open("/tmp/quilts-bench.err").read().strip()
    # The child's own peak (VmHWM), which it prints: rusage would count this process's memory too.
    m = re.search(r"peak memory (\d+) MB", err)
    return secs, float(m.group(1)) if m else float("nan"), err


def corpus_files(target):
    files = []
    extraction = os.path.join(target, "styles-corpus.jsonl")
    if not os.path.exists(extraction):
        subprocess.check_call([sys.executable, os.path.join(HERE, "styles_corpus.py"), "--out", extraction])
    files.append(extraction)
    debian = os.path.join(target, "debian-docs.jsonl")
    if all(os.path.isdir(d) for d, _ in DEBIAN):
        if not os.path.exists(debian):
            with open(debian, "w") as out:
                for d, prefix in DEBIAN:
                    for path in sorted(glob.glob(os.path.join(d, "**", "*.htm*"), recursive=True)):
                        rel = os.path.relpath(path, d)
                        html = open(path, "rb").read().decode("utf-8", "replace")
                        out.write(json.dumps({"url": f"{prefix}/{rel}", "html": html}) + "\n")
        files.append(debian)
    else:
        print("Debian documentation not installed: corpus without the two whole sites", file=sys.stderr)
    return files


def contents(binary, files):
    out = run([binary, "extract", "--jsonl", *files, WARC])
    pages = {}
    for line in out.decode().splitlines():
        d = json.loads(line)
        if d.get("url"):
            pages.setdefault(d["url"], d.get("content") or "")
    return pages


WORD = re.compile(r"\S+")
TOKEN = re.compile(r"[^\W_]+")
K = 5


def gram_keys(text):
    """The page's 5-grams as crawlsieve cuts them, near enough (lower case, letters and digits)."""
    t = TOKEN.findall(text.lower())
    return [hash(tuple(t[i:i + K])) for i in range(len(t) - K + 1)]


_runs = {}


def clean_spans(url, text, df, length):
    """Starts of runs of `length` words of `text` none of whose 5-grams occurs on another page: a
    patch taken from such a run has the page it came from as its only source."""
    if url not in _runs:
        words = WORD.findall(text)
        ok = []
        for i in range(len(words)):
            window = " ".join(words[i: i + K])
            g = gram_keys(window)
            ok.append(len(g) == 1 and df.get(g[0], 0) <= 1 and len(TOKEN.findall(window.lower())) == K)
        run, ends = 0, []
        for i, good in enumerate(ok):
            run = run + 1 if good else 0
            ends.append(run)
        _runs[url] = (words, ends)
    words, ends = _runs[url]
    need = length - K + 1
    return words, [i - need + 1 for i, r in enumerate(ends) if r >= need]


def build(pages, per_cell, seed):
    """Quilts whose true sources are known: every patch is a run of its source's words whose grams
    occur on no other page, every filler a run of a held-out page's words likewise, each used once."""
    rng = random.Random(seed)
    df = {}
    for c in pages.values():
        for g in set(gram_keys(c)):
            df[g] = df.get(g, 0) + 1
    # Pages in scripts crawlsieve cuts into one word per character (Han, Kana, Thai...) are left out
    # of the building: this script's uniqueness check splits words at spaces only.
    urls = sorted(u for u, c in pages.items()
                  if len(WORD.findall(c)) >= 60 and sum(ch.isascii() for ch in c) >= 0.98 * len(c))
    rng.shuffle(urls)
    donors = urls[: len(urls) // 3]
    pool = urls[len(urls) // 3:]
    vocab = [w for u in donors[:50] for w in WORD.findall(pages[u])]
    used, quilts = set(), []

    def filler_words():
        """Words of the held-out pages' runs of 20 or more words whose grams occur on no other page."""
        seen = set()
        for u in donors:
            words, _ = clean_spans(u, pages[u], df, 20)
            ends = _runs[u][1]
            i = 0
            while i < len(ends):
                # a maximal run of good gram starts ends where ends[] drops
                if ends[i] and (i + 1 == len(ends) or ends[i + 1] == 0) and ends[i] >= 20 - K + 1:
                    first = i - ends[i] + 1
                    run = words[first: i + K]
                    # A passage a page repeats (a tutorial's "on the View menu click ...") is once per
                    # page for df, but must not reach two quilts.
                    grams = set(gram_keys(" ".join(run)))
                    if not grams & seen:
                        seen.update(grams)
                        yield from run
                i += 1

    fill = filler_words()
    for s in SOURCES:
        for f in FRACTIONS:
            for edit in EDITS:
                for n in range(per_cell):
                    patched = round(f * W)
                    each = patched // s
                    sources, patches = [], []
                    for u in pool:
                        if u in used:
                            continue
                        words, spans = clean_spans(u, pages[u], df, each)
                        if not spans:
                            continue
                        start = rng.choice(spans)
                        piece = words[start: start + each]
                        if edit:
                            for i in range(rng.randrange(edit), len(piece), edit):
                                piece[i] = rng.choice(vocab)
                        used.add(u)
                        sources.append(u)
                        patches.append(" ".join(piece))
                        if len(sources) == s:
                            break
                    if len(sources) < s:
                        sys.exit("corpus too small for this many quilts")
                    need = W - each * s
                    filler = [next(fill, None) for _ in range(need)]
                    if filler[-1] is None:
                        sys.exit("too few held-out pages for the filler")
                    cut = [len(filler) * i // (s + 1) for i in range(s + 2)]
                    paragraphs = []
                    for i in range(s + 1):
                        if cut[i + 1] > cut[i]:
                            paragraphs.append(" ".join(filler[cut[i]: cut[i + 1]]))
                        if i < s:
                            paragraphs.append(patches[i])
                    url = f"https://quilt{len(quilts)}.example/s{s}-f{f}-e{edit}-{n}.html"
                    html = "<html><head><title>Quilt</title></head><body><article>" + "".join(
                        f"<p>{p.replace('&', '&amp;').replace('<', '&lt;')}</p>" for p in paragraphs
                    ) + "</article></body></html>"
                    quilts.append({"url": url, "html": html, "s": s, "f": f, "edit": edit, "sources": sources})
    return quilts, donors


def score(found, quilts, c=4, theta=0.5):
    truth = {q["url"]: q for q in quilts}
    detected = {}
    for line in found:
        q = json.loads(line)
        detected[q["url"]] = q
    rows = []
    for s in SOURCES:
        for f in FRACTIONS:
            cells = []
            for edit in EDITS:
                qs = [q for q in quilts if q["s"] == s and q["f"] == f and q["edit"] == edit]
                hit = [q for q in qs if q["url"] in detected]
                cells.append(f"{len(hit)}/{len(qs)}")
            rows.append((s, f, cells))
    inside = [q for q in quilts if q["s"] >= c and q["f"] >= 0.7]
    outside = [q for q in quilts if q["s"] < c or q["f"] < theta]
    real_hits = [u for u in detected if u not in truth]
    built_hits = [u for u in detected if u in truth]
    src_true = src_found = src_both = 0
    for u in built_hits:
        true = set(truth[u]["sources"])
        got = {s["url"] for s in detected[u]["sources"]}
        src_true += len(true)
        src_found += len(got)
        src_both += len(true & got)
    return {
        "rows": rows,
        "recall_inside": (sum(q["url"] in detected for q in inside), len(inside)),
        "recall_inside_by_edit": {
            e: (sum(q["url"] in detected for q in inside if q["edit"] == e), sum(q["edit"] == e for q in inside))
            for e in EDITS
        },
        "false_outside": (sum(q["url"] in detected for q in outside), len(outside)),
        "detected": len(detected),
        "real_detected": real_hits,
        "built_detected": len(built_hits),
        "sources": (src_both, src_true, src_found),
    }


def report(name, r, secs, peak, stderr):
    print(f"\n### {name}\n")
    print(f"{stderr}\n")
    print(f"wall {secs:.1f} s, peak RSS {peak:.0f} MB\n")
    print("| sources s | patched f | detected, no edits | detected, 1 word in 40 edited |")
    print("|---|---|---|---|")
    for s, f, cells in r["rows"]:
        print(f"| {s} | {f} | {cells[0]} | {cells[1]} |")
    a, b = r["recall_inside"]
    print(f"\nrecall where the definition should hold (s >= 4, f >= .7): {a}/{b} = {a / max(b, 1):.3f}")
    for e, (x, y) in r["recall_inside_by_edit"].items():
        print(f"  edits {e or 'none'}: {x}/{y} = {x / max(y, 1):.3f}")
    a, b = r["false_outside"]
    print(f"built pages detected where it should not (s < 4 or f < .5): {a}/{b}")
    d = r["detected"]
    print(f"detected {d}: {r['built_detected']} built quilts, {len(r['real_detected'])} real pages; "
          f"precision (built / detected) {r['built_detected'] / max(d, 1):.3f}")
    by_site = {}
    for u in r["real_detected"]:
        host = u.split("/")[2]
        by_site[host] = by_site.get(host, 0) + 1
    top = sorted(by_site.items(), key=lambda x: -x[1])[:10]
    print("  real pages detected, by host: " + ", ".join(f"{h} {n}" for h, n in top))
    both, true, found = r["sources"]
    print(f"sources of detected quilts: {both} of {true} true sources found (recall {both / max(true, 1):.3f}), "
          f"{both} of {found} found are true (precision {both / max(found, 1):.3f})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "crawlsieve"))
    ap.add_argument("--per-cell", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale", action="store_true", help="also time corpus subsets")
    a = ap.parse_args()
    target = os.path.join(ROOT, "target", "quilts-bench")
    os.makedirs(target, exist_ok=True)
    files = corpus_files(os.path.join(ROOT, "target"))
    pages = contents(a.bin, files)
    quilts, donors = build(pages, a.per_cell, a.seed)
    held_out = set(donors)
    corpus = os.path.join(target, "corpus.jsonl")
    n_real = 0
    with open(corpus, "w") as out:
        for f in files:
            for line in open(f):
                if json.loads(line)["url"] not in held_out:
                    out.write(line)
                    n_real += 1
        for q in quilts:
            out.write(json.dumps({"url": q["url"], "html": q["html"]}) + "\n")
    print(f"corpus: {n_real} real pages (+ the WARC responses) and {len(quilts)} built quilts; "
          f"{len(held_out)} pages held out as filler")
    result = os.path.join(target, "quilts.jsonl")
    for name, extra in [("paper's pivot (5, 50, 4, .5)", []), ("foreign-sourced (--foreign)", ["--foreign"]),
                        ("each source >= 2 % of the patch grams (--min-share 0.02)", ["--min-share", "0.02"]),
                        ("both (--foreign --min-share 0.02)", ["--foreign", "--min-share", "0.02"])]:
        secs, peak, err = peak_of([a.bin, "quilts", corpus, WARC, "-o", result, *extra])
        report(name, score(open(result).read().splitlines(), quilts), secs, peak, err)
    for mb in ["4", "64"]:
        secs, peak, err = peak_of([a.bin, "quilts", corpus, WARC, "-o", os.devnull, "--memory-mb", mb])
        print(f"\nwith --memory-mb {mb}: {secs:.1f} s, peak RSS {peak:.0f} MB; {err}")
    if a.scale:
        lines = open(corpus).read().splitlines()
        random.Random(a.seed).shuffle(lines)
        print("\n| pages | 1 core: s | s / 1,000 pages | peak MB | 2 cores: s | s / 1,000 | peak MB | 2 cores, --memory-mb 16: s | s / 1,000 | peak MB |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for n in [1000, 2000, 4000, len(lines)]:
            if n > len(lines):
                continue
            sub = os.path.join(target, f"sub{n}.jsonl")
            open(sub, "w").write("\n".join(lines[:n]) + "\n")
            row = [f"{n}"]
            for j, mb in [("1", "512"), ("2", "512"), ("2", "16")]:
                secs, peak, _ = peak_of([a.bin, "quilts", sub, "-o", os.devnull, "-j", j, "--memory-mb", mb])
                row += [f"{secs:.1f}", f"{secs * 1000 / n:.2f}", f"{peak:.0f}"]
            print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
