"""A plain DNS server over UDP for `relayfetch proxy`'s UDP ASSOCIATE tests (dnslib): answers A
questions for origin.test with 127.0.0.21 and any other name with NXDOMAIN, and logs
"QUESTION<TAB>unix time<TAB>peer address<TAB>name<TAB>type" for each. Prints "READY <port>"
like the TCP servers of this folder (see hostile_common.py)."""
import time

from dnslib import A, DNSRecord, QTYPE, RCODE, RR

import hostile_common as common

args = common.arguments("UDP DNS server")
log = common.EventLog(args.log)


def answer(sock, data, peer):
    try:
        query = DNSRecord.parse(data)
    except Exception:  # noqa: BLE001 - not DNS: dropped, as a resolver would
        return
    name = str(query.q.qname).rstrip(".")
    log("QUESTION", "%.3f" % time.time(), peer[0], name, QTYPE[query.q.qtype])
    reply = query.reply()
    if name == "origin.test" and query.q.qtype == QTYPE.A:
        reply.add_answer(RR(query.q.qname, QTYPE.A, rdata=A("127.0.0.21"), ttl=60))
    else:
        reply.header.rcode = RCODE.NXDOMAIN
    sock.sendto(reply.pack(), peer)


common.serve_datagrams(args, answer)
