"""A relay front whose UDP is dropped, as on a network that blocks QUIC: TCP connections to
--host:PORT are forwarded byte for byte to --target (relay A's nghttpx, which speaks HTTP/2 and
HTTP/1.1), while datagrams to the same UDP port are read and dropped, never answered. Logs
"CONNECTION" per TCP client and "DROPPED<TAB>bytes" per datagram.
"""
import socket
import sys
import threading

import hostile_common as common


def extra(parser):
    parser.add_argument("--target", default="127.0.0.11:4433")


args = common.arguments("UDP-dropping relay front", extra)
log = common.EventLog(args.log)
target_host, target_port = args.target.rsplit(":", 1)



def handle(conn, _address):
    log("CONNECTION")
    upstream = socket.create_connection((target_host, int(target_port)), 5)
    upstream.settimeout(None)
    common.splice(conn, upstream)


def drop_datagrams(udp):
    while True:
        data, _ = udp.recvfrom(65536)
        log("DROPPED", len(data))


# The TCP listener picks the port; the UDP socket takes the same number before READY is printed.
# A UDP socket bound to the wildcard address (any QUIC client's) may hold that number already:
# then another port is picked.
for attempt in range(20):
    listener = common.listen(args)
    port = listener.getsockname()[1]
    listener.close()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        udp.bind((args.host, port))
        break
    except OSError:
        udp.close()
else:
    sys.exit("no port free for both TCP and UDP")
args.port = port
threading.Thread(target=drop_datagrams, args=(udp,), daemon=True).start()
common.serve(args, handle)
