"""crawlsieve's `extract --jsonl` on files, for the benchmark scripts."""
import json, os, subprocess, tempfile, time


def ours(binary, files, scorer="learned", urls=None):
    """crawlsieve on `files` with `extract.scorer = scorer`: ({path: content},
    seconds). `urls` ({path: URL}) tells it where each page came from, as a
    crawler would (the learned scorer reads the page's kind, and the URL is
    evidence of it)."""
    t = time.perf_counter()
    env = dict(os.environ, CRAWLSIEVE_EXTRACT__SCORER=scorer)
    with tempfile.NamedTemporaryFile("w", suffix=".tsv") as f:
        f.writelines(f"{p}\t{u}\n" for p, u in (urls or {}).items() if u)
        f.flush()
        given = ["--urls", f.name] if urls else []
        out = subprocess.run([binary, "extract", "--jsonl", *given, *files], capture_output=True, env=env)
    secs = time.perf_counter() - t
    return {o["path"]: o["content"] for o in map(json.loads, out.stdout.decode().splitlines())}, secs
