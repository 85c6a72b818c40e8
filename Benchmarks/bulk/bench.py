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
  curl h2 (Caddy)                  Caddy straight, HTTP/2 over TLS: the peer of the two rows below
  relayfetch h2 (Caddy)            the same server, `--direct --origin-protocol tcp` (libcurl, HTTP/2)
  relayfetch h3 (Caddy)            the same server, `--direct --origin-protocol h3` (our QUIC, HTTP/3)

The origin is Samples/servers/hostile/bulk_origin.py (TLS, HTTP/1.1) on 127.0.0.71 with a
certificate for that address; the OHTTP row needs a name the gateway knows, so a second one
listens on origin.test's address (127.0.0.21, a port of its own). Each row runs BENCH_ROUNDS
times (default 3); the round with the median wall time is shown. The Caddy rows (item 5 of
issue 28: client CPU per GiB over QUIC against TCP + TLS to the same server software, and HTTP/3
throughput against HTTP/2) fetch a sparse file of BENCH_BYTES from Caddy (Debian `caddy`, HTTP/2
and HTTP/3 on one port) on BENCH_CADDY_HOST (default 127.0.0.73): no relay between, so the client
is what is measured. A row that fails prints its error; a row whose wall time is over 4x the CPU
seconds the whole machine spent in it (loopback transfers are CPU-bound: it waited on a timer or
a stall) is flagged IDLE; either marks the ratios built on it INVALID and the run exits 1.

