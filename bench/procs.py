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
