#!/usr/bin/env python3
"""Trains the learned block scorer shipped in rules/extractor.json.

Data: WCXB dev (../shared/data/extraction/wcxb-dev). Every block of every page
comes from the release binary (`crawlsieve extract --block-features`), so the
features are exactly the ones the agent computes. A block is labelled content
when most of its word 3-grams (or, for blocks under three words, its whole word
sequence) occur in the page's ground-truth main content.

Model: two stages of scikit-learn's HistGradientBoostingClassifier (the second
reads the first's probabilities around each block: agent/core/src/extract/context.rs,
`context` here; stacked on nested out-of-fold predictions; and the page's kind,
the page-type classifier's probabilities, out of fold: `page_kinds`; the pages
are fed with their URLs, as a crawler knows them); samples weighted so that
every page weighs the same (WCXB's figure is a mean over pages) and, within a
page, every word the same. Evaluation: k-fold cross-validation grouped by
domain (no site in both train and test), per-page bag-of-words F1 computed as
bench/eval_wcxb.py does, reported per fold, with the spread. The threshold is
chosen on the out-of-fold predictions of the training folds only. The shipped
model is then trained on all of dev; trafilatura-eval is never seen. A page's
F1 includes the JSON-LD product description every scorer adds where the chosen
text lacks it (agent/core/src/extract/declared.rs, mirrored here).

Usage: bench/train_extractor.py [--folds 5] [--out rules/extractor.json] [--no-write] [--params JSON] [--below 0.1] [--settle N,P]
                                [--prune-slack 0.0003] [--prune-params JSON|off]
(also chooses the prune cut of extract.scorer = "pruned" and the trees it reads:
the first stage's first trees or trees of its own trained on the plateau's
blocks, whichever walks fewest steps within the slack)
Needs: the venv of bench/peers-venv.sh with scikit-learn and numpy
       (target/peers-venv/bin/pip install scikit-learn numpy).
"""
import argparse, collections, gzip, itertools, json, os, re, subprocess, sys, time
from html import unescape as html_unescape

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier

import gbtrees

WORD = re.compile(r"\w+")
HERE = os.path.dirname(os.path.abspath(__file__))
# The tree counts tried for pruning, and how much F1 fewer trees may cost.
# The slack is the cross-validated F1 given up for fewer steps, kept to a
# rounding (a fiftieth of the folds' spread, .015): at .002 it chose 10 trees
# of the prune's own, cross-validated .851 against .852, which held out on
# trafilatura-eval lost .004 (.931 -> .927; bench/HISTORY.md, 2026-12-07).
PRUNE_TREES = (25, 50, 100)
PRUNE_SLACK = 0.0003
# The prune's own trees (`prune.model` in the file; `--prune-params off` tries
# the first stage's first trees alone): trained on the plateau's blocks of the
# pages it prunes, the only blocks it is asked about. Tried beside the first
# stage's first trees; the cheapest walk (a step a level of a tree) within
# PRUNE_SLACK of the best ships. Shipped 2026-12-08: 100 trees of depth 4,
# cross-validated .8525 as the first stage's hundred of depth 6, held out on
# trafilatura-eval .931 (P .916 R .946 against .915 .948), a third fewer steps.
PRUNE_OWN_DEFAULTS = dict(max_iter=100, max_depth=4)
PRUNE_OWN = dict(PRUNE_OWN_DEFAULTS)
PRUNE_OWN_TREES = (10, 15, 25, 50, 100)
# The same for the second stage's trees.
SECOND_TREES = (25, 50, 100)
SECOND_SLACK = 0.002
# The first stage's early exit (`--settle N,P`): after N trees, a block whose
# probability is below 1 - P or above P keeps it (None: no early exit).
SETTLE = None
# The index of the block's own word count in a row (set from the feature names).
WORDS = None
# The indexes of the plateau's choice of a block and of the page's share it
# keeps (set from the feature names).
PLATEAU = SHARE = None
PARAMS = dict(max_iter=200, learning_rate=0.1, max_leaf_nodes=15, max_depth=6, min_samples_leaf=80,
              l2_regularization=1.0, random_state=0)


def tokens(text):
    return WORD.findall((text or "").lower())


