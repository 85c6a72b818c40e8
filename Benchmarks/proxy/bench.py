"""Local proxy benchmark: `relayfetch proxy` beside curl straight through the same HTTP/2 relay
(relay A's nghttpx front, 127.0.0.11:4433), in the same run. Rows:

  curl via relay (h2)              curl --proxy https://relay with the relay token (the peer; this
                                   curl has no --proxy-http2, so its CONNECT is HTTP/1.1 to nghttpx)
  curl via relayfetch proxy        curl --socks5-hostname through `relayfetch proxy` on that relay
  set-up                           SOCKS CONNECT to its answer, over the relay's round trip (TCP connect)
  idle                             N idle SOCKS tunnels (default 1,000; BENCH_IDLE): the proxy's
                                   VmRSS growth per tunnel, from /proc (target <= 64 KiB)

Throughput rows move BENCH_BYTES (default 256 MiB) from Samples/servers/hostile/bulk_origin.py,
timed by /usr/bin/time (wall, CPU of curl; the proxy's CPU from /proc/PID/stat over the run).
A row that fails prints its error; a run whose peer moved under 50 MiB/s is flagged idle-suspect
(the machine was busy). Usage: python3 bench.py RELAYFETCH SERVERS_DIR
"""
import os
import socket
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(os.path.dirname(here))
relayfetch, servers = sys.argv[1], sys.argv[2]
ca = os.path.join(servers, "pki", "ca.pem")
size = int(os.environ.get("BENCH_BYTES", str(256 << 20)))
idle = int(os.environ.get("BENCH_IDLE", "1000"))
python = os.path.join(repo, ".build", "venv", "bin", "python")
relay, token = "https://127.0.0.11:4433", "Bearer relay-token-A"
listen = ("127.0.1.50", 0)


def free_port():
    with socket.socket() as s:
        s.bind((listen[0], 0))
        return s.getsockname()[1]


