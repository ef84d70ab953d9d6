#!/usr/bin/python3
"""Advertise one DNS-SD service with python-zeroconf, as an independent peer for clawpair's tests.

Run with Debian's /usr/bin/python3 (it has python3-zeroconf), inside a test network namespace:

    zeroconf_advertise.py --instance "Test Gateway (clawpair)" --type _openclaw-gw._tcp.local. \
        --port 18789 --interface-address 10.250.0.2 --txt role=gateway --txt gatewayPort=18789

Protocol with the harness (one line each, flushed, on stdout):
    READY <full service name>     once the service is registered (probing done, announced)
    GOODBYE <full service name>   after SIGTERM/SIGINT, once the goodbye packets were sent
Errors go to stderr and exit with status 2 (usage) or 1 (anything else).
"""

import argparse
import signal
import sys
import threading

from zeroconf import IPVersion, ServiceInfo, Zeroconf


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--instance", required=True, help="instance name, e.g. 'Test Gateway (clawpair)'")
    parser.add_argument("--type", default="_openclaw-gw._tcp.local.", help="service type, ending in .local.")
    parser.add_argument("--port", type=int, required=True, help="SRV port")
    parser.add_argument("--txt", action="append", default=[], metavar="KEY=VALUE",
                        help="TXT entry (repeatable); KEY alone makes a boolean attribute")
    parser.add_argument("--interface-address", action="append", default=[], required=True, metavar="IP",
                        help="bind mDNS to the interface holding this IPv4 or IPv6 address (repeatable)")
    parser.add_argument("--address", action="append", default=[], metavar="IP",
                        help="address for the A/AAAA records (repeatable; default: the interface addresses)")
    parser.add_argument("--server", default=None, help="SRV target host, e.g. gw-test.local. (default: derived)")
    return parser.parse_args(argv)


def txt_properties(entries):
    properties = {}
    for entry in entries:
        key, sep, value = entry.partition("=")
        if not key:
            raise SystemExit("zeroconf_advertise: empty TXT key in %r" % entry)
        properties[key] = value if sep else None
    return properties


def main(argv):
    args = parse_args(argv)
    service_type = args.type if args.type.endswith(".") else args.type + "."
    full_name = "%s.%s" % (args.instance, service_type)
    addresses = args.address or args.interface_address
    has_v6 = any(":" in a for a in args.interface_address + addresses)
    has_v4 = any(":" not in a for a in args.interface_address + addresses)
    ip_version = IPVersion.All if (has_v4 and has_v6) else (IPVersion.V6Only if has_v6 else IPVersion.V4Only)
    server = args.server or "clawpair-advertiser-%d.local." % args.port

    info = ServiceInfo(
        service_type,
        full_name,
        port=args.port,
        properties=txt_properties(args.txt),
        server=server,
        parsed_addresses=addresses,
    )

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())

    zc = Zeroconf(interfaces=args.interface_address, ip_version=ip_version)
    try:
        zc.register_service(info)
        print("READY %s" % full_name, flush=True)
        while not stop.wait(0.2):
            pass
        zc.unregister_service(info)
        print("GOODBYE %s" % full_name, flush=True)
    finally:
        zc.close()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(1)
    except Exception as error:  # report, never a traceback storm
        print("zeroconf_advertise: %s: %s" % (type(error).__name__, error), file=sys.stderr, flush=True)
        sys.exit(1)
