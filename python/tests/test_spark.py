"""The Spark jobs (deploy/spark/) on `local[2]` against real WARC files: blind
discovery equals the one-machine path byte for byte; judging gives `scan`'s
verdicts, one Parquet row per page with every field of the verdict."""

import json
import os
import subprocess
import sys

import pytest

import crawlsieve

try:
    import pyspark  # noqa: F401
except ImportError:
    if os.environ.get("CI"):
        raise  # .ci/run installs it (python/requirements-test.txt)
    pytest.skip("pyspark not installed", allow_module_level=True)

EPOCH = "1700000000"


@pytest.fixture(scope="module")
def inputs(repo):
    """Real WARC files (two wget crawls, a Common Crawl excerpt) and the bundled example crawl."""
    warc = repo.parent / "shared" / "data" / "warc"
    if not warc.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{warc} missing")
        pytest.skip("../shared/data not beside the repository")
    return [str(warc / "dolma-samples"), str(warc / "resiliparse-cc-2020-34"), str(repo / "examples" / "crawl.warc.gz")]


@pytest.fixture(scope="module")
def key(cli, tmp_path_factory):
    path = tmp_path_factory.mktemp("key") / "hub.key"
    subprocess.run([cli, "labels", "keygen", "-o", path], check=True, capture_output=True)
    return path


