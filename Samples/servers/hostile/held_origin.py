#!/usr/bin/env python3
"""A plain TCP origin that holds every connection open, for tests of many long-lived tunnels at
once (HostileServer.swift). Not hostile in itself: on 127.0.0.21 it is origin.test:<port> to the
relays. Each line "HELLO <id> [<size> [padding]]" a client sends is answered "OK <id>" (padded
with spaces to <size> bytes, newline included) and logged as "hello<TAB><id><TAB><peer
address>"; connections stay open until the client closes them. One thread with a selector, so a
thousand held connections cost no thread each.
"""
import selectors

import hostile_common


def main():
    args = hostile_common.arguments(__doc__.splitlines()[0])
    log = hostile_common.EventLog(args.log)
    listener = hostile_common.listen(args)
    listener.listen(4096)
    listener.setblocking(False)
    hostile_common.exit_with_parent()
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    pending = {}
    print("READY %d" % listener.getsockname()[1], flush=True)
    while True:
        for key, _ in selector.select():
            if key.fileobj is listener:
                try:
                    conn, _ = listener.accept()
                except BlockingIOError:
                    continue
                conn.setblocking(False)
                pending[conn] = b""
                selector.register(conn, selectors.EVENT_READ)
                continue
            conn = key.fileobj
            try:
                data = conn.recv(4096)
            except OSError:
                data = b""
            if not data:
                selector.unregister(conn)
                pending.pop(conn, None)
                conn.close()
                continue
            pending[conn] += data
            while b"\n" in pending[conn]:
                line, _, pending[conn] = pending[conn].partition(b"\n")
                words = line.decode("latin-1").split()
                if len(words) >= 2 and words[0] == "HELLO":
                    log("hello", words[1], conn.getpeername()[0])
                    answer = b"OK " + words[1].encode()
                    size = int(words[2]) if len(words) > 2 and words[2].isdigit() else 0
                    conn.sendall(answer.ljust(min(size, 1 << 20) - 1) + b"\n")


if __name__ == "__main__":
    main()
