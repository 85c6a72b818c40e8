#!/usr/bin/env python3
"""Records what headless Chromium with JavaScript off requests for each page of pages.txt,
through the suite's relay, from the origin's access log: expected/NAME.txt ("URI<TAB>status<TAB>
body bytes" per request, sorted) and expected/NAME.headers.tsv (the request headers per URI).

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: no port, no
WebSocket library): scripting is disabled before the navigation, the page loads in a 1280x800
window (or the page's own size and device pixel ratio), and the run ends a settle time after the load event (Chromium asks for /favicon.ico
after it). Each page gets a fresh profile. Usage: chromium_requests.py [NAME...]
"""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
STATE = os.environ.get("FIDELITY_DIR", os.path.join(REPO, ".build", "fidelity"))
LOG = os.path.join(STATE, "access.log")
RELAY = "http://127.0.0.80:3128"
SETTLE_SECONDS = 1.5


def pages():
    """(name, URL, (width, height, device pixel ratio)) per line of pages.txt."""
    with open(os.path.join(HERE, "pages.txt")) as handle:
        for line in handle:
            fields = line.split()
            if len(fields) in (2, 3) and not line.startswith("#"):
                size, _, ratio = (fields[2] if len(fields) == 3 else "1280x800").partition("@")
                width, height = (int(value) for value in size.split("x"))
                yield fields[0], fields[1], (width, height, float(ratio or 1))


class Chromium:
    """One headless Chromium with a DevTools pipe on fds 3 (commands) and 4 (replies)."""

    def __init__(self, home, viewport):
        width, height, ratio = viewport
        commands_read, self.commands = os.pipe()
        self.replies, replies_write = os.pipe()

        def wire():
            os.dup2(commands_read, 3)
            os.dup2(replies_write, 4)

        self.process = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             f"--window-size={width},{height}", f"--force-device-scale-factor={ratio:g}", f"--proxy-server={RELAY}", "--ignore-certificate-errors",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             f"--user-data-dir={home}/profile", "about:blank"],
            pass_fds=(3, 4), preexec_fn=wire, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**os.environ, "HOME": home})
        os.close(commands_read)
        os.close(replies_write)
        self.buffer = b""
        self.next_id = 0

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        return self.next_id

    def read(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.replies, 65536)
            if not chunk:
                raise EOFError("chromium closed its DevTools pipe")
            self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(message)

    def call(self, method, params=None, session=None):
        wanted = self.send(method, params, session)
        while True:
            message = self.read()
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def load(self, url, timeout=30):
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Emulation.setScriptExecutionDisabled", {"value": True}, session)
        self.call("Page.enable", {}, session)
        self.send("Page.navigate", {"url": url}, session)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.read().get("method") == "Page.loadEventFired":
                break
        time.sleep(SETTLE_SECONDS)

    def close(self):
        # Its renderer and zygote processes share its session: end the whole group.
        try:
            os.killpg(self.process.pid, 9)
        except ProcessLookupError:
            pass
        self.process.wait()
        time.sleep(0.2)


def log_lines_since(offset, host):
    time.sleep(0.5)  # nginx logs a request once its response is sent
    with open(LOG, "rb") as handle:
        handle.seek(offset)
        lines = handle.read().decode("utf-8", "replace").splitlines()
    fields = [line.split("\t") for line in lines]
    return [f for f in fields if len(f) >= 14 and f[2] == host and "HeadlessChrome" in f[6]]


def main(names):
    os.makedirs(os.path.join(HERE, "expected"), exist_ok=True)
    for name, url, viewport in pages():
        if names and name not in names:
            continue
        host = url.split("/")[2]
        offset = os.path.getsize(LOG)
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as home:
            chromium = Chromium(home, viewport)
            try:
                chromium.load(url)
            finally:
                chromium.close()
        entries = log_lines_since(offset, host)
        requests = sorted({(f[3], f[4], f[5]) for f in entries})
        with open(os.path.join(HERE, "expected", f"{name}.txt"), "w") as handle:
            handle.write("".join(f"{uri}\t{status}\t{size}\n" for uri, status, size in requests))
        with open(os.path.join(HERE, "expected", f"{name}.headers.tsv"), "w") as handle:
            handle.write("uri\taccept\tsec-fetch-dest\tsec-fetch-mode\tsec-fetch-site\tsec-fetch-user\treferer\torigin\n")
            for f in sorted(entries, key=lambda f: f[3]):
                handle.write("\t".join([f[3]] + f[7:14]) + "\n")
        total = sum(int(size) for _, _, size in requests)
        print(f"{name}: {len(requests)} requests, {total} bytes")


if __name__ == "__main__":
    main(set(sys.argv[1:]))