Usage: python3 bench.py RELAYFETCH SERVERS_DIR   (Benchmarks/run.sh bulk does the setup)
"""
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

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
caddy_host = os.environ.get("BENCH_CADDY_HOST", "127.0.0.73")


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


def start_caddy(work):
    """Caddy serving a sparse file of `size` bytes over HTTP/2 and HTTP/3 (one port, TCP and UDP)
    with a certificate the test CA issues for caddy_host; returns (process, port)."""
    pki = os.path.join(servers, "pki")
    site = os.path.join(work, "site")
    os.makedirs(site)
    with open(os.path.join(site, "bulk.bin"), "wb") as f:
        f.truncate(size)  # sparse: reading it costs Caddy no disk
    cert, key, csr = (os.path.join(work, name) for name in ("caddy.pem", "caddy.key", "caddy.csr"))
    for step in (["openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key,
                  "-subj", "/CN=" + caddy_host, "-addext", "subjectAltName=IP:" + caddy_host, "-out", csr],
                 ["openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", os.path.join(pki, "ca.key"), "-set_serial", "7301",
                  "-days", "2", "-copy_extensions", "copy", "-out", cert]):
        subprocess.run(step, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with socket.socket() as s:
        s.bind((caddy_host, 0))
        port = s.getsockname()[1]
    with open(os.path.join(work, "Caddyfile"), "w") as f:
        f.write("{\n\tadmin off\n\tauto_https off\n\tservers {\n\t\tprotocols h1 h2 h3\n\t}\n}\n"
                "https://:%d {\n\tbind %s\n\ttls %s %s\n\troot * %s\n\tfile_server\n}\n" % (port, caddy_host, cert, key, site))
    output = os.path.join(work, "caddy.log")
    environment = dict(os.environ, HOME=work, XDG_DATA_HOME=work, XDG_CONFIG_HOME=work)
    process = subprocess.Popen(["caddy", "run", "--config", os.path.join(work, "Caddyfile"), "--adapter", "caddyfile"],
                               stdout=open(output, "w"), stderr=subprocess.STDOUT, env=environment)
    for _ in range(200):
        if "serving initial configuration" in open(output).read():
            return process, port
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    sys.exit("bulk-bench: caddy on %s did not start: %s" % (caddy_host, open(output).read()[-600:]))


def machine_cpu_seconds():
    """CPU seconds every process on the machine spent busy so far (/proc/stat: user, nice, system,
    irq, softirq, steal), as the chains benchmark counts them."""
    with open("/proc/stat") as f:
        ticks = [float(x) for x in f.readline().split()[1:]]
    return (ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7]) / os.sysconf("SC_CLK_TCK")


def hop(url, token, protocol):
    return ["--relay", url, "--relay-protocol", protocol, "--relay-header", "Proxy-Authorization: " + token, "--relay-cacert", ca]


def measure(command):
    """Runs command once under /usr/bin/time; returns (seconds, cpu seconds, peak KiB)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as times:
        machine = machine_cpu_seconds()
        result = subprocess.run(["/usr/bin/time", "-o", times.name, "-f", "%e %U %S %M"] + command,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if result.returncode != 0:
            return None, result.stderr.decode(errors="replace").strip().splitlines()[-1:]
        machine = machine_cpu_seconds() - machine
        wall, user, system, peak = times.read().split()
        return (float(wall), float(user) + float(system), int(peak), machine), None


def row(name, command, bytes_):
    samples = []
    for _ in range(rounds):
        sample, error = measure(command)
        if sample is None:
            print("%-30s failed: %s" % (name, " ".join(error)), flush=True)
            return {"name": name, "problem": "a round failed: " + " ".join(error)}
        samples.append(sample)
    wall = statistics.median_low([s[0] for s in samples])
    chosen = next(s for s in samples if s[0] == wall)
    mib_s = bytes_ / (1 << 20) / chosen[0]
    cpu_per_gib = chosen[1] / (bytes_ / (1 << 30))
    idle = [s for s in samples if s[0] > 4 * max(s[3], 0.005)]
    problem = ("IDLE: %.2f s where the machine's CPU explains %.2f s" % (idle[0][0], idle[0][3])) if idle else None
    return {"name": name, "mib_s": mib_s, "cpu": cpu_per_gib, "rss": chosen[2] / 1024, "wall": chosen[0], "problem": problem}


def main():
    work = tempfile.mkdtemp(prefix="bulk-bench-")
    origin, port = start_origin("127.0.0.71", True, os.path.join(work, "origin.log"))
    named, named_port = start_origin("127.0.0.21", False, os.path.join(work, "origin-named.log"))
    caddy, caddy_port = start_caddy(work)
    try:
        url = "https://127.0.0.71:%d/bulk/%d" % (port, size)
        h3_url = "https://127.0.0.71:%d/bulk/%d" % (port, h3_size)
        small = "https://origin.test:%d/bulk/%d" % (named_port, ohttp_size)
        caddy_url = "https://%s:%d/bulk.bin" % (caddy_host, caddy_port)
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
            ("curl h2 (Caddy)", curl + ["--http2", caddy_url], size, "caddy"),
            ("relayfetch h2 (Caddy)", get + ["--direct", "--origin-protocol", "tcp", caddy_url], size, "caddy"),
            ("relayfetch h3 (Caddy)", get + ["--direct", "--origin-protocol", "h3", caddy_url], size, "caddy"),
        ]
        only = os.environ.get("BENCH_ROWS")  # e.g. "Caddy": only the rows whose name holds it
        if only:
            plan = [entry for entry in plan if only in entry[0]]
        print("bulk transfer over loopback: %d MiB (HTTP/3 rows %d MiB, OHTTP rows %d MiB), median of %d rounds"
              % (size >> 20, h3_size >> 20, ohttp_size >> 20, rounds))
        print("%-30s %9s %9s %11s %9s %11s" % ("route", "MiB/s", "x peer", "CPU s/GiB", "x CPU", "peak RSS MB"))
        peers, results = {}, {}
        for name, command, bytes_, peer in plan:
            result = row(name, command, bytes_)
            results[name] = result
            if "mib_s" not in result:
                continue
            if name.startswith("curl"):
                peers[peer] = result
            reference = peers.get(peer)
            speed = "%.2fx" % (result["mib_s"] / reference["mib_s"]) if reference else "-"
            # /usr/bin/time counts CPU in 10 ms ticks: a short peer run may show none.
            cpu = "%.2fx" % (result["cpu"] / reference["cpu"]) if reference and reference["cpu"] > 0 else "-"
            print("%-30s %9.1f %9s %11.2f %9s %11.1f" % (name, result["mib_s"], speed, result["cpu"], cpu, result["rss"]), flush=True)
        print("x peer: against curl through the same relay for the squid row, else against curl direct (same size);"
              " Caddy rows against curl h2 to Caddy")
        flagged = target_ratios(results)
        for result in results.values():
            if result.get("problem"):
                print("FLAGGED %s: %s" % (result["name"], result["problem"]))
                flagged = True
    finally:
        for process in (origin, named, caddy):
            process.kill()
            process.wait()
    if flagged:
        sys.exit(1)


def target_ratios(results):
    """Prints issue 28's item-5 ratios (HTTP/3 against HTTP/2 to the same Caddy, relayfetch both
    sides); returns True when one could not be measured (a row failed or idled)."""
    h2, h3 = results.get("relayfetch h2 (Caddy)"), results.get("relayfetch h3 (Caddy)")
    if h2 is None or h3 is None:
        return False  # not in this run (BENCH_ROWS)
    valid = "mib_s" in h2 and "mib_s" in h3 and not h2["problem"] and not h3["problem"]
    if "mib_s" not in h2 or "mib_s" not in h3:
        print("ratio: HTTP/3 against HTTP/2 (Caddy): INVALID, a row failed (below)")
        return True
    mark = "" if valid else "  INVALID: a row idled (below)"
    print("ratio: client CPU per GiB, QUIC / TCP + TLS (Caddy)  = %.2fx (target <= 1.3)%s" % (h3["cpu"] / h2["cpu"], mark))
    print("ratio: throughput, HTTP/3 / HTTP/2 (Caddy)          = %.2fx (target >= 0.9)%s" % (h3["mib_s"] / h2["mib_s"], mark))
    return not valid


main()
