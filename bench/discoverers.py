#!/usr/bin/env python3
"""Discoverers on Kafka (issue 49): count records per second, one discoverer
against two on this 2-core machine, and memory per million keys held.

A real Kafka-protocol broker (tansu, in memory) on loopback. The count topic
(--partitions) is loaded with --batches batches of --records occurrences
each, a web-like stream made with numpy: a Yule-Simon process, where each
occurrence is a chunk never seen before with probability --alpha (0.4: Ardi
& Heidemann find about 40 % of Common Crawl's 40.5 B chunks unique) and
otherwise repeats an earlier occurrence picked uniformly — the preferential
attachment that gives the heavy tail they plot. A share of the keys
(--shingles, 0.9) are shingle records, an 8-byte hash then twelve 0xFF
bytes, as 0.88-0.94 of the records `labels count` writes for real WARC
files are (random 20-byte keys throughout, --shingles 0: lz4 keeps 0.66 of
their bytes, 0.31 of a real count file's). Each batch is aggregated and
sorted into a count file and published by `crawlsieve labels send-counts`
(the agents' own slicing code), several agents in parallel. Then a group of one discoverer, and a group of two (each
a process, release build), read the whole topic; each group reads its own
copy of the stream (sets bench1 and bench2: the state topic is per set).
The discoverers start first; once the group has settled (every member owns
partitions), the stream is loaded and the clock runs from the first batch
sent until the discoverers' checkpoint logs account for every record (they
take batches while later ones are still being sent). That clock also times
the agents publishing, on the same two cores.

With --preload the stream is published first, and the clock is the
discoverers' own: from the first partition adopted (the group's assignment,
read off the members' log timestamps) to the last "caught up" line, once
the members' records account for the whole stream. Only the discoverers and
the broker then share the cores. A member that joins late takes its
partitions over from the first (their state handed over through Kafka):
that is inside the clock, and the bench says how many partitions moved.

Reported: seconds, records/s, the ratio two/one, each discoverer's CPU
seconds (user + sys) and peak RSS, the keys held and RSS per million keys.
The broker runs on the same two cores: its share is in the wall time.

Usage: cargo build --release && target/py-venv/bin/python bench/discoverers.py [--batches 40]
"""
import argparse, os, re, subprocess, sys, tempfile, time
from datetime import datetime

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from procs import free_port, peak_rss_mb, wait_port  # noqa: E402
ROOT = os.path.join(HERE, "..")
BIN = os.path.join(ROOT, "target", "release", "crawlsieve")


def header(tmp):
    """A count file's header as this build writes it (its normalisation version)."""
    out = os.path.join(tmp, "h.cscounts")
    subprocess.run([BIN, "labels", "count", "-o", out, os.path.join(ROOT, "examples", "crawl.warc.gz")],
                   check=True, capture_output=True)
    return open(out, "rb").read()[:15]


def yule_simon(n, alpha, rng):
    """Chunk ids of n occurrences: new with probability alpha, else a copy of
    a uniformly chosen earlier occurrence (resolved by pointer jumping)."""
    new = rng.random(n) < alpha
    new[0] = True
    idx = np.arange(n, dtype=np.int64)
    ptr = np.where(new, idx, (rng.random(n) * idx).astype(np.int64))
    while True:
        nxt = ptr[ptr]
        if np.array_equal(nxt, ptr):
            break
        ptr = nxt
    return (np.cumsum(new) - 1)[ptr]


