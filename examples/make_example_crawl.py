#!/usr/bin/env python3
"""Writes examples/crawl.warc.gz: a small crawl of pages written for this
project (no third-party text), one gzip member per record as crawlers write
them. Re-run after editing the pages below; the output is deterministic.

Sites:
  news.example.org   - five original articles (the labeled set's origin, see labels.txt)
  copies.example.net - five pages that copy news.example.org paragraphs, with edits:
                       a judged neighborhood (>= 5 pages), flagged as a bad site
  blog.example.com   - an original German post, two English posts, a short page, a link list
  shop.example.com   - a PNG (skipped: not HTML) and a broken gzip payload
"""
import gzip, io, os, uuid

ARTICLE_1 = [
    "River towns along the northern valley have spent the last decade rebuilding the stone bridges that washed away in the great flood, and the work is nearly finished.",
    "Engineers chose local granite for the new arches because it weathers slowly, matches the older houses on the banks, and can be cut by the quarry two miles upstream.",
    "The last bridge, at the old mill, opens to foot traffic next spring; the council expects carts and bicycles to follow once the approach roads are paved again.",
    "Residents say the crossings have changed daily life more than any other project, since the school, the market and the clinic all sit on the eastern bank.",
]
ARTICLE_2 = [
    "A volunteer group has counted the swifts nesting under the eaves of the town hall every summer since nineteen ninety, and this year the count reached a record.",
    "Nest boxes fixed beneath the gutters in the spring gave the birds more room, and the warm dry weather in June meant that most pairs raised two broods.",
    "The group publishes its tallies each autumn and invites anyone with a pair of binoculars and a free evening to join the walk around the market square.",
]
ARTICLE_3 = [
    "The ferry that links the two halves of the lake district will run on batteries from next summer, after the operator fitted a pair of electric motors during the winter overhaul.",
    "Charging takes place at the northern pier while passengers board, which gives the boat enough power for four crossings before it needs to stop for longer.",
    "Fishermen on the lake welcomed the change, saying the old diesel engine could be heard across the water from dawn until the last sailing late at night.",
]
ARTICLE_4 = [
    "The public library on Chapel Street reopened on Saturday after eighteen months of repairs to its leaking roof, and the queue at the door stretched past the bakery.",
    "Volunteers carried more than thirty thousand books back from the church hall where they had been stored, sorting them by subject on long tables in the reading room.",
    "The children's corner now has a window seat overlooking the garden, and the librarians plan a story hour every Wednesday afternoon through the winter months.",
]
ARTICLE_5 = [
    "Orchard owners in the upper valley expect the best apple harvest in twenty years, thanks to a frost-free spring and steady rain through the early summer weeks.",
    "The cider press at the cooperative will run day and night in October, and growers have been asked to book their slots early so that no fruit is left to spoil.",
    "Schools in the valley will close for a week during the picking season, an old custom that lets older pupils earn money working alongside their families.",
]
ENGLISH_POSTS = [
    [
        "This week I finally repaired the garden shed door, which had been sticking every time it rained since the hinges rusted through last winter.",
        "After taking it off its frame I planed the bottom edge, painted the raw wood with two coats of linseed oil, and fitted new brass hinges bought at the market.",
        "It now swings shut with a satisfying click, and the tools inside stay dry even when the wind drives the rain against the side of the house.",
    ],
    [
        "Our walking club spent Sunday on the coastal path between the two lighthouses, a route of about fourteen miles with steep climbs at either end.",
        "We stopped for lunch at the cove where seals often rest on the rocks, and this time three of them watched us eat our sandwiches from a safe distance.",
        "Next month we plan an easier walk along the canal towpath, which should suit the new members who joined after the autumn open day.",
    ],
]
GERMAN = [
    "Im Frühjahr haben wir den kleinen Garten hinter dem Haus neu angelegt, mit Hochbeeten aus altem Holz, einer Kräuterspirale und einem schmalen Weg aus Kies.",
    "Die Tomaten wachsen dieses Jahr besonders gut, weil sie an der warmen Südwand stehen und jeden Morgen gegossen werden, bevor die Sonne zu stark wird.",
    "Im nächsten Beitrag erzähle ich, wie wir Regenwasser vom Dach sammeln und damit den ganzen Sommer über fast kein Leitungswasser mehr brauchen.",
]
NAV = '<ul class="nav"><li><a href="/">Home</a></li><li><a href="/news/">News</a></li><li><a href="/about">About</a></li><li><a href="/contact">Contact</a></li></ul>'
FOOT = '<footer><p>All rights reserved.</p><p><a href="/privacy">Privacy</a> | <a href="/terms">Terms</a></p></footer>'

