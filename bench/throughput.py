#!/usr/bin/env python3
"""Single-core throughput of crawlsieve against resiliparse, trafilatura and
rs-trafilatura on the same pages, in the same run.

All pages of ../shared/data/extraction (WCXB dev + trafilatura-eval: real
pages from thousands of sites) are read into memory first by every system,
so the figures are parse/extract speed, not disk or gzip. Bytes are the raw
HTML bytes. One core: crawlsieve's `bench` is single-threaded; the Python
peers run in one process.

Usage: bench/throughput.py [--data DIR] [--quick] [--scorers plateau,pruned,learned]
(run bench/peers-venv.sh first, or let this script run it). --rounds N --pin CPU
measures only the target of issue 78: crawlsieve's default pipeline and resiliparse
in turn, N rounds on one pinned core, the median and range of the rounds' ratios.
--quick uses the first
300 pages; --scorers also measures the full pipeline with each `extract.scorer`
named, in the same run (the default's figure is "crawlsieve full"). The second
corpus, smaller pages: bench/small_pages.py && bench/throughput.py --data target/small-pages
rs-trafilatura is built from bench/peers-rs (its own Cargo.lock) into target/peers-rs.
"""
import argparse, glob, json, os, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")

PEER = r'''
import sys, json, gzip, time, resource
name, listfile = sys.argv[1], sys.argv[2]
files = open(listfile).read().split("\n")
pages = []
for p in files:
    raw = gzip.open(p).read() if p.endswith(".gz") else open(p, "rb").read()
    pages.append((len(raw), raw.decode("utf-8", errors="replace")))
if name == "trafilatura":
    import trafilatura
    f = lambda html: trafilatura.extract(html)
else:
    from resiliparse.extract.html2text import extract_plain_text
    f = lambda html: extract_plain_text(html, main_content=True)
best = float("inf")
for _ in range(1 if name == "trafilatura" else 2):
    t = time.perf_counter()
    for _, html in pages:
        try: f(html)
        except Exception: pass
    best = min(best, time.perf_counter() - t)
mb = sum(n for n, _ in pages) / 1e6
print(json.dumps({"pages": len(pages), "megabytes": mb, "seconds": best, "mb_per_s": mb / best,
                  "pages_per_s": len(pages) / best,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
'''

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "extraction"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--scorers", default="", help="comma-separated extract.scorer values to measure too")
    ap.add_argument("--rounds", type=int, default=0,
                    help="only crawlsieve full against resiliparse, in turn, this many rounds")
    ap.add_argument("--pin", default="1", help="the core --rounds pins both systems to")
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(a.data, "**", "*.html.gz"), recursive=True) +
                   glob.glob(os.path.join(a.data, "**", "*.html"), recursive=True))
    if a.quick:
        files = files[:300]
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    subprocess.run([os.path.join(HERE, "peers-venv.sh")], check=True)
    listfile = os.path.join(ROOT, "target", "bench-files.txt")
    open(listfile, "w").write("\n".join(files))
    binary = os.path.join(ROOT, "target", "release", "crawlsieve")
    if a.rounds:
        return rounds(a, files, listfile, binary)
    results = {}
    for mode in ("full", "extract"):
        out = subprocess.run([binary, "bench", "--json", "--mode", mode, "--repeat", "3", *files],
                             capture_output=True, check=True)
        results[f"crawlsieve {mode}"] = json.loads(out.stdout)
    for scorer in filter(None, a.scorers.split(",")):
        out = subprocess.run([binary, "bench", "--json", "--mode", "full", "--repeat", "3",
                              "--set", f"extract.scorer={scorer}", *files], capture_output=True, check=True)
        results[f"crawlsieve {scorer}"] = json.loads(out.stdout)
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(ROOT, "target", "peers-rs"))
    subprocess.run(["cargo", "build", "--release", "--locked", "--quiet", "--manifest-path",
                    os.path.join(HERE, "peers-rs", "Cargo.toml")], env=env, check=True)
    out = subprocess.run([os.path.join(ROOT, "target", "peers-rs", "release", "peers-rs"),
                          "rs-trafilatura", listfile], capture_output=True, check=True)
    results["rs-trafilatura"] = json.loads(out.stdout)
    py = os.path.join(ROOT, "target", "peers-venv", "bin", "python")
    for name in ("resiliparse", "trafilatura"):
        out = subprocess.run([py, "-c", PEER, name, listfile], capture_output=True, check=True)
        results[name] = json.loads(out.stdout)
    r0 = results["crawlsieve full"]
    print(f"{r0['pages']} pages, {r0['megabytes']:.1f} MB of HTML ({os.path.relpath(a.data, ROOT)}), one core, in memory")
    rp = results["resiliparse"]
    print(f"{'system':<22} {'MB/s':>8} {'pages/s':>8} {'peak RSS MB':>12} {'full ÷ this':>12} {'this ÷ resiliparse':>19}")
    for name, r in results.items():
        print(f"{name:<22} {r['mb_per_s']:>8.1f} {r['pages_per_s']:>8.0f} {r['peak_rss_mb']:>12.0f} "
              f"{r0['mb_per_s'] / r['mb_per_s']:>11.2f}× {r['mb_per_s'] / rp['mb_per_s']:>18.2f}×")
    for name in [n for n in results if n.startswith("crawlsieve ")]:
        r = results[name]
        print(f"{name}: per page p50 {r['p50_ms']:.3f} ms, p99 {r['p99_ms']:.3f} ms; "
              f"per 100 KB p50 {r['p50_ms_per_100kb']:.3f} ms, p99 {r['p99_ms_per_100kb']:.3f} ms")
    print("(crawlsieve full = decode, one HTML pass, content (the default extract.scorer), filters, language, chunks (SHA-1), page id (BLAKE3), matching, verdict;"
          " crawlsieve extract = decode, one HTML pass, content (the default extract.scorer) only;"
          " resiliparse = extract_plain_text(main_content=True); trafilatura = extract();"
          " rs-trafilatura = rs_trafilatura::extract)")

def rounds(a, files, listfile, binary):
    """crawlsieve's default pipeline and resiliparse one after the other on one
    pinned core, `a.rounds` times: the machine's drift moves both alike, so the
    ratio of each round is the figure, its median the one quoted."""
    py = os.path.join(ROOT, "target", "peers-venv", "bin", "python")
    pin = ["taskset", "-c", a.pin]
    ratios = []
    for i in range(a.rounds):
        cs = json.loads(subprocess.run([*pin, binary, "bench", "--json", "--mode", "full", "--repeat", "3",
                                        *files], capture_output=True, check=True).stdout)
        rp = json.loads(subprocess.run([*pin, py, "-c", PEER, "resiliparse", listfile],
                                       capture_output=True, check=True).stdout)
        ratios.append(cs["mb_per_s"] / rp["mb_per_s"])
        print(f"round {i + 1}: crawlsieve {cs['mb_per_s']:.1f} MB/s, resiliparse {rp['mb_per_s']:.1f} MB/s, "
              f"{ratios[-1]:.2f}×", flush=True)
    ratios.sort()
    print(f"{len(files)} pages ({os.path.relpath(a.data, ROOT)}), core {a.pin}: crawlsieve ÷ resiliparse "
          f"median {ratios[len(ratios) // 2]:.2f}×, range {ratios[0]:.2f}–{ratios[-1]:.2f}×")


if __name__ == "__main__":
    main()
