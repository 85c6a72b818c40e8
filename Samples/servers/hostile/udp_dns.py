"""A plain DNS server over UDP for `relayfetch proxy`'s UDP ASSOCIATE tests (dnslib): answers A
questions for origin.test with 127.0.0.21 and any other name with NXDOMAIN, and logs
"QUESTION<TAB>unix time<TAB>peer address<TAB>name<TAB>type" for each. Prints "READY <port>"
like the TCP servers of this folder (see hostile_common.py)."""
import socket
import time

from dnslib import A, DNSRecord, QTYPE, RCODE, RR

import hostile_common as common

args = common.arguments("UDP DNS server")
log = common.EventLog(args.log)
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind((args.host, args.port))
common.exit_with_parent()
print("READY %d" % sock.getsockname()[1], flush=True)
while True:
    data, peer = sock.recvfrom(65535)
    try:
        query = DNSRecord.parse(data)
    except Exception:  # noqa: BLE001 - not DNS: dropped, as a resolver would
        continue
    name = str(query.q.qname).rstrip(".")
    log("QUESTION", "%.3f" % time.time(), peer[0], name, QTYPE[query.q.qtype])
    reply = query.reply()
    if name == "origin.test" and query.q.qtype == QTYPE.A:
        reply.add_answer(RR(query.q.qname, QTYPE.A, rdata=A("127.0.0.21"), ttl=60))
    else:
        reply.header.rcode = RCODE.NXDOMAIN
    sock.sendto(reply.pack(), peer)
