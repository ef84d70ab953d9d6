#!/usr/bin/python3
"""A user-space Ethernet bridge that delays and drops frames: clawpair's stand-in for `tc netem`.

The test kernel has no sch_netem ("Specified qdisc kind is unknown"), so probe tests and the
benchmark emulate a slow, lossy link here instead: run inside a "router" namespace that has two
interfaces (one towards the client, one towards the gateway) and no forwarding of its own. Every
frame seen on one interface is sent out of the other after --delay-ms (per direction, so the
round-trip time is twice that), unless --loss drops it. Frames are read and written with
AF_PACKET and PACKET_VNET_HDR, so GSO super-frames keep their segmentation metadata, and with
PACKET_IGNORE_OUTGOING, so a forwarded frame is never seen again. It touches nothing but the two
interfaces it is given (which must live in the namespace it runs in).

Usage: delay_bridge.py IFACE_A IFACE_B [--delay-ms 40] [--loss 0.0] [--seed 1]
Prints `ready` once both sockets are open; runs until killed.
"""
import argparse
import heapq
import random
import select
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_ADD_MEMBERSHIP = 1
PACKET_MR_PROMISC = 1
PACKET_VNET_HDR = 15
PACKET_IGNORE_OUTGOING = 23


def open_interface(name):
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    sock.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
    sock.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
    sock.bind((name, 0))
    membership = struct.pack("iHH8s", socket.if_nametoindex(name), PACKET_MR_PROMISC, 0, b"")
    sock.setsockopt(SOL_PACKET, PACKET_ADD_MEMBERSHIP, membership)
    sock.setblocking(False)
    return sock


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--delay-ms", type=float, default=40.0)
    parser.add_argument("--loss", type=float, default=0.0, help="probability of dropping a frame, 0..1")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    delay = args.delay_ms / 1000.0
    a, b = open_interface(args.a), open_interface(args.b)
    other = {a: b, b: a}
    queue = []  # (due, sequence, socket, frame)
    sequence = 0
    print("ready", flush=True)
    while True:
        timeout = max(0.0, queue[0][0] - time.monotonic()) if queue else None
        readable, _, _ = select.select([a, b], [], [], timeout)
        for sock in readable:
            while True:
                try:
                    frame = sock.recv(70000)
                except BlockingIOError:
                    break
                if args.loss and rng.random() < args.loss:
                    continue
                sequence += 1
                heapq.heappush(queue, (time.monotonic() + delay, sequence, other[sock], frame))
        now = time.monotonic()
        while queue and queue[0][0] <= now:
            _, _, out, frame = heapq.heappop(queue)
            try:
                out.send(frame)
            except OSError as error:  # e.g. the interface went away at teardown
                print(f"send: {error}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
