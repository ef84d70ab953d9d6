#!/usr/bin/python3
"""Browse one DNS-SD service type with python-zeroconf, as an independent peer for clawpair's tests.

Run with Debian's /usr/bin/python3 (it has python3-zeroconf), inside a test network namespace:

    zeroconf_browse.py --type _openclaw-gw._tcp.local. --interface-address 10.250.0.2

Protocol with the harness (one line each, flushed, on stdout):
    READY <type>                  once the browser is running
    ADD <json>                    a service appeared and was resolved
    UPDATE <json>                 a service's records changed (re-resolved)
    REMOVE <json>                 a service went away ({"name": ..., "type": ...} only)
where <json> is {"name", "type", "server", "port", "addresses", "txt"} (TXT values as UTF-8 text,
null for a boolean attribute). Stops on SIGTERM/SIGINT and prints STOPPED.
"""

import argparse
import json
import signal
import sys
import threading

from zeroconf import IPVersion, ServiceBrowser, ServiceStateChange, Zeroconf


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--type", default="_openclaw-gw._tcp.local.", help="service type, ending in .local.")
    parser.add_argument("--interface-address", action="append", default=[], required=True, metavar="IP",
                        help="bind mDNS to the interface holding this IPv4 or IPv6 address (repeatable)")
    parser.add_argument("--resolve-timeout-ms", type=int, default=3000, help="per-service resolve timeout")
    return parser.parse_args(argv)


def emit(word, payload):
    print("%s %s" % (word, json.dumps(payload, sort_keys=True)), flush=True)


def describe(info, service_type, name):
    txt = {}
    for key, value in (info.properties or {}).items():
        txt[key.decode("utf-8", "replace")] = None if value is None else value.decode("utf-8", "replace")
    return {
        "name": name,
        "type": service_type,
        "server": info.server,
        "port": info.port,
        "addresses": info.parsed_addresses(),
        "txt": txt,
    }


def main(argv):
    args = parse_args(argv)
    service_type = args.type if args.type.endswith(".") else args.type + "."
    has_v6 = any(":" in a for a in args.interface_address)
    has_v4 = any(":" not in a for a in args.interface_address)
    ip_version = IPVersion.All if (has_v4 and has_v6) else (IPVersion.V6Only if has_v6 else IPVersion.V4Only)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())

    def on_change(zeroconf, service_type, name, state_change):
        if state_change is ServiceStateChange.Removed:
            emit("REMOVE", {"name": name, "type": service_type})
            return
        info = zeroconf.get_service_info(service_type, name, timeout=args.resolve_timeout_ms)
        if info is None:
            print("zeroconf_browse: could not resolve %s" % name, file=sys.stderr, flush=True)
            return
        emit("ADD" if state_change is ServiceStateChange.Added else "UPDATE", describe(info, service_type, name))

    zc = Zeroconf(interfaces=args.interface_address, ip_version=ip_version)
    try:
        browser = ServiceBrowser(zc, service_type, handlers=[on_change])
        print("READY %s" % service_type, flush=True)
        while not stop.wait(0.2):
            pass
        browser.cancel()
        print("STOPPED", flush=True)
    finally:
        zc.close()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(1)
    except Exception as error:  # report, never a traceback storm
        print("zeroconf_browse: %s: %s" % (type(error).__name__, error), file=sys.stderr, flush=True)
        sys.exit(1)
