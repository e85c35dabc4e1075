#!/usr/bin/env python3
"""Extraction quality on trafilatura's evaluation set (990 pages, mostly German)
with trafilatura's metric (tests/eval_common.py upstream):

per document, whitespace-normalise (\\s+ -> ' ') extraction and snippets;
TP = "with" snippets found as substrings, FN = "with" not found,
FP = "without" snippets found, TN = "without" not found; counts summed over
the corpus; P = TP/(TP+FP), R = TP/(TP+FN), F1 = 2TP/(2TP+FP+FN).
A failed extraction counts as empty output.

Usage: bench/eval_trafilatura.py [--data DIR] [--binary PATH] [--peers]
Published (docs/evaluation.rst, 2026-08-04): trafilatura 2.2 F1 .924, jusText .862,
readability-lxml .826, resiliparse 1.0.9 .811.
"""
import argparse, json, os, re, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crawlsieve_extract import ours

HERE = os.path.dirname(os.path.abspath(__file__))
WS = re.compile(r"\s+")

def norm(s):
    return WS.sub(" ", s or "").strip()

def load(data):
    d = json.load(open(os.path.join(data, "tests", "evaldata.json")))
    docs = []
    for url, item in d.items():
        path = None
        for sub in ("cache", "eval"):
            p = os.path.join(data, "tests", sub, item["file"] + ".gz")
            if os.path.exists(p):
                path = p
                break
        docs.append((url, path, item["with"], item["without"]))
    return docs

def peer(name, files):
    py = os.path.join(HERE, "..", "target", "peers-venv", "bin", "python")
    code = r'''
import sys, json, gzip, time
name = sys.argv[1]
if name == "trafilatura":
    import trafilatura
    f = lambda html: trafilatura.extract(html) or ""
else:
    from resiliparse.extract.html2text import extract_plain_text
    f = lambda html: extract_plain_text(html, main_content=True) or ""
res = {}; t = time.perf_counter()
for path in sys.argv[2:]:
    html = gzip.open(path).read()
    try: res[path] = f(html.decode("utf-8", errors="replace"))
    except Exception: res[path] = ""
print(json.dumps({"secs": time.perf_counter() - t, "res": res}))
'''
    out = subprocess.run([py, "-c", code, name, *files], capture_output=True, check=True)
    o = json.loads(out.stdout)
    return o["res"], o["secs"]

def score(docs, res):
    tp = fn = fp = tn = 0
    for _, path, with_, without in docs:
        text = norm(res.get(path, "")) if path else ""
        for s in with_:
            if norm(s) in text: tp += 1
            else: fn += 1
        for s in without:
            if norm(s) in text: fp += 1
            else: tn += 1
    p = tp / max(1, tp + fp); r = tp / max(1, tp + fn)
    return p, r, 2 * tp / max(1, 2 * tp + fp + fn), (tp + tn) / max(1, tp + tn + fp + fn), fp, fn

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "data", "extraction", "trafilatura-eval"))
    ap.add_argument("--binary", default=os.path.join(HERE, "..", "target", "release", "crawlsieve"))
    ap.add_argument("--peers", action="store_true")
    a = ap.parse_args()
    docs = load(a.data)
    files = sorted({p for _, p, _, _ in docs if p})
    missing = sum(1 for _, p, _, _ in docs if not p)
    urls = {p: u for u, p, _, _ in docs if p}
    # extract.scorer: "plateau" is the default, "learned" the opt-in model, "auto"
    # the plateau with the model where the plateau keeps little of the page,
    # "pruned" as auto and elsewhere the plateau's choice pruned by the model.
    systems = [("cs-plateau", *ours(a.binary, files, "plateau", urls)),
               ("cs-auto", *ours(a.binary, files, "auto", urls)),
               ("cs-pruned", *ours(a.binary, files, "pruned", urls)),
               ("cs-learned", *ours(a.binary, files, "learned", urls))]
    if a.peers:
        for name in ("trafilatura", "resiliparse"):
            systems.append((name, *peer(name, files)))
    print(f"trafilatura-eval: {len(docs)} documents ({missing} without HTML), {len(files)} files")
    print("published F1: trafilatura 2.2 .924, jusText .862, readability-lxml .826, resiliparse 1.0.9 .811")
    # kept: "without" snippets found (boilerplate kept); missed: "with" snippets not found.
    print(f"{'system':<12} {'pages/s':>8} {'P':>6} {'R':>6} {'F1':>6} {'acc':>6} {'kept':>5} {'missed':>6}")
    for name, res, secs in systems:
        p, r, f, acc, fp, fn = score(docs, res)
        print(f"{name:<12} {len(files)/secs:>8.0f} {p:>6.3f} {r:>6.3f} {f:>6.3f} {acc:>6.3f} {fp:>5} {fn:>6}")

if __name__ == "__main__":
    main()
