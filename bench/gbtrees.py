"""scikit-learn's gradient-boosted trees as the agent reads them (the block
scorer's rules/extractor.json and the page-type model's rules/pagetype.json):
one tree as parallel arrays, `feature` -1 at a leaf.

Thresholds are written as the largest f32 at most scikit-learn's split, so the
agent's f32 rows take exactly the branches scikit-learn's f64 comparison takes
(the nearest f32 could round above the split and send a row on the split's
value the other way)."""
import numpy as np


def tree(predictor):
    """One of `HistGradientBoosting*._predictors`' trees as a dict of arrays."""
    n = predictor.nodes
    leaf = n["is_leaf"].astype(bool)
    return dict(feature=[-1 if l else int(f) for f, l in zip(n["feature_idx"], leaf)],
                threshold=[0.0 if l else below(t) for t, l in zip(n["num_threshold"], leaf)],
                left=[int(x) for x in n["left"]], right=[int(x) for x in n["right"]],
                value=[f32(v) if l else 0.0 for v, l in zip(n["value"], leaf)])


def f32(v):
    """A decimal that reads back as the same f32 (what the agent parses)."""
    return float(f"{np.float32(v):.9g}")


def below(t):
    """The largest f32 at most `t`: for every f32 x, x > below(t) exactly when
    x > t, so the agent's f32 rows go the way scikit-learn's f64 split does."""
    t32 = np.float32(t)
    if float(t32) > t:
        t32 = np.nextafter(t32, np.float32(-np.inf))
    return f32(t32)
