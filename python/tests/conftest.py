"""Shared fixtures: the repository, `../shared/data`, real pages (WCXB dev)."""

import gzip
import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def cli() -> Path:
    """The `crawlsieve` binary of this checkout (release build, as `.ci/run` makes it)."""
    exe = REPO / "target" / "release" / "crawlsieve"
    if not exe.exists():
        subprocess.run(["cargo", "build", "--release", "--locked"], cwd=REPO, check=True)
    return exe


@pytest.fixture(scope="session")
def wcxb_pages():
    """`n` real pages of WCXB dev as `(url, html bytes)`, in file order."""
    root = DATA / "extraction" / "wcxb-dev" / "dev"
    if not root.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{root} missing")
        pytest.skip("../shared/data not beside the repository")

    def pages(n: int):
        out = []
        for f in sorted((root / "html").iterdir())[:n]:
            truth = json.loads((root / "ground-truth" / (f.name.split(".")[0] + ".json")).read_text())
            out.append((truth["url"], gzip.decompress(f.read_bytes())))
        return out

    return pages


# Thin pages, as crawls are full of: a greeting and a link list (the WCXB pages
# are all articles, listings and the like with real text).
THIN = [
    ("http://thin.example.org/hello", b"<html><head><title>Hi</title></head><body><p>Just a short hello.</p></body></html>"),
    ("http://thin.example.org/links", b"<html><body><ul>" + b"".join(
        b'<li><a href="/l%d">cheap deals here, offer %d</a></li>' % (i, i) for i in range(40)) + b"</ul></body></html>"),
]


@pytest.fixture(scope="session")
def thin_pages():
    return THIN