def load(data, binary, cache):
    gt_dir = os.path.join(data, "dev", "ground-truth")
    meta = json.load(open(os.path.join(data, "metadata.json")))["files"]
    pages = []
    for name in sorted(os.listdir(gt_dir)):
        g = json.load(open(os.path.join(gt_dir, name)))
        fid = name[:-5]
        pages.append(dict(id=fid, path=os.path.join(data, "dev", "html", fid + ".html.gz"),
                          ref=g["ground_truth"].get("main_content", "") or "",
                          # The URL is evidence of the page's kind (one page has none).
                          url=g.get("url") or f"https://{meta[fid]['domain']}/",
                          type=g["_internal"]["page_type"]["primary"], domain=meta[fid]["domain"]))
    stamp = os.path.getmtime(binary)
    if not (os.path.exists(cache) and os.path.getmtime(cache) > stamp):
        t = time.perf_counter()
        urls = cache + ".urls"
        with open(urls, "w") as f:
            f.writelines(f"{p['path']}\t{p['url']}\n" for p in pages)
        with open(cache + ".tmp", "wb") as out:
            # Features do not depend on the scorer; the plateau one needs no model file.
            env = dict(os.environ, CRAWLSIEVE_EXTRACT__SCORER="plateau")
            subprocess.run([binary, "extract", "--block-features", "--urls", urls, *[p["path"] for p in pages]],
                           stdout=out, check=False, env=env)
        os.replace(cache + ".tmp", cache)
        print(f"features: {time.perf_counter() - t:.1f} s", file=sys.stderr)
    rows = {}
    for line in open(cache):
        o = json.loads(line)
        rows[o["path"]] = o
    for p in pages:
        o = rows.get(p["path"], {})
        p["blocks"], p["layout"] = o.get("blocks", []), o.get("layout", [])
        p["page_row"], p["shipped_kind"] = o.get("page_row"), o.get("kind")
    return pages


def page_kinds(pages, fold_of, folds, pagetype_file):
    """Each page's kind (agent/core/src/extract/features.rs: KINDS) as the second
    stage reads it, out of fold: from a page-type classifier trained as
    bench/train_pagetype.py trains the shipped one, on the other folds'
    pages, with the shipped classifier's temperature. The shipped second
    stage meets the shipped classifier's probabilities, which never saw the
    page either (on pages of a crawl). Also checks the agent's kinds against
    the shipped classifier walked here."""
    import train_pagetype
    shipped = json.load(open(pagetype_file))
    T = shipped.get("temperature") or 1.0
    assert shipped["classes"] == KINDS, shipped["classes"]
    for p in pages[:200]:
        if p["page_row"] is not None:
            want = train_pagetype.softmax(train_pagetype.raw(shipped, p["page_row"]) / T)
            assert np.allclose(want, p["shipped_kind"], atol=1e-4), "the agent's page kind disagrees"
    X = np.array([p["page_row"] or [0.0] * len(shipped["features"]) for p in pages], dtype=np.float64)
    y = np.array([p["type"] for p in pages])
    f = np.array([fold_of[p["domain"]] for p in pages])
    out = np.zeros((len(pages), len(KINDS)))
    for k in range(folds):
        m = train_pagetype.trees().fit(X[f != k], y[f != k])
        assert list(m.classes_) == KINDS
        z = m.decision_function(X[f == k]) / T
        z = np.exp(z - z.max(1, keepdims=True))
        out[f == k] = z / z.sum(1, keepdims=True)
    acc = np.mean(np.array(KINDS)[out.argmax(1)] == y)
    print(f"page kinds out of fold: accuracy {acc:.3f}", file=sys.stderr)
    for p, k in zip(pages, out):
        p["kind"] = k


def label(page):
    """Per block: content (1) or not, its weight, its tokens. A block is
    content when most of its word 3-grams (under three words: its whole word
    sequence) are in the truth, and, for a block whose text repeats an
    earlier block's, only while the truth holds that many copies: the
    metric counts words with their multiplicity, so a menu drawn twice or a
    post quoted whole by a reply is content once."""
    ref = tokens(page["ref"])
    grams = {tuple(ref[i:i + 3]) for i in range(len(ref) - 2)}
    joined = " " + " ".join(ref) + " "
    ys, ws, toks = [], [], []
    copies = collections.Counter()
    for text, _ in page["blocks"]:
        t = tokens(text)
        toks.append(t)
        if len(t) < 3:
            y = 1 if t and (" " + " ".join(t) + " ") in joined else 0
        else:
            g = [tuple(t[i:i + 3]) for i in range(len(t) - 2)]
            y = 1 if sum(x in grams for x in g) >= 0.5 * len(g) else 0
        key = text.strip()
        if y and copies[key] and copies[key] >= joined.count(" " + " ".join(t) + " "):
            y = 0
        copies[key] += 1
        ys.append(y)
    total = sum(max(1, len(t)) for t in toks) or 1
    ws = [max(1, len(t)) / total for t in toks]
    return ys, ws, toks


def f1(pred_counter, ref_counter):
    np_, nr = sum(pred_counter.values()), sum(ref_counter.values())
    if nr == 0 and np_ == 0:
        return 1.0
    if np_ == 0 or nr == 0:
        return 0.0
    o = sum((pred_counter & ref_counter).values())
    return 0.0 if o == 0 else 2 * o / (np_ + nr)


LD_SCRIPT = re.compile(r"<script[^>]*application/ld\+json[^>]*>(.*?)</script>", re.S | re.I)
ALNUM = re.compile(r"[^\W_]+")


