"""Reads crawlsieve's `scan --warc-metadata` output with warcio, as an
archive's tools would, and checks it against the input WARC and the JSONL
verdicts of the same run.

usage: check_warc_metadata.py INPUT.warc.gz METADATA.warc.gz VERDICTS.jsonl
Prints one summary line; exits non-zero (AssertionError) on any mismatch.
"""
import json
import sys

from warcio.archiveiterator import ArchiveIterator


def records(path, **kw):
    with open(path, "rb") as f:
        for r in ArchiveIterator(f, **kw):
            yield r, r.content_stream().read()


def main(input_warc, metadata_warc, verdicts_jsonl):
    # The captures judged: response record id -> target URI.
    captures = {
        r.rec_headers.get_header("WARC-Record-ID"): r.rec_headers.get_header("WARC-Target-URI")
        for r, _ in records(input_warc)
        if r.rec_type == "response"
    }
    verdicts = [json.loads(l) for l in open(verdicts_jsonl) if l.strip()]
    verdicts = {v["id"]: v for v in verdicts if "verdict" in v}

    kinds, ids, referring = [], set(), 0
    # 'raise': a wrong WARC-Block-Digest is an error, not a note.
    for r, block in records(metadata_warc, check_digests="raise"):
        kinds.append(r.rec_type)
        h = r.rec_headers
        assert h.protocol == "WARC/1.1", h.protocol
        rid = h.get_header("WARC-Record-ID")
        assert rid and rid.startswith("<urn:uuid:") and rid not in ids, rid
        ids.add(rid)
        assert h.get_header("WARC-Date"), "every record is dated"
        assert int(h.get_header("Content-Length")) == len(block)
        if r.rec_type == "warcinfo":
            assert b"software: crawlsieve/" in block, block
            continue
        assert r.rec_type == "metadata", r.rec_type
        assert h.get_header("Content-Type") == "application/json"
        v = json.loads(block)
        assert v == verdicts[v["id"]], "the block is the run's verdict, field for field"
        assert h.get_header("WARC-Target-URI") == v["url"]
        refers = h.get_header("WARC-Refers-To")
        if refers is not None:
            referring += 1
            assert refers == v["id"], "refers to the record judged"
            assert captures[refers] == v["url"], "a response record of the input, same URI"
    assert kinds[0] == "warcinfo" and kinds.count("warcinfo") == 1, kinds[:3]
    metadata = kinds.count("metadata")
    assert metadata == len(verdicts), (metadata, len(verdicts))
    print(
        f"warcio: {len(kinds)} records ({metadata} metadata, {referring} with WARC-Refers-To), "
        f"digests checked; {len(captures)} response records in the input"
    )


if __name__ == "__main__":
    main(*sys.argv[1:4])
