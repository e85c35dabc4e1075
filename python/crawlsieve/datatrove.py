"""A datatrove pipeline step: crawlsieve judges each document's HTML.

Put it where datatrove's extractors go, right after a reader whose documents
hold raw HTML (`WarcReader`, or a `JsonlReader` of crawled pages):

    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import WarcReader
    from datatrove.pipeline.writers import JsonlWriter
    from crawlsieve.datatrove import CrawlsieveFilter

    LocalPipelineExecutor(pipeline=[
        WarcReader("s3://commoncrawl/crawl-data/CC-MAIN-2024-22/segments/", limit=1000),
        CrawlsieveFilter(labels=["news.cslab"], public_key="hub.key.pub"),
        JsonlWriter("out/"),
    ], tasks=4).run()

A kept document's text becomes crawlsieve's extracted main content and its
metadata gains `crawlsieve` (the verdict: `verdict`, `reasons`, `lang`,
`words`, `contains`, `labels`, ...); the others are dropped like any datatrove
filter's, with the verdict's first reason as `dropped_<reason>` in the stats
(and to `exclusion_writer` when given). `batch_size` pages at a time go
through `Pipeline.process_many` on `threads` threads with the GIL released.

In place of a pipeline's decontamination step, give it an item set (benchmark
questions, `crawlsieve labels build --items`, docs/items.md) and drop what
carries an item whatever else the verdict says:

    CrawlsieveFilter(labels=["bigbench.csl"], public_key="decon.key.pub",
                     keep=("keep", "drop", "flag"), drop_reasons=("labeled_item",))

The step pickles (for the Slurm and Ray executors): the pipeline is built
where it runs, from the arguments.
"""

from __future__ import annotations

from datatrove.data import Document
from datatrove.pipeline.filters.base_filter import BaseFilter
from datatrove.pipeline.writers.disk_base import DiskWriter

import crawlsieve


class CrawlsieveFilter(BaseFilter):
    name = "🧹 crawlsieve"
    _requires_dependencies = []

    def __init__(
        self,
        labels: list[str] | None = None,
        config: str | None = None,
        public_key: str | None = None,
        keep: tuple[str, ...] = ("keep",),
        replace_text: bool = True,
        exclusion_writer: DiskWriter | None = None,
        batch_size: int = 64,
        threads: int | None = None,
        drop_reasons: tuple[str, ...] = (),
    ):
        super().__init__(exclusion_writer, batch_size)
        self.labels, self.config, self.public_key = labels, config, public_key
        self.keep, self.replace_text, self.threads = tuple(keep), replace_text, threads
        self.drop_reasons = tuple(drop_reasons)
        self._pipeline = None

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_pipeline"] = None
        return state

    @property
    def pipeline(self) -> crawlsieve.Pipeline:
        if self._pipeline is None:
            self._pipeline = crawlsieve.Pipeline(
                config=self.config, labels=self.labels, public_key=self.public_key,
                content=self.replace_text,
            )
        return self._pipeline

    def _page(self, doc: Document) -> dict:
        meta = doc.metadata
        return {
            "url": meta.get("url") or doc.id,
            "body": doc.text,
            "content_type": meta.get("content_type"),
            "status": meta.get("status"),
        }

    def _result(self, doc: Document, verdict: dict) -> bool | tuple[bool, str]:
        content = verdict.pop("content", None)
        doc.metadata["crawlsieve"] = verdict
        dropped_for = next((r for r in verdict["reasons"] if r in self.drop_reasons), None)
        if dropped_for is not None:
            return False, dropped_for
        kept = verdict["verdict"] in self.keep
        if kept and self.replace_text and content is not None:
            doc.text = content
        if kept:
            return True
        return False, (verdict["reasons"] or [verdict["verdict"]])[0]

    def filter(self, doc: Document) -> bool | tuple[bool, str]:
        return self.filter_batch([doc])[0]

    def filter_batch(self, batch: list[Document]) -> list[bool | tuple[bool, str]]:
        verdicts = self.pipeline.process_many([self._page(d) for d in batch], threads=self.threads)
        return [self._result(d, v) for d, v in zip(batch, verdicts)]
