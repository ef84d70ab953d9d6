#!/usr/bin/python3
"""A hostile mDNS responder for clawpair's tests: answers every query with crafted packets.

Run with /usr/bin/python3 inside a test network namespace only (it sends to 224.0.0.251):

    hostile_mdns.py --address 10.250.0.2 --scenario escapes

Raw UDP on port 5353 joined to 224.0.0.251 on the interface holding --address; each query that
arrives is answered by multicasting the scenario's packets (and, for a query from a port other than
5353, also unicast to its source). Prints "READY" once listening; stops on SIGTERM.

    --lose-first-answer 1,2   leave those packets (by index) out of the answer to the first query:
                              datagrams lost on the way, as a lossy link loses them, but the same
                              in every run; later answers are whole
    --log-queries             print "QUERY multicast" or "QUERY direct" (a unicast query to
                              --address, RFC 6762 §5.5) and the first question's type per query

Scenarios:
    escapes       ESC sequences, C0/C1 controls and bidi overrides in the instance name and TXT values
    invalid-utf8  instance name and TXT values that are not UTF-8
    long          a 63-byte instance label, 255-byte TXT strings, a 255-byte host name
    big-txt       one TXT of about 8 KiB (33 strings of 255 bytes)
    many          100 instances at once (four packets)
    fleet         1,000 instances at once (forty packets of 25, each its own host)
    malformed     truncated packets, pointer loops, RDLENGTH lies, count lies; then one good beacon
"""

import argparse
import select
import signal
import socket
import struct
import sys

GROUP = "224.0.0.251"
PORT = 5353
SERVICE = [b"_openclaw-gw", b"_tcp", b"local"]
FINGERPRINT = b"ab" * 32


def name(labels):
    out = b""
    for label in labels:
        assert len(label) < 64
        out += bytes([len(label)]) + label
    return out + b"\x00"


def record(owner, rtype, rdata, ttl=120, cls=0x8001):
    return owner + struct.pack("!HHIH", rtype, cls, ttl, len(rdata)) + rdata


def txt(strings):
    return b"".join(bytes([len(s)]) + s for s in strings)


def srv(port, target_labels):
    return struct.pack("!HHH", 0, 0, port) + name(target_labels)


def message(answers, additionals=(), qd=b""):
    header = struct.pack("!HHHHHH", 0, 0x8400, 1 if qd else 0, len(answers), 0, len(additionals))
    return header + qd + b"".join(answers) + b"".join(additionals)


def beacon(instance, host_labels, address, txt_strings, port=18789, ptr_cls=0x0001):
    """PTR + SRV + TXT + A for one instance (instance: raw label bytes)."""
    full = [instance] + SERVICE
    answers = [record(name(SERVICE), 12, name(full), cls=ptr_cls)]
    extra = [
        record(name(full), 33, srv(port, host_labels)),
        record(name(full), 16, txt(txt_strings)),
        record(name(host_labels), 1, socket.inet_aton(address)),
    ]
    return answers, extra


def standard_txt(display):
    return [b"role=gateway", b"transport=gateway", b"gatewayPort=18789", b"displayName=" + display,
            b"gatewayTls=1", b"gatewayTlsSha256=" + FINGERPRINT]


