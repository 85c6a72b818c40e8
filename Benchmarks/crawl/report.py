"""Prints the crawl benchmark's table from the origin's access log (tab-separated: address,
method, URI, status, protocol, user agent) and each crawler's measure.py result: pages fetched
(and fetched twice), seconds, pages/s, CPU ms per page, peak RSS, and the ratio of pages/s.
Usage: report.py TITLE ACCESS_LOG EXPECTED_PAGES RELAYFETCH_JSON SCRAPY_JSON"""
import collections
import json
import sys

title, log, expected = sys.argv[1], sys.argv[2], int(sys.argv[3])
runs = {"relayfetch": json.loads(sys.argv[4]), "scrapy": json.loads(sys.argv[5])}
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
for name, run in runs.items():
    pages = len(fetched[name])
    twice = sum(1 for n in fetched[name].values() if n > 1)
    rate[name] = pages / run["seconds"] if run["seconds"] else 0
    print("%-11s %7d %7d %9.2f %9.1f %12.2f %9.1f%s" % (name, pages, twice, run["seconds"], rate[name],
          1000 * run["cpu"] / max(pages, 1), run["peak_rss_mb"], "" if run["status"] == 0 else "  exit %d: %s" % (run["status"], run["stderr"])))
if rate["scrapy"]:
    print("relayfetch / scrapy pages/s: %.2fx" % (rate["relayfetch"] / rate["scrapy"]))
