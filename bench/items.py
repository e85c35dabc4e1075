#!/usr/bin/env python3
"""Short labeled items leaked into real pages: recall and false positives, crawlsieve beside the
decontamination methods of the literature, in one run on the same pages.

Items: the 27 BIG-bench tasks of ../shared/data/decontamination/bigbench-dev (input, and target or the
best of target_scores as the answer), as `labels build --items bigbench` reads them. Leaked: items whose
question has at least --min-words words (13: GPT-3's n), one random item into each of --pages random real
pages of ../shared/data/extraction per way of leaking:
  paragraph   the item as its own <p> among the page's paragraphs;
  rewrapped   the item as lines of 8 words (<br> between them) in one <p>;
  embedded    the item inside one of the page's own paragraphs of 40 words or more, mid-text;
  options     the question as a paragraph, its last words as a list (<li>) of 3 to 5 words each;
  question    the question alone, without its answer.
Clean: every page of ../shared/data (the extraction benchmarks' HTML and every WARC record), and a second
real corpus: the Apache HTTP Server and PostgreSQL manuals (Debian's apache2-doc and postgresql-doc-15,
installed when missing, as bench/copies.sh does).

Methods, each reading what it would in its own pipeline:
  crawlsieve   `scan` with the item set (the page's whole visible text, across breaks);
  any-13gram   the page shares a word 13-gram with an item (GPT-3, Llama 3);
  marin        a paragraph of the page has >= 50 % of its 13-grams in the items' (Marin's datakit decon);
  dolma        dolma's Bloom-filter decontamination (PyPI dolma; paragraphs of the eval set in a Bloom
               filter, pages' paragraphs looked up: `dolma dedupe`, the documented recipe), and its
               by_ngram variant (13-grams, overlap 0.5).
The baselines read the page's text as a text pipeline has it: the visible text, a line per block element.
A page counts as found when the method flags it (crawlsieve: when it names the leaked item).

Usage: bench/items.py [--pages 240] [--seed 1] [--no-dolma] [--no-second]   (needs cargo build --release)
"""
import argparse, glob, gzip, html, html.parser, json, os, random, re, shutil, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, ".."))
DATA = os.path.join(ROOT, "..", "shared", "data")
TASKS = os.path.join(DATA, "decontamination", "bigbench-dev")
OUT = os.path.join(ROOT, "target", "items-bench")
BIN = os.path.join(ROOT, "target", "release", "crawlsieve")
WAYS = ["paragraph", "rewrapped", "embedded", "options", "question"]
SECOND = ["/usr/share/doc/apache2-doc/manual", "/usr/share/doc/postgresql-doc-15/html"]


def words(text):
    return re.findall(r"\w+", text.lower())


def load_items():
    items = []
    for path in sorted(glob.glob(os.path.join(TASKS, "*.json.gz"))):
        task = json.load(gzip.open(path))
        name = task.get("name") or os.path.basename(path).split(".")[0]
        for i, ex in enumerate(task["examples"]):
            if "input" not in ex:
                continue
            answer = ""
            t = ex.get("target")
            if isinstance(t, list):
                answer = t[0] if t else ""
            elif t is not None:
                answer = str(t)
            elif "target_scores" in ex:
                answer = max(ex["target_scores"].items(), key=lambda kv: kv[1])[0]
            items.append({"task": name, "id": str(i), "question": str(ex["input"]), "answer": answer})
    return items


# ---- the baselines' text: the visible text, a line per block element ----
BLOCKS = {"p", "div", "br", "li", "ul", "ol", "tr", "td", "th", "table", "h1", "h2", "h3", "h4", "h5", "h6",
          "section", "article", "header", "footer", "nav", "aside", "blockquote", "pre", "dd", "dt", "dl",
          "form", "option", "title", "main", "figure", "figcaption", "hr", "body"}


class Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "noscript", "template"):
            self.skip += 1
        elif tag in BLOCKS:
            self.out.append("\n")

    def handle_endtag(self, tag):
        if tag in ("script", "style", "noscript", "template"):
            self.skip = max(0, self.skip - 1)
        elif tag in BLOCKS:
            self.out.append("\n")

    def handle_data(self, data):
        if not self.skip:
            self.out.append(data)


def visible_text(markup):
    p = Text()
    try:
        p.feed(markup)
        p.close()
    except Exception:
        pass
    lines = (" ".join(l.split()) for l in "".join(p.out).split("\n"))
    return "\n".join(l for l in lines if l)


def decode(raw):
    for enc in ("utf-8", "cp1252"):
        try:
            return raw.decode(enc)
        except UnicodeDecodeError:
            pass
    return raw.decode("utf-8", "replace")


# ---- leaking ----
def item_text(it):
    return (it["question"] + " " + it["answer"]).strip()


class Spots(html.parser.HTMLParser):
    """Where text can go: the offsets of the page's </p> end tags, and the raw spans of the text of its
    paragraphs, as a parser sees them (not inside a script, a comment or an attribute; inside <body>)."""

    def __init__(self, markup):
        super().__init__(convert_charrefs=False)
        self.lines = [0]
        for m in re.finditer("\n", markup):
            self.lines.append(m.end())
        self.ends, self.texts, self.stack, self.open_text, self.body = [], [], [], None, False
        try:
            self.feed(markup)
            self.close()
        except Exception:
            pass

    def at(self):
        line, col = self.getpos()
        return self.lines[line - 1] + col

    def _close_text(self):
        if self.open_text is not None:
            start = self.open_text
            self.open_text = None
            self.texts.append((start, self.at()))

    def handle_starttag(self, tag, attrs):
        self._close_text()
        if tag == "body":
            self.body = True
        self.stack.append(tag)

    def handle_endtag(self, tag):
        self._close_text()
        if tag == "body":
            self.body = False
        if tag == "p" and self.body and not {"script", "style", "template", "noscript"} & set(self.stack):
            self.ends.append(self.at())
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        if self.open_text is None and self.stack and self.stack[-1] == "p" and self.body:
            self.open_text = self.at()

    def handle_entityref(self, name):
        pass

    def handle_charref(self, name):
        pass

    def handle_comment(self, data):
        self._close_text()


