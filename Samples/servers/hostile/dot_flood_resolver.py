#!/usr/bin/env python3
"""A hostile DNS-over-TLS resolver (RFC 7858) for HostileDoTResolverTests: TLS with the origin
certificate (so it is verified as origin.test), one connection, queries framed by their 16-bit
length. Before each answer it sends --flood-bytes of empty frames (two zero bytes each), which
carry no message; then the answer: 127.0.0.11 (relay A) for an A question, no records for any
other type. Logs "QUERY<TAB>name<TAB>type" per question and "FLOODED<TAB>bytes" after each flood.
"""
import struct

import hostile_common as common


def extra(parser):
    parser.add_argument("--flood-bytes", type=int, default=0)


args = common.arguments("hostile DNS-over-TLS resolver", extra)
log = common.EventLog(args.log)


def question(query):
    """The question's name (text), its wire form and its type."""
    labels, offset = [], 12
    while query[offset] != 0:
        length = query[offset]
        labels.append(query[offset + 1:offset + 1 + length].decode("latin-1"))
        offset += 1 + length
    wire = query[12:offset + 5]
    return ".".join(labels), wire, struct.unpack("!H", query[offset + 1:offset + 3])[0]


def answer(query):
    name, wire, qtype = question(query)
    log("QUERY", name, qtype)
    records = b""
    if qtype == 1:
        records = b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 60, 4) + bytes([127, 0, 0, 11])
    return query[:2] + struct.pack("!HHHHH", 0x8180, 1, 1 if records else 0, 0, 0) + wire + records


def handle(conn, address):
    buffered = b""
    while True:
        while len(buffered) < 2 or len(buffered) < 2 + struct.unpack("!H", buffered[:2])[0]:
            chunk = conn.recv(65536)
            if not chunk:
                return
            buffered += chunk
        length = struct.unpack("!H", buffered[:2])[0]
        query, buffered = buffered[2:2 + length], buffered[2 + length:]
        if args.flood_bytes:
            conn.sendall(b"\x00" * args.flood_bytes)
            log("FLOODED", args.flood_bytes)
        message = answer(query)
        conn.sendall(struct.pack("!H", len(message)) + message)


common.serve(args, handle, common.server_tls_context(args, alpn=["dot"]))
