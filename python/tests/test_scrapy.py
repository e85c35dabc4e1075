"""CrawlsievePipeline in a real Scrapy crawl (Scrapy from PyPI) of real pages served on loopback."""

import http.server
import json
import subprocess
import sys
import threading

import crawlsieve

SPIDER = '''
import scrapy

class Pages(scrapy.Spider):
    name = "pages"
    def __init__(self, urls="", **kw):
        super().__init__(**kw)
        self.start_urls = urls.split(",")
    def parse(self, response):
        yield {"url": response.url, "html": response.text, "status": response.status,
               "content_type": response.headers.get("Content-Type", b"").decode()}
'''


def test_items_are_judged_and_dropped_as_configured(tmp_path, wcxb_pages, thin_pages):
    pages = wcxb_pages(24) + thin_pages
    site = tmp_path / "site"
    site.mkdir()
    for i, (_, html) in enumerate(pages):
        (site / f"p{i}.html").write_bytes(html)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=str(site), **kw)

        def log_message(self, *a):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    urls = [f"{base}/p{i}.html" for i in range(len(pages))]
    (tmp_path / "spider.py").write_text(SPIDER)
    out = tmp_path / "items.jsonl"
    try:
        run = subprocess.run(
            [sys.executable, "-m", "scrapy", "runspider", str(tmp_path / "spider.py"), "-a",
             "urls=" + ",".join(urls), "-o", f"{out}:jsonlines", "-s", "LOG_LEVEL=INFO",
             "-s", "ITEM_PIPELINES={\"crawlsieve.scrapy.CrawlsievePipeline\": 300}",
             "-s", "CRAWLSIEVE_CONTENT=True", "-s", "ROBOTSTXT_OBEY=False"],
            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    finally:
        server.shutdown()
    assert run.returncode == 0, run.stderr[-3000:]
    items = [json.loads(l) for l in out.open()]

    p = crawlsieve.Pipeline()
    expected = {u: p.process(u, h, content_type="text/html")["verdict"] for u, (_, h) in zip(urls, pages)}
    kept = sorted(u for u, v in expected.items() if v == "keep")
    assert 0 < len(kept) < len(urls), expected
    assert sorted(i["url"] for i in items) == kept
    for i in items:
        assert i["crawlsieve"]["verdict"] == "keep" and i["crawlsieve"]["words"] > 0
        assert i["content"]
    assert "item_dropped_count" in run.stderr, "Scrapy counted the dropped items"
