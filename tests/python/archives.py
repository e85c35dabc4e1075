"""Helpers the archive tests (tests/archives.rs) run with the real PyPI packages.

  records FILE          every record warcio reads of FILE, one JSON line each:
                        type, the content type that decides whether it is a page,
                        and the URL (ARC records as warcio converts them)
  warc-to-arc IN OUT    an ARC (version 1) file of IN's response records, each
                        header line `URL IP DATE MIME LENGTH` then the HTTP
                        block as stored; OUT ending in .gz: a gzip member a record
  lz4 IN OUT            IN recompressed by FastWARC with LZ4 (a frame a record)
"""
import gzip
import io
import json
import subprocess
import sys
from pathlib import Path

from warcio.archiveiterator import ArchiveIterator


def records(path):
    with open(path, "rb") as f:
        try:
            for r in ArchiveIterator(f, arc2warc=True):
                if r.http_headers is not None and r.rec_type in ("response", "revisit"):
                    ctype = r.http_headers.get_header("Content-Type")
                else:
                    ctype = r.rec_headers.get_header("Content-Type")
                url = r.rec_headers.get_header("WARC-Target-URI")
                print(json.dumps({"type": r.rec_type, "content_type": (ctype or "").split(";")[0].strip().lower(),
                                  "url": url}))
        except Exception as e:  # warcio gives up on some broken files; say where
            print(json.dumps({"type": "warcio_error", "error": str(e)[:200]}))


def warc_records(path):
    """(headers, block) of each record, read as bytes (no HTTP decoding)."""
    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    f = io.BytesIO(data)
    while True:
        line = f.readline()
        if not line:
            return
        if not line.strip():
            continue
        assert line.startswith(b"WARC/"), line[:40]
        headers = {}
        while True:
            h = f.readline().rstrip(b"\r\n")
            if not h:
                break
            k, _, v = h.decode("utf-8", "replace").partition(":")
            headers[k.strip().lower()] = v.strip()
        yield headers, f.read(int(headers["content-length"]))


def warc_to_arc(src, out):
    name = Path(out).name
    version = b"1 0 crawlsieve-test\nURL IP-address Archive-date Content-type Archive-length\n"
    members = [b"filedesc://%s 0.0.0.0 20260101000000 text/plain %d\n" % (name.encode(), len(version)) + version + b"\n"]
    for headers, block in warc_records(src):
        if headers.get("warc-type") != "response":
            continue
        url = headers["warc-target-uri"].strip("<>")
        date = "".join(c for c in headers.get("warc-date", "") if c.isdigit())[:14].ljust(14, "0")
        head, _, _ = block.partition(b"\r\n\r\n")
        mime = "-"
        for h in head.split(b"\r\n")[1:]:
            k, _, v = h.decode("latin-1").partition(":")
            if k.strip().lower() == "content-type":
                mime = v.split(";")[0].strip() or "-"
        ip = headers.get("warc-ip-address", "0.0.0.0")
        members.append(b"%s %s %s %s %d\n" % (url.encode(), ip.encode(), date.encode(), mime.encode(), len(block)) + block + b"\n")
    with open(out, "wb") as f:
        for m in members:
            f.write(gzip.compress(m) if out.endswith(".gz") else m)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "records":
        records(sys.argv[2])
    elif cmd == "warc-to-arc":
        warc_to_arc(sys.argv[2], sys.argv[3])
    elif cmd == "lz4":
        fastwarc = Path(sys.executable).with_name("fastwarc")
        subprocess.run([str(fastwarc), "recompress", "-q", "--compress-alg", "lz4", sys.argv[2], sys.argv[3]],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    else:
        sys.exit(f"unknown command {cmd}")