def leak(markup, it, way, rng):
    esc = html.escape
    spots = Spots(markup)
    if way == "embedded":
        spans = [(a, b) for a, b in spots.texts if len(markup[a:b].split()) >= 40]
        if not spans:
            return None
        a, b = rng.choice(spans)
        text = markup[a:b]
        spaces = [i for i, c in enumerate(text) if c == " "]
        cut = a + spaces[len(spaces) // 2]
        return markup[:cut] + " " + esc(item_text(it)) + markup[cut:]
    if way == "paragraph":
        block = "<p>%s</p>" % esc(item_text(it))
    elif way == "question":
        block = "<p>%s</p>" % esc(it["question"])
    elif way == "rewrapped":
        w = item_text(it).split()
        block = "<p>%s</p>" % "<br>\n".join(esc(" ".join(w[i:i + 8])) for i in range(0, len(w), 8))
    elif way == "options":
        w = item_text(it).split()
        head, tail, lis = w[: len(w) // 2], w[len(w) // 2:], []
        while tail:
            n = rng.randint(3, 5)
            lis.append("<li>%s</li>" % esc(" ".join(tail[:n])))
            tail = tail[n:]
        block = "<p>%s</p><ul>%s</ul>" % (esc(" ".join(head)), "".join(lis))
    if not spots.ends:
        return None
    # The end of a paragraph: its end tag's "</p>" is 4 characters.
    at = rng.choice(spots.ends) + 4
    return markup[:at] + block + markup[at:]


def make_scenario(items, n, min_words, seed):
    rng = random.Random(seed)
    pages = sorted(glob.glob(os.path.join(DATA, "extraction", "wcxb-dev", "dev", "html", "*.html.gz")))
    pages += sorted(glob.glob(os.path.join(DATA, "extraction", "trafilatura-eval", "**", "*.html.gz"), recursive=True))
    eligible = [it for it in items if len(words(it["question"])) >= min_words]
    truth = {}
    for way in WAYS:
        d = os.path.join(OUT, "leaked", way)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        order = pages[:]
        rng.shuffle(order)
        made = 0
        for src in order:
            if made == n:
                break
            it = rng.choice(eligible)
            markup = decode(gzip.open(src).read())
            out = leak(markup, it, way, rng)
            if out is None:
                continue
            name = "%s-%03d.html" % (way, made)
            with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                f.write(out)
            truth[os.path.join(d, name)] = (way, it["task"], it["id"], src)
            made += 1
    return truth, pages, eligible


# ---- crawlsieve ----
def crawlsieve_set():
    os.makedirs(OUT, exist_ok=True)
    key = os.path.join(OUT, "key")
    if not os.path.exists(key):
        subprocess.run([BIN, "labels", "keygen", "-o", key], check=True, capture_output=True)
    out = os.path.join(OUT, "bigbench-dev.csl")
    t = time.time()
    r = subprocess.run([BIN, "labels", "build", "--items", "bigbench", "--name", "bigbench-dev", "--key", key,
                        "-o", out, TASKS], check=True, capture_output=True, text=True)
    print("build:", r.stderr.strip().splitlines()[-1], "(%.2f s wall)" % (time.time() - t))
    return out, key + ".pub"


def scan(inputs, labels, pub, name):
    out = os.path.join(OUT, name + ".jsonl")
    cmd = [BIN, "scan", "--quiet", "--output", out, "--labels", labels,
           "--set", "labels.public_key_file=%s" % pub] + inputs
    t = time.time()
    subprocess.run(cmd, check=True)
    secs = time.time() - t
    verdicts = [json.loads(l) for l in open(out) if l.startswith("{")]
    return [v for v in verdicts if v.get("type") is None], secs


def file_of(v):
    o = v.get("origin") or {}
    return o.get("file") or v.get("url", "").replace("file://", "")


# ---- the baselines ----
def ngrams(ws, n):
    return {" ".join(ws[i:i + n]) for i in range(len(ws) - n + 1)}


class Any13:
    name = "any-13gram"

    def __init__(self, items):
        self.grams = set()
        for it in items:
            self.grams |= ngrams(words(item_text(it)), 13)

    def flags(self, text):
        ws = words(text)
        return any(" ".join(ws[i:i + 13]) in self.grams for i in range(len(ws) - 12))


class Marin(Any13):
    name = "marin (paragraph >= 50 % 13-grams)"

    def flags(self, text):
        for para in text.split("\n"):
            g = ngrams(words(para), 13)
            if g and len(g & self.grams) / len(g) >= 0.5:
                return True
        return False


def dolma_run(venv_bin, items, docs, by_ngram):
    """dolma dedupe: the eval set's paragraphs into a Bloom filter, then the pages' paragraphs looked up."""
    d = os.path.join(OUT, "dolma-ngram" if by_ngram else "dolma")
    shutil.rmtree(d, ignore_errors=True)
    for sub in ("eval/documents", "pages/documents"):
        os.makedirs(os.path.join(d, sub))
    with gzip.open(os.path.join(d, "eval/documents/eval.jsonl.gz"), "wt") as f:
        for i, it in enumerate(items):
            f.write(json.dumps({"id": str(i), "text": item_text(it), "source": "bigbench"}) + "\n")
    with gzip.open(os.path.join(d, "pages/documents/pages.jsonl.gz"), "wt") as f:
        for i, (key, text) in enumerate(docs):
            f.write(json.dumps({"id": str(i), "text": text, "source": "pages"}) + "\n")
    bloom = os.path.join(d, "decon.bin")
    extra = []
    if by_ngram:
        extra = ["--dedupe.paragraphs.by_ngram.ngram_length", "13", "--dedupe.paragraphs.by_ngram.stride", "1",
                 "--dedupe.paragraphs.by_ngram.overlap_threshold", "0.5"]
    common = [os.path.join(venv_bin, "dolma"), "dedupe", "--dedupe.name", "decon",
              "--dedupe.paragraphs.attribute_name", "decon_paragraphs", "--dedupe.skip_empty",
              "--bloom_filter.file", bloom, "--bloom_filter.estimated_doc_count", str(40 * len(items)),
              "--bloom_filter.desired_false_positive_rate", "0.0001", "--processes", "1"] + extra
    env = dict(os.environ, NLTK_DATA=os.path.join(d, "nltk"))
    subprocess.run(common + ["--documents", os.path.join(d, "eval/documents/*.gz"), "--no-bloom_filter.read_only"],
                   check=True, capture_output=True, env=env)
    subprocess.run(common + ["--documents", os.path.join(d, "pages/documents/*.gz"), "--bloom_filter.read_only"],
                   check=True, capture_output=True, env=env)
    flagged = set()
    for path in glob.glob(os.path.join(d, "pages/attributes/decon/*.gz")):
        for line in gzip.open(path, "rt"):
            rec = json.loads(line)
            if any(rec.get("attributes", {}).values()):
                flagged.add(docs[int(rec["id"])][0])
    return flagged


def dolma_venv():
    venv = os.path.join(ROOT, "target", "items-venv")
    py = os.path.join(venv, "bin", "python")
    if not os.path.exists(os.path.join(venv, "bin", "dolma")):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "dolma==1.2.1", "warcio==1.7.5"], check=True)
    return os.path.join(venv, "bin")