def declared_description(path):
    """The longest description of a JSON-LD `Product` on the page, as plain
    text: what agent/core/src/extract/declared.rs reads, so that the figures
    below include the rule every scorer applies (a mirror, for measuring)."""
    html = gzip.open(path).read().decode("utf-8", "replace")
    objects = []

    def flatten(v, depth=0):
        if depth > 8:
            return
        if isinstance(v, list):
            for x in v:
                flatten(x, depth + 1)
        elif isinstance(v, dict):
            objects.append(v)
            for x in v.values():
                if isinstance(x, (list, dict)):
                    flatten(x, depth + 1)
    for text in LD_SCRIPT.findall(html):
        if "Product" not in text:
            continue
        try:
            flatten(json.loads(text, strict=False))
        except ValueError:
            continue
    best = None
    for o in objects:
        t = o.get("@type")
        types = [t] if isinstance(t, str) else [x for x in (t or []) if isinstance(x, str)]
        d = o.get("description")
        if any(x.lower() == "product" for x in types) and isinstance(d, str):
            d = " ".join(html_unescape(re.sub(r"<[^>]*(>|$)", " ", d)).split())
            if best is None or len(d) > len(best):
                best = d
    return best


def with_declared(text, description, min_words=15):
    """`text` with the declared description as its last paragraph when the
    agent would add it: at least `min_words` words, under half in `text`."""
    if not description:
        return text
    words = [w.lower() for w in ALNUM.findall(description)]
    have = {w.lower() for w in ALNUM.findall(text)}
    if len(words) < min_words or 2 * sum(w in have for w in words) >= len(words):
        return text
    return text + "\n" + description


def declared_f1(page, probs, cut):
    """A page's F1 at a cut, its declared description added as the agent does."""
    text = "\n".join(t for (t, _), pr in zip(page["blocks"], probs) if pr >= cut)
    return f1(collections.Counter(tokens(with_declared(text, page["declared"]))), page["refbag"])


# The probability bins of the expected-F1 cut (agent/core/src/extract/model.rs: BINS).
BINS = 1024


def expected_best(probs, words):
    """The best expected F1 of any cut on a page, taking each block's
    probability as the chance its words are content (the expected overlap of
    a cut over the expected sizes: Jansche 2007's approximation). Cuts are
    searched on `BINS` probability bins, as the agent does, so it is linear
    in the page."""
    if not len(probs):
        return 1.0
    probs = np.asarray(probs, dtype=np.float64)
    words = np.asarray(words, dtype=np.float64)
    bins = np.minimum((probs * BINS).astype(int), BINS - 1)
    a = np.bincount(bins, probs * words, BINS)[::-1].cumsum()
    b = np.bincount(bins, words, BINS)[::-1].cumsum()
    if a[-1] <= 0:
        return 0.0
    return float((2 * a / (b + a[-1])).max())


def page_cut(rule, best, fstar):
    """The probability cut of a page under `rule`: ("fixed", threshold,
    relative) — the threshold, at most `relative` times the page's best
    probability — or ("expected_f1", gamma, floor, ceiling) — `gamma` times
    the page's best expected F1, within [floor, ceiling]. Mirrors
    agent/core/src/extract/model.rs."""
    if rule[0] == "fixed":
        _, th, rel = rule
        return th if rel is None or best <= 0 else min(th, rel * best)
    _, gamma, lo, hi = rule
    return min(max(gamma * fstar, lo), hi)


class Curve:
    """A page's F1 at every cut at once. Any cut keeps the blocks whose
    probability is at least it: a prefix of the blocks sorted by
    probability. So the F1 of every prefix is computed once, in one pass that
    adds a block's words at a time, and a cut is a binary search. The cut is
    `threshold`, or with `relative`, at most `relative` times the page's best
    probability (as the agent's `Model::decide_all`)."""

    def __init__(self, page, probs):
        probs = np.asarray(probs, dtype=np.float64)
        order = np.argsort(-probs, kind="stable")
        self.ascending = probs[order][::-1].copy()
        self.best = float(probs.max()) if len(probs) else 0.0
        self.fstar = expected_best(probs, page["words"])
        ref = page["refbag"]
        nr = sum(ref.values())
        count, overlap, npred = collections.Counter(), 0, 0
        f = [1.0 if nr == 0 else 0.0]
        for i in order:
            for t in page["toks"][i]:
                count[t] += 1
                npred += 1
                if count[t] <= ref.get(t, 0):
                    overlap += 1
            if npred == 0:
                f.append(1.0 if nr == 0 else 0.0)
            else:
                f.append(0.0 if nr == 0 or overlap == 0 else 2 * overlap / (npred + nr))
        self.f = np.array(f)

    def cut(self, rule):
        return page_cut(rule, self.best, self.fstar)

    def at(self, rule):
        kept = len(self.ascending) - int(np.searchsorted(self.ascending, self.cut(rule), side="left"))
        return float(self.f[kept])


RELATIVE = [None, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7]
RULES = ([("fixed", round(float(th), 3), rel) for th in np.arange(0.2, 0.71, 0.025) for rel in RELATIVE]
         + [("expected_f1", g, lo, hi) for g in (0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)
            for lo in (0.0, 0.2, 0.25, 0.3, 0.35) for hi in (0.5, 0.55, 0.6, 0.65, 1.0) if lo < hi])


