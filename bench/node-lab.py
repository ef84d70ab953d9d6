#!/usr/bin/python3
"""bench/node's network-namespace cases (run by bench/node as root; stdlib only).

Two lab hosts on one veth link, as the tests' NetworkLab builds them: G runs the stand-in gateway
(Tests/Fixtures/openclaw_gateway.py, its state in a file so a restart keeps the pairing) and its
beacon (Tests/Fixtures/zeroconf_advertise.py, python-zeroconf: the gateway's own mDNS
advertisement); N runs a private dbus-daemon, a real avahi-daemon and `clawpair node run --json`,
paired with the gateway through a node setup code and an operator approval.

  back online, beacon visible   the gateway and its beacon stop for D s (BENCH_DOWNTIMES); the
                                gateway starts again, then its beacon (as a gateway advertises
                                itself once it listens); from the gateway's "ready" to the
                                node's "connected". Target: <= 1 s. Then the same with the
                                beacon kept up throughout (a separate advertiser).
  gateway moved                 the gateway and its beacon stop, G's address changes (same /24),
                                the gateway starts at the new address with its state, then its
                                beacon (same instance name, new address); from the beacon's
                                READY (advertised) to the node's "connected" via the new URL.
                                Target: <= 2 s.

Nothing leaves the machine: the namespaces have only the veth link and loopback; everything is
stopped and the namespaces deleted at the end.
Usage: bench/node-lab.py CLAWPAIR WORKDIR   (BENCH_DOWNTIMES="2 20 60", BENCH_MOVES=3)
"""
import json, os, re, signal, subprocess, sys, threading, time

bin, work = sys.argv[1], sys.argv[2]
root = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))
fixtures = os.path.join(root, "Tests", "Fixtures")
downtimes = [float(x) for x in os.environ.get("BENCH_DOWNTIMES", "2 20 60").split()]
moves = int(os.environ.get("BENCH_MOVES", "3"))
tag = "%d" % os.getpid()
G, N = "cpb-g-" + tag, "cpb-n-" + tag
net = "10.253.%d" % (os.getpid() % 200)
gw_ip, node_ip = net + ".1", net + ".2"
port = 18789
token = os.urandom(18).hex()
procs = []


def sh(*args):
    subprocess.run(list(args), check=True, stdout=subprocess.DEVNULL)


def spawn(ns, args, env=None, stdout=subprocess.PIPE):
    p = subprocess.Popen(["ip", "netns", "exec", ns] + args, env=env, stdout=stdout, stderr=subprocess.DEVNULL, text=True)
    procs.append(p)
    return p


def stop(p, grace=5):
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(grace)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def wait_line(p, pattern, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = p.stdout.readline()
        if not line:
            break
        if re.search(pattern, line):
            return line, time.monotonic()
    raise SystemExit("bench/node-lab: no line matching %r" % pattern)


def setup():
    sh("ip", "netns", "add", G)
    sh("ip", "netns", "add", N)
    for ns in (G, N):
        sh("ip", "-n", ns, "link", "set", "lo", "up")
    sh("ip", "-n", G, "link", "add", "veth0", "type", "veth", "peer", "name", "veth0", "netns", N)
    for ns, ip in ((G, gw_ip), (N, node_ip)):
        sh("ip", "-n", ns, "addr", "add", ip + "/24", "dev", "veth0")
        sh("ip", "-n", ns, "link", "set", "veth0", "multicast", "on", "up")
        sh("ip", "-n", ns, "route", "add", "224.0.0.0/4", "dev", "veth0")


def teardown():
    for p in reversed(procs):
        stop(p, 3)
    for ns in (G, N):
        subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)


def start_bus_and_avahi():
    sock = work + "/bus.sock"
    conf = work + "/bus.conf"
    with open(conf, "w") as f:
        f.write('<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" '
                '"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd"><busconfig><type>system</type>'
                '<listen>unix:path=%s</listen><auth>EXTERNAL</auth><policy context="default"><allow user="root"/>'
                '<allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy></busconfig>\n' % sock)
    bus = spawn(N, ["dbus-daemon", "--config-file=" + conf, "--nofork", "--nopidfile", "--print-address=1"])
    address = wait_line(bus, r"unix:path=")[0].strip()
    run_dir = work + "/avahi.run"
    os.makedirs(run_dir, exist_ok=True)
    os.makedirs("/run/avahi-daemon", exist_ok=True)
    avahi_conf = work + "/avahi.conf"
    with open(avahi_conf, "w") as f:
        f.write("[server]\nhost-name=%s\ndomain-name=local\nuse-ipv4=yes\nuse-ipv6=no\nallow-interfaces=veth0\n"
                "enable-dbus=yes\nratelimit-interval-usec=1000000\nratelimit-burst=1000\n[wide-area]\nenable-wide-area=no\n"
                "[publish]\npublish-addresses=yes\npublish-hinfo=no\npublish-workstation=no\n[reflector]\n"
                "enable-reflector=no\n[rlimits]\n" % N)
    script = 'mount --bind "$1" /run/avahi-daemon && exec avahi-daemon --no-drop-root --no-chroot --no-rlimits -f "$2"'
    avahi = spawn(N, ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", run_dir, avahi_conf],
                  env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address), stdout=None)
    # avahi-daemon logs to syslog/stderr; wait until it answers on the bus.
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        r = subprocess.run(["ip", "netns", "exec", N, "avahi-browse", "-at", "-p"], capture_output=True, text=True,
                           env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address))
        if r.returncode == 0:
            return address
        time.sleep(0.2)
    raise SystemExit("bench/node-lab: avahi-daemon did not come up")


