#!/usr/bin/env python3
"""Measures the page load for Benchmarks/page/run.sh, inside the client namespace it built.

Each round runs relayfetch page (release), headless Chromium and wget -p -H once each (the order
rotates per round), after one warm-up round that is not counted. Requests and connections per
client come from the origins' and the relay's logs, so every load is checked to be complete.
"""
import argparse
import html
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--disable-default-apps", "--mute-audio", "--disable-breakpad",
    "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter,Translate,HttpsUpgrades",
]


class Log:
    """New lines of a server's log since the last mark."""

    def __init__(self, path):
        self.path, self.offset = path, 0

    def mark(self):
        self.offset = os.path.getsize(self.path) if os.path.exists(self.path) else 0

    def lines(self):
        if not os.path.exists(self.path):
            return []
        with open(self.path, "rb") as file:
            file.seek(self.offset)
            data = file.read()
        return [line.split("\t") for line in data.decode(errors="replace").splitlines() if line]


def run(command, env=None, timeout=90):
    started = time.monotonic()
    try:
        result = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - started
    return result, time.monotonic() - started


def failure(result):
    if result is None:
        return "timed out"
    return f"exit status {result.returncode}: " + (result.stderr.decode(errors="replace").strip()[-300:] or "(no output)")


def probe_round_trips(relay):
    """Client<->relay RTT (TCP handshake) and client->relay->origin RTT (CONNECT on an open
    connection to the plain port: the relay answers once its TCP handshake to the origin is done)."""
    tcp, connect = [], []
    for _ in range(5):
        started = time.monotonic()
        sock = socket.create_connection((relay, 3128), timeout=5)
        tcp.append(time.monotonic() - started)
        started = time.monotonic()
        sock.sendall(b"CONNECT www.page.test:443 HTTP/1.1\r\nHost: www.page.test:443\r\n\r\n")
        reply = b""
        while b"\r\n\r\n" not in reply:
            chunk = sock.recv(4096)
            if not chunk:
                break
            reply += chunk
        connect.append(time.monotonic() - started)
        if not reply.startswith(b"HTTP/1.1 200"):
            sys.exit(f"page-bench: probe CONNECT through the relay failed: {reply[:100]!r}")
        sock.close()
    return statistics.median(tcp), statistics.median(connect)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--delay-client-relay", type=float, required=True)
    parser.add_argument("--delay-relay-origin", type=float, required=True)
    parser.add_argument("--relayfetch", required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--relay", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--chrome-home", required=True)
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--nginx-log", required=True)
    parser.add_argument("--squid-log", required=True)
    parser.add_argument("--hub-late-log", help="the delay hub's log of frames sent over 1 ms late")
    parser.add_argument("--strict", action="store_true")
    args = parser.parse_args()

    manifest = json.load(open(args.manifest))
    url = manifest["url"]
    expected = manifest["subresources"] + 1
    origins = set(manifest["origins"])
    nginx, squid = Log(args.nginx_log), Log(args.squid_log)
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    wget = shutil.which("wget") or "/usr/bin/wget"

    def relayfetch():
        # --complete: Chromium runs this page's scripts (its load event is read by one), so
        # relayfetch fetches them too; the page has no alternatives a browser would skip.
        result, wall = run([args.relayfetch, "page", url, "--json", "--complete",
                            # squid speaks TCP only: no QUIC attempt first (peers make none either)
                            "--relay", f"https://{args.relay}:3129", "--relay-protocol", "h1",
                            "--relay-header", f"Proxy-Authorization: Bearer {args.token}",
                            "--relay-cacert", args.ca, "--cacert", args.ca])
        if result is None or result.returncode != 0:
            return {"error": failure(result)}
        summary = json.loads(result.stdout)
        return {"wall": wall, "load": summary["loadTimeSeconds"],
                "note": f"{len(summary['resources'])} subresources, {summary['failed']} failed"}

    def chrome():
        profile = tempfile.mkdtemp(prefix="chromium-", dir=args.work)
        env = dict(os.environ, HOME=args.chrome_home)
        result, wall = run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                            f"--proxy-server=https://{args.relay}:3130", "--dump-dom", url], env=env)
        shutil.rmtree(profile, ignore_errors=True)
        if result is None or result.returncode != 0:
            return {"error": failure(result)}
        match = re.search(r'<pre id="bench-timing">(.*?)</pre>', result.stdout.decode(errors="replace"), re.S)
        if not match:
            return {"error": "no navigation timing in the dumped DOM (the load event did not finish?)"}
        timing = json.loads(html.unescape(match.group(1)))
        return {"wall": wall, "load": timing["loadEventEnd"] / 1000.0, "timing": timing,
                "note": f"{timing['scripts']} of 6 scripts ran"}

    def wget_p():
        target = tempfile.mkdtemp(prefix="wget-", dir=args.work)
        env = dict(os.environ, HOME=target)
        result, wall = run([wget, "-p", "-H", "-nv", "--no-hsts", "-e", "robots=off", "-e", "use_proxy=on",
                            "-e", f"https_proxy=http://{args.relay}:3128/", f"--ca-certificate={args.ca}",
                            "-P", target, url], env=env)
        files = sum(len(f) for _, _, f in os.walk(target))
        shutil.rmtree(target, ignore_errors=True)
        if result is None or result.returncode != 0:
            return {"error": failure(result)}
        return {"wall": wall, "load": None, "note": f"{files} files saved"}

    clients = [
        ("relayfetch", "relayfetch page (release), https relay :3129 + token", relayfetch),
        ("chromium", "Chromium headless, https relay :3130", chrome),
        ("wget", "wget -p -H, http relay :3128", wget_p),
    ]
    results = {key: [] for key, _, _ in clients}
    port = {"relayfetch": "3129", "chromium": "3130", "wget": "3128"}  # relay port each client uses
    errors = []

    def measure(key, function, counted):
        nginx.mark()
        squid.mark()
        began = time.monotonic()
        outcome = function()
        outcome.setdefault("note", "")
        outcome["span"] = (began, time.monotonic())
        time.sleep(0.3)  # squid logs a tunnel when it closes; let the last ones land
        requests = [line for line in nginx.lines() if len(line) >= 6]
        relay_lines = [line for line in squid.lines() if len(line) >= 6 and line[2] == port[key]]
        tunnels = [line for line in relay_lines if line[3] == "CONNECT" and line[4].split(":")[0] in origins]
        other = [f"{line[3]} {line[4].split('?')[0]}" for line in relay_lines if line[4].split(":")[0] not in origins]
        if other:
            outcome["other"] = other
        page_urls = set(manifest["urls"])

        def url_of(line):
            return f"https://{line[1]}{line[3]}" + ("index.html" if line[3] == "/" else "")

        extra = sorted({f"{url_of(line)} ({line[4]})" for line in requests if url_of(line) not in page_urls})
        timing = outcome.pop("timing", None)
        if timing and requests:
            # Origin log times are wall-clock, like Chromium's timeOrigin: did the origins send the
            # last page response before Chromium's load event (incl. what resource timing hides)?
            last = max(float(line[0]) for line in requests if url_of(line) in page_urls) * 1000 - timing["timeOrigin"]
            outcome["note"] += (f"; load event at {timing['loadEventStart']:.0f} ms, last page response left its origin "
                                f"at {last:.0f} ms after navigation start")
            if last > timing["loadEventStart"]:
                outcome["note"] += " (AFTER the load event)"
        if extra:
            outcome["note"] += f"; also requested {', '.join(extra[:3])}"
        requests = [line for line in requests if url_of(line) in page_urls]
        # When each request was answered at its origin (origin log time, wall clock) relative to
        # the client's start: waves show round trips, and requests held back by limits.
        wall_began = time.time() - (time.monotonic() - began)
        outcome["arrivals"] = sorted((float(line[0]) - wall_began, line[1]) for line in requests)
        served = {url_of(line) for line in requests if line[4] == "200"}
        missing = sorted(page_urls - served)
        outcome["requests"] = len(requests)
        outcome["origin_conns"] = len({(line[1], line[2]) for line in requests})
        outcome["tunnels"] = len(tunnels)
        outcome["protocols"] = sorted({line[5] for line in requests})
        if "error" not in outcome and missing:
            outcome["error"] = (f"incomplete load: {len(missing)} of {expected} URLs not served by the origins: "
                                + " ".join(missing[:5]))
        if counted:
            if "error" in outcome:
                errors.append(f"{key}: {outcome['error']}")
            else:
                results[key].append(outcome)
        elif "error" in outcome:
            errors.append(f"{key} (warm-up): {outcome['error']}")
        return outcome

    rtt_cr, rtt_cro = probe_round_trips(args.relay)
    started = time.monotonic()
    print(f"page-bench: warm-up round, then {args.rounds} measured rounds", file=sys.stderr, flush=True)
    for key, _, function in clients:
        measure(key, function, counted=False)
    for index in range(args.rounds):
        order = clients[index % 3:] + clients[:index % 3]
        line = []
        for key, _, function in order:
            outcome = measure(key, function, counted=True)
            line.append(f"{key} " + (f"{outcome['wall'] * 1000:.0f} ms" if "error" not in outcome else "FAILED"))
        print(f"page-bench: round {index + 1}: " + ", ".join(line), file=sys.stderr, flush=True)
    elapsed = time.monotonic() - started

    # --- the round-trip minimum ----------------------------------------------------------------
    r1 = 2 * args.delay_client_relay / 1000.0  # client <-> relay round trip
    r2 = 2 * args.delay_relay_origin / 1000.0  # relay <-> origin round trip
    new_origin = [("TCP handshake to the relay", r1, 0), ("TLS 1.3 handshake with the relay", r1, 0),
                  ("CONNECT (relay opens TCP to the origin)", r1, r2), ("TLS 1.3 handshake with the origin, in the tunnel", r1, r2),
                  ("first request on the new origin connection", r1, r2)]
    steps = ([(f"HTML on www: {name}", a, b) for name, a, b in new_origin]
             + [(f"style sheet on static (named by the HTML): {name}", a, b) for name, a, b in new_origin]
             + [("fonts and images the style sheet names, on the open static connection", r1, r2)])
    minimum = sum(a + b for _, a, b in steps)
    n1 = round(sum(a for _, a, _ in steps) / r1) if r1 else 0
    n2 = round(sum(b for _, _, b in steps) / r2) if r2 else 0

    def med(key, field):
        values = [o[field] for o in results[key] if o.get(field) is not None]
        return statistics.median(values) if values else None

    def ms(value):
        return f"{value * 1000:8.0f}" if value is not None else "       -"

    def ratio(a, b, digits=2):
        return f"{a / b:.{digits}f}x" if a is not None and b else "n/a"

    out = []
    p = out.append
    p("")
    p(f"Page load through one relay: {manifest['subresources']} subresources on {len(origins)} origins "
      f"({', '.join(manifest['origins'])}), {manifest['totalBytes']} bytes; medians of {args.rounds} rounds")
    p(f"Links: client<->relay {args.delay_client_relay:g} ms one way (RTT measured {rtt_cr * 1000:.1f} ms by TCP connect), "
      f"relay<->origins {args.delay_relay_origin:g} ms one way (client->relay->origin RTT measured {rtt_cro * 1000:.1f} ms by CONNECT)")
    p("Relay: squid 5 (HTTP/1.1 CONNECT, one relay connection per tunnel); origins: nginx, TLS 1.3 + HTTP/2; "
      "cold start every round (new process, empty cache and profile)")
    p("")
    p(f"{'client':<52} {'load ms':>8} {'process ms':>10} {'min..max process':>17} {'requests':>8} {'tunnels':>7} {'origin conns':>12}")
    for key, label, _ in clients:
        rows = results[key]
        if not rows:
            p(f"{label:<52} {'failed':>8}")
            continue
        walls = [o["wall"] for o in rows]
        p(f"{label:<52} {ms(med(key, 'load'))} {ms(med(key, 'wall')):>10} "
          f"{min(walls) * 1000:8.0f}..{max(walls) * 1000:<7.0f} {med(key, 'requests'):>8g} {med(key, 'tunnels'):>7g} "
          f"{med(key, 'origin_conns'):>12g}")
    p(f"{'round-trip minimum (model below)':<52} {ms(minimum)}")
    p("")
    p("load = relayfetch's loadTimeSeconds (--json); Chromium's loadEventEnd - navigation start (navigation timing,")
    p("via --dump-dom); wget reports none. process = whole-process wall time (Chromium's includes its ~0.6 s start-up).")
    for key, _, _ in clients:
        if results[key]:
            p(f"  {key}: {results[key][-1].get('note', '').strip('; ')}; origin protocol {', '.join(results[key][-1]['protocols'])}")
            other = [request for o in results[key] for request in o.get("other", [])]
            if other:
                counts = {request: other.count(request) for request in sorted(set(other))}
                p(f"    and asked the relay for other hosts (refused with 403): "
                  + ", ".join(f"{request} x{n}" for request, n in counts.items()) + f" in {len(results[key])} rounds")
    def waves(arrivals):
        out = []
        for origin in manifest["origins"]:
            times = [t for t, host in arrivals if host == origin]
            groups = []
            for t in times:
                if groups and t - groups[-1][-1] <= 0.005:
                    groups[-1].append(t)
                else:
                    groups.append([t])
            out.append(f"{origin.split('.')[0]} " + " ".join(f"{len(g)}@{g[0] * 1000:.0f}" for g in groups))
        return "; ".join(out)

    p("Responses at the origins in the last round, as count@ms after the client started (groups within 5 ms):")
    for key in ("relayfetch", "chromium"):
        if results[key]:
            p(f"  {key}: {waves(results[key][-1]['arrivals'])}")
    late = []
    if args.hub_late_log and os.path.exists(args.hub_late_log):
        with open(args.hub_late_log) as file:
            late = [tuple(map(float, line.split())) for line in file if len(line.split()) == 2]
    parts = []
    for key, _, _ in clients:
        hits = [ms_late for t, ms_late in late if any(a <= t <= b for a, b in (o["span"] for o in results[key]))]
        parts.append(f"{key} {len(hits)}" + (f" (worst +{max(hits):.1f} ms)" if hits else ""))
    p("Delay accuracy: frames the hub sent over 1 ms after their due time, during measured rounds: " + ", ".join(parts))
    p("")
    rf_load, rf_wall = med("relayfetch", "load"), med("relayfetch", "wall")
    ch_load, ch_wall = med("chromium", "load"), med("chromium", "wall")
    wg_wall = med("wget", "wall")
    p(f"relayfetch load / round-trip minimum     {ratio(rf_load, minimum, 3):>7}   (target <= 1.300x)")
    p(f"relayfetch process / round-trip minimum  {ratio(rf_wall, minimum, 3):>7}")
    p(f"relayfetch load / Chromium load          {ratio(rf_load, ch_load):>7}   (target < 1)")
    p(f"relayfetch process / Chromium process    {ratio(rf_wall, ch_wall):>7}")
    p(f"relayfetch process / wget process        {ratio(rf_wall, wg_wall):>7}   (target < 1)")
    p("")
    p(f"Round-trip minimum = {n1} x client-relay RTT + {n2} x relay-origin RTT = "
      f"{n1} x {r1 * 1000:g} + {n2} x {r2 * 1000:g} ms = {minimum * 1000:.0f} ms, on the critical path")
    p("HTML (www) -> style sheet on a second origin (static) -> fonts and images it names:")
    for name, a, b in steps:
        p(f"  {(a + b) * 1000:5.0f} ms  {name}")
    p("Assumed: TLS 1.3 without 0-RTT or resumption, no TCP Fast Open, no data sent before the CONNECT's 200,")
    p("no relay connection opened before the client knows the origin it is for, HTTP/1.1 CONNECT (each tunnel")
    p("its own relay connection), the tunnels to static and img opened in parallel as soon as the HTML names them,")
    largest = max(level["bytes"] for origin in manifest["byOriginAndLevel"].values() for level in origin.values())
    p(f"and every response flight within TCP's initial window (the largest, one origin's bodies of one discovery level,")
    p(f"is {largest / 1000:.1f} KB; 10 segments are 14.5 KB, and the windows have grown by then), so bandwidth and")
    p("server time add nothing. Anything measured above the minimum is client or relay overhead, a serialized")
    p("round trip, or a request held back by a concurrency limit.")
    targets = []
    if rf_load is not None:
        targets.append(("relayfetch load within 1.3x of the round-trip minimum", rf_load <= 1.3 * minimum))
    if rf_load is not None and ch_load is not None:
        targets.append(("relayfetch load faster than Chromium's", rf_load < ch_load))
    if rf_wall is not None and ch_wall is not None:
        targets.append(("relayfetch process faster than Chromium's", rf_wall < ch_wall))
    if rf_wall is not None and wg_wall is not None:
        targets.append(("relayfetch process faster than wget's", rf_wall < wg_wall))
    p("")
    for name, met in targets:
        p(f"{'MET   ' if met else 'MISSED'} {name}")
    for error in errors:
        p(f"ERROR  {error}")
    p(f"(measuring took {elapsed:.1f} s)")
    print("\n".join(out), flush=True)
    if errors or not results["relayfetch"]:
        return 1
    if args.strict and not all(met for _, met in targets):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