def texts_of(paths, venv_bin):
    """(key, visible text) of every page of `paths`: HTML files, and WARC response records read with warcio."""
    out = []
    warcs = []
    for p in paths:
        files = [p] if os.path.isfile(p) else sorted(glob.glob(os.path.join(p, "**", "*"), recursive=True))
        for f in files:
            if not os.path.isfile(f):
                continue
            if ".warc" in f or f.endswith(".arc") or f.endswith(".arc.gz"):
                warcs.append(f)
            elif re.search(r"\.html?(\.gz)?$", f):
                raw = gzip.open(f).read() if f.endswith(".gz") else open(f, "rb").read()
                out.append((f, visible_text(decode(raw))))
    if warcs:
        script = ("import sys, json\nfrom warcio.archiveiterator import ArchiveIterator\n"
                  "for f in sys.argv[1:]:\n"
                  "  try:\n"
                  "    for r in ArchiveIterator(open(f,'rb'), arc2warc=True):\n"
                  "      if r.rec_type in ('response','resource'):\n"
                  "        ct = (r.http_headers.get_header('Content-Type') if r.http_headers else r.rec_headers.get_header('Content-Type')) or ''\n"
                  "        if 'html' in ct:\n"
                  "          print(json.dumps([f + '#' + (r.rec_headers.get_header('WARC-Target-URI') or ''), r.content_stream().read().decode('utf-8','replace')]))\n"
                  "  except Exception as e:\n"
                  "    print(json.dumps(['', '']))\n")
        r = subprocess.run([os.path.join(venv_bin, "python"), "-c", script] + warcs, capture_output=True, text=True)
        for line in r.stdout.splitlines():
            key, markup = json.loads(line)
            if key:
                out.append((key, visible_text(markup)))
    return out


