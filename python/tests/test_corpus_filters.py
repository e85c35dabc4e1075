"""The corpus rule sets (`filters.rules`) of the binary against datatrove's own filters, on the same
real texts: WCXB's ground-truth main texts (written by people) and crawlsieve's extracted content of
WCXB pages. The real datatrove and spaCy from PyPI (datatrove 0.10 splits English words with spaCy).
The full comparison over every page is `bench/corpus_filters.py`."""

import json
import subprocess

import pytest
from datatrove.data import Document
from datatrove.pipeline.filters import (C4QualityFilter, FineWebQualityFilter, GopherQualityFilter,
                                        GopherRepetitionFilter)

from conftest import DATA

SETS = {"gopher_repetition": GopherRepetitionFilter, "gopher_quality": GopherQualityFilter,
        "c4": C4QualityFilter, "fineweb": FineWebQualityFilter}


@pytest.fixture(scope="module")
def texts(cli):
    root = DATA / "extraction" / "wcxb-dev" / "dev"
    if not root.is_dir():
        pytest.skip("../shared/data not beside the repository")
    truth = [json.load(open(f))["ground_truth"].get("main_content") or ""
             for f in sorted((root / "ground-truth").glob("*.json"))[:200]]
    html = sorted((root / "html").iterdir())[:200]
    out = subprocess.run([cli, "extract", "--format", "json", *html], capture_output=True, text=True).stdout
    extracted = [json.loads(l).get("text") or "" for l in out.splitlines()]
    return [t for t in truth + extracted if t.strip()]


def crawlsieve_kept(cli, tmp_path, texts, rule_set):
    pages = tmp_path / f"{rule_set}.jsonl"
    pages.write_text("".join(json.dumps({"url": f"http://doc.example/{i}", "text": t}) + "\n"
                             for i, t in enumerate(texts)))
    conf = tmp_path / f"{rule_set}.toml"
    conf.write_text(f'[filters]\nmin_words = 0\nrules = ["{rule_set}"]\n')
    out = subprocess.run([cli, "scan", "--config", conf, pages], capture_output=True, text=True, check=True).stdout
    verdicts = [json.loads(l) for l in out.splitlines() if '"verdict"' in l]
    by_doc = {int(v["url"].rsplit("/", 1)[1]): v for v in verdicts}
    assert len(by_doc) == len(texts), "one verdict a text"
    return [(rule_set not in by_doc[i]["reasons"], (by_doc[i].get("rule_failed") or {}).get("rule"))
            for i in range(len(texts))]


@pytest.mark.parametrize("rule_set", list(SETS))
def test_each_rule_set_decides_as_datatrove_does(cli, tmp_path, texts, rule_set):
    ours = crawlsieve_kept(cli, tmp_path, texts, rule_set)
    f = SETS[rule_set]()
    theirs = []
    for i, t in enumerate(texts):
        r = f.filter(Document(text=t, id=str(i)))
        theirs.append((True, None) if r is True else (False, r[1]))
    agree = sum(a[0] == b[0] for a, b in zip(ours, theirs))
    dropped = [i for i in range(len(texts)) if not ours[i][0] and not theirs[i][0]]
    same_rule = sum(ours[i][1] == theirs[i][1] for i in dropped)
    assert 0 < sum(not b[0] for b in theirs) < len(texts), "the set keeps some texts and drops some"
    assert agree / len(texts) >= 0.995, f"{rule_set}: {agree}/{len(texts)} agree"
    assert same_rule / max(1, len(dropped)) >= 0.99, f"{rule_set}: {same_rule}/{len(dropped)} by the same rule"
