"""A UDP echo server for `relayfetch proxy`'s UDP ASSOCIATE tests: answers each datagram with the
same bytes, and logs "DATAGRAM<TAB>unix time<TAB>peer address<TAB>bytes" for each. Prints
"READY <port>" like the TCP servers of this folder (see hostile_common.py)."""
import socket
import time

import hostile_common as common

args = common.arguments("UDP echo server")
log = common.EventLog(args.log)
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind((args.host, args.port))
common.exit_with_parent()
print("READY %d" % sock.getsockname()[1], flush=True)
while True:
    data, peer = sock.recvfrom(65535)
    log("DATAGRAM", "%.3f" % time.time(), peer[0], len(data))
    sock.sendto(data, peer)
