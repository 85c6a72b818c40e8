"""Runs a command and prints, as one JSON object, its wall time, CPU time (user + system, its
whole process tree) and peak resident memory (the largest of its processes).
Usage: measure.py COMMAND..."""
import json
import resource
import subprocess
import sys
import time

start = time.monotonic()
status = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.monotonic() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"status": status.returncode, "seconds": wall, "cpu": usage.ru_utime + usage.ru_stime,
                  "peak_rss_mb": usage.ru_maxrss / 1024.0, "stderr": status.stderr.decode(errors="replace")[-400:]}))
