#!/usr/bin/env python3
"""Trains the page-type classifier shipped in rules/pagetype.json.

Data: WCXB dev (../shared/data/extraction/wcxb-dev), whose ground truth gives
each page one of seven types (article, collection, documentation, forum,
listing, product, service). Each page's feature row comes from the release
binary (`crawlsieve extract --page-features`, the pages fed as JSONL with their
URLs), so the features are exactly the ones the agent computes.

Model: scikit-learn's multinomial LogisticRegression on standardised features,
classes weighted by their frequency (so the rare types are not given up).
The agent applies it with a dot product per type and a softmax. Evaluation:
k-fold cross-validation grouped by domain (no site in both train and test):
accuracy and macro F1 per fold, with the spread, a confusion matrix, and how
often the predicted type is right at each confidence level. A gradient-boosted
model is scored the same way for comparison (not shipped: it is only worth its
size if it is clearly better).

Usage: bench/train_pagetype.py [--folds 5] [--out rules/pagetype.json] [--no-write]
Needs: the venv of bench/peers-venv.sh with scikit-learn and numpy.
"""
import argparse, collections, gzip, json, os, subprocess, sys

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import GroupKFold
from sklearn.preprocessing import StandardScaler

HERE = os.path.dirname(os.path.abspath(__file__))


def pages_jsonl(data):
    """WCXB dev pages as JSONL page lines (url, html), with their labels."""
    gt_dir = os.path.join(data, "dev", "ground-truth")
    meta = json.load(open(os.path.join(data, "metadata.json")))["files"]
    lines, labels = [], []
    for name in sorted(os.listdir(gt_dir)):
        fid = name[:-5]
        g = json.load(open(os.path.join(gt_dir, name)))
        html = gzip.open(os.path.join(data, "dev", "html", fid + ".html.gz")).read().decode("utf-8", "replace")
        url = g.get("url") or f"https://{meta[fid]['domain']}/"  # one page has no URL
        lines.append(json.dumps({"url": url, "html": html}))
        labels.append(dict(id=fid, url=url, type=g["_internal"]["page_type"]["primary"],
                           domain=meta[fid]["domain"]))
    return "\n".join(lines) + "\n", labels


def features(binary, data):
    jsonl, labels = pages_jsonl(data)
    env = dict(os.environ, CRAWLSIEVE_EXTRACT__SCORER="plateau")
    out = subprocess.run([binary, "extract", "--page-features", "-"], input=jsonl.encode(),
                         capture_output=True, check=True, env=env)
    rows = [json.loads(l) for l in out.stdout.decode().splitlines()]
    assert len(rows) == len(labels), (len(rows), len(labels))
    for r, l in zip(rows, labels):
        assert r["url"] == l["url"]
    return np.array([r["row"] for r in rows], dtype=np.float64), labels


def linear():
    return LogisticRegression(C=0.5, max_iter=4000, class_weight="balanced")


def cross_validate(X, y, groups, folds, make, scale=True):
    pred = np.empty(len(y), dtype=object)
    proba = np.zeros(len(y))
    per_fold = []
    for train, test in GroupKFold(n_splits=folds).split(X, y, groups):
        scaler = StandardScaler().fit(X[train]) if scale else None
        tx = scaler.transform(X[train]) if scale else X[train]
        vx = scaler.transform(X[test]) if scale else X[test]
        m = make().fit(tx, y[train])
        p = m.predict_proba(vx)
        pred[test] = m.classes_[p.argmax(1)]
        proba[test] = p.max(1)
        per_fold.append(((pred[test] == y[test]).mean(), f1_score(y[test], pred[test], average="macro")))
    return pred, proba, per_fold


def report(name, y, pred, proba, per_fold):
    acc = [a for a, _ in per_fold]
    mf1 = [f for _, f in per_fold]
    print(f"{name}: accuracy {np.mean(acc):.3f} (folds {' '.join(f'{a:.3f}' for a in acc)}), "
          f"macro F1 {np.mean(mf1):.3f} ({min(mf1):.3f}-{max(mf1):.3f})")
    return (pred == y).mean()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "data", "extraction", "wcxb-dev"))
    ap.add_argument("--binary", default=os.path.join(HERE, "..", "target", "release", "crawlsieve"))
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--out", default=os.path.join(HERE, "..", "rules", "pagetype.json"))
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()

    names = json.loads(subprocess.run([args.binary, "extract", "--page-features", "--feature-names"],
                                      capture_output=True, check=True).stdout)
    X, labels = features(args.binary, args.data)
    y = np.array([l["type"] for l in labels])
    groups = np.array([l["domain"] for l in labels])
    print(f"{len(y)} pages, {X.shape[1]} features; types: {dict(collections.Counter(y))}")

    pred, proba, per_fold = cross_validate(X, y, groups, args.folds, linear)
    report("logistic regression (shipped)", y, pred, proba, per_fold)
    classes = sorted(set(y))
    print("confusion (rows: truth, columns: predicted):")
    print("  " + " ".join(f"{c[:5]:>6}" for c in classes) + "   recall")
    for c in classes:
        row = [((y == c) & (pred == k)).sum() for k in classes]
        print(f"  {c[:5]:>5} " + " ".join(f"{n:>6}" for n in row) + f"   {row[classes.index(c)] / max(1, (y == c).sum()):.3f}")
    for lo, hi in [(0, .5), (.5, .7), (.7, .9), (.9, 1.01)]:
        sel = (proba >= lo) & (proba < hi)
        if sel.any():
            print(f"  confidence {lo:.1f}-{min(hi, 1):.1f}: {sel.sum():4d} pages, right {(pred[sel] == y[sel]).mean():.3f}")

    hgb = lambda: HistGradientBoostingClassifier(max_iter=150, learning_rate=0.1, max_leaf_nodes=15,
                                                 class_weight="balanced", random_state=0)
    gp, gpr, gfold = cross_validate(X, y, groups, args.folds, hgb, scale=False)
    report("gradient-boosted trees (comparison, not shipped)", y, gp, gpr, gfold)

    if args.no_write:
        return
    scaler = StandardScaler().fit(X)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    m = linear().fit((X - scaler.mean_) / scale, y)
    model = {
        "format": 1,
        "about": "page-type classifier; made by bench/train_pagetype.py from WCXB dev "
                 "(CC-BY-4.0, Foley 2026); multinomial logistic regression on standardised features",
        "features": names,
        "classes": [str(c) for c in m.classes_],
        "mean": [round(float(v), 6) for v in scaler.mean_],
        "scale": [round(float(v), 6) for v in scale],
        "coef": [[round(float(v), 6) for v in row] for row in m.coef_],
        "intercept": [round(float(v), 6) for v in m.intercept_],
    }
    with open(args.out, "w") as f:
        json.dump(model, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