def best_cut(curves, kinds=("fixed", "expected_f1")):
    """The cut rule (see `page_cut`) that gives the best mean F1 over the
    pages of `curves`. The fixed rule's threshold and relative cut are
    searched jointly: the relative cut caps the threshold, so a threshold
    chosen alone and a relative cut chosen after it stop at a pair where a
    higher threshold would only pay with the relative cut raised too (found
    on 2026-11-26: .375 / .4 chosen in turn, .5 / .5 better on both corpora).
    The expected-F1 rule lets the cut follow the page: about half the F1 the
    page can expect (the F1-optimal cut when probabilities are calibrated),
    so a page whose blocks are all uncertain — a grid of product cards —
    keeps more of them, and a page with a sure article body keeps less."""
    best = None
    for rule in RULES:
        if rule[0] not in kinds:
            continue
        s = float(np.mean([c.at(rule) for c in curves]))
        if best is None or s > best[1] + 1e-9:
            best = (rule, s)
    return best


# The second stage's features (agent/core/src/extract/context.rs: NAMES), after
# the first stage's row.
CONTEXT = ["p", "p_prev3", "p_prev2", "p_prev1", "p_next1", "p_next2", "p_next3", "p_window", "p_template",
           "p_template_max", "p_page_expected_f1", "p_page_max", "p_page", "p_of_max", "p_content_before",
           "p_content_after", "p_distance", "p_region0", "p_region1", "p_region3"]
# The kinds of page (agent/core/src/extract/features.rs: KINDS), the page-type
# classifier's classes; the second stage reads each one's probability.
KINDS = ["article", "collection", "documentation", "forum", "listing", "product", "service"]
CONTEXT += ["kind_" + k for k in KINDS]


def context(page, probs):
    """The context rows of a page (one per block) from its first-stage
    probabilities: neighbours, a ±5-block window, the block's template and
    regions, the page. Mirrors agent/core/src/extract/context.rs; means are
    weighted by words + 1."""
    pr = np.asarray(probs, dtype=np.float32).astype(np.float64)
    n = len(pr)
    if n == 0:
        return np.zeros((0, len(CONTEXT)), dtype=np.float32)
    w = np.asarray(page["words"], dtype=np.float64) + 1.0
    lay = np.asarray(page["layout"], dtype=np.int64)
    cols = [pr]
    for o in (-3, -2, -1, 1, 2, 3):
        s = np.full(n, -1.0)
        if o < 0:
            s[-o:] = pr[:o]
        else:
            s[:-o] = pr[o:]
        cols.append(s)
    pw = np.concatenate([[0.0], np.cumsum(pr * w)])
    ws = np.concatenate([[0.0], np.cumsum(w)])
    mean = lambda lo, hi: (pw[hi] - pw[lo]) / (ws[hi] - ws[lo])
    i = np.arange(n)
    cols.append(mean(np.maximum(i - 5, 0), np.minimum(i + 6, n)))
    tpl = lay[:, 0]
    tpw, tw = np.bincount(tpl, pr * w), np.bincount(tpl, w)
    tmax = np.zeros(tpl.max() + 1)
    np.maximum.at(tmax, tpl, pr)
    cols += [tpw[tpl] / tw[tpl], tmax[tpl]]
    mx = max(pr.max(), 0.0)
    total = pw[n] if pw[n] > 0 else 1.0
    cols += [np.full(n, expected_best(pr, page["words"])), np.full(n, mx), np.full(n, mean(0, n)),
             pr / mx if mx > 0 else np.zeros(n), pw[:-1] / total, (pw[n] - pw[1:]) / total]
    d = np.full(n, 50.0)
    likely = np.flatnonzero(pr >= 0.5)
    if len(likely):
        k = np.searchsorted(likely, i)
        left = np.where(k > 0, i - likely[np.maximum(k - 1, 0)], 1e9)
        right = np.where(k < len(likely), likely[np.minimum(k, len(likely) - 1)] - i, 1e9)
        # searchsorted puts a likely block itself to the right (distance 0)
        d = np.minimum(np.minimum(left, right), 50.0)
    cols.append(d)
    for level in range(3):
        cols.append(mean(lay[:, 1 + 2 * level], lay[:, 2 + 2 * level]))
    cols += [np.full(n, k) for k in page["kind"]]
    return np.stack(cols, 1).astype(np.float32)


def matrix2(pages, probs):
    """The second stage's rows: each block's row, then its context from the
    first-stage probabilities `probs` (per page)."""
    X = [np.concatenate([np.array([r for _, r in p["blocks"]], dtype=np.float32), context(p, pr)], 1)
         for p, pr in zip(pages, probs) if p["blocks"]]
    X = np.concatenate(X) if X else np.zeros((0, 0), dtype=np.float32)
    y = np.array([v for p in pages for v in p["y"]])
    w = np.array([v for p in pages for v in p["w"]])
    return X, y, w