def page(title, paras, lang="en", extra=""):
    body = "".join(f"<p>{p}</p>\n" for p in paras)
    return (f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title>'
            f'<style>body{{font-family:serif}}</style><script>var tracking = "not text";</script></head>'
            f'<body>{NAV}<article><h1>{title}</h1>\n{body}</article>{extra}{FOOT}</body></html>')

PAGES = [
    ("http://news.example.org/2026/bridges", "text/html; charset=utf-8", page("The bridges are back", ARTICLE_1)),
    ("http://news.example.org/2026/swifts", "text/html; charset=utf-8", page("A record year for swifts", ARTICLE_2)),
    ("http://news.example.org/2026/ferry", "text/html; charset=utf-8", page("The lake ferry goes electric", ARTICLE_3)),
    ("http://news.example.org/2026/library", "text/html; charset=utf-8", page("The library reopens", ARTICLE_4)),
    ("http://news.example.org/2026/orchards", "text/html; charset=utf-8", page("A record apple harvest", ARTICLE_5)),
    ("http://copies.example.net/posts/bridges-story", "text/html", page("Bridges story", ARTICLE_1[:3] + ["Share this"])),
    ("http://copies.example.net/posts/swift-news", "text/html", page("Swift news", ARTICLE_2 + ["We added one sentence of our own to make this page look a little different from the source."])),
    ("http://copies.example.net/posts/ferry", "text/html", page("Electric ferry", ARTICLE_3)),
    ("http://copies.example.net/posts/library-news", "text/html", page("Library news", [ARTICLE_4[1], ARTICLE_4[0], ARTICLE_4[2]])),
    ("http://copies.example.net/posts/apples", "text/html", page("Apples", [p.replace("twenty years", "two decades") if i == 0 else p for i, p in enumerate(ARTICLE_5)])),
    ("http://blog.example.com/garten", "text/html; charset=iso-8859-1", page("Unser Garten", GERMAN, lang="de")),
    ("http://blog.example.com/shed", "text/html", page("Mending the shed door", ENGLISH_POSTS[0])),
    ("http://blog.example.com/coast-walk", "text/html", page("Between the lighthouses", ENGLISH_POSTS[1])),
    ("http://blog.example.com/hello", "text/html", page("Hello", ["Just a short hello."])),
    ("http://blog.example.com/links", "text/html",
     "<html><body><h1>Best deals</h1><p>" + " ".join(f'cheap deals here <a href="/l{i}">offer {i}</a>' for i in range(40)) + "</p></body></html>"),
    ("http://shop.example.com/logo.png", "image/png", None),
    ("http://shop.example.com/broken", "text/html", "BROKEN-GZIP"),
]

def record(headers, block):
    head = "WARC/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + f"Content-Length: {len(block)}\r\n\r\n"
    raw = head.encode() + block + b"\r\n\r\n"
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as g:
        g.write(raw)
    return buf.getvalue()

def main():
    out = bytearray()
    ns = uuid.UUID("6ba7b811-9dad-11d1-80b4-00c04fd430c8")
    out += record([("WARC-Type", "warcinfo"), ("WARC-Record-ID", f"<urn:uuid:{uuid.uuid5(ns, 'info')}>"),
                   ("WARC-Date", "2026-11-22T10:00:00Z"), ("Content-Type", "application/warc-fields")],
                  b"software: crawlsieve examples/make_example_crawl.py\r\n")
    for i, (url, ctype, html) in enumerate(PAGES):
        if html is None:
            payload, extra = b"\x89PNG\r\n\x1a\n" + bytes(range(64)), ""
        elif html == "BROKEN-GZIP":
            payload, extra = b"\x1f\x8b\x08\x00 this is not really gzip", "Content-Encoding: gzip\r\n"
        else:
            enc = "iso-8859-1" if "iso-8859-1" in ctype else "utf-8"
            payload, extra = html.encode(enc), ""
        http = f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\n{extra}Content-Length: {len(payload)}\r\n\r\n".encode() + payload
        rid = f"<urn:uuid:{uuid.uuid5(ns, url)}>"
        date = f"2026-11-22T10:{i:02d}:00Z"
        out += record([("WARC-Type", "request"), ("WARC-Record-ID", f"<urn:uuid:{uuid.uuid5(ns, 'req' + url)}>"),
                       ("WARC-Date", date), ("WARC-Target-URI", url), ("Content-Type", "application/http; msgtype=request")],
                      f"GET {url} HTTP/1.1\r\n\r\n".encode())
        out += record([("WARC-Type", "response"), ("WARC-Record-ID", rid), ("WARC-Date", date),
                       ("WARC-Target-URI", url), ("Content-Type", "application/http; msgtype=response")], http)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "crawl.warc.gz")
    open(path, "wb").write(bytes(out))
    print(f"wrote {path}: {len(PAGES)} responses, {len(out)} bytes")

if __name__ == "__main__":
    main()
