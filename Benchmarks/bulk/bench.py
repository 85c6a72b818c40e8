"""Bulk-transfer benchmark: 1 GiB over loopback through the test relays, relayfetch beside curl
in the same run. Each row is a whole process timed by /usr/bin/time (wall time, user + system
CPU, peak resident size); the body goes to /dev/null. Rows:

  curl direct                      the origin straight (the ceiling)
  curl via squid                   one HTTPS relay, HTTP/1.1 CONNECT (relay A, squid)
  relayfetch via squid             the same relay
  relayfetch 2 hops (h1 + h2)      squid A (HTTP/1.1), then nghttpx B (HTTP/2 CONNECT)
  relayfetch 1 h3 hop              the aioquic relay A (HTTP/3 CONNECT); 64 MiB (BENCH_H3_BYTES)
  relayfetch 2 h3 hops             aioquic A, then aioquic B (QUIC inside CONNECT-UDP); 64 MiB
  relayfetch OHTTP (10 MiB)        Oblivious HTTP: nginx relay, Python gateway (one message)
  curl direct (10 MiB)             the OHTTP row's peer

The origin is Samples/servers/hostile/bulk_origin.py (TLS, HTTP/1.1) on 127.0.0.71 with a
certificate for that address; the OHTTP row needs a name the gateway knows, so a second one
listens on origin.test's address (127.0.0.21, a port of its own). Each row runs BENCH_ROUNDS
times (default 3); the round with the median wall time is shown.

Usage: python3 bench.py RELAYFETCH SERVERS_DIR   (Benchmarks/run.sh bulk does the setup)
"""
import os
import statistics
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(os.path.dirname(here))
relayfetch, servers = sys.argv[1], sys.argv[2]
ca = os.path.join(servers, "pki", "ca.pem")
rounds = int(os.environ.get("BENCH_ROUNDS", "3"))
size = int(os.environ.get("BENCH_BYTES", str(1 << 30)))
ohttp_size = 10 << 20
# The HTTP/3 relays are Python (aioquic) and move a few MiB/s: a smaller body keeps the run short.
h3_size = int(os.environ.get("BENCH_H3_BYTES", str(64 << 20)))
python = os.path.join(repo, ".build", "venv", "bin", "python")
token_a, token_b = "Bearer relay-token-A", "Bearer relay-token-B"


