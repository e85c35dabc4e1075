#!/usr/bin/env python3
"""End-to-end throughput of `crawlsieve agent` through NATS JetStream and
through Kafka (tansu), against `crawlsieve scan` on the same pages.

Starts its own nats-server (JetStream, file storage) and tansu (memory
storage) on free loopback ports, an agent per broker (HTTP source → JSONL +
broker sink), posts the pages from 8 client threads over keep-alive
connections, and reports verdicts/s acknowledged (every verdict accepted by
the broker), the agent's peak RSS, and scan's pages/s on the same pages.

Usage: bench/agent_throughput.py [--pages N] [--data DIR]
"""
import argparse, glob, gzip, http.client, json, os, socket, subprocess, sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from procs import free_port, peak_rss_mb, start_agent, wait_port  # noqa: E402
ROOT = os.path.join(HERE, "..")
BIN = os.path.join(ROOT, "target", "release", "crawlsieve")


def load_pages(data, n):
    files = sorted(glob.glob(os.path.join(data, "**", "*.html*"), recursive=True))
    pages = []
    for f in files:
        raw = gzip.open(f).read() if f.endswith(".gz") else open(f, "rb").read()
        if len(raw) < 800_000:  # Kafka's default 1 MB message limit
            pages.append(raw)
        if len(pages) >= n:
            break
    return pages


def post_all(addr, pages, threads=8):
    host, port = addr.split(":")
    todo = list(range(len(pages)))
    lock = threading.Lock()
    done = [0]

    def worker():
        c = http.client.HTTPConnection(host, int(port))
        while True:
            with lock:
                if not todo:
                    break
                i = todo.pop()
            while True:
                c.request("POST", "/v1/pages", body=pages[i], headers={
                    "X-Crawlsieve-Url": f"http://site{i % 50}.example/p/{i}", "Content-Type": "text/html"})
                r = c.getresponse(); r.read()
                if r.status == 200:
                    break
                time.sleep(0.01)
            with lock:
                done[0] += 1
    ts = [threading.Thread(target=worker) for _ in range(threads)]
    t = time.perf_counter()
    for th in ts: th.start()
    for th in ts: th.join()
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=2000)
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "extraction"))
    a = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    base = load_pages(a.data, 400)
    pages = [base[i % len(base)] for i in range(a.pages)]
    mb = sum(map(len, pages)) / 1e6
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        # scan on the same pages, same worker count (one per core)
        jl = os.path.join(tmp, "pages.jsonl")
        with open(jl, "w") as f:
            for i, p in enumerate(pages):
                f.write(json.dumps({"url": f"http://site{i % 50}.example/p/{i}", "html": p.decode("utf-8", "replace")}) + "\n")
        t = time.perf_counter()
        subprocess.run([BIN, "scan", "-q", "--set", "neighborhoods.enabled=false", "-o", os.path.join(tmp, "scan.jsonl"), jl], check=True)
        scan_s = time.perf_counter() - t
        results.append(("scan (JSONL file → JSONL)", a.pages / scan_s, None))

        nport = free_port()
        nats = subprocess.Popen(["nats-server", "-js", "-a", "127.0.0.1", "-p", str(nport), "-sd", os.path.join(tmp, "nats")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(nport)
        d = os.path.join(tmp, "n"); os.makedirs(d)
        agent, addr = start_agent(BIN, d, f'[[agent.sinks]]\nkind = "nats"\nurl = "nats://127.0.0.1:{nport}"\nstream = "BENCH"\nsubject = "bench.verdicts"\n')
        secs = post_all(addr, pages)
        results.append(("agent: HTTP → NATS JetStream", a.pages / secs, peak_rss_mb(agent.pid)))
        agent.terminate(); agent.wait(); nats.terminate(); nats.wait()

        kport = free_port()
        url = f"tcp://127.0.0.1:{kport}"
        tansu = subprocess.Popen(["tansu", "broker", "--listener-url", url, "--advertised-listener-url", url,
                                  "--storage-engine", "memory://tansu/"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(kport)
        subprocess.run(["tansu", "topic", "create", "--broker", url, "verdicts"], check=True, stdout=subprocess.DEVNULL)
        d = os.path.join(tmp, "k"); os.makedirs(d)
        agent, addr = start_agent(BIN, d, f'[[agent.sinks]]\nkind = "kafka"\nbrokers = "127.0.0.1:{kport}"\ntopic = "verdicts"\n')
        secs = post_all(addr, pages)
        results.append(("agent: HTTP → Kafka (tansu)", a.pages / secs, peak_rss_mb(agent.pid)))
        agent.terminate(); agent.wait(); tansu.terminate(); tansu.wait()

    print(f"{a.pages} real pages ({mb:.0f} MB) from {a.data}, {os.cpu_count()} cores, 8 HTTP client threads")
    for name, rate, rss in results:
        extra = f"   agent peak RSS {rss:.0f} MB" if rss else ""
        print(f"{name:<32} {rate:>8.0f} pages/s   {rate / results[0][1]:.2f}× scan{extra}")


if __name__ == "__main__":
    main()
