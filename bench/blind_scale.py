#!/usr/bin/env python3
"""The loop at scale (issue 17): what agents' counts weigh, what the hub's
merge and discovery cost as agents multiply, and 1 vs 2 agents on this machine.

1. Count volume: `labels count` over the corpus — a batch's bytes per page
   judged (a count file holds each distinct chunk/shingle once per batch).
2. The hub merging N simulated agents (N = 2, 4, 8): the corpus dealt round
   robin into N parts, each counted by `labels count` (an agent's batch), the
   batches POSTed to a real hub (`--blind`), then `POST .../discover` timed
   (merge + threshold + publish), twice: the first round into an empty total,
   the second adds the same N batches again on top of it (the steady state: a
   running total that only grows). Reports upload MB/s, discovery seconds,
   the hub's peak RSS (VmHWM), the set's size and the delta a follower fetches
   (GET /delta?from=previous), and the long-poll latency: a follower waiting
   on /next is answered how long after the discovery returned.
3. 1 vs 2 agents on this 2-core machine: agents with `[agent.counts]` and an
   HTTP source, pages posted by 8 threads; one agent with 2 workers against
   two agents with 1 worker each, pages split between them.

With `--agent-cap N` the hub runs with `--agent-cap N` (each agent's own
total kept, the running total summed capped: what bounding one agent costs);
`--hub-only` leaves out part 3.

Usage: cargo build --release && bench/blind_scale.py [--data DIR] [--pages N] [--agent-cap N] [--hub-only]
Every figure goes to stdout as a Markdown table row with the command above.
"""
import argparse, glob, gzip, http.client, json, os, socket, subprocess, sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from procs import free_port, peak_rss_mb, start_agent, wait_port  # noqa: E402
ROOT = os.path.join(HERE, "..")
BIN = os.path.join(ROOT, "target", "release", "crawlsieve")
PUBLISH, COUNT = "bench-publish-token", "bench-count-token"


def load_pages(data, n):
    files = sorted(glob.glob(os.path.join(data, "**", "*.html*"), recursive=True))
    pages = []
    for f in files:
        raw = gzip.open(f).read() if f.endswith(".gz") else open(f, "rb").read()
        # A site per page: benchmark pages share nothing but boilerplate, as different sites do.
        pages.append((f"http://site{len(pages)}.example/page.html", raw))
        if len(pages) >= n:
            break
    return pages


def write_jsonl(path, pages):
    with open(path, "w") as f:
        for url, raw in pages:
            f.write(json.dumps({"url": url, "html": raw.decode("utf-8", "replace")}) + "\n")


