"""The Python binding judges pages exactly as the CLI does, in order, on real pages."""

import json
import subprocess

import pytest

import crawlsieve

SAME = ["id", "url", "site", "verdict", "reasons", "lang", "page_words", "words", "links", "chunks",
        "stop_chunks", "short_chunks", "matched_chunks", "contains", "whole_match", "shingles",
        "matched_shingles", "simhash", "labels", "labels_version", "content_sha1", "title"]


def scan(cli, tmp_path, pages, *args):
    src = tmp_path / "pages.jsonl"
    with src.open("w") as f:
        for url, html in pages:
            f.write(json.dumps({"url": url, "html": html.decode("utf-8", "replace")}) + "\n")
    out = subprocess.run([cli, "scan", "-q", *args, src], check=True, capture_output=True, text=True)
    return [json.loads(l) for l in out.stdout.splitlines()]


def test_process_many_gives_the_clis_verdicts_in_order(cli, tmp_path, repo, wcxb_pages, thin_pages):
    raw = wcxb_pages(120)
    raw[10:10] = thin_pages
    pages = [(u, h.decode("utf-8", "replace")) for u, h in raw]
    labels = [str(repo / "examples" / "labels.txt")]
    expected = scan(cli, tmp_path, [(u, h.encode()) for u, h in pages], "--labels", labels[0])
    p = crawlsieve.Pipeline(labels=labels)
    got = p.process_many(pages, threads=2)
    assert len(got) == len(expected) == 122
    for g, e in zip(got, expected):
        assert {k: g[k] for k in SAME} == {k: e[k] for k in SAME}
    kinds = {v["verdict"] for v in got}
    assert "keep" in kinds and len(kinds) > 1, kinds
    # One thread or two, one call or many: the same verdicts.
    one = p.process_many([{"url": u, "html": h} for u, h in pages[:30]], threads=1)
    each = [p.process(u, h) for u, h in pages[:30]]
    strip = lambda vs: [{k: v[k] for k in SAME} for v in vs]
    assert strip(one) == strip(each) == strip(got[:30])


def test_labeled_copies_are_flagged_and_signed_sets_are_checked(cli, tmp_path, wcxb_pages):
    pages = wcxb_pages(12)
    corpus = tmp_path / "expert.jsonl"
    corpus.write_text("".join(json.dumps({"url": u, "html": h.decode("utf-8", "replace")}) + "\n"
                              for u, h in pages[:6]))
    key = tmp_path / "hub.key"
    subprocess.run([cli, "labels", "keygen", "-o", key], check=True, capture_output=True)
    cslab = tmp_path / "expert.cslab"
    subprocess.run([cli, "labels", "build", "--name", "expert", "--key", key, "-o", cslab, corpus],
                   check=True, capture_output=True)
    p = crawlsieve.Pipeline(labels=[str(cslab)], public_key=str(key) + ".pub")
    # The corpus's pages on a copier's site are flagged; at their own URLs
    # (the set's origin, which `labels build` records) they are the originals.
    copies = [(f"http://copier.example/{i}", h) for i, (_, h) in enumerate(pages[:6])]
    verdicts = p.process_many(copies + pages[6:])
    assert [v["verdict"] for v in verdicts[:6]] == ["flag"] * 6, [v["reasons"] for v in verdicts[:6]]
    assert all(v["verdict"] != "flag" for v in verdicts[6:])
    originals = p.process_many(pages[:6])
    assert all(v["verdict"] != "flag" and "labeled_origin" in v["reasons"] for v in originals), originals
    with pytest.raises(ValueError):  # a signed set needs the hub's public key
        crawlsieve.Pipeline(labels=[str(cslab)])
    tampered = tmp_path / "tampered.cslab"
    data = bytearray(cslab.read_bytes())
    data[len(data) // 2] ^= 1
    tampered.write_bytes(bytes(data))
    with pytest.raises(ValueError):
        crawlsieve.Pipeline(labels=[str(tampered)], public_key=str(key) + ".pub")


def test_extract_gives_content_and_metadata(wcxb_pages):
    url, html = wcxb_pages(1)[0]
    doc = crawlsieve.Pipeline().extract(html, url)
    assert doc["words"] > 100 and doc["title"] and doc["language"] == "eng"
    assert doc["markdown"] and doc["text"].split()[0] in doc["markdown"]


def test_a_str_body_is_text_whatever_charset_it_declares():
    # A str was decoded already: its <meta charset> described the bytes it came from.
    html = ("<html><head><meta charset='iso-8859-1'></head><body><article><h1>Überwachung im Kuhstall</h1>"
            "<p>Die tägliche Kontrolle der Fütterung und der Gesundheit der Kühe gehört zur Arbeit "
            "jedes Betriebs; Sensoren ergänzen das geschulte Auge des Landwirts.</p></article></body></html>")
    p = crawlsieve.Pipeline()
    as_bytes = p.extract(html.encode("iso-8859-1"), "https://www.example.de/kuhstall")
    as_str = p.extract(html, "https://www.example.de/kuhstall")
    assert "tägliche Kontrolle" in as_bytes["text"]
    assert as_str["text"] == as_bytes["text"]


def test_bad_input_is_a_verdict_or_a_clear_error():
    p = crawlsieve.Pipeline()
    v = p.process("http://example.org/x.png", b"\x89PNG\r\n\x1a\n\x00\x00", content_type="image/png")
    assert v["verdict"] in ("error", "drop") and v["reasons"]
    assert p.process("http://example.org/", b"")["verdict"] in ("error", "drop")
    with pytest.raises(TypeError):
        p.process("http://example.org/", 42)
    with pytest.raises((TypeError, ValueError)):
        p.process_many([("only a url",)])
    with pytest.raises(ValueError):
        crawlsieve.Pipeline(config="/nonexistent/crawlsieve.toml")


def test_response_headers_carry_opt_out_signals_in_every_form_python_holds(wcxb_pages, tmp_path):
    # A dict, a list of pairs, bytes as Scrapy's Headers hold them; a dict page for process_many.
    conf = tmp_path / "opt-out.toml"
    conf.write_text('[filters.opt_out]\ndrop = ["noai"]\n')
    p = crawlsieve.Pipeline(config=str(conf))
    url, html = wcxb_pages(1)[0]
    forms = [
        {"X-Robots-Tag": "noai"},
        [("x-robots-tag", "noindex"), ("X-Robots-Tag", "noai")],
        {b"X-Robots-Tag": [b"noarchive", b"noai"]},
    ]
    for headers in forms:
        v = p.process(url, html, headers=headers)
        assert v["opt_out"] == [{"signal": "noai", "from": "header"}], v.get("opt_out")
        assert v["reasons"][0] == "opt_out"
    [many] = p.process_many([{"url": url, "html": html, "headers": {"tdm-reservation": "1"}}])
    assert many["opt_out"] == [{"signal": "tdm_reservation", "from": "header"}]
    assert "opt_out" not in p.process(url, html)
