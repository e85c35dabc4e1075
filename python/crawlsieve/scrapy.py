"""A Scrapy item pipeline: crawlsieve judges each item's HTML as it is scraped.

    # settings.py
    ITEM_PIPELINES = {"crawlsieve.scrapy.CrawlsievePipeline": 300}
    CRAWLSIEVE_LABELS = ["news.cslab"]          # labeled sets (optional)
    CRAWLSIEVE_PUBLIC_KEY = "hub.key.pub"       # for signed sets (optional)
    CRAWLSIEVE_CONFIG = None                    # a crawlsieve TOML file (optional)
    CRAWLSIEVE_DROP = ["drop", "flag", "error"] # verdicts whose items are dropped
    CRAWLSIEVE_FIELD = "crawlsieve"             # where the verdict goes in kept items

An item needs `url` and the page's HTML in `html` (or `body`), as `str` or
`bytes`; `content_type` and `status` are used when present. A spider yields
them from its response: `{"url": response.url, "html": response.body,
"content_type": response.headers.get("Content-Type", b"").decode(), "status":
response.status}`. Kept items gain the verdict (`verdict`, `reasons`, `lang`,
`words`, `contains`, ...) and, with `CRAWLSIEVE_CONTENT = True`, the main
content in `content`. Dropped items raise `DropItem` naming the verdict and
its reasons (Scrapy counts them in its stats).
"""

from __future__ import annotations

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem

import crawlsieve


class CrawlsievePipeline:
    def __init__(self, labels=None, config=None, public_key=None, drop=("drop", "flag", "error"),
                 field="crawlsieve", content=False):
        self.pipeline = crawlsieve.Pipeline(config=config, labels=labels, public_key=public_key,
                                            content=content)
        self.drop, self.field, self.content = set(drop), field, content

    @classmethod
    def from_crawler(cls, crawler):
        s = crawler.settings
        return cls(
            labels=s.getlist("CRAWLSIEVE_LABELS") or None,
            config=s.get("CRAWLSIEVE_CONFIG"),
            public_key=s.get("CRAWLSIEVE_PUBLIC_KEY"),
            drop=s.getlist("CRAWLSIEVE_DROP", ["drop", "flag", "error"]),
            field=s.get("CRAWLSIEVE_FIELD", "crawlsieve"),
            content=s.getbool("CRAWLSIEVE_CONTENT", False),
        )

    def process_item(self, item, spider=None):
        a = ItemAdapter(item)
        html = a.get("html", a.get("body"))
        if a.get("url") is None or html is None:
            raise DropItem("crawlsieve: the item has no `url` or no `html`/`body`")
        verdict = self.pipeline.process(
            a["url"],
            html,
            content_type=a.get("content_type") or None,
            status=a.get("status"),
            headers=a.get("headers"),
        )
        if verdict["verdict"] in self.drop:
            raise DropItem(f"crawlsieve: {verdict['verdict']} ({', '.join(verdict['reasons'])})")
        content = verdict.pop("content", None)
        a[self.field] = verdict
        if self.content:
            a["content"] = content
        return item
