#!/usr/bin/python3
"""Many small mDNS responders, one gateway each, as a fleet of real gateway hosts answers.

Run with /usr/bin/python3 inside a test network namespace only (it sends to 224.0.0.251):

    small_responders.py --address 10.253.0.10 --count 100

Gateway i lives at the i-th address counted from --address (the caller puts those addresses on
the interface beforehand), with its own socket bound to that address and port 5353: its answers
come from its own address, one small packet each (PTR, SRV, TXT, A). Unlike hostile_mdns.py (one
responder that multicasts everything at every query), each responder follows RFC 6762:
  - answers only the questions it owns (PTR _openclaw-gw._tcp.local., its instance's SRV/TXT/ANY,
    its host's A/ANY) and leaves out what the query lists as known answers with at least half
    our TTL left (§7.1);
  - delays an answer that holds the shared PTR by a random 20-120 ms (§6);
  - multicasts a record at most once a second per interface (§6), and answers a QU question
    (§5.4) or a direct unicast query to its port 5353 (§5.5) by unicast to the querier when it
    multicast the record within the last quarter of its TTL, else by multicast;
  - answers a query from a port other than 5353 (a legacy resolver, §6.7) by unicast, with the
    query's ID and question.
One process, one multicast socket for the group and one socket per gateway. Prints "READY" once
listening; stops on SIGTERM.
"""

import argparse
import heapq
import ipaddress
import os
import random
import select
import signal
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile_mdns import GROUP, PORT, SERVICE, name, record, srv, txt  # noqa: E402

TTL = 120
PTR, TXT, SRV, A, ANY = 12, 16, 33, 1, 255


def read_name(data, offset):
    """(lowercased labels, offset after the name); pointers followed, at most 16 jumps."""
    labels, jumps, end = [], 0, None
    while True:
        length = data[offset]
        if length & 0xC0 == 0xC0:
            if jumps > 16:
                raise ValueError("pointer loop")
            if end is None:
                end = offset + 2
            offset = ((length & 0x3F) << 8) | data[offset + 1]
            jumps += 1
            continue
        if length == 0:
            return labels, (end if end is not None else offset + 1)
        labels.append(data[offset + 1 : offset + 1 + length].lower())
        offset += 1 + length


def parse_query(data):
    """(id, [(labels, type, unicast)], [(labels, type, rdata labels or None, ttl)]) of a query."""
    ident, flags, qd, an = struct.unpack("!HHHH", data[:8])
    if flags & 0x8000:
        return None
    offset, questions, known = 12, [], []
    for _ in range(qd):
        labels, offset = read_name(data, offset)
        qtype, qclass = struct.unpack("!HH", data[offset : offset + 4])
        offset += 4
        questions.append((labels, qtype, bool(qclass & 0x8000)))
    for _ in range(an):
        labels, offset = read_name(data, offset)
        rtype, _, ttl, length = struct.unpack("!HHIH", data[offset : offset + 10])
        offset += 10
        target = read_name(data, offset)[0] if rtype == PTR else None
        known.append((labels, rtype, target, ttl))
        offset += length
    return ident, questions, known


class Gateway:
    def __init__(self, index, address):
        self.address = address
        self.instance = [b"Gateway %03d" % index] + SERVICE
        self.host = [b"gw%03d" % index, b"local"]
        self.keys = {
            PTR: [l.lower() for l in SERVICE],
            SRV: [l.lower() for l in self.instance],
            TXT: [l.lower() for l in self.instance],
            A: [l.lower() for l in self.host],
        }
        self.wire = {
            PTR: record(name(SERVICE), PTR, name(self.instance), ttl=TTL, cls=0x0001),
            SRV: record(name(self.instance), SRV, srv(20000 + index, self.host), ttl=TTL),
            TXT: record(name(self.instance), TXT, txt([b"role=gateway", b"displayName=Gateway %03d" % index]), ttl=TTL),
            A: record(name(self.host), A, socket.inet_aton(address), ttl=TTL),
        }
        self.last_multicast = {}  # record type -> time it was last multicast
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        self.sock.bind((address, PORT))
        self.sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(address))
        self.sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
        self.sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)

    def owned(self, labels, qtype):
        """The record types a question asks of this gateway."""
        return [t for t, key in self.keys.items() if key == labels and (qtype == t or qtype == ANY)]

    def answer(self, questions, known):
        """(types to answer, whether any question asked for unicast), known answers left out."""
        wanted, unicast = [], False
        for labels, qtype, qu in questions:
            for t in self.owned(labels, qtype):
                if t not in wanted:
                    wanted.append(t)
                unicast = unicast or qu
        suppressed = set()
        for labels, rtype, target, ttl in known:
            if rtype in self.keys and labels == self.keys[rtype] and ttl >= TTL // 2:
                if rtype != PTR or target == [l.lower() for l in self.instance]:
                    suppressed.add(rtype)
        return [t for t in wanted if t not in suppressed], unicast

    def packet(self, types, ident=0, question=b""):
        answers = [self.wire[t] for t in types]
        extra = [self.wire[t] for t in (SRV, TXT, A) if PTR in types and t not in types]
        header = struct.pack("!HHHHHH", ident, 0x8400, 1 if question else 0, len(answers), 0, len(extra))
        return header + question + b"".join(answers) + b"".join(extra)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--address", required=True, help="the first gateway's address; the others follow it")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    first = ipaddress.IPv4Address(args.address)
    gateways = [Gateway(i, str(first + i)) for i in range(args.count)]
    by_socket = {g.sock: g for g in gateways}

    group = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    group.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    group.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    group.bind((GROUP, PORT))
    group.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton(GROUP) + socket.inet_aton(args.address))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    pending = []  # (due, sequence, gateway, types, destination or None for multicast)
    sequence = 0
    print("READY", flush=True)
    while True:
        timeout = max(0.0, pending[0][0] - time.monotonic()) if pending else None
        readable, _, _ = select.select([group] + list(by_socket), [], [], timeout)
        for sock in readable:
            data, source = sock.recvfrom(9000)
            try:
                parsed = parse_query(data)
            except (IndexError, ValueError, struct.error):
                continue
            if parsed is None:
                continue
            ident, questions, known = parsed
            direct = sock is not group
            targets = [by_socket[sock]] if direct else gateways
            now = time.monotonic()
            for gateway in targets:
                types, unicast = gateway.answer(questions, known)
                if not types:
                    continue
                if source[1] != PORT:  # a legacy resolver: unicast, its ID and question echoed (§6.7)
                    q_end = read_name(data, 12)[1] + 4
                    gateway.sock.sendto(gateway.packet(types, ident, data[12:q_end]), source)
                    continue
                recent = all(now - gateway.last_multicast.get(t, -1e9) < TTL / 4 for t in types)
                if (unicast or direct) and recent:  # §5.4, §5.5
                    gateway.sock.sendto(gateway.packet(types), source)
                    continue
                delay = rng.uniform(0.020, 0.120) if PTR in types else 0.0  # §6: shared answers wait
                sequence += 1
                heapq.heappush(pending, (now + delay, sequence, gateway, types, None))
        now = time.monotonic()
        while pending and pending[0][0] <= now:
            _, _, gateway, types, _ = heapq.heappop(pending)
            # §6: a record is multicast at most once a second on an interface.
            allowed = [t for t in types if now - gateway.last_multicast.get(t, -1e9) >= 1.0]
            if not allowed:
                continue
            for t in allowed:
                gateway.last_multicast[t] = now
            gateway.sock.sendto(gateway.packet(allowed), (GROUP, PORT))


if __name__ == "__main__":
    main(sys.argv[1:])
