"""Prints the crawl benchmark's table from the origin's access log (tab-separated: address,
method, URI, status, protocol, user agent) and each crawler's measure.py result: pages fetched
(and fetched twice), seconds, pages/s, CPU ms per page, peak RSS, and the ratio of pages/s.
A run counts only if it fetched every expected page and its wall time is near what
its CPU time explains, or with links delayed, what the round trips explain (pages x RTT /
requests in flight): a run over four times that waited on something, a stall or a timeout.
Otherwise the run is flagged, its missing pages are printed, the ratio is marked invalid and
the exit status is 1.
Usage: report.py TITLE ACCESS_LOG EXPECTED_PAGES RELAYFETCH_JSON SCRAPY_JSON [EXPECTED_PATHS_FILE [RTT_MS CONCURRENCY]]"""
import collections
import json
import sys

title, log, expected = sys.argv[1], sys.argv[2], int(sys.argv[3])
runs = {"relayfetch": json.loads(sys.argv[4]), "scrapy": json.loads(sys.argv[5])}
expected_paths = set()
if len(sys.argv) > 6 and sys.argv[6]:
    expected_paths = {line.strip() for line in open(sys.argv[6]) if line.strip()}
rtt_bound = float(sys.argv[7]) / 1000 / int(sys.argv[8]) if len(sys.argv) > 8 else 0  # seconds per page
fetched = collections.defaultdict(collections.Counter)
for line in open(log):
    fields = line.rstrip("\n").split("\t")
    if len(fields) < 6 or fields[2] == "/robots.txt":
        continue
    who = "scrapy" if "Scrapy" in fields[5] else "relayfetch"
    fetched[who][fields[2]] += 1

print("crawl benchmark: %d-page site on nginx (TLS, HTTP/2), %s" % (expected, title))
print("%-11s %7s %7s %9s %9s %12s %9s" % ("crawler", "pages", "twice", "seconds", "pages/s", "CPU ms/page", "peak MB"))
rate = {}
problems = {}
for name, run in runs.items():
    pages = len(fetched[name])
    twice = sum(1 for n in fetched[name].values() if n > 1)
    rate[name] = pages / run["seconds"] if run["seconds"] else 0
    print("%-11s %7d %7d %9.2f %9.1f %12.2f %9.1f%s" % (name, pages, twice, run["seconds"], rate[name],
          1000 * run["cpu"] / max(pages, 1), run["peak_rss_mb"], "" if run["status"] == 0 else "  exit %d: %s" % (run["status"], run["stderr"])))
    if run["seconds"] == 0:
        continue  # skipped
    issues = []
    missing = sorted(p for p in expected_paths if p not in fetched[name]) if expected_paths else []
    if expected_paths and missing and name != "relayfetch":
        print("note: %s did not fetch %d expected pages (it reads no sitemap), e.g. %s" % (name, len(missing), ", ".join(missing[:3])))
    elif expected_paths and missing:
        issues.append("%d expected pages never fetched, e.g. %s" % (len(missing), ", ".join(missing[:5])))
    elif pages < expected:
        issues.append("%d of %d pages fetched" % (pages, expected))
    if run["status"] != 0:
        issues.append("exit status %d" % run["status"])
    explained = max(run["cpu"], pages * rtt_bound)
    if run["seconds"] > 4 * explained:
        issues.append("IDLE: %.2f s where CPU%s explain %.2f s (a stall?)"
                      % (run["seconds"], " and round trips" if rtt_bound else "", explained))
    problems[name] = issues
for name, issues in problems.items():
    for issue in issues:
        print("FAILED RUN %-11s %s" % (name, issue))
if rate["scrapy"]:
    valid = not problems.get("relayfetch") and not problems.get("scrapy")
    print("relayfetch / scrapy pages/s: %.2fx%s" % (rate["relayfetch"] / rate["scrapy"],
                                                    "" if valid else "  (INVALID: a run failed or idled, above)"))
if any(problems.values()):
    sys.exit(1)
