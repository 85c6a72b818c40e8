#!/usr/bin/env python3
"""Runs inside the client namespace of Benchmarks/oauth/run.sh: times single OAuth flows against
their round-trip minimum, then a parallel batch, checking each against the servers' logs."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

# The flow's sequential requests once the chain to the IdP stands (README.md, "Round-trip minimum").
FLOW_REQUESTS = [
    ("GET", "/o/.well-known/openid-configuration"),  # discovery
    ("GET", "/o/authorize/"),                        # authorization request: 302 to the login page
    ("GET", "/accounts/login/"),                     # login form
    ("POST", "/accounts/login/"),                    # sign in: 302 back to /o/authorize/
    ("GET", "/o/authorize/"),                        # consent form
    ("POST", "/o/authorize/"),                       # consent: 302 to the redirect URI (intercepted)
    ("POST", "/o/token/"),                           # code + PKCE verifier for tokens
    ("GET", "/o/userinfo/"),                         # userinfo with the access token
]
# Not on the critical path in the minimum: the JWKS can be fetched alongside the token request.
OFF_PATH = [("GET", "/o/.well-known/jwks.json")]


def arguments():
    parser = argparse.ArgumentParser(description=__doc__)
    for name in ["relayfetch", "ca", "work", "relay-a", "token-a", "relay-b", "token-b", "nginx-log", "relay-a-log",
                 "relay-b-log", "hub-late-log"]:
        parser.add_argument("--" + name, required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--delay", type=float, default=10)
    parser.add_argument("--scenarios", type=int, default=50)
    parser.add_argument("--parallel", type=int, default=10)
    parser.add_argument("--strict", action="store_true")
    return parser.parse_args()


def scenario(name):
    return {"name": name, "issuer": "https://idp.test/o", "client": {"id": "public-app"},
            "redirectURI": "com.example.app:/callback", "scopes": ["openid", "email"],
            "login": {"username": "alice", "password": "${env:IDP_PASSWORD}", "consent": "approve"},
            "userinfo": True, "expect": {"tokenType": "Bearer", "claims": {"email": "alice@origin.test"}}}


def write_scenarios(work, count, prefix):
    files = []
    for index in range(count):
        path = os.path.join(work, "%s-%03d.json" % (prefix, index))
        with open(path, "w") as file:
            json.dump(scenario("%s %d" % (prefix, index)), file)
        files.append(path)
    return files


def lines(path):
    try:
        with open(path) as file:
            return file.read().splitlines()
    except FileNotFoundError:
        return []


def relay_arguments(args):
    # squid speaks TCP only: hop 1 makes no QUIC attempt first (the peers make none either)
    return ["--relay", args.relay_a, "--relay-protocol", "h1", "--relay-header", "Proxy-Authorization: Bearer " + args.token_a, "--relay-cacert", args.ca,
            "--relay", args.relay_b, "--relay-header", "Proxy-Authorization: Bearer " + args.token_b, "--relay-cacert", args.ca,
            "--cacert", args.ca]


def run(args, files, extra=(), timed=False):
    command = [args.relayfetch, "oauth", *files, *extra, *relay_arguments(args)]
    if timed:
        command = ["/usr/bin/time", "-v", *command]
    environment = dict(os.environ, IDP_PASSWORD="wonderland-pw")
    began = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=600)
    return time.monotonic() - began, result


def settle(path, count, timeout=5.0):
    """squid logs a tunnel when it closes: wait until `count` lines are there."""
    deadline = time.monotonic() + timeout
    while len(lines(path)) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return lines(path)


def single_rounds(args):
    files = write_scenarios(args.work, 1, "single")
    results = []
    for round_index in range(args.rounds + 1):
        before = {name: len(lines(path)) for name, path in
                  [("nginx", args.nginx_log), ("a", args.relay_a_log), ("b", args.relay_b_log)]}
        har = os.path.join(args.work, "har-%d" % round_index)
        wall, result = run(args, files, ["--har", har])
        passed = re.search(r"^PASS .* \(([0-9.]+) s\)$", result.stdout, re.M)
        if result.returncode != 0 or not passed:
            sys.exit("oauth-bench: the flow failed:\n" + result.stdout + result.stderr)
        time.sleep(0.2)
        requests = [line.split("\t") for line in lines(args.nginx_log)[before["nginx"]:]]
        tunnels_a = len(settle(args.relay_a_log, before["a"] + 1)) - before["a"]
        tunnels_b = len(settle(args.relay_b_log, before["b"] + 1)) - before["b"]
        steps = re.findall(r"^  (\S+(?: \S+)?)\s+([0-9.]+) s", result.stdout, re.M)
        if round_index == 0:
            continue  # warm-up: page cache, Django's first requests
        results.append({
            "flow": float(passed.group(1)), "wall": wall, "requests": requests, "tunnels_a": tunnels_a,
            "tunnels_b": tunnels_b, "connections": len({fields[1] for fields in requests}),
            "app": sum(float(fields[7]) for fields in requests if fields[7] not in ("", "-")),
            "steps": steps, "har": har_timings(har),
        })
    return results


def har_timings(folder):
    """Each request's start (ms after the first) and its HAR timings, from the round's HAR."""
    entries = []
    for name in os.listdir(folder):
        with open(os.path.join(folder, name)) as file:
            entries += json.load(file)["log"]["entries"]
    if not entries:
        return []
    from datetime import datetime
    start = min(datetime.fromisoformat(e["startedDateTime"].replace("Z", "+00:00")) for e in entries)
    rows = []
    for e in entries:
        began = (datetime.fromisoformat(e["startedDateTime"].replace("Z", "+00:00")) - start).total_seconds() * 1000
        path = e["request"]["url"].split("://", 1)[-1].split("/", 1)[-1].split("?", 1)[0]
        t = e["timings"]
        rows.append((began, e["request"]["method"], "/" + path, e["time"],
                     " ".join("%s %.0f" % (k, t[k]) for k in ("connect", "ssl", "send", "wait", "receive") if t.get(k, -1) > 0.5)))
    return sorted(rows)


def parallel_run(args):
    files = write_scenarios(args.work, args.scenarios, "parallel")
    before = len(lines(args.nginx_log))
    wall, result = run(args, files, ["--parallel", str(args.parallel)], timed=True)
    passes = len(re.findall(r"^PASS ", result.stdout, re.M))
    if result.returncode != 0 or passes != args.scenarios:
        sys.exit("oauth-bench: the parallel run failed (%d of %d passed):\n%s%s"
                 % (passes, args.scenarios, result.stdout[-3000:], result.stderr[-3000:]))
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr)
    elapsed = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", result.stderr)
    cpu = re.search(r"User time \(seconds\): ([0-9.]+)", result.stderr), re.search(r"System time \(seconds\): ([0-9.]+)", result.stderr)
    requests = [line.split("\t") for line in lines(args.nginx_log)[before:]]
    return {"wall": wall, "rss_kb": int(rss.group(1)) if rss else None, "elapsed": elapsed.group(1) if elapsed else "?",
            "cpu": sum(float(m.group(1)) for m in cpu if m), "requests": len(requests),
            "connections": len({fields[1] for fields in requests}),
            "app": sum(float(fields[7]) for fields in requests if fields[7] not in ("", "-"))}


def main():
    args = arguments()
    rtt = 2 * args.delay  # one link's round trip
    setup = 2 * rtt + 2 * (2 * rtt) + 2 * (3 * rtt)
    minimum = setup + len(FLOW_REQUESTS) * 3 * rtt
    print("Round-trip minimum, %g ms one way per link (RTT %g ms per link, %g ms client to IdP):" % (args.delay, rtt, 3 * rtt))
    print("  chain: TCP + TLS to relay A (2 x %g), CONNECT + TLS to relay B (2 x %g), CONNECT + TLS to the IdP (2 x %g) = %g ms"
          % (rtt, 2 * rtt, 3 * rtt, setup))
    print("  %d sequential requests x %g ms = %g ms (%s); the JWKS can go alongside the token request"
          % (len(FLOW_REQUESTS), 3 * rtt, len(FLOW_REQUESTS) * 3 * rtt, ", ".join("%s %s" % r for r in FLOW_REQUESTS)))
    print("  minimum %g ms" % minimum)

    results = single_rounds(args)
    flow = statistics.median(r["flow"] for r in results) * 1000
    wall = statistics.median(r["wall"] for r in results) * 1000
    app = statistics.median(r["app"] for r in results) * 1000
    last = results[-1]
    seen = [(fields[2], fields[3]) for fields in last["requests"]]
    print()
    print("Single flow (login + consent + token + userinfo), %d rounds after a warm-up, medians:" % len(results))
    print("  flow %.0f ms (the PASS line), whole process %.0f ms; ratio to the minimum %.2fx (target <= 1.3x)"
          % (flow, wall, flow / minimum))
    print("  the IdP's own time (nginx upstream_response_time, summed): %.0f ms; flow minus it: %.2fx"
          % (app, (flow - app) / minimum))
    print("  per round: %d requests at the IdP over %d connection(s); %d tunnel(s) at relay A, %d at relay B"
          % (len(last["requests"]), last["connections"], last["tunnels_a"], last["tunnels_b"]))
    print("  requests (last round): " + ", ".join("%s %s" % r for r in seen))
    print("  steps (last round): " + ", ".join("%s %s s" % s for s in last["steps"]))
    print("  requests as relayfetch saw them (last round; start after the first, total, HAR timings in ms):")
    for began, method, path, total, timings in last["har"]:
        print("    %6.0f  %-4s %-40s %5.0f  %s" % (began, method, path, total, timings))
    print("  the IdP's own time per request (last round, ms): " + ", ".join(
        "%s %s %.0f" % (f[2], f[3], float(f[7]) * 1000) for f in last["requests"] if f[7] not in ("", "-")))
    missing = [r for r in FLOW_REQUESTS + OFF_PATH if r not in seen]
    if missing:
        print("  warning: expected requests not seen: %s" % missing)

    batch = parallel_run(args)
    print()
    print("%d scenarios, --parallel %d: %.2f s, %.1f scenarios/s; peak RSS %.1f MB; relayfetch CPU %.2f s;"
          % (args.scenarios, args.parallel, batch["wall"], args.scenarios / batch["wall"],
             (batch["rss_kb"] or 0) / 1024, batch["cpu"]))
    print("  %d requests at the IdP over %d connections; the IdP's own time summed %.1f s"
          % (batch["requests"], batch["connections"], batch["app"]))
    late = len(lines(args.hub_late_log))
    print("delay hub: %d frames sent over 1 ms late" % late)
    if args.strict and flow / minimum > 1.3:
        sys.exit(1)


if __name__ == "__main__":
    main()
