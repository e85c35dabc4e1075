#!/usr/bin/env python3
"""A thousand agents following one hub (issue 49): the hub's memory, and the
time from a publish until every follower holds the new version.

A real hub (release binary) on loopback with a set built from real pages
(WCXB dev: version 1 from pages 0-599, version 2 from pages 150-749, so the
delta adds and removes). N followers, each one keep-alive HTTP/1.1
connection driven by asyncio, do what an agent's follower does: long-poll
`/next?after=1`, then `GET /v1/sets/NAME` and the delta
`/delta?from=1&to=2` (or, with --full, `/full?version=2`), read to the end.
Once all N are parked, version 2 is published; the clock starts when the
publish request is sent. Reported: each follower's time to its last byte
(p50, p99, max), the hub's RSS parked and peak (VmHWM), and how many deltas
the hub made (one: the rest are served from the file it kept).

Usage: cargo build --release && bench/followers.py [--followers 1000] [--full]
"""
import argparse, asyncio, glob, gzip, json, os, resource, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from procs import free_port, peak_rss_mb, wait_port  # noqa: E402
ROOT = os.path.join(HERE, "..")
BIN = os.path.join(ROOT, "target", "release", "crawlsieve")
DATA = os.path.join(ROOT, "..", "shared", "data", "extraction", "wcxb-dev", "dev")


def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def build_sets(tmp):
    files = sorted(glob.glob(os.path.join(DATA, "html", "*.html.gz")))
    key = os.path.join(tmp, "build.key")
    subprocess.run([BIN, "labels", "keygen", "-o", key], check=True, capture_output=True)
    out = []
    for v, (a, b) in enumerate([(0, 600), (150, 750)], 1):
        src = os.path.join(tmp, f"v{v}.jsonl")
        with open(src, "w") as f:
            for p in files[a:b]:
                f.write(json.dumps({"url": f"https://wiki.example/{os.path.basename(p)}",
                                    "html": gzip.open(p).read().decode("utf-8", "replace")}) + "\n")
        path = os.path.join(tmp, f"v{v}.cslab")
        subprocess.run([BIN, "labels", "build", "--name", "wiki", "--key", key, "-o", path, src],
                       check=True, capture_output=True)
        out.append(path)
    return out


def publish(port, token_file, path):
    subprocess.run([BIN, "labels", "publish", "--hub", f"http://127.0.0.1:{port}", "--name", "wiki",
                    "--token-file", token_file, path], check=True, capture_output=True)


async def request(reader, writer, path):
    writer.write(f"GET {path} HTTP/1.1\r\nHost: hub\r\n\r\n".encode())
    await writer.drain()
    head = (await reader.readuntil(b"\r\n\r\n")).decode()
    status = int(head.split()[1])
    length = 0
    for line in head.split("\r\n"):
        if line.lower().startswith("content-length:"):
            length = int(line.split(":")[1])
    body = await reader.readexactly(length)
    return status, body


async def follower(port, parked, full, done):
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    parked.append(1)
    status, _ = await request(reader, writer, "/v1/sets/wiki/next?after=1&wait=120")
    assert status == 200, status
    await request(reader, writer, "/v1/sets/wiki")
    path = "/v1/sets/wiki/full?version=2" if full else "/v1/sets/wiki/delta?from=1&to=2"
    status, body = await request(reader, writer, path)
    assert status == 200 and body, status
    done.append((time.perf_counter(), len(body)))
    writer.close()


async def run(port, n, full, hub_pid, token_file, v2):
    parked, done = [], []
    tasks = [asyncio.create_task(follower(port, parked, full, done)) for _ in range(n)]
    while len(parked) < n:
        await asyncio.sleep(0.05)
    await asyncio.sleep(2)  # every long-poll has reached the hub and waits
    parked_rss = rss_mb(hub_pid)
    t0 = time.perf_counter()
    await asyncio.get_running_loop().run_in_executor(None, publish, port, token_file, v2)
    await asyncio.gather(*tasks)
    times = sorted(t - t0 for t, _ in done)
    return parked_rss, times, done[0][1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--followers", type=int, default=1000)
    ap.add_argument("--full", action="store_true", help="followers fetch the full set, not the delta")
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
    tmp = tempfile.mkdtemp(prefix="followers-")
    v1, v2 = build_sets(tmp)
    token = os.path.join(tmp, "token")
    open(token, "w").write("bench-publish-token\n")
    os.chmod(token, 0o600)
    key = os.path.join(tmp, "hub.key")
    subprocess.run([BIN, "labels", "keygen", "-o", key], check=True, capture_output=True)
    port = free_port()
    hub = subprocess.Popen([BIN, "hub", "--listen", f"127.0.0.1:{port}", "--store", os.path.join(tmp, "store"),
                            "--key", key, "--token-file", token, "--max-connections", str(a.followers + 64),
                            "--max-connections-per-client", str(a.followers + 64)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port)
        publish(port, token, v1)
        idle = rss_mb(hub.pid)
        parked, times, size = asyncio.run(run(port, a.followers, a.full, hub.pid, token, v2))
        peak = peak_rss_mb(hub.pid)
    finally:
        hub.terminate()
        hub.wait()
    deltas = len(glob.glob(os.path.join(tmp, "store", "wiki", "deltas", "*")))
    what = "full set" if a.full else "delta"
    pct = lambda q: times[min(len(times) - 1, int(q * len(times)))]
    print(f"| {a.followers} followers, {what} of {size / 1e6:.2f} MB | all on version 2 {times[-1]:.2f} s after the"
          f" publish (p50 {pct(.5):.2f} s, p99 {pct(.99):.2f} s) | hub RSS idle {idle:.0f} MB, {a.followers} parked"
          f" {parked:.0f} MB, peak {peak:.0f} MB | deltas made: {deltas} |"
          f" `bench/followers.py --followers {a.followers}{' --full' if a.full else ''}` |")


if __name__ == "__main__":
    main()
