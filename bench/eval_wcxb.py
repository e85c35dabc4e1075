#!/usr/bin/env python3
"""Extraction quality on WCXB (dev split) with WCXB's own metric.

Metric (upstream evaluate.py): tokens = re.findall(r'\\w+', text.lower());
bag-of-words multiset overlap; per page P = overlap/|pred|, R = overlap/|ref|,
F1 = 2PR/(P+R); empty ref and empty pred -> 1,1,1; empty pred -> 0.
Reported: unweighted mean over pages of P, R, F1, overall and per page type.

Usage: bench/eval_wcxb.py [--data DIR] [--binary PATH] [--peers]
  --peers  also run trafilatura and resiliparse (from the venv made by
           bench/peers-venv.sh) on the same pages and print their scores.
"""
import argparse, collections, gzip, json, os, re, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crawlsieve_extract import ours

WORD = re.compile(r"\w+")

def bow(text):
    return collections.Counter(WORD.findall((text or "").lower()))

def prf(pred, ref):
    p, r = bow(pred), bow(ref)
    np_, nr = sum(p.values()), sum(r.values())
    if nr == 0 and np_ == 0:
        return 1.0, 1.0, 1.0
    if np_ == 0 or nr == 0:
        return 0.0, 0.0, 0.0
    overlap = sum((p & r).values())
    P, R = overlap / np_, overlap / nr
    F = 0.0 if P + R == 0 else 2 * P * R / (P + R)
    return P, R, F

def peer(name, files):
    py = os.path.join(os.path.dirname(__file__), "..", "target", "peers-venv", "bin", "python")
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
    html = gzip.open(path, "rt", encoding="utf-8", errors="replace").read() if path.endswith(".gz") else open(path, encoding="utf-8", errors="replace").read()
    try: res[path] = f(html)
    except Exception: res[path] = ""
print(json.dumps({"secs": time.perf_counter() - t, "res": res}))
'''
    out = subprocess.run([py, "-c", code, name, *files], capture_output=True, check=True)
    o = json.loads(out.stdout)
    return o["res"], o["secs"]

def reason(pred, p, r, ref=None):
    """Why a page scored low: the four failure kinds of the extraction issue,
    or a ground truth with no words (WCXB has 21 such dev pages; any output
    scores 0 there)."""
    if ref is not None and not ref.split():
        return "empty truth"
    if not (pred or "").strip():
        return "nothing found"
    if p >= 0.5 and r < 0.5:
        return "content cut"
    if r >= 0.5 and p < 0.5:
        return "boilerplate kept"
    if p < 0.5 and r < 0.5:
        return "wrong block"
    return "partly cut" if r < p else "partly boilerplate"

def worst_per_type(scores, res, types, n, refs):
    lines = []
    for t in types:
        mine = sorted((s for s in scores if s[1] == t), key=lambda s: s[0][2])[:n]
        items = [f"{os.path.basename(path)[:4]} {p:.2f}/{r:.2f}/{f:.2f} {reason(res.get(path, ''), p, r, refs[path])}"
                 for (p, r, f), _, path in mine]
        lines.append(f"  {t}: " + "; ".join(items))
    return lines

def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "shared", "data", "extraction", "wcxb-dev"))
    ap.add_argument("--binary", default=os.path.join(here, "..", "target", "release", "crawlsieve"))
    ap.add_argument("--peers", action="store_true")
    ap.add_argument("--worst", type=int, default=0, help="list the N worst pages")
    ap.add_argument("--dump", help="write per-page F1 of crawlsieve as JSON to this file")
    ap.add_argument("--dump-all", help="write every system's per-page F1 as JSON {system: {file: F1}} to this file")
    a = ap.parse_args()
    gt_dir = os.path.join(a.data, "dev", "ground-truth")
    pages, urls = [], {}
    domains = json.load(open(os.path.join(a.data, "metadata.json")))["files"]
    for name in sorted(os.listdir(gt_dir)):
        g = json.load(open(os.path.join(gt_dir, name)))
        fid = name[:-5]
        # Where the page came from (one page has no URL: its site's).
        urls[os.path.join(a.data, "dev", "html", fid + ".html.gz")] = g.get("url") or f"https://{domains[fid]['domain']}/"
        pages.append((os.path.join(a.data, "dev", "html", fid + ".html.gz"), g["ground_truth"].get("main_content", ""),
                      g["_internal"]["page_type"]["primary"]))
    files = [p for p, _, _ in pages]
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
    types = sorted({t for _, _, t in pages})
    worst, every = [], {}
    print(f"WCXB dev, {len(pages)} pages; mean per-page P / R / F1 (published dev F1: rs-trafilatura .859, trafilatura .791, jusText .707, Readability .675)")
    header = f"{'system':<12} {'pages/s':>8} {'P':>6} {'R':>6} {'F1':>6}  " + "  ".join(f"{t[:10]:>10}" for t in types)
    print(header)
    for name, res, secs in systems:
        scores = [(prf(res.get(path, ""), ref), t, path) for path, ref, t in pages]
        mean = lambda xs: sum(xs) / max(1, len(xs))
        P = mean([s[0][0] for s in scores]); R = mean([s[0][1] for s in scores]); F = mean([s[0][2] for s in scores])
        per_type = "  ".join(f"{mean([s[0][2] for s in scores if s[1] == t]):>10.3f}" for t in types)
        print(f"{name:<12} {len(pages)/secs:>8.0f} {P:>6.3f} {R:>6.3f} {F:>6.3f}  {per_type}")
        every[name] = {os.path.basename(path): f for (_, _, f), _, path in scores}
        if a.dump and name == "cs-plateau":
            json.dump({os.path.basename(path): f for (_, _, f), _, path in scores}, open(a.dump, "w"))
        if a.worst and name.startswith("cs-"):
            worst.append(f" {name}:")
            worst.extend(worst_per_type(scores, res, types, a.worst, {path: ref for path, ref, _ in pages}))
    if a.dump_all:
        json.dump(every, open(a.dump_all, "w"))
    if worst:
        print("\nworst pages per type: id, P / R / F1, reason")
        print("\n".join(worst))
    print("page types: " + ", ".join(f"{t} ({sum(1 for _,_,x in pages if x == t)})" for t in types))

if __name__ == "__main__":
    main()
