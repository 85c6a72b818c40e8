#!/usr/bin/env python3
"""Per page of pages.txt: what headless Chromium (JavaScript off) requested (expected/), what
relayfetch requests in browser mode and with --complete, through the suite's relay, from the
origin's log: requests, body bytes and the differences. Usage: report.py [RELAYFETCH]
(default .build/debug/relayfetch; the servers must run: servers.sh start)."""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
STATE = os.environ.get("FIDELITY_DIR", os.path.join(REPO, ".build", "fidelity"))
SERVERS = os.environ.get("RELAYFETCH_SERVERS_DIR", os.path.join(REPO, ".build", "test-servers"))
LOG = os.path.join(STATE, "access.log")


def pages():
    with open(os.path.join(HERE, "pages.txt")) as handle:
        for line in handle:
            fields = line.split()
            if len(fields) in (2, 3) and not line.startswith("#"):
                yield fields[0], fields[1], fields[2:]


def expected(name):
    with open(os.path.join(HERE, "expected", f"{name}.txt")) as handle:
        return {f[0]: int(f[2]) for f in (line.rstrip("\n").split("\t") for line in handle) if len(f) == 3}


def relayfetch(binary, url, extra):
    offset = os.path.getsize(LOG)
    started = time.monotonic()
    subprocess.run([binary, "page", url, "--relay", "http://127.0.0.80:3128", "--cacert", os.path.join(SERVERS, "pki", "ca.pem"), *extra],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    elapsed = time.monotonic() - started
    time.sleep(0.5)  # nginx logs a request once its response is sent
    host = url.split("/")[2]
    with open(LOG, "rb") as handle:
        handle.seek(offset)
        lines = [line.split("\t") for line in handle.read().decode("utf-8", "replace").splitlines()]
    return {f[3]: int(f[5]) for f in lines if len(f) >= 6 and f[2] == host}, elapsed


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, ".build", "debug", "relayfetch")
    print(f"{'page':24} {'chromium':>18} {'relayfetch':>18} {'--complete':>18} {'complete/chromium bytes':>24}  differences")
    for name, url, viewport in pages():
        theirs = expected(name)
        ours, _ = relayfetch(binary, url, ["--viewport", viewport[0]] if viewport else [])
        complete, _ = relayfetch(binary, url, ["--complete"])
        differences = [f"+{uri}" for uri in sorted(set(ours) - set(theirs))] + [f"-{uri}" for uri in sorted(set(theirs) - set(ours))]
        ratio = sum(complete.values()) / max(sum(theirs.values()), 1)
        print(f"{name:24} {len(theirs):>4} {sum(theirs.values()):>12}  {len(ours):>4} {sum(ours.values()):>12}  "
              f"{len(complete):>4} {sum(complete.values()):>12}  {ratio:>23.2f}x  {' '.join(differences) or 'none'}")


if __name__ == "__main__":
    main()