def second_corpus():
    if all(os.path.isdir(d) for d in SECOND):
        return SECOND
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    r = subprocess.run(sudo + ["apt-get", "install", "-y", "-q", "apache2-doc", "postgresql-doc-15"],
                       capture_output=True)
    return [d for d in SECOND if os.path.isdir(d)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=240)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--min-words", type=int, default=13)
    ap.add_argument("--no-dolma", action="store_true")
    ap.add_argument("--no-second", action="store_true")
    ap.add_argument("--json", help="write the table here too")
    a = ap.parse_args()

    items = load_items()
    labels, pub = crawlsieve_set()
    truth, pages, eligible = make_scenario(items, a.pages, a.min_words, a.seed)
    print("%d items (%d with a question of %d words or more); %d leaked pages per way, seed %d"
          % (len(items), len(eligible), a.min_words, a.pages, a.seed))
    venv_bin = dolma_venv() if not a.no_dolma else None

    # Every page: the extraction benchmarks' HTML files and every WARC/ARC file.
    shared = sorted(glob.glob(os.path.join(DATA, "extraction", "**", "*.html.gz"), recursive=True))
    shared += sorted(f for f in glob.glob(os.path.join(DATA, "warc", "**", "*"), recursive=True)
                     if re.search(r"\.(w?arc)(\.gz)?$", f) and not f.endswith((".wat.gz", ".wet.gz")))
    clean_inputs = {"shared": shared}
    if not a.no_second:
        second = second_corpus()
        if second:
            clean_inputs["docs"] = second

    # crawlsieve
    results = {}
    leaked_v, secs = scan([os.path.join(OUT, "leaked")], labels, pub, "leaked")
    by_file = {os.path.abspath(file_of(v)): v for v in leaked_v}
    cs = {w: 0 for w in WAYS}
    for path, (way, task, iid, _) in truth.items():
        v = by_file.get(os.path.abspath(path), {})
        if any(m["task"] == task and m["id"] == iid for m in v.get("items", [])):
            cs[way] += 1
    fp = {}
    for name, inputs in clean_inputs.items():
        vs, secs = scan(inputs, labels, pub, "clean-" + name)
        flagged = [v for v in vs if "labeled_item" in v.get("reasons", [])]
        fp[name] = (len(flagged), len(vs))
        for v in flagged[:5]:
            print("  crawlsieve flags a clean page:", file_of(v), v.get("items"))
    results["crawlsieve"] = (cs, fp)

    # the baselines, on the visible text
    leaked_texts = [(p, visible_text(open(p, encoding="utf-8").read())) for p in truth]
    clean_texts = {name: texts_of(inputs, venv_bin or sys.executable.rsplit("/", 1)[0]) for name, inputs in clean_inputs.items()}
    for method in (Any13(items), Marin(items)):
        found = {w: 0 for w in WAYS}
        for p, text in leaked_texts:
            if method.flags(text):
                found[truth[p][0]] += 1
        fp = {name: (sum(method.flags(t) for _, t in texts), len(texts)) for name, texts in clean_texts.items()}
        results[method.name] = (found, fp)
    if venv_bin:
        for by_ngram in (False, True):
            name = "dolma bloom (13-grams, 0.5)" if by_ngram else "dolma bloom (paragraphs)"
            flagged = dolma_run(venv_bin, items, leaked_texts, by_ngram)
            found = {w: sum(1 for p in flagged if truth[p][0] == w) for w in WAYS}
            fp = {}
            for cname, texts in clean_texts.items():
                f = dolma_run(venv_bin, items, texts, by_ngram)
                fp[cname] = (len(f), len(texts))
            results[name] = (found, fp)

    head = "| method | " + " | ".join(WAYS) + " | " + " | ".join("false positives, %s" % n for n in clean_inputs) + " |"
    print(head)
    print("|" + "---|" * (1 + len(WAYS) + len(clean_inputs)))
    for name, (found, fp) in results.items():
        cells = ["%.3f" % (found[w] / a.pages) for w in WAYS]
        cells += ["%d of %d" % fp[n] for n in clean_inputs]
        print("| %s | %s |" % (name, " | ".join(cells)))
    if a.json:
        json.dump({k: {"found": v[0], "false_positives": v[1]} for k, v in results.items()}, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
