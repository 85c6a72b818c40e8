"""A relay that is down at first and comes back later: the port is bound at once (so its number
is known and a connection to it is refused) but listened on only after --down-for seconds; from
then on every connection is forwarded, bytes untouched, to --target (squid A's plain http_port,
which checks the token and reaches the origin from its own address). With --down-for -1 it never
comes back. Logs "LISTENING" when it comes back and "FORWARDED<TAB>client" per connection.
"""
import socket
import threading
import time

import hostile_common as common


def extra(parser):
    parser.add_argument("--down-for", type=float, required=True)
    parser.add_argument("--target", default="127.0.0.11:3128")


args = common.arguments("relay that comes back after a while", extra)
log = common.EventLog(args.log)
target_host, _, target_port = args.target.rpartition(":")



def forward(client, address):
    log("FORWARDED", address[0])
    upstream = socket.create_connection((target_host, int(target_port)), source_address=(args.host, 0))
    common.splice(client, upstream)


sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind((args.host, args.port))
common.exit_with_parent()
print("READY %d" % sock.getsockname()[1], flush=True)
if args.down_for < 0:
    common.stall_forever()
time.sleep(args.down_for)
sock.listen(512)
log("LISTENING")
while True:
    conn, address = sock.accept()
    threading.Thread(target=forward, args=(conn, address), daemon=True).start()
