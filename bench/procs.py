"""Helpers the benchmarks that start processes on loopback share: a free
port, waiting for a port to open, a process's peak memory."""
import socket, time


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p


def wait_port(port, secs=20):
    t = time.time()
    while time.time() - t < secs:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close(); return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"port {port} never opened")


def peak_rss_mb(pid):
    """The process's peak resident memory (VmHWM), in MB."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def start_agent(binary, home, extra="", head=""):
    """Starts `crawlsieve agent` in `home` with an HTTP source and a JSONL sink (plus `extra` TOML
    after them, `head` before `[neighborhoods]`), neighborhoods off; returns (process, "host:port")
    once it listens. Its log is drained so it never blocks on a full pipe."""
    import os, subprocess, threading
    os.makedirs(home, exist_ok=True)
    cfg = os.path.join(home, "agent.toml")
    open(cfg, "w").write(f"""{head}[neighborhoods]
enabled = false
[agent]
listen = "127.0.0.1:0"
queue = 64
[[agent.sources]]
kind = "http"
[[agent.sinks]]
kind = "jsonl"
path = "{home}/verdicts.jsonl"
[agent.spool]
dir = "{home}/spool"
{extra}""")
    p = subprocess.Popen([binary, "agent", "-c", cfg], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    for line in p.stderr:
        if "agent listening on http://" in line:
            threading.Thread(target=p.stderr.read, daemon=True).start()
            return p, line.strip().rsplit("http://", 1)[1]
    raise SystemExit(f"the agent in {home} did not start")