def batches(a, tmp, head):
    rng = np.random.default_rng(7)
    ids = yule_simon(a.batches * a.records, a.alpha, rng)
    counts = np.bincount(ids)
    print(f"stream: {len(ids):,} occurrences, {len(counts):,} distinct chunks "
          f"({len(counts) / len(ids):.2f} a occurrence), {np.mean(counts == 1):.0%} of them seen once, "
          f"{np.sum(counts > a.threshold):,} over the threshold {a.threshold}, most seen {counts.max():,}",
          flush=True)
    raw = rng.integers(0, 256, size=(len(counts), 20), dtype=np.uint8)
    # A shingle's record is its 8-byte hash then twelve 0xFF bytes; on real
    # pages most records are shingles, and they are what lz4 shrinks.
    raw[rng.random(len(counts)) < a.shingles, 8:] = 0xFF
    table = raw.view("S20").ravel()
    paths = []
    for b in range(a.batches):
        keys = table[ids[b * a.records:(b + 1) * a.records]]
        uniq, n = np.unique(keys, return_counts=True)
        rec = np.zeros(len(uniq), dtype=[("h", "S20"), ("n", "<u8"), ("s", "<u8")])
        rec["h"], rec["n"], rec["s"] = uniq, n, 1
        path = os.path.join(tmp, f"b{b:04}.cscounts")
        with open(path, "wb") as f:
            f.write(head)
            f.write(rec.tobytes())
        paths.append((path, len(uniq)))
    return paths, int(np.sum(counts > a.threshold))


def load(brokers, set_name, files, agents):
    per = [files[i::agents] for i in range(agents)]
    procs = [subprocess.Popen([BIN, "labels", "send-counts", "--kafka", brokers, "--set", set_name,
                               "--agent", f"agent{i}", *p], stderr=subprocess.DEVNULL)
             for i, p in enumerate(per) if p]
    for p in procs:
        assert p.wait() == 0, "send-counts failed"


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def last(log, field):
    found = re.findall(field + r"=(\d+)", open(log).read())
    return int(found[-1]) if found else 0


def records_done(log):
    return last(log, "records")


def stamp(line):
    """The time of a log line (tracing's RFC 3339 stamp), in seconds."""
    return datetime.fromisoformat(line.split()[0]).timestamp()


def own_clock(logs, partitions):
    """--preload: from the first partition adopted to the last `caught up`,
    off the members' logs, and how many partitions changed owner meanwhile."""
    lines = [open(l).read().splitlines() for l in logs]
    adopted = [stamp(x) for ls in lines for x in ls if "adopted a partition" in x]
    caught = [stamp(x) for ls in lines for x in ls if "caught up" in x]
    return max(caught) - min(adopted), len(adopted) - partitions


def keys_held(log):
    found = re.findall(r"partitions=\[[^\]]*\] keys=(\d+)", open(log).read())
    return int(found[-1]) if found else 0


def run_group(a, brokers, set_name, n, total, files, tmp):
    """Starts n discoverers, waits for the group to settle, then loads the
    stream and times until every record is taken."""
    logs = [os.path.join(tmp, f"{set_name}-d{i}.log") for i in range(n)]
    if a.preload:
        load(brokers, set_name, files, a.agents)
        files = []
    started = time.time()
    procs = [subprocess.Popen([BIN, "discoverer", "--brokers", brokers, "--set", set_name,
                               "--threshold", str(a.threshold), "--partitions", str(a.partitions),
                               "--checkpoint-every", str(a.checkpoint_every)],
                              stderr=open(log, "w"), env={**os.environ, "RUST_LOG": "info"})
             for log in logs]
    adopted = lambda: [open(l).read().count("adopted") for l in logs]
    t, seen, quiet_since = time.time(), None, time.time()
    # Settled: every member owns partitions, and no assignment for 5 s.
    while not a.preload:
        now = adopted()
        if now != seen:
            seen, quiet_since = now, time.time()
        if min(now) > 0 and time.time() - quiet_since > 5:
            break
        assert time.time() - t < 120, "the group never settled"
        time.sleep(0.1)
    try:
        return timed(a, brokers, set_name, total, files, procs, logs, adopted, started)
    finally:
        for p in procs:
            p.kill()
            p.wait()


