"""CrawlsieveFilter in a real datatrove pipeline (datatrove from PyPI, local executor)."""

import json
import pickle

from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.readers import JsonlReader
from datatrove.pipeline.writers import JsonlWriter

import crawlsieve
from crawlsieve.datatrove import CrawlsieveFilter


def test_kept_documents_carry_the_content_and_the_verdict(tmp_path, wcxb_pages, thin_pages):
    pages = wcxb_pages(60) + thin_pages
    src = tmp_path / "in"
    src.mkdir()
    with (src / "pages.jsonl").open("w") as f:
        for i, (url, html) in enumerate(pages):
            f.write(json.dumps({"id": f"doc{i}", "text": html.decode("utf-8", "replace"),
                                "metadata": {"url": url}}) + "\n")
    step = CrawlsieveFilter(batch_size=16, threads=2)
    pickle.loads(pickle.dumps(step))  # the Slurm and Ray executors ship steps pickled
    LocalPipelineExecutor(
        pipeline=[JsonlReader(str(src)), step, JsonlWriter(str(tmp_path / "out"), compression=None)],
        tasks=1, logging_dir=str(tmp_path / "logs"),
    ).run()
    out = [json.loads(l) for f in sorted((tmp_path / "out").glob("*.jsonl")) for l in f.open()]

    expected = crawlsieve.Pipeline(content=True).process_many(
        [(u, h.decode("utf-8", "replace")) for u, h in pages])
    kept = [v for v in expected if v["verdict"] == "keep"]
    assert 0 < len(kept) < len(pages), "some kept, some dropped"
    assert [d["metadata"]["url"] for d in out] == [v["url"] for v in kept]
    for d, v in zip(out, kept):
        assert d["text"] == v["content"], "the text is crawlsieve's main content"
        assert d["metadata"]["crawlsieve"]["verdict"] == "keep"
        assert d["metadata"]["crawlsieve"]["words"] == v["words"]
    stats = json.loads((tmp_path / "logs" / "stats.json").read_text())
    filt = next(s for s in stats if "crawlsieve" in s["name"])
    assert filt["stats"]["dropped"] == len(pages) - len(kept)
    assert any(k.startswith("dropped_") for k in filt["stats"]), filt["stats"]


def test_an_item_set_drops_contaminated_documents_in_place_of_a_decontamination_step(cli, tmp_path, wcxb_pages):
    """An item set of the real BIG-bench tasks, built by the CLI, in CrawlsieveFilter: the documents
    carrying a benchmark item (re-wrapped into short lines) are dropped as `labeled_item`."""
    import gzip
    import subprocess

    from conftest import DATA

    tasks = DATA / "decontamination" / "bigbench-dev"
    key, items = tmp_path / "k", tmp_path / "bigbench.csl"
    subprocess.run([cli, "labels", "keygen", "-o", key], check=True, capture_output=True)
    subprocess.run([cli, "labels", "build", "--items", "bigbench", "--name", "bigbench", "--key", key,
                    "-o", items, tasks], check=True, capture_output=True)
    snarks = json.loads(gzip.decompress((tasks / "snarks.json.gz").read_bytes()))["examples"][0]["input"]
    words = snarks.split()
    block = "<p>" + "<br>".join(" ".join(words[i:i + 6]) for i in range(0, len(words), 6)) + "</p>"
    pages = wcxb_pages(12)
    src = tmp_path / "in"
    src.mkdir()
    with (src / "pages.jsonl").open("w") as f:
        for i, (url, html) in enumerate(pages):
            text = html.decode("utf-8", "replace")
            if i % 3 == 0:
                at = text.lower().rfind("</body>")
                text = text[:at] + block + text[at:]
            f.write(json.dumps({"id": f"doc{i}", "text": text, "metadata": {"url": url}}) + "\n")
    step = CrawlsieveFilter(labels=[str(items)], public_key=str(key) + ".pub",
                            keep=("keep", "drop", "flag"), drop_reasons=("labeled_item",))
    LocalPipelineExecutor(
        pipeline=[JsonlReader(str(src)), step, JsonlWriter(str(tmp_path / "out"), compression=None)],
        tasks=1, logging_dir=str(tmp_path / "logs"),
    ).run()
    out = [json.loads(l) for f in sorted((tmp_path / "out").glob("*.jsonl")) for l in f.open()]
    ids = {d["id"] for d in out}
    for i in range(len(pages)):
        assert (f"doc{i}" in ids) == (i % 3 != 0), f"doc{i}"
    stats = json.loads((tmp_path / "logs" / "stats.json").read_text())
    filt = next(s for s in stats if "crawlsieve" in s["name"])
    assert filt["stats"]["dropped_labeled_item"] == 4, filt