def start_origin(log):
    pki = os.path.join(servers, "pki")
    process = subprocess.Popen([python, "-u", "-B", os.path.join(repo, "Samples/servers/hostile/bulk_origin.py"), "--host", "127.0.0.71",
                                "--port", "0", "--cert", os.path.join(pki, "origin.pem"), "--key", os.path.join(pki, "origin.key"),
                                "--ca", ca, "--log", log, "--self-issue"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    line = process.stdout.readline().decode()
    if not line.startswith("READY "):
        sys.exit("proxy-bench: the bulk origin did not start")
    return process, int(line.split()[1])


def start_proxy(port, log):
    process = subprocess.Popen([relayfetch, "proxy", "--listen", "%s:%d" % (listen[0], port), "--relay", relay, "--relay-protocol", "h2",
                                "--relay-header", "Proxy-Authorization: " + token, "--relay-cacert", ca, "--cacert", ca],
                               stdout=subprocess.DEVNULL, stderr=open(log, "w"))
    deadline = time.time() + 10
    while "listening on" not in open(log).read():
        if time.time() > deadline or process.poll() is not None:
            sys.exit("proxy-bench: relayfetch proxy did not start: " + open(log).read())
        time.sleep(0.05)
    return process


def cpu_seconds(pid):
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def transfer(name, command, proxy_pid=None):
    with tempfile.NamedTemporaryFile("r", suffix=".time") as times:
        before = cpu_seconds(proxy_pid) if proxy_pid else 0
        result = subprocess.run(["/usr/bin/time", "-o", times.name, "-f", "%e %U %S"] + command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if result.returncode != 0:
            print("%-28s failed: %s" % (name, result.stderr.decode(errors="replace").strip().splitlines()[-1:]), flush=True)
            return None
        wall, user, system = (float(x) for x in times.read().split())
        cpu = user + system + ((cpu_seconds(proxy_pid) - before) if proxy_pid else 0)
        return {"mib_s": size / (1 << 20) / wall, "cpu_gib": cpu / (size / (1 << 30))}


def setup_times(port, count=50):
    """Median seconds from a SOCKS CONNECT to its answer, and the relay's round trip (a TCP connect to it)."""
    socks, bare = [], []
    for _ in range(count):
        s = socket.create_connection((listen[0], port))
        s.sendall(b"\x05\x01\x00")
        s.recv(2)
        start = time.perf_counter()
        s.sendall(b"\x05\x01\x00\x03\x0borigin.test\x01\xbb")
        reply = s.recv(10)
        socks.append(time.perf_counter() - start)
        s.close()
        if reply[:2] != b"\x05\x00":
            return None, None
    for _ in range(count):
        start = time.perf_counter()
        with socket.create_connection(("127.0.0.11", 4433)):
            bare.append(time.perf_counter() - start)
    socks.sort()
    bare.sort()
    return socks[len(socks) // 2], (bare[len(bare) // 2] if bare else None)


def idle_memory(proxy, port):
    """Opens `idle` SOCKS tunnels to origin.test:443, each left idle after the TLS handshake."""
    script = """
import socket, ssl, sys
ctx = ssl.create_default_context(cafile=%r)
held, ok = [], 0
for i in range(%d):
    s = socket.create_connection((%r, %d), timeout=20)
    s.sendall(b"\\x05\\x01\\x00"); s.recv(2)
    s.sendall(b"\\x05\\x01\\x00\\x03\\x0borigin.test\\x01\\xbb")
    if s.recv(10)[:2] == b"\\x05\\x00":
        ok += 1
        held.append(ctx.wrap_socket(s, server_hostname="origin.test"))
print("open", ok, flush=True)
sys.stdin.readline()
""" % (ca, idle, listen[0], port)
    baseline = rss_kib(proxy.pid)
    clients = subprocess.Popen([python, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    line = clients.stdout.readline().decode().strip()
    held = rss_kib(proxy.pid)
    clients.stdin.write(b"done\n")
    clients.stdin.flush()
    clients.wait()
    opened = int(line.split()[1]) if line.startswith("open ") else 0
    return opened, baseline, held


def main():
    work = tempfile.mkdtemp(prefix="proxy-bench-")
    origin, origin_port = start_origin(os.path.join(work, "origin.log"))
    port = free_port()
    proxy = start_proxy(port, os.path.join(work, "proxy.log"))
    try:
        url = "https://127.0.0.71:%d/bulk/%d" % (origin_port, size)
        curl = ["curl", "-sS", "--fail", "--cacert", ca, "-o", "/dev/null"]
        direct = transfer("curl via relay (h2)", curl + ["--proxy", relay, "--proxy-cacert", ca,
                                                         "--proxy-header", "Proxy-Authorization: " + token, url])
        proxied = transfer("curl via relayfetch proxy", curl + ["--socks5-hostname", "%s:%d" % (listen[0], port), url], proxy.pid)
        print("relayfetch proxy over relay A's HTTP/2 front: %d MiB per transfer" % (size >> 20))
        print("%-28s %9s %9s %11s" % ("route", "MiB/s", "x peer", "CPU s/GiB"))
        for name, row in (("curl via relay (h2)", direct), ("curl via relayfetch proxy", proxied)):
            if row:
                ratio = "%.2fx" % (row["mib_s"] / direct["mib_s"]) if direct and row is not direct else "-"
                print("%-28s %9.1f %9s %11.2f" % (name, row["mib_s"], ratio, row["cpu_gib"]))
        if direct and direct["mib_s"] < 50:
            print("idle-suspect: the peer moved %.1f MiB/s; the machine was busy, ratios are not comparable" % direct["mib_s"])
        socks, bare = setup_times(port)
        if socks is None:
            print("set-up                       failed: a SOCKS CONNECT was refused")
        else:
            print("set-up: SOCKS CONNECT answered in %.2f ms (median), the relay's round trip %s"
                  % (socks * 1000, "%.2f ms: %.2fx" % (bare * 1000, socks / bare) if bare else "unmeasured"))
        opened, baseline, held = idle_memory(proxy, port)
        if opened < idle:
            print("idle                         failed: %d of %d tunnels opened (see %s)" % (opened, idle, os.path.join(work, "proxy.log")))
        if opened:
            print("idle: %d tunnels, proxy VmRSS %d -> %d KiB: %.1f KiB per idle connection (target <= 64)"
                  % (opened, baseline, held, (held - baseline) / opened))
    finally:
        proxy.terminate()
        proxy.wait()
        origin.kill()
        origin.wait()


main()