def start_origin(host, self_issue, log):
    pki = os.path.join(servers, "pki")
    arguments = [python, "-u", "-B", os.path.join(repo, "Samples/servers/hostile/bulk_origin.py"), "--host", host, "--port", "0",
                 "--cert", os.path.join(pki, "origin.pem"), "--key", os.path.join(pki, "origin.key"), "--ca", ca, "--log", log]
    if self_issue:
        arguments.append("--self-issue")
    process = subprocess.Popen(arguments, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    line = process.stdout.readline().decode()
    if not line.startswith("READY "):
        sys.exit("bulk-bench: the bulk origin on %s did not start" % host)
    return process, int(line.split()[1])


def hop(url, token, protocol):
    return ["--relay", url, "--relay-protocol", protocol, "--relay-header", "Proxy-Authorization: " + token, "--relay-cacert", ca]


def measure(command):
    """Runs command once under /usr/bin/time; returns (seconds, cpu seconds, peak KiB)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as times:
        result = subprocess.run(["/usr/bin/time", "-o", times.name, "-f", "%e %U %S %M"] + command,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if result.returncode != 0:
            return None, result.stderr.decode(errors="replace").strip().splitlines()[-1:]
        wall, user, system, peak = times.read().split()
        return (float(wall), float(user) + float(system), int(peak)), None


def row(name, command, bytes_):
    samples = []
    for _ in range(rounds):
        sample, error = measure(command)
        if sample is None:
            print("%-30s failed: %s" % (name, " ".join(error)), flush=True)
            return None
        samples.append(sample)
    wall = statistics.median_low([s[0] for s in samples])
    chosen = next(s for s in samples if s[0] == wall)
    mib_s = bytes_ / (1 << 20) / chosen[0]
    cpu_per_gib = chosen[1] / (bytes_ / (1 << 30))
    return {"name": name, "mib_s": mib_s, "cpu": cpu_per_gib, "rss": chosen[2] / 1024, "wall": chosen[0]}


def main():
    work = tempfile.mkdtemp(prefix="bulk-bench-")
    origin, port = start_origin("127.0.0.71", True, os.path.join(work, "origin.log"))
    named, named_port = start_origin("127.0.0.21", False, os.path.join(work, "origin-named.log"))
    try:
        url = "https://127.0.0.71:%d/bulk/%d" % (port, size)
        h3_url = "https://127.0.0.71:%d/bulk/%d" % (port, h3_size)
        small = "https://origin.test:%d/bulk/%d" % (named_port, ohttp_size)
        curl = ["curl", "-sS", "--fail", "--cacert", ca, "-o", "/dev/null"]
        squid = ["--proxy", "https://127.0.0.11:3129", "--proxy-cacert", ca, "--proxy-header", "Proxy-Authorization: " + token_a]
        get = [relayfetch, "get", "-f", "--cacert", ca, "-o", "/dev/null"]
        plan = [
            ("curl direct", curl + [url], size, "direct"),
            ("curl via squid", curl + squid + [url], size, "squid"),
            ("relayfetch via squid", get + [url] + hop("https://127.0.0.11:3129", token_a, "h1"), size, "squid"),
            ("relayfetch 2 hops (h1 + h2)", get + [url] + hop("https://127.0.0.11:3129", token_a, "h1")
             + hop("https://127.0.0.12:4433", token_b, "h2"), size, "direct"),
            ("relayfetch 1 h3 hop", get + [h3_url] + hop("https://127.0.0.11:4433", token_a, "h3"), h3_size, "direct"),
            ("relayfetch 2 h3 hops", get + [h3_url] + hop("https://127.0.0.11:4433", token_a, "h3")
             + hop("https://127.0.0.12:4433", token_b, "h3"), h3_size, "direct"),
            ("curl direct (10 MiB)", curl + ["--resolve", "origin.test:%d:127.0.0.21" % named_port, small], ohttp_size, "direct-small"),
            ("relayfetch OHTTP (10 MiB)", get + [small, "--ohttp-relay", "https://127.0.0.30/relay",
                                                 "--ohttp-keys", os.path.join(servers, "ohttp", "keys.bin"), "--match-domain", "origin.test"],
             ohttp_size, "direct-small"),
        ]
        print("bulk transfer over loopback: %d MiB (HTTP/3 rows %d MiB, OHTTP rows %d MiB), median of %d rounds"
              % (size >> 20, h3_size >> 20, ohttp_size >> 20, rounds))
        print("%-30s %9s %9s %11s %9s %11s" % ("route", "MiB/s", "x peer", "CPU s/GiB", "x CPU", "peak RSS MB"))
        peers = {}
        for name, command, bytes_, peer in plan:
            result = row(name, command, bytes_)
            if result is None:
                continue
            if name.startswith("curl"):
                peers[peer] = result
            reference = peers.get(peer)
            speed = "%.2fx" % (result["mib_s"] / reference["mib_s"]) if reference else "-"
            # /usr/bin/time counts CPU in 10 ms ticks: a short peer run may show none.
            cpu = "%.2fx" % (result["cpu"] / reference["cpu"]) if reference and reference["cpu"] > 0 else "-"
            print("%-30s %9.1f %9s %11.2f %9s %11.1f" % (name, result["mib_s"], speed, result["cpu"], cpu, result["rss"]), flush=True)
        print("x peer: against curl through the same relay for the squid row, else against curl direct (same size)")
    finally:
        for process in (origin, named):
            process.kill()
            process.wait()


main()
