#!/usr/bin/env python3
"""Does crawlsieve's reading of lid.176 (agent/core/src/language/fasttext/)
give fastText's answer? Every sentence of ../shared/data/langid (75
languages), through the `lid176` example and through fasttext-predict 0.9.2.4
(PyPI; fastText's own C++) on the same rules/lid176.ftz: the share with the same
best label, and the largest difference in its probability.

Usage: target/lang-venv/bin/python bench/fasttext_port.py   (pip install fasttext-predict==0.9.2.4;
       cargo build --release -p crawlsieve-bench --examples first)
"""
import glob, os, subprocess

import fasttext

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
lines = []
for path in sorted(glob.glob(os.path.join(ROOT, "..", "shared", "data", "langid", "sentences", "*.txt"))):
    lines += [l.strip() for l in open(path, encoding="utf-8") if l.strip()]
ours = subprocess.run([os.path.join(ROOT, "target", "release", "examples", "lid176")], input="\n".join(lines) + "\n",
                      capture_output=True, text=True, check=True).stdout.splitlines()
model = fasttext.load_model(os.path.join(ROOT, "rules", "lid176.ftz"))
same, worst = 0, 0.0
for line, mine in zip(lines, ours):
    labels, probs = model.predict(line, k=1)
    label, prob = mine.split("\t")
    if labels[0][len("__label__"):] == label:
        same += 1
        worst = max(worst, abs(float(prob) - min(float(probs[0]), 1.0)))
print(f"{same} of {len(lines)} sentences: the same best label; probability within {worst:.4f}")