def matrix(pages):
    X = np.array([r for p in pages for _, r in p["blocks"]], dtype=np.float32)
    y = np.array([v for p in pages for v in p["y"]])
    w = np.array([v for p in pages for v in p["w"]])
    return X, y, w


def split_probs(pages, flat):
    out, i = [], 0
    for p in pages:
        n = len(p["blocks"])
        out.append(flat[i:i + n])
        i += n
    return out


def fit(pages, probs=None):
    """The first stage on `pages`, or with first-stage `probs` (per page) the second."""
    X, y, w = matrix(pages) if probs is None else matrix2(pages, probs)
    clf = HistGradientBoostingClassifier(**PARAMS)
    clf.fit(X, y, sample_weight=w * len(pages))
    return clf


def fit_prune(pages, gated, total):
    """The prune's own trees: on the plateau's blocks of the `gated` pages
    (weighted as `fit` weighs them, `total` the pages of the fold)."""
    X, y, w = matrix([p for p, g in zip(pages, gated) if g])
    m = X[:, PLATEAU] > 0.5
    clf = HistGradientBoostingClassifier(**dict(PARAMS, **PRUNE_OWN))
    clf.fit(X[m], y[m], sample_weight=w[m] * total)
    return clf


def predict(clf, pages, probs=None):
    """Each page's block probabilities: the first stage's as the agent makes
    them (with its early exit, `settled`), or the second stage's from the
    first's `probs`."""
    X, _, _ = matrix(pages) if probs is None else matrix2(pages, probs)
    if not len(X):
        return split_probs(pages, np.array([]))
    raw = settled(clf, X) if probs is None else clf.decision_function(X)
    return split_probs(pages, 1 / (1 + np.exp(-np.ravel(raw))))


def keep_staged(clf, X, pages, test_idx, into):
    """The probabilities of `clf`'s first n trees alone, for each n in `into`
    (n -> per page), on the rows `X` of the pages `test_idx`."""
    test = [pages[i] for i in test_idx]
    for n, raw in enumerate(clf.staged_decision_function(X), 1):
        if n in into:
            for i, pr in zip(test_idx, split_probs(test, 1 / (1 + np.exp(-np.ravel(raw))))):
                into[n][i] = pr


def settled(clf, X):
    """The first stage's raw scores with the agent's early exit
    (agent/core/src/extract/model.rs, `Settle`): a block past SETTLE's margin
    after its first trees keeps that score."""
    full = np.ravel(clf.decision_function(X))
    if SETTLE is None or SETTLE[0] >= clf.n_iter_:
        return full
    n, p = SETTLE
    margin = np.log(p / (1 - p))
    early = np.ravel(next(itertools.islice(clf.staged_decision_function(X), n - 1, None)))
    return np.where(np.abs(early) > margin, early, full)


def ensemble(clf):
    return dict(bias=float(np.ravel(clf._baseline_prediction)[0]),
                trees=[gbtrees.tree(pred) for (pred,) in clf._predictors])


def export(clf, clf2, names, rule, prune, prune_trees, second_trees, clfp=None):
    second = ensemble(clf2)
    second["trees"] = second["trees"][:second_trees]
    own = {}
    if clfp is not None:
        trees = ensemble(clfp)
        trees["trees"] = trees["trees"][:prune_trees]
        own = dict(model=trees)
    settle = {} if SETTLE is None else dict(settle=dict(trees=SETTLE[0], margin=float(np.log(SETTLE[1] / (1 - SETTLE[1])))))
    return dict(format=1, features=names, **ensemble(clf), **cut_fields(rule), **settle,
                prune=dict(cut_fields(prune), trees=prune_trees, **own),
                second=dict(features=CONTEXT, **second),
                trained="bench/train_extractor.py on WCXB dev (all pages); params " + json.dumps(PARAMS)
                + ("; the prune's own " + json.dumps(PRUNE_OWN) if clfp is not None else ""))


def cut_fields(rule):
    """A cut rule as agent/core/src/extract/model.rs reads it: `threshold` always
    (a block judged alone is cut there; for the expected-F1 rule, the
    middle of its range), with `relative` or `expected_f1`."""
    if rule[0] == "fixed":
        return dict(threshold=rule[1], relative=rule[2])
    _, gamma, lo, hi = rule
    return dict(threshold=round((lo + hi) / 2, 3), expected_f1=dict(gamma=gamma, floor=lo, ceiling=hi))


def walk(model, row):
    """The raw score of a row under an exported ensemble (`model` or its `second`)."""
    s = model["bias"]
    for t in model["trees"]:
        i = 0
        while t["feature"][i] >= 0:
            i = t["left"][i] if row[t["feature"][i]] <= t["threshold"][i] else t["right"][i]
        s += t["value"][i]
    return s