def job(repo, script, *args):
    env = dict(os.environ, SOURCE_DATE_EPOCH=EPOCH)
    out = subprocess.run(
        [sys.executable, repo / "deploy" / "spark" / script, "--master", "local[2]", *map(str, args)],
        capture_output=True, text=True, env=env,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out


@pytest.mark.parametrize("threshold", [1, 2])
def test_discovery_on_spark_equals_labels_count_and_discover(repo, cli, key, inputs, tmp_path, threshold):
    env = dict(os.environ, SOURCE_DATE_EPOCH=EPOCH)
    counts, one, stop_one = tmp_path / "one.cscounts", tmp_path / "one.cslab", tmp_path / "one.stop"
    subprocess.run([cli, "labels", "count", "-o", counts, *inputs], check=True, capture_output=True, env=env)
    subprocess.run([cli, "labels", "discover", "--threshold", str(threshold), "--name", "blind", "--key", key,
                    "--propose-stop", stop_one, "--stop-min-sites", "2", "-o", one, counts],
                   check=True, capture_output=True, env=env)
    spark, stop_spark = tmp_path / "spark.cslab", tmp_path / "spark.stop"
    out = job(repo, "discover.py", "--threshold", threshold, "--name", "blind", "--key", key,
              "--propose-stop", stop_spark, "--stop-min-sites", 2, "-o", spark, *inputs)
    found = json.loads(out.stdout)
    assert found["files"] == 4 and found["documents"] == 69 and found["failed"] == 1, found
    assert found["keys"] > 0
    if threshold == 1:
        assert found["stop_candidates"] > 0, found
    # The same keys, header and signature: the same bytes.
    assert spark.read_bytes() == one.read_bytes()
    assert stop_spark.read_text() == stop_one.read_text()
    # The set is a set agents take: a page copied from the crawl is judged against it.
    p = crawlsieve.Pipeline(labels=[str(spark)], public_key=str(key) + ".pub")
    assert p.process("http://x.example/", b"<p>x</p>")["labels_version"] == "blind@1"


def test_add_up_is_exact_and_discover_set_refuses_counts_not_added_up(tmp_path, key):
    from crawlsieve._native import add_up

    def record(h, a, b):
        return h + a.to_bytes(8, "little") + b.to_bytes(8, "little")

    h1, h2 = bytes(20), bytes(range(20))
    # Two files' blobs of one range: h1 on sites 7 (2+1) and 9 (1), h2 once.
    blobs = [record(h1, 7, 2) + record(h2, 7, 1), record(h1, 7, 1) + record(h1, 9, 1)]
    assert add_up(blobs, 0) == record(h1, 4, 2) + record(h2, 1, 1)
    assert add_up(blobs, 3) == record(h1, 4, 2)
    with pytest.raises(ValueError, match="whole records"):
        add_up([b"x" * 35], 0)
    with pytest.raises(ValueError, match="not sorted"):
        add_up([record(h2, 7, 1) + record(h1, 7, 1)], 0)
    p = crawlsieve.Pipeline()
    with pytest.raises(ValueError, match="counted twice"):
        p.discover_set(record(h1, 4, 2) * 2, 0, "x", str(key), str(tmp_path / "x.cslab"))
    with pytest.raises(ValueError, match="whole records"):
        p.discover_set(b"x" * 37, 0, "x", str(key), str(tmp_path / "x.cslab"))
    made = p.discover_set(record(h1, 4, 2) + record(h2, 1, 1), 1, "x", str(key), str(tmp_path / "x.cslab"))
    assert made["keys"] == 1 and made["chunks_read"] == 2


def without_nulls(v):
    if isinstance(v, dict):
        return {k: without_nulls(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [without_nulls(x) for x in v]
    return v


def test_judging_on_spark_gives_scans_verdicts_as_parquet_rows(repo, cli, key, inputs, tmp_path):
    import pyarrow.parquet as pq

    env = dict(os.environ, SOURCE_DATE_EPOCH=EPOCH)
    counts, labels = tmp_path / "c.cscounts", tmp_path / "blind.cslab"
    subprocess.run([cli, "labels", "count", "-o", counts, *inputs], check=True, capture_output=True, env=env)
    subprocess.run([cli, "labels", "discover", "--threshold", "1", "--name", "blind", "--key", key, "-o", labels,
                    counts], check=True, capture_output=True, env=env)
    # A corrupt page among them: one `error` verdict, the job goes on. (A
    # corrupt WARC is an input problem, not a page: no verdict, named in the log.)
    bad = tmp_path / "bad.html.gz"
    bad.write_bytes(b"\x1f\x8b\x08\x00" + b"not gzip at all" * 10)
    public = str(key) + ".pub"
    items = item_set(cli, key, inputs, tmp_path, env)
    scanned = subprocess.run([cli, "scan", "-q", "--content", "-l", labels, "-l", items,
                              "--set", f"labels.public_key_file={public}", *inputs, bad],
                             capture_output=True, text=True, env=env)
    assert scanned.returncode == 0, scanned.stderr
    expected = {v["id"]: v for v in map(json.loads, scanned.stdout.splitlines()) if "verdict" in v}

    parquet, jsonl = tmp_path / "v.parquet", tmp_path / "v.jsonl"
    job(repo, "judge.py", "--content", "-l", labels, "-l", items, "--public-key", public, "--parquet", parquet,
        "--jsonl", jsonl, *inputs, bad)
    rows = pq.read_table(parquet).to_pylist()
    lines = [json.loads(l) for f in sorted(jsonl.glob("part-*")) for l in f.read_text().splitlines()]
    assert len(rows) == len(lines) == len(expected) == 70
    kinds = {v["verdict"] for v in expected.values()}
    assert {"keep", "flag", "error"} <= kinds, kinds
    for line in lines:
        e = expected[line["id"]]
        assert {k: x for k, x in line.items() if k != "elapsed_us"} == {k: x for k, x in e.items() if k != "elapsed_us"}
    columns = set(pq.read_table(parquet).schema.names)
    for row in rows:
        e = expected[row["id"]]
        # Every field of every verdict has its column: the schema has not drifted from the verdict's.
        assert set(e) <= columns, set(e) - columns
        assert row["file"] in inputs[2:] + [str(bad)] or row["file"].startswith(inputs[0]) or row["file"].startswith(inputs[1])
        got = without_nulls({k: x for k, x in row.items() if k not in ("elapsed_us", "file")})
        want = without_nulls({k: x for k, x in e.items() if k != "elapsed_us"})
        assert got == want, row["url"]
    assert any(r["content"] for r in rows) and any(r["labels"] for r in rows)
    # The item set's item is found on the page it was taken from, and named in its row.
    found = [r for r in rows if r["items"]]
    assert found and all(r["items_found"] >= 1 and r["items"][0]["set"] == "quiz" for r in found), found


def item_set(cli, key, inputs, tmp_path, env):
    """An item set of one item: 25 words out of the first long page's content
    (a benchmark question quoted on a page, as a decontamination set has it)."""
    out = subprocess.run([cli, "scan", "-q", "--content", *inputs], capture_output=True, text=True, env=env, check=True)
    content = next(v["content"] for v in map(json.loads, out.stdout.splitlines())
                   if len((v.get("content") or "").split()) >= 60)
    text = tmp_path / "item.txt"
    text.write_text(" ".join(content.split()[20:45]) + "\n")
    items = tmp_path / "quiz.csl"
    subprocess.run([cli, "labels", "build", "--items", "text", "--name", "quiz", "--key", key, "-o", items, text],
                   check=True, capture_output=True, env=env)
    return items


def test_dedup_on_spark_gives_one_machines_clusters_and_keep_list(repo, cli, inputs, wcxb_pages, tmp_path):
    """Real pages dealt over three files with an exact copy and a near copy (three words changed) of
    ten of them on other sites, and the real WARCs: the Spark job's clusters and keep list are, byte for
    byte, those of `crawlsieve dedup` on one machine."""
    lines = []
    for i, (_, html) in enumerate(wcxb_pages(30)):
        text = html.decode("utf-8", "replace")
        lines.append({"url": f"http://original-{i}.example/a.html", "html": text})
        if i < 10:
            lines.append({"url": f"http://mirror-{i}.example/a.html", "html": text})
            lines.append({"url": f"http://near-{i}.example/a.html", "html": text.replace(" the ", " zyxwv ", 3)})
    files = [tmp_path / f"part-{k}.jsonl" for k in range(3)]
    for k, f in enumerate(files):
        f.write_text("".join(json.dumps(line) + "\n" for line in lines[k::3]))
    one, one_keep = tmp_path / "one.jsonl", tmp_path / "one.tsv"
    subprocess.run([cli, "dedup", "-o", one, "--keep-list", one_keep, *files, *inputs], check=True, capture_output=True)
    on_spark, spark_keep = tmp_path / "spark.jsonl", tmp_path / "spark.tsv"
    out = job(repo, "dedup.py", "--clusters", on_spark, "--keep-list", spark_keep, *files, *inputs)
    found = json.loads(out.stdout)
    assert found["files"] == 7 and found["duplicates"] >= 16, found
    assert on_spark.read_text() == one.read_text()
    assert spark_keep.read_text() == one_keep.read_text()
    # The copies cluster with their originals, the example crawl's copier with its source.
    clusters = [json.loads(c) for c in one.read_text().splitlines()]
    members = [{c["keep"]["url"], *(d["url"] for d in c["duplicates"])} for c in clusters]
    together = sum(any({f"http://original-{i}.example/a.html", f"http://mirror-{i}.example/a.html",
                        f"http://near-{i}.example/a.html"} <= m for m in members) for i in range(10))
    assert together >= 8, members
    assert any(any("copies.example.net" in u for u in m) and any("news.example.org" in u for u in m) for m in members)


def test_the_verdict_schema_has_every_field_of_the_verdict(repo):
    """Spark's `from_json` drops a field the schema does not name, silently:
    every field the agent's `Verdict` serialises is a column."""
    import re
    from crawlsieve.spark import VERDICT_DDL

    src = (repo / "agent" / "core" / "src" / "verdict" / "mod.rs").read_text()
    body = src[src.index("pub struct Verdict {"):]
    body = body[:body.index("\n}\n")]
    fields, skipped = [], False
    for line in map(str.strip, body.splitlines()):
        if line.startswith("#[serde(skip)]"):
            skipped = True
        elif m := re.match(r"pub (\w+):", line):
            if not skipped:
                fields.append(m.group(1))
            skipped = False
    columns, depth, start = [], 0, 0
    for i, c in enumerate(VERDICT_DDL + ","):
        depth += {"<": 1, ">": -1}.get(c, 0)
        if c == "," and depth == 0:
            columns.append(VERDICT_DDL[start:i].strip().split(" ", 1)[0])
            start = i + 1
    assert len(fields) > 30 and set(fields) == set(columns), (set(fields) ^ set(columns))
