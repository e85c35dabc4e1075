"""crawlsieve in a Python process: judge crawled pages without a daemon.

    >>> import crawlsieve
    >>> p = crawlsieve.Pipeline(labels=["examples/labels.txt"])
    >>> v = p.process("http://example.org/", b"<html>...</html>", content_type="text/html")
    >>> v["verdict"], v["reasons"], v["lang"], v["words"]

`Pipeline(config=None, labels=None, public_key=None, content=False)` (`content`: verdicts carry
the extracted main content):
- `.process(url, body, content_type=None, status=None, headers=None) -> dict`: the verdict (the JSONL schema;
  `headers`: the page's response headers, whose `X-Robots-Tag` and TDMRep ones are read);
- `.process_many(pages, threads=None) -> list[dict]`: many pages, in order, judged by Rust
  threads with the GIL released; a page is `(url, body)` or a dict (`url`, `body`/`html`, ...);
- `.extract(html, url=None) -> dict`: main content (`text`, `markdown`) and metadata.

Integrations: `crawlsieve.datatrove.CrawlsieveFilter` (a datatrove pipeline step),
`crawlsieve.scrapy.CrawlsievePipeline` (a Scrapy item pipeline).
"""

from crawlsieve._native import Pipeline, __version__

__all__ = ["Pipeline", "__version__"]