def cross_validate(pages, curves, probs, fold_of, folds, kinds, fallback=None):
    """Per-page and per-fold F1 with each fold's cut rule chosen on the other
    folds' pages. A page without a curve scores `fallback`'s figure (the
    pages "pruned" hands to the model alone)."""
    scores, fold_scores = [None] * len(pages), []
    for k in range(folds):
        rule, _ = best_cut([c for c, p in zip(curves, pages) if c and fold_of[p["domain"]] != k], kinds)
        idx = [i for i, p in enumerate(pages) if fold_of[p["domain"]] == k]
        for i in idx:
            c = curves[i]
            if c is None:
                scores[i] = fallback[i]
            elif pages[i]["declared"]:
                scores[i] = declared_f1(pages[i], probs[i], c.cut(rule))
            else:
                scores[i] = c.at(rule)
        fold_scores.append(float(np.mean([scores[i] for i in idx])))
        print(f"fold {k}: {len(idx)} pages, cut {rule}, F1 {fold_scores[-1]:.3f}", file=sys.stderr)
    return scores, fold_scores


def main():
    global PRUNE_OWN
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "data", "extraction", "wcxb-dev"))
    ap.add_argument("--binary", default=os.path.join(HERE, "..", "target", "release", "crawlsieve"))
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--out", default=os.path.join(HERE, "..", "rules", "extractor.json"))
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--dump-oof", help="write each page's out-of-fold F1 as JSON {id: F1} to this file")
    ap.add_argument("--below", type=float, default=0.1,
                    help="extract.learned_below: pages where the plateau keeps a smaller share go to the model alone")
    ap.add_argument("--params", help="JSON of scikit-learn parameters to change, e.g. '{\"max_iter\": 60}'")
    ap.add_argument("--prune-slack", type=float, default=PRUNE_SLACK,
                    help="how much cross-validated F1 a cheaper prune may cost (default %(default)s)")
    ap.add_argument("--prune-params", help="the trees of the prune's own: JSON of their scikit-learn "
                    f"parameters over {json.dumps(PRUNE_OWN_DEFAULTS)}, or 'off' (the first stage's first "
                    "trees only)")
    ap.add_argument("--settle", help="the first stage's early exit, N,P: after N trees a block below 1-P or "
                    "above P keeps its score (measured 2026-11-29 at 50,0.9: no gain; bench/HISTORY.md)")
    a = ap.parse_args()
    global SETTLE
    if a.settle:
        n, p = a.settle.split(",")
        SETTLE = (int(n), float(p))
    if a.params:
        PARAMS.update(json.loads(a.params))
    if a.prune_params == "off":
        PRUNE_OWN = None
    elif a.prune_params:
        PRUNE_OWN = dict(PRUNE_OWN_DEFAULTS, **json.loads(a.prune_params))
    cache = os.path.join(HERE, "..", "target", "extractor-features-wcxb.jsonl")
    pages = load(a.data, a.binary, cache)
    names = json.loads(subprocess.run([a.binary, "extract", "--feature-names"], capture_output=True,
                                      check=True).stdout)
    print(f"{len(pages)} pages, {sum(len(p['blocks']) for p in pages)} blocks", file=sys.stderr)
    global WORDS, PLATEAU, SHARE
    WORDS = names.index("words")
    PLATEAU, SHARE = names.index("plateau"), names.index("page_plateau_share")
    for p in pages:
        p["y"], p["w"], p["toks"] = label(p)
        p["refbag"] = collections.Counter(tokens(p["ref"]))
        p["declared"] = declared_description(p["path"])
        # The block's words as the agent counts them (the row holds ln(1 + words)).
        p["words"] = [round(float(np.expm1(r[WORDS]))) for _, r in p["blocks"]]
    # Folds grouped by domain, balanced by page count, deterministic.
    domains = sorted({p["domain"] for p in pages}, key=lambda d: (hash_str(d), d))
    fold_of = {d: i % a.folds for i, d in enumerate(domains)}
    page_kinds(pages, fold_of, a.folds, os.path.join(os.path.dirname(a.out), "pagetype.json"))
    oof, oof2 = [None] * len(pages), [None] * len(pages)
    staged = {n: [None] * len(pages) for n in PRUNE_TREES if n < PARAMS["max_iter"]}
    staged2 = {n: [None] * len(pages) for n in SECOND_TREES if n < PARAMS["max_iter"]}
    gated = [bool(p["blocks"]) and p["blocks"][0][1][SHARE] >= a.below for p in pages]
    own = {n: [None] * len(pages) for n in PRUNE_OWN_TREES if PRUNE_OWN and n <= PRUNE_OWN["max_iter"]}
    for k in range(a.folds):
        t = time.perf_counter()
        train = [p for p in pages if fold_of[p["domain"]] != k]
        test_idx = [i for i, p in enumerate(pages) if fold_of[p["domain"]] == k]
        clf = fit(train)
        probs = predict(clf, [pages[i] for i in test_idx])
        for i, pr in zip(test_idx, probs):
            oof[i] = pr
        # The second stage learns from first-stage probabilities the way it
        # will meet them: on pages the first stage never saw. So its training
        # pages get theirs from the other training folds (nested), and the
        # test fold from `clf`, which never saw it.
        inner = {}
        for j in range(a.folds):
            if j != k:
                sub = [p for p in train if fold_of[p["domain"]] != j]
                held = [p for p in train if fold_of[p["domain"]] == j]
                for p, pr in zip(held, predict(fit(sub), held)):
                    inner[p["id"]] = pr
        clf2 = fit(train, [inner[p["id"]] for p in train])
        for i, pr in zip(test_idx, predict(clf2, [pages[i] for i in test_idx], probs)):
            oof2[i] = pr
        # The second stage's first trees alone: what fewer of them cost.
        X2, _, _ = matrix2([pages[i] for i in test_idx], probs)
        keep_staged(clf2, X2, pages, test_idx, staged2)
        # The same model's first trees alone, for the prune cut (below).
        X, _, _ = matrix([pages[i] for i in test_idx])
        keep_staged(clf, X, pages, test_idx, staged)
        # The prune's own trees, on the training folds' plateau blocks.
        if own:
            clfp = fit_prune(train, [g for p, g in zip(pages, gated) if fold_of[p["domain"]] != k], len(train))
            keep_staged(clfp, X, pages, test_idx, own)
        print(f"fold {k}: fitted in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    # Each fold's cut rule is chosen on the other folds' out-of-fold predictions,
    # so no page's labels choose the cut it is scored with. The fixed rule
    # alone is reported beside the chosen one, to show what the choice adds.
    curves1 = [Curve(p, o) for p, o in zip(pages, oof)]
    page_scores, fold_scores = cross_validate(pages, curves1, oof, fold_of, a.folds, ("fixed", "expected_f1"))
    report("learned, first stage alone", pages, page_scores, fold_scores, a.folds)
    first_alone = page_scores
    curves = [Curve(p, o) for p, o in zip(pages, oof2)]
    for kinds in (("fixed",), ("fixed", "expected_f1")):
        page_scores, fold_scores = cross_validate(pages, curves, oof2, fold_of, a.folds, kinds)
        report("learned, " + " or ".join(kinds), pages, page_scores, fold_scores, a.folds)
    # The second stage reads probabilities the first stage already settled
    # well: the fewest of its trees whose F1 is within SECOND_SLACK of all of
    # them are shipped (its walks are half of the learned scorer's cost).
    second = {PARAMS["max_iter"]: (float(np.mean(page_scores)), curves, page_scores, oof2)}
    for n in sorted(staged2):
        c = [Curve(p, o) for p, o in zip(pages, staged2[n])]
        sc, fs = cross_validate(pages, c, staged2[n], fold_of, a.folds, ("fixed", "expected_f1"))
        report(f"learned, second stage of {n} trees", pages, sc, fs, a.folds)
        second[n] = (float(np.mean(sc)), c, sc, staged2[n])
    top = max(f for f, *_ in second.values())
    second_trees = min(n for n, (f, *_) in second.items() if f >= top - SECOND_SLACK)
    _, curves, page_scores, oof2 = second[second_trees]
    print(f"second stage: {second_trees} trees (F1 {second[second_trees][0]:.3f}, all {second[PARAMS['max_iter']][0]:.3f})")
    if a.dump_oof:
        json.dump({p["id"]: f for p, f in zip(pages, page_scores)}, open(a.dump_oof, "w"))
    # extract.scorer = "pruned": on a page where the plateau keeps at least
    # `below` of the words, only the plateau's blocks are scored and kept at
    # the prune cut; elsewhere the model alone, at its own cut. The prune cut
    # is chosen on the other folds' pruned pages, as the cut above; and
    # with it the trees that prune: the first stage's first trees or the
    # prune's own, the cheapest walk (trees times depth) whose cross-validated
    # F1 is within PRUNE_SLACK of the best (the walks are most of the cost).
    print(f"pruned: {sum(gated)} of {len(pages)} pages pruned (plateau share >= {a.below})")
    staged[PARAMS["max_iter"]] = oof
    candidates = {("first", n): o for n, o in staged.items()}
    candidates.update({("own", n): o for n, o in own.items()})
    depth = {"first": PARAMS["max_depth"], "own": (PRUNE_OWN or {}).get("max_depth", PARAMS["max_depth"])}
    tried = {}
    for key in sorted(candidates):
        probs = [np.asarray(o) * np.array([r[PLATEAU] for _, r in p["blocks"]]) if g else None
                 for p, o, g in zip(pages, candidates[key], gated)]
        pruned = [Curve(p, o) if o is not None else None for p, o in zip(pages, probs)]
        auto_scores, auto_fold = cross_validate(pages, pruned, probs, fold_of, a.folds,
                                                ("fixed", "expected_f1"), page_scores)
        name = f"{key[1]} trees" if key[0] == "first" else f"{key[1]} trees of its own"
        report(f"pruned, {name}", pages, auto_scores, auto_fold, a.folds)
        tried[key] = (float(np.mean(auto_scores)), pruned, auto_scores, probs)
    best = max(f for f, *_ in tried.values())
    chosen = min((k for k, (f, *_) in tried.items() if f >= best - a.prune_slack),
                 key=lambda k: (k[1] * depth[k[0]], k[0] != "own"))
    prune_trees = chosen[1]
    print(f"prune: {prune_trees} trees{' of its own' if chosen[0] == 'own' else ''} "
          f"(F1 {tried[chosen][0]:.4f}, best {best:.4f})")
    routes(pages, page_scores, tried[chosen][2], fold_of, a.folds)
    # The pages the plateau keeps little of cost "pruned" most (both stages
    # over every block, and the page's kind for the second): the first stage
    # alone there, measured beside it.
    sc, fs = cross_validate(pages, tried[chosen][1], tried[chosen][3], fold_of, a.folds,
                            ("fixed", "expected_f1"), first_alone)
    report(f"pruned, {prune_trees} trees, the first stage alone where the plateau keeps little",
           pages, sc, fs, a.folds)
    # The shipped model: all pages; cuts from the out-of-fold predictions.
    rule, s = best_cut(curves)
    print(f"cut on out-of-fold predictions: {rule} (F1 {s:.3f})")
    prune, _ = best_cut([c for c in tried[chosen][1] if c])
    print(f"prune cut on out-of-fold predictions: {prune_trees} trees, {prune}")
    clf = fit(pages)
    # The shipped second stage learns from the out-of-fold first-stage
    # probabilities (each page's from a model that never saw its domain).
    clf2 = fit(pages, oof)
    clfp = fit_prune(pages, gated, len(pages)) if chosen[0] == "own" else None
    model = export(clf, clf2, names, rule, prune, prune_trees, second_trees, clfp)
    X, _, _ = matrix(pages[:50])
    got = np.array([walk(model, r) for r in X])
    assert np.allclose(clf.decision_function(X), got, atol=1e-4), "exported trees disagree with scikit-learn"
    X2, _, _ = matrix2(pages[:50], oof[:50])
    got = np.array([walk(model["second"], r) for r in X2])
    want = [np.ravel(raw) for n, raw in enumerate(clf2.staged_decision_function(X2), 1) if n == second_trees][0]
    assert np.allclose(want, got, atol=1e-4), "exported second stage disagrees"
    if clfp is not None:
        got = np.array([walk(model["prune"]["model"], r) for r in X])
        want = [np.ravel(raw) for n, raw in enumerate(clfp.staged_decision_function(X), 1) if n == prune_trees][0]
        assert np.allclose(want, got, atol=1e-4), "exported prune trees disagree"
    if not a.no_write:
        json.dump(model, open(a.out, "w"), separators=(",", ":"))
        print(f"wrote {a.out}: {len(model['trees'])} trees, {sum(len(t['feature']) for t in model['trees'])} nodes")


def routes(pages, learned, pruned, fold_of, folds):
    """The page kind decides the scorer: pages of the kinds in a route go to
    the learned scorer, the rest to `pruned` (each page's kind out of fold,
    as the second stage reads it). Per route: the cross-validated F1 and the
    share of pages the model scores whole (what it costs)."""
    kinds = [KINDS[int(np.argmax(p["kind"]))] for p in pages]
    sure = [float(np.max(p["kind"])) for p in pages]
    candidates = [
        ("no page to learned (pruned)", lambda k, s: False),
        ("every page to learned", lambda k, s: True),
        ("not article", lambda k, s: k != "article"),
        ("not article or documentation", lambda k, s: k not in ("article", "documentation")),
        ("listing, collection, product, forum", lambda k, s: k in ("listing", "collection", "product", "forum")),
        ("listing, collection, product", lambda k, s: k in ("listing", "collection", "product")),
        ("not a sure article (p < .8)", lambda k, s: not (k == "article" and s >= 0.8)),
        ("not a sure article (p < .9)", lambda k, s: not (k == "article" and s >= 0.9)),
    ]
    for name, route in candidates:
        go = [route(k, s) for k, s in zip(kinds, sure)]
        scores = [l if g else p for l, p, g in zip(learned, pruned, go)]
        fold_scores = [np.mean([f for q, f in zip(pages, scores) if fold_of[q["domain"]] == k])
                       for k in range(folds)]
        report(f"routed ({name}; {np.mean(go):.0%} of pages to learned)", pages, scores, fold_scores, folds)


def report(name, pages, scores, fold_scores, folds):
    by_type = collections.defaultdict(list)
    for p, f in zip(pages, scores):
        by_type[p["type"]].append(f)
    print(f"{name}: cross-validated F1 (block-level, {folds} folds by domain): mean {np.mean(scores):.3f}; "
          f"per fold {' '.join(f'{s:.3f}' for s in fold_scores)}; spread {min(fold_scores):.3f}-{max(fold_scores):.3f}")
    print(f"{name}: per type: " + ", ".join(f"{t} {np.mean(v):.3f} ({len(v)})" for t, v in sorted(by_type.items())))


def hash_str(s):
    h = 2166136261
    for b in s.encode():
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


if __name__ == "__main__":
    main()