def request(port, method, path, body=b"", headers=None, timeout=600):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    c.request(method, path, body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data


def count(tmp, name, pages):
    src = os.path.join(tmp, f"{name}.jsonl")
    write_jsonl(src, pages)
    out = os.path.join(tmp, f"{name}.cscounts")
    t = time.time()
    subprocess.run([BIN, "labels", "count", "-o", out, src], check=True, stderr=subprocess.DEVNULL)
    return out, time.time() - t


AGENT_CAP = None


def start_hub(tmp, threshold):
    key = os.path.join(tmp, "hub.key")
    if not os.path.exists(key):
        subprocess.run([BIN, "labels", "keygen", "-o", key], check=True, stdout=subprocess.DEVNULL)
    open(os.path.join(tmp, "publish.token"), "w").write(PUBLISH)
    open(os.path.join(tmp, "count.token"), "w").write(COUNT)
    port = free_port()
    store = tempfile.mkdtemp(dir=tmp, prefix="store-")
    hub = subprocess.Popen([BIN, "hub", "--listen", f"127.0.0.1:{port}", "--store", store, "--key", key,
                            "--token-file", os.path.join(tmp, "publish.token"),
                            "--count-token-file", os.path.join(tmp, "count.token"),
                            "--blind", f"bench={threshold}", "--discover-every", "0"]
                           + (["--agent-cap", str(AGENT_CAP)] if AGENT_CAP else []),
                           stderr=subprocess.DEVNULL)
    wait_port(port)
    return hub, port


def upload(port, agent, batch, path):
    body = open(path, "rb").read()
    st, data = request(port, "POST", "/v1/counts/bench", body, {
        "Authorization": f"Bearer {COUNT}", "X-Crawlsieve-Agent": agent, "X-Crawlsieve-Batch": str(batch)})
    assert st in (200, 201), (st, data)
    return len(body)


def discover(port):
    st, data = request(port, "POST", "/v1/sets/bench/discover", b"", {"Authorization": f"Bearer {PUBLISH}"})
    assert st == 200, (st, data)
    return json.loads(data)


def hub_rounds(tmp, batches, threshold):
    """Two rounds of N batches into a hub: (upload MB/s, discover s, version info, delta bytes, poll latency) each."""
    hub, port = start_hub(tmp, threshold)
    rows = []
    try:
        for rnd in (1, 2):
            answered = {}

            def poll(after):
                t0 = time.time()
                st, data = request(port, "GET", f"/v1/sets/bench/next?after={after}&wait=300")
                answered["at"] = time.time()
                answered["status"] = st

            t = time.time()
            sent = sum(upload(port, f"agent{i}", rnd, p) for i, p in enumerate(batches))
            up = time.time() - t
            _, latest = request(port, "GET", "/v1/sets/bench")
            before = json.loads(latest)["version"]
            poller = threading.Thread(target=poll, args=(before,)); poller.start()
            time.sleep(0.3)
            t = time.time()
            d = discover(port)
            done = time.time()
            poller.join(30)
            v = d["published"]
            st, delta = request(port, "GET", f"/v1/sets/bench/delta?from={before}")
            rows.append({
                "round": rnd, "upload_mb": sent / 1e6, "upload_s": up, "discover_s": done - t,
                "entries": v["entries"] if v else None, "bytes": v["bytes"] if v else None,
                "delta": len(delta) if st == 200 else None,
                "poll_ms": max(0.0, (answered.get("at", done) - done) * 1000),
                "distinct": v["counts"]["distinct"] if v else None,
                "rss": peak_rss_mb(hub.pid),
            })
    finally:
        hub.terminate(); hub.wait()
    return rows


def synthetic_batch(path, records, seed):
    """A count file of `records` random distinct hashes, each seen once on one site: what a batch
    of a crawl's unique text looks like to the merge (its cost depends on records, not content)."""
    import random, struct
    rng = random.Random(seed)
    hashes = sorted({rng.getrandbits(160).to_bytes(20, "big") for _ in range(records)})
    with open(path, "wb") as f:
        f.write(b"CSCOUNTS" + struct.pack("<HBI", 1, 1, 100))
        one = struct.pack("<QQ", 1, 1)
        for h in hashes:
            f.write(h + one)
    return path


def merge_scale(tmp, agents, records):
    """The hub's discovery when the total is large: `agents` synthetic batches of `records` each
    into an empty total, then one more batch of `records` into that total (the steady state)."""
    hub, port = start_hub(tmp, 2)
    rows = []
    try:
        batches = [synthetic_batch(os.path.join(tmp, f"syn{i}.cscounts"), records, i) for i in range(agents + 1)]
        for i, b in enumerate(batches[:agents]):
            upload(port, f"agent{i}", 1, b)
        t = time.time(); discover(port); first = time.time() - t
        upload(port, "agent0", 2, batches[agents])
        t = time.time(); d = discover(port); second = time.time() - t
        rows.append((agents * records, first, second, peak_rss_mb(hub.pid)))
    finally:
        hub.terminate(); hub.wait()
    return rows


def agent_config(tmp, name, workers, hub_port, counting=True):
    counts = f"""[agent.counts]
set = "bench"
hub = "http://127.0.0.1:{hub_port}"
token_file = "{tmp}/count.token"
dir = "{tmp}/{name}/counts"
agent_id = "{name}"
interval_seconds = 5
""" if counting else ""
    p, addr = start_agent(BIN, os.path.join(tmp, name), counts, head=f"workers = {workers}\n")
    return p, int(addr.rsplit(":", 1)[1])


def post_all(ports, pages, threads=8):
    work = list(enumerate(pages))
    lock = threading.Lock()

    def run():
        conns = {}
        while True:
            with lock:
                if not work:
                    return
                i, (url, raw) = work.pop()
            port = ports[i % len(ports)]
            while True:
                c = conns.get(port) or http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                conns[port] = c
                c.request("POST", "/v1/pages", body=raw, headers={"X-Crawlsieve-Url": url, "Content-Type": "text/html"})
                r = c.getresponse(); r.read()
                if r.status == 200:
                    break
                assert r.status == 503, r.status
                time.sleep(0.01)

    ts = [threading.Thread(target=run) for _ in range(threads)]
    t = time.time()
    for x in ts: x.start()
    for x in ts: x.join()
    return time.time() - t


def agents_run(tmp, pages, layout, counting=True):
    hub, hub_port = start_hub(tmp, 2)
    tag = f"{'-'.join(map(str, layout))}-{counting}"
    agents = [agent_config(tmp, f"{tag}-{i}", w, hub_port, counting) for i, w in enumerate(layout)]
    try:
        secs = post_all([port for _, port in agents], pages)
    finally:
        for p, _ in agents:
            p.terminate(); p.wait()
        hub.terminate(); hub.wait()
    return len(pages) / secs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "extraction"))
    ap.add_argument("--pages", type=int, default=2529)
    ap.add_argument("--threshold", type=int, default=2)
    ap.add_argument("--agent-cap", type=int, default=None)
    ap.add_argument("--hub-only", action="store_true")
    a = ap.parse_args()
    global AGENT_CAP
    AGENT_CAP = a.agent_cap
    if not os.path.exists(BIN):
        raise SystemExit("cargo build --release first")
    pages = load_pages(a.data, a.pages)
    mb = sum(len(r) for _, r in pages) / 1e6
    with tempfile.TemporaryDirectory() as tmp:
        whole, secs = count(tmp, "whole", pages)
        size = os.path.getsize(whole)
        print(f"corpus: {len(pages)} pages, {mb:.0f} MB ({a.data})")
        print(f"| count volume | one batch of {len(pages)} pages: {size/1e6:.1f} MB, {size/len(pages)/1e3:.1f} KB a page "
              f"({(size-15)//36} distinct records); `labels count` {len(pages)/secs:.0f} pages/s |")
        for n in (2, 4, 8):
            parts = [pages[i::n] for i in range(n)]
            batches = [count(tmp, f"n{n}-{i}", part)[0] for i, part in enumerate(parts)]
            total = sum(os.path.getsize(b) for b in batches)
            for r in hub_rounds(tmp, batches, a.threshold):
                print(f"| hub, {n} agents, round {r['round']} | batches {total/1e6:.1f} MB in all, upload {r['upload_mb']/r['upload_s']:.0f} MB/s; "
                      f"discover {r['discover_s']:.2f} s (total {r['distinct']} distinct); set {r['entries']} keys, {r['bytes']/1e6:.2f} MB; "
                      f"delta {r['delta']/1e6 if r['delta'] else 0:.2f} MB; long-poll answered {r['poll_ms']:.0f} ms after; hub peak {r['rss']:.0f} MB |")
        for records in (1_000_000, 4_000_000):
            for total, first, second, rss in merge_scale(tmp, 4, records):
                total_mb = total * 36 / 1e6
                print(f"| hub merge, synthetic | 4 batches of {records:,} records into an empty total: {first:.1f} s "
                      f"({total_mb / first:.0f} MB/s of records); one more batch of {records:,} into the {total:,}-record total: "
                      f"{second:.1f} s ({(total_mb + records * 36 / 1e6) / second:.0f} MB/s); hub peak {rss:.0f} MB |")
        if a.agent_cap:
            print(f"(hub with --agent-cap {a.agent_cap})")
        for layout, counting in (() if a.hub_only else (([2], False), ([2], True), ([1, 1], True))):
            rate = agents_run(tmp, pages, layout, counting)
            what = " + ".join(f"one agent of {w} worker" + ("s" if w > 1 else "") for w in layout)
            print(f"| {what}, {'counting' if counting else 'not counting'} | {rate:.0f} pages/s ({rate * mb / len(pages):.0f} MB/s) |")


if __name__ == "__main__":
    main()