def start_gateway(ip):
    p = spawn(G, [sys.executable, os.path.join(fixtures, "openclaw_gateway.py"), "--host", ip, "--host", "127.0.0.1",
                  "--port", str(port), "--token", token, "--state-file", work + "/lab-gateway-state.json",
                  "--public-url", "ws://%s:%d" % (ip, port)])
    wait_line(p, r"^ready \d+")
    at = time.time()
    threading.Thread(target=lambda: [None for _ in p.stdout], daemon=True).start()  # keep its pipe drained
    return p, at


def advertise(ip):
    p = spawn(G, [sys.executable, os.path.join(fixtures, "zeroconf_advertise.py"), "--instance", "Bench Gateway",
                  "--port", str(port), "--interface-address", ip, "--server", "bench-gateway.local.",
                  "--txt", "role=gateway", "--txt", "gatewayPort=%d" % port, "--txt", "transport=gateway"])
    wait_line(p, r"^READY ")
    return p, time.time()


def unadvertise(p):
    p.send_signal(signal.SIGTERM)
    wait_line(p, r"^GOODBYE ", 10)
    p.wait(10)


def clawpair(ns, args, env, stdin=None):
    return subprocess.run(["ip", "netns", "exec", ns, bin] + args, env=env, input=stdin, capture_output=True, text=True,
                          timeout=60)


def main():
    setup()
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("OPENCLAW_", "CLAWPAIR_"))}
    with open(work + "/lab-token", "w") as f:
        f.write(token + "\n")
    os.chmod(work + "/lab-token", 0o600)
    bus = start_bus_and_avahi()
    op_env = dict(clean, CLAWPAIR_HOME=work + "/lab-op")
    node_env = dict(clean, CLAWPAIR_HOME=work + "/lab-node", DBUS_SYSTEM_BUS_ADDRESS=bus)
    op = ["--url", "ws://127.0.0.1:%d" % port, "--token-file", work + "/lab-token"]
    gateway, _ = start_gateway(gw_ip)
    beacon, _ = advertise(gw_ip)
    code = clawpair(G, ["qr", "--node", "--setup-code-only", "--public-url", "ws://%s:%d" % (gw_ip, port)] + op, op_env)
    if code.returncode != 0:
        raise SystemExit("bench/node-lab: qr failed: " + code.stderr)
    pairing = subprocess.Popen(["ip", "netns", "exec", N, bin, "pair", "-", "--name", "bench-lab-node"], env=node_env,
                               stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    pairing.stdin.write(code.stdout)
    pairing.stdin.close()
    deadline = time.monotonic() + 30
    while pairing.poll() is None and time.monotonic() < deadline:
        clawpair(G, ["devices", "approve", "--latest", "--yes"] + op, op_env)
        time.sleep(0.5)
    if pairing.wait(30) != 0:
        raise SystemExit("bench/node-lab: pair failed")

    node = spawn(N, [bin, "node", "run", "--json"], env=node_env)

    def connected(url_part, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = node.stdout.readline()
            if not line:
                break
            event = json.loads(line)
            if event.get("event") == "connected" and url_part in event.get("url", ""):
                return event["ts"] / 1000.0  # the node's own wall-clock time of the state change
        raise SystemExit("bench/node-lab: the node did not come back")

    connected(gw_ip, 30)
    print("back online after a gateway restart, beacon visible (network lab, avahi-daemon): target <= 1 s")
    current = gw_ip
    for downtime in downtimes:
        unadvertise(beacon)
        stop(gateway)
        time.sleep(downtime)
        gateway, ready = start_gateway(current)
        beacon, _ = advertise(current)
        back = connected(current, downtime + 120)
        print("  down %5.1f s: clawpair %6.2f s after the gateway answered again" % (downtime, back - ready))

    print("back online after a gateway restart, beacon kept up throughout (a separate advertiser, e.g. clawpair advertise)")
    for downtime in downtimes:
        stop(gateway)
        time.sleep(downtime)
        gateway, ready = start_gateway(current)
        back = connected(current, downtime + 120)
        print("  down %5.1f s: clawpair %6.2f s after the gateway answered again" % (downtime, back - ready))

    print("gateway moved to another address on the LAN (same beacon, new IP): target <= 2 s after it is advertised")
    for i in range(moves):
        moved = "%s.%d" % (net, 50 + i)
        unadvertise(beacon)
        stop(gateway)
        sh("ip", "-n", G, "addr", "del", current + "/24", "dev", "veth0")
        sh("ip", "-n", G, "addr", "add", moved + "/24", "dev", "veth0")
        current = moved
        gateway, ready = start_gateway(current)
        beacon, advertised = advertise(current)
        back = connected(current, 120)
        print("  move %d: clawpair %6.2f s after the new address was advertised (%.2f s after the gateway listened)" %
              (i + 1, back - advertised, back - ready))


try:
    main()
finally:
    teardown()