def scenario_packets(scenario, address):
    host = [b"hostile", b"local"]
    if scenario == "escapes":
        instance = b"Evil \x1b[31mRed\x1b[0m \xe2\x80\xae\x07gnp.exe"
        display = b"\x1b]0;pwned\x07Disp\xe2\x80\x8f\xc2\x9bName\r\n"
        strings = standard_txt(display) + [b"lanHost=\x1b[2Jlan.local", b"tailnetDns=\xe2\x81\xa6x\xe2\x81\xa9.ts.net"]
        a, x = beacon(instance, host, address, strings)
        return [message(a, x)]
    if scenario == "invalid-utf8":
        a, x = beacon(b"Bad \xff\xfe name \xc3\x28", host, address, standard_txt(b"\xed\xa0\x80 surrogate \xc0\xaf") + [b"lanHost=\x80\x81"])
        return [message(a, x)]
    if scenario == "long":
        long_host = [b"h" * 63, b"o" * 63, b"s" * 63, b"t" * 55, b"local"]  # 255 bytes on the wire
        strings = standard_txt(b"D" * (255 - len(b"displayName="))) + [b"k" * 255, b"cliPath=/" + b"p" * 246]
        a, x = beacon(b"L" * 63, long_host, address, strings)
        return [message(a, x)]
    if scenario == "big-txt":
        strings = standard_txt(b"Big TXT") + [(b"x%02d=" % i) + b"v" * 251 for i in range(33)]
        a, x = beacon(b"Big TXT Gateway", host, address, strings)
        return [message(a, x)]
    if scenario in ("many", "fleet"):
        # 100 (1,000) instances at once, in back-to-back packets of 25 under mDNS's 9000-byte maximum.
        count, digits = (100, 3) if scenario == "many" else (1000, 4)
        packets = []
        for start in range(0, count, 25):
            answers, extra = [], []
            for i in range(start, start + 25):
                n = b"%0*d" % (digits, i)
                h = [b"gw" + n, b"local"]
                a, x = beacon(b"Gateway " + n, h, address, [b"role=gateway", b"displayName=Gateway " + n], port=20000 + i)
                answers += a
                extra += x
            packets.append(message(answers, extra))
        return packets
    if scenario == "malformed":
        good_a, good_x = beacon(b"Good Gateway", host, address, standard_txt(b"Good"))
        good = message(good_a, good_x)
        packets = []
        packets.append(good[:7])                     # shorter than a header
        packets.append(good[: len(good) // 2])       # cut mid-record
        # A PTR whose target name points at itself (pointer loop).
        loop_owner = name(SERVICE)
        loop_at = 12 + len(loop_owner) + 10          # offset of the RDATA
        packets.append(message([loop_owner + struct.pack("!HHIH", 12, 1, 120, 2) + struct.pack("!H", 0xC000 | loop_at)]))
        # A pointer to itself in the owner name.
        packets.append(struct.pack("!HHHHHH", 0, 0x8400, 0, 1, 0, 0) + b"\xc0\x0c" + struct.pack("!HHIH", 12, 1, 120, 0))
        # RDLENGTH larger than the packet, and smaller than the SRV body.
        full = name([b"Liar"] + SERVICE)
        body = srv(18789, host)
        packets.append(message([record(name(SERVICE), 12, full), full + struct.pack("!HHIH", 33, 1, 120, 4000) + body]))
        packets.append(message([record(name(SERVICE), 12, full), full + struct.pack("!HHIH", 33, 1, 120, 3) + body]))
        # An A record with RDLENGTH 16, and counts far above the records present.
        packets.append(message([record(name(host), 1, b"\x01" * 16)]))
        packets.append(struct.pack("!HHHHHH", 0, 0x8400, 0, 0xFFFF, 0xFFFF, 0xFFFF) + record(name(SERVICE), 12, full))
        # A label length byte with the reserved 0x40/0x80 bits, and a name longer than 255 bytes.
        packets.append(struct.pack("!HHHHHH", 0, 0x8400, 0, 1, 0, 0) + b"\x45abc\x00" + struct.pack("!HHIH", 12, 1, 120, 0))
        packets.append(message([record(name(SERVICE), 12, b"".join(b"\x3f" + b"a" * 63 for _ in range(5)) + b"\x00")]))
        packets.append(b"\xff" * 1400)
        packets.append(good)
        return packets
    raise SystemExit("unknown scenario %r" % scenario)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--address", required=True, help="this host's lab IPv4 address")
    parser.add_argument("--scenario", required=True)
    parser.add_argument("--lose-first-answer", default="", help="packet indexes left out of the first answer")
    parser.add_argument("--log-queries", action="store_true")
    args = parser.parse_args(argv)
    packets = scenario_packets(args.scenario, args.address)
    lost = {int(i) for i in args.lose_first_answer.split(",") if i}

    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(("", PORT))
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton(GROUP) + socket.inet_aton(args.address))
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(args.address))
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
    # Direct unicast queries to --address:5353 arrive on this socket (the more specific bind).
    direct = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    direct.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    direct.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    direct.bind((args.address, PORT))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print("READY", flush=True)
    answered = 0
    while True:
        for receiver in select.select([sock, direct], [], [])[0]:
            data, source = receiver.recvfrom(65535)
            if len(data) < 12 or data[2] & 0x80:  # not a query
                continue
            if args.log_queries:
                qtype = None
                if struct.unpack("!H", data[4:6])[0]:
                    offset = 12
                    while offset < len(data) and data[offset] and data[offset] < 64:
                        offset += 1 + data[offset]
                    if offset < len(data) and data[offset] >= 0xC0:
                        offset += 1
                    qtype = struct.unpack("!H", data[offset + 1 : offset + 3])[0] if offset + 3 <= len(data) else None
                print("QUERY %s %s" % ("direct" if receiver is direct else "multicast", qtype), flush=True)
            answered += 1
            for index, packet in enumerate(packets):
                if answered == 1 and index in lost:
                    continue
                sock.sendto(packet, (GROUP, PORT))
                if source[1] != PORT:
                    sock.sendto(packet, source)


if __name__ == "__main__":
    main(sys.argv[1:])
