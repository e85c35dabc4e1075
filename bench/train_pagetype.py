#!/usr/bin/env python3
"""Trains the page-type classifier shipped in rules/pagetype.json.

Data: WCXB dev (../shared/data/extraction/wcxb-dev), whose ground truth gives
each page one of seven types (article, collection, documentation, forum,
listing, product, service). Each page's feature row comes from the release
binary (`crawlsieve extract --page-features`, the pages fed as JSONL with their
URLs), so the features are exactly the ones the agent computes.

Model: scikit-learn's HistGradientBoostingClassifier, classes weighted by their
frequency (so the rare types are not given up); the agent walks one tree per
type and iteration and takes a softmax. Evaluation:
k-fold cross-validation grouped by domain (no site in both train and test):
accuracy and macro F1 per fold, with the spread, a confusion matrix, and how
often the predicted type is right at each confidence level. A multinomial
logistic regression (what was shipped before) is scored the same way for
comparison.

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

import gbtrees

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
    """Out-of-fold predicted type, its probability, per-fold (accuracy, macro
    F1), and the raw per-type scores (for calibrating the confidence)."""
    pred = np.empty(len(y), dtype=object)
    proba = np.zeros(len(y))
    raw_scores = np.zeros((len(y), len(set(y))))
    per_fold = []
    for train, test in GroupKFold(n_splits=folds).split(X, y, groups):
        scaler = StandardScaler().fit(X[train]) if scale else None
        tx = scaler.transform(X[train]) if scale else X[train]
        vx = scaler.transform(X[test]) if scale else X[test]
        m = make().fit(tx, y[train])
        p = m.predict_proba(vx)
        raw_scores[test] = m.decision_function(vx)
        pred[test] = m.classes_[p.argmax(1)]
        proba[test] = p.max(1)
        per_fold.append(((pred[test] == y[test]).mean(), f1_score(y[test], pred[test], average="macro")))
    return pred, proba, per_fold, raw_scores


def temperature(raw_scores, y, classes):
    """The divisor of the raw scores that makes the out-of-fold probabilities
    honest (least log loss): boosted trees are overconfident, and a page
    type's confidence should mean what it says."""
    truth = np.array([classes.index(t) for t in y])
    best = None
    for t in np.arange(0.5, 6.01, 0.05):
        p = np.array([softmax(z / t) for z in raw_scores])
        loss = -np.mean(np.log(p[np.arange(len(y)), truth] + 1e-12))
        if best is None or loss < best[1]:
            best = (round(float(t), 2), loss)
    return best[0]


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

    lp, lpr, lfold, _ = cross_validate(X, y, groups, args.folds, linear)
    report("logistic regression (comparison; shipped before 2026-11-26 #3)", y, lp, lpr, lfold)
    pred, proba, per_fold, raw_scores = cross_validate(X, y, groups, args.folds, trees, scale=False)
    report("gradient-boosted trees (shipped)", y, pred, proba, per_fold)
    classes = sorted(set(y))
    temp = temperature(raw_scores, y, classes)
    proba = np.array([softmax(z / temp).max() for z in raw_scores])
    print(f"confidence: raw scores divided by {temp} (least out-of-fold log loss)")
    print("confusion (rows: truth, columns: predicted):")
    print("  " + " ".join(f"{c[:5]:>6}" for c in classes) + "   recall")
    for c in classes:
        row = [((y == c) & (pred == k)).sum() for k in classes]
        print(f"  {c[:5]:>5} " + " ".join(f"{n:>6}" for n in row) + f"   {row[classes.index(c)] / max(1, (y == c).sum()):.3f}")
    for lo, hi in [(0, .5), (.5, .7), (.7, .9), (.9, 1.01)]:
        sel = (proba >= lo) & (proba < hi)
        if sel.any():
            print(f"  confidence {lo:.1f}-{min(hi, 1):.1f}: {sel.sum():4d} pages, right {(pred[sel] == y[sel]).mean():.3f}")

    if args.no_write:
        return
    m = trees().fit(X, y)
    model = export(m, names)
    x32 = X[:200].astype(np.float32)
    got = np.array([softmax(raw(model, r)) for r in x32])
    assert np.allclose(got, m.predict_proba(x32.astype(np.float64)), atol=1e-4), \
        "exported trees disagree with scikit-learn"
    model["temperature"] = temp
    with open(args.out, "w") as f:
        json.dump(model, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {args.out}: {sum(len(t) for t in model['trees'])} trees")


def trees():
    return HistGradientBoostingClassifier(max_iter=60, learning_rate=0.25, max_leaf_nodes=15,
                                          class_weight="balanced", random_state=0)


def export(m, names):
    """Format 2 of rules/pagetype.json: per boosting iteration one tree per type."""
    return {
        "format": 2,
        "about": "page-type classifier; made by bench/train_pagetype.py from WCXB dev "
                 "(CC-BY-4.0, Foley 2026); gradient-boosted trees, one per type and iteration, then a softmax",
        "features": names,
        "classes": [str(c) for c in m.classes_],
        "bias": [float(v) for v in np.ravel(m._baseline_prediction)],
        "trees": [[gbtrees.tree(p) for p in per_type] for per_type in m._predictors],
    }


def raw(model, row):
    """The agent's walk, in f32 as the agent does it."""
    row = np.asarray(row, dtype=np.float32)
    z = np.array(model["bias"], dtype=np.float64)
    for per_type in model["trees"]:
        for k, t in enumerate(per_type):
            i = 0
            while t["feature"][i] >= 0:
                i = t["right"][i] if row[t["feature"][i]] > np.float32(t["threshold"][i]) else t["left"][i]
            z[k] += t["value"][i]
    return z


def softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


if __name__ == "__main__":
    main()
