"""A UDP echo server for `relayfetch proxy`'s UDP ASSOCIATE tests: answers each datagram with the
same bytes, and logs "DATAGRAM<TAB>unix time<TAB>peer address<TAB>bytes" for each. Prints
"READY <port>" like the TCP servers of this folder (see hostile_common.py)."""
import time

import hostile_common as common

args = common.arguments("UDP echo server")
log = common.EventLog(args.log)


def echo(sock, data, peer):
    log("DATAGRAM", "%.3f" % time.time(), peer[0], len(data))
    sock.sendto(data, peer)


common.serve_datagrams(args, echo)
