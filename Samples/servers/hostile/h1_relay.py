"""A hostile HTTP/1.1 CONNECT relay (TLS): it opens the tunnel like squid would (origin.test and
origin2.test resolve to 127.0.0.21 and .22 here, as in squid's hosts file), then misbehaves in
the tunnel per --mode. Logs "CONNECT<TAB>authority" per tunnel, then "FIELDS<TAB>names" (the
CONNECT's header field names, lowercase, in order, comma-separated), and "MISBEHAVED<TAB>mode".

Every name under origin.test reaches 127.0.0.21 (as the origin certificate's *.origin.test
covers it): a relay that resolves a wildcard name.

Modes:
  forward                forward both ways until either side closes (a relay that behaves)
  stall-after N          forward N bytes from the origin, then stop forwarding (tunnel stays open)
  close-notify-after N   forward N bytes from the origin, then end the tunnel with TLS close_notify
  reset-after N          forward N bytes from the origin, then reset the TCP connection
  fin-after N            forward N bytes from the origin, then close TCP without close_notify
"""
import socket
import struct
import threading

import hostile_common as common

HOSTS = {"origin.test": "127.0.0.21", "origin2.test": "127.0.0.22"}


def extra(parser):
    parser.add_argument("--mode", required=True, choices=["forward", "stall-after", "close-notify-after", "reset-after", "fin-after"])
    parser.add_argument("--bytes", type=int, default=0)


args = common.arguments("hostile HTTP/1.1 CONNECT relay", extra)
log = common.EventLog(args.log)


def pump(source, sink):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass


def handle(client, address):
    head, rest = common.read_head(client)
    if head is None:
        return
    authority = head.split("\r\n")[0].split(" ")[1]
    log("CONNECT", authority)
    log("FIELDS", ",".join(line.split(":", 1)[0].strip().lower() for line in head.split("\r\n")[1:] if line))
    host, _, port = authority.rpartition(":")
    address = "127.0.0.21" if host.endswith(".origin.test") else HOSTS.get(host, host)
    origin = socket.create_connection((address, int(port)))
    client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
    if rest:
        origin.sendall(rest)
    threading.Thread(target=pump, args=(client, origin), daemon=True).start()
    if args.mode == "forward":
        pump(origin, client)
        origin.close()
        return
    forwarded = 0
    while forwarded < args.bytes:
        data = origin.recv(min(65536, args.bytes - forwarded))
        if not data:
            break
        client.sendall(data)
        forwarded += len(data)
    log("MISBEHAVED", args.mode)
    if args.mode == "stall-after":
        common.stall_forever()
    elif args.mode == "close-notify-after":
        client.unwrap()  # TLS close_notify, then the TCP close below
        client.close()
    elif args.mode == "fin-after":
        socket.socket.shutdown(client, socket.SHUT_RDWR)  # the TCP end only: no TLS close_notify
        client.close()
    elif args.mode == "reset-after":
        # Linger 0 makes the close an RST; SHUT_RD first wakes the thread blocked reading this
        # socket, which would otherwise hold the descriptor open and the close would not happen.
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        socket.socket.shutdown(client, socket.SHUT_RD)
        client.close()
    origin.close()


common.serve(args, handle, common.server_tls_context(args, ["http/1.1"]))
