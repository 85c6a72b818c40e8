#!/usr/bin/env python3
"""A delaying Ethernet hub for the page benchmark (this kernel has no netem).

Runs inside a hub network namespace that holds one end of each veth pair; the other ends are in
the client, relay and origins namespaces. Every frame that arrives on a hub port is read with
AF_PACKET and sent out of the port it is destined for (a learning switch, restricted to the
links given) once the one-way delay of that link has passed. PACKET_VNET_HDR carries the
kernel's offload metadata (GSO size, partial checksum) through unchanged, so the veths keep
TSO/GSO and a 64 KB segment costs one read and one write.

Usage: delayhub.py --link PORT_A:PORT_B:DELAY_MS [--link ...] [--ready FILE]
Frames are forwarded only between the two ports of a declared link (so the client cannot reach
the origins directly); each direction of a link is delayed by DELAY_MS.
"""
import argparse
import gc
import heapq
import itertools
import os
import select
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_VNET_HDR = 15
PACKET_IGNORE_OUTGOING = 23
PACKET_OUTGOING = 4
VNET_HDR_LEN = 10  # struct virtio_net_hdr (no num_buffers: PACKET_VNET_HDR uses the short one)


def open_port(name):
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    sock.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
    try:
        sock.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
    except OSError:
        pass  # older kernels: outgoing frames are filtered by pkttype below
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 << 20)
    sock.bind((name, ETH_P_ALL))
    sock.setblocking(False)
    return sock


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--link", action="append", required=True, help="PORT_A:PORT_B:DELAY_MS")
    parser.add_argument("--ready", help="file to create once all ports are open")
    parser.add_argument("--late-log", help="file to which each frame sent over 1 ms after its due time is "
                        "appended as 'CLOCK_MONOTONIC_SECONDS LATE_MS' (to attribute inaccuracy to a phase)")
    args = parser.parse_args()

    delay = {}  # (in port, out port) -> seconds
    for spec in args.link:
        a, b, ms = spec.split(":")
        delay[(a, b)] = delay[(b, a)] = float(ms) / 1000.0
    names = sorted({port for pair in delay for port in pair})
    socks = {name: open_port(name) for name in names}
    by_fd = {sock.fileno(): name for name, sock in socks.items()}
    neighbours = {name: [b for (a, b) in delay if a == name] for name in names}
    where = {}  # learned MAC -> port

    queue = []  # (due, sequence, out port, vnet header + frame)
    sequence = itertools.count()
    stats = {"frames": 0, "bytes": 0, "dropped": 0, "late_max": 0.0, "late_1ms": 0}

    def stop(*_):
        print(f"delayhub: forwarded {stats['frames']} frames, {stats['bytes']} bytes; "
              f"{stats['dropped']} send failures; {stats['late_1ms']} frames sent over 1 ms late "
              f"(latest {stats['late_max'] * 1000:.2f} ms after due)",
              flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if args.ready:
        with open(args.ready, "w") as file:
            file.write(f"{os.getpid()}\n")
    print(f"delayhub: ports {', '.join(names)}; links "
          + ", ".join(f"{a}<->{b} {d * 1000:g} ms" for (a, b), d in delay.items() if a < b), flush=True)

    late_log = open(args.late_log, "a") if args.late_log else None
    gc.disable()  # nothing here makes reference cycles; no collector pauses between frames
    fds = list(by_fd)
    while True:
        now = time.monotonic()
        # Send everything that is due.
        while queue and queue[0][0] <= now:
            due, _, out, data = heapq.heappop(queue)
            try:
                socks[out].send(data)
                stats["frames"] += 1
                stats["bytes"] += len(data) - VNET_HDR_LEN
            except OSError:
                stats["dropped"] += 1
            late = time.monotonic() - due
            stats["late_max"] = max(stats["late_max"], late)
            if late > 0.001:
                stats["late_1ms"] += 1
                if late_log:
                    late_log.write(f"{due:.6f} {late * 1000:.3f}\n")
                    late_log.flush()
        timeout = max(0.0, queue[0][0] - time.monotonic()) if queue else None
        readable, _, _ = select.select(fds, [], [], timeout)
        arrived = time.monotonic()
        for fd in readable:
            port = by_fd[fd]
            sock = socks[port]
            for _ in range(8):  # a bounded batch, so that due frames are never held up by a burst
                try:
                    data, address = sock.recvfrom(262144)
                except BlockingIOError:
                    break
                if address[2] == PACKET_OUTGOING or len(data) < VNET_HDR_LEN + 14:
                    continue
                frame = memoryview(data)[VNET_HDR_LEN:]
                dst, src = bytes(frame[0:6]), bytes(frame[6:12])
                where[src] = port
                if dst[0] & 1 or dst not in where:  # broadcast, multicast or not yet learned
                    outs = neighbours[port]
                else:
                    outs = [where[dst]] if (port, where[dst]) in delay else []
                for out in outs:
                    heapq.heappush(queue, (arrived + delay[(port, out)], next(sequence), out, data))


if __name__ == "__main__":
    main()