def timed(a, brokers, set_name, total, files, procs, logs, adopted, started):
    settled = adopted()
    if not a.preload:
        started = time.time()
    cpu0 = [cpu_seconds(p.pid) for p in procs] if not a.preload else [0] * len(procs)
    if files:
        load(brokers, set_name, files, a.agents)
    loaded = time.time() - started
    while sum(records_done(l) for l in logs) < total:
        assert time.time() - started < 1800, "discoverers never caught up"
        assert all(p.poll() is None for p in procs), "a discoverer ended"
        time.sleep(0.02)
    took = time.time() - started
    cpu = [cpu_seconds(p.pid) - c for p, c in zip(procs, cpu0)]
    rss = [peak_rss_mb(p.pid) for p in procs]
    time.sleep(0.5)  # each member's last line written: its clock, and how many keys it holds
    if a.preload:
        took, moved = own_clock(logs, a.partitions)
        if moved:
            # A member that joined late took its partitions over, state and all: inside the clock.
            print(f"  ({moved} partitions handed over while timed)", flush=True)
    assert a.preload or adopted() == settled, "the group rebalanced while timed"
    keys = [keys_held(l) for l in logs]
    for p in procs:
        p.terminate()
        p.wait()
    announced = sum(last(l, "announced") for l in logs)
    return took, loaded, cpu, rss, keys, announced


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", type=int, default=40)
    ap.add_argument("--records", type=int, default=400_000, help="occurrences a batch")
    ap.add_argument("--alpha", type=float, default=0.4, help="share of occurrences that are new chunks")
    ap.add_argument("--shingles", type=float, default=0.9,
                    help="share of keys that are shingle records (8 bytes, then 0xFF): 0.88-0.94 of the "
                         "records `labels count` writes for real WARC files (examples/, ../shared/data/warc)")
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--threshold", type=int, default=100)
    ap.add_argument("--agents", type=int, default=2)
    # Longer than a run: a checkpoint rewrites a member's whole state (0.4–0.7 s per
    # million keys, `running_totals`), and whether one falls inside a 10–15 s
    # window decided the ratio more than the records did. Timed here: taking records.
    ap.add_argument("--checkpoint-every", type=int, default=120)
    ap.add_argument("--preload", action="store_true",
                    help="load the whole stream first; the clock then runs from the group's assignment to "
                         "the last record taken, off the members' logs, and the loaders take no CPU from them")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="discoverers-")
    port = free_port()
    brokers = f"127.0.0.1:{port}"
    url = f"tcp://{brokers}"
    broker = subprocess.Popen(["tansu", "broker", "--listener-url", url, "--advertised-listener-url", url,
                               "--storage-engine", "memory://tansu/"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port)
        files, over = batches(a, tmp, header(tmp))
        total = sum(n for _, n in files)
        print(f"{a.batches} batches, {total:,} records ({total * 36 / 1e6:.0f} MB), "
              f"{a.partitions} partitions", flush=True)
        results = {}
        for n in (1, 2):
            set_name = f"bench{n}"
            # A discoverer makes the topics, then leaves (its group is not the measured one).
            maker = subprocess.Popen([BIN, "discoverer", "--brokers", brokers, "--set", set_name,
                                      "--threshold", str(a.threshold), "--partitions", str(a.partitions),
                                      "--group", "maker"], stderr=subprocess.DEVNULL)
            time.sleep(2)
            maker.terminate(); maker.wait()
            broker_cpu = cpu_seconds(broker.pid)
            took, loaded, cpu, rss, keys, announced = run_group(
                a, brokers, set_name, n, total, [p for p, _ in files], tmp)
            broker_cpu = cpu_seconds(broker.pid) - broker_cpu
            assert announced == over, f"announced {announced}, the stream has {over} over the threshold"
            results[n] = took
            held = sum(keys)
            print(f"{n} discoverer(s): {took:.1f} s (the stream loaded in {loaded:.1f} s), "
                  f"{total / took / 1e6:.2f} M records/s; "
                  f"CPU {' + '.join(f'{c:.1f}' for c in cpu)} s "
                  f"({total / sum(cpu) / 1e6:.2f} M records per CPU-second); "
                  f"peak RSS {' + '.join(f'{r:.0f}' for r in rss)} MB; {held:,} keys held "
                  f"({sum(rss) / (held / 1e6):.0f} MB per million keys); the broker's CPU {broker_cpu:.1f} s",
                  flush=True)
        print(f"two against one: {results[1] / results[2]:.2f}x")
    finally:
        broker.terminate()
        broker.wait()


if __name__ == "__main__":
    main()
