#!/usr/bin/python3
"""A hostile OpenClaw gateway for clawpair's resource-bound tests (issue #12): just enough of
the WebSocket upgrade (RFC 6455 §4.2) and the gateway handshake (connect.challenge, then a
hello-ok for any connect, without checking signatures or credentials) to reach the code that
handles numbers and traffic chosen by the peer. Standard library only; loopback only.

Command line
    hostile_gateway.py --scenario S [--host 127.0.0.1] [--port 0] [--max-seconds 60]
        [--tick-ms N] [--protocol N] [--flood-at upgrade|challenge|hello]
        [--flood-seconds 30] [--flood-bytes 8589934592] [--hostile-names]
        [--stall-at upgrade|upgraded|hello] [--oversize-at challenge|hello|ping]
        [--oversize-bytes N] [--max-payload N]

Scenarios
    huge-policy   hello-ok with policy.tickIntervalMs --tick-ms (default 2^62), maxPayload 2^62 and
                  maxBufferedBytes 2^63-1; RPCs are answered (device.pair.list with empty lists, or
                  with --hostile-names one pending request whose displayName holds C1 and bidi
                  controls; anything else with {}).
    bad-protocol  hello-ok with protocol --protocol (default 99); RPCs answered as above.
    ping-flood    at --flood-at (after the 101, after connect.challenge, or at the first RPC
                  after hello-ok) stops reading and sends 125-byte pings as fast as the client
                  takes them, until --flood-seconds or --flood-bytes or the client goes away.
    never-read    sends connect.challenge and then neither reads nor writes again.
    huge-message  answers device.pair.list with a 20 MB list (100,000 pending requests).
    event-flood   at the first RPC after hello-ok, sends 1 MB events for --flood-seconds and
                  never answers.
    stall         goes silent (reads on, never writes again) at --stall-at: on the upgrade request
                  (no 101), after the 101 (no connect.challenge), or after a hello-ok with
                  tickIntervalMs 100 (no ticks, no answers).
    oversize      sends one message of exactly --oversize-bytes payload bytes at --oversize-at: a
                  text message in place of connect.challenge, a padded event at the first RPC
                  after a hello-ok announcing maxPayload --max-payload (the RPC is never
                  answered), or a ping (a control frame) right after connect.challenge.

stdout: `ready <port>`, then one JSON object per line: {"log":"connection"},
{"log":"connect","protocol":N}, {"log":"rpc","method":M}, {"log":"flood","bytes":N,"reason":R}.
The process exits on its own after --max-seconds (and on SIGTERM/SIGINT), so a test can never
leave it behind.
"""
import argparse
import asyncio
import base64
import hashlib
import json
import os
import signal
import struct
import sys
import time
import uuid

WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
MAX_HEAD = 16 * 1024
MAX_FRAME = 1 << 20


def log(kind, **fields):
    print(json.dumps({"log": kind, **fields}), flush=True)


def frame(opcode, payload):
    """An unmasked server frame."""
    head = bytes([0x80 | opcode])
    n = len(payload)
    if n < 126:
        head += bytes([n])
    elif n < 65536:
        head += bytes([126]) + struct.pack(">H", n)
    else:
        head += bytes([127]) + struct.pack(">Q", n)
    return head + payload


def text(obj):
    return frame(0x1, json.dumps(obj).encode())


def padded(obj, size):
    """`obj` as JSON with a "pad" member making it exactly `size` bytes (at least its unpadded size)."""
    base = json.dumps({**obj, "pad": ""}).encode()
    return json.dumps({**obj, "pad": "x" * max(0, size - len(base))}).encode()


async def read_frame(reader):
    """One client frame (masked): (opcode, payload); raises on anything odd."""
    b0, b1 = await reader.readexactly(2)
    n = b1 & 0x7F
    if n == 126:
        (n,) = struct.unpack(">H", await reader.readexactly(2))
    elif n == 127:
        (n,) = struct.unpack(">Q", await reader.readexactly(8))
    if n > MAX_FRAME:
        raise ValueError("frame too large")
    mask = await reader.readexactly(4) if b1 & 0x80 else b"\0\0\0\0"
    data = await reader.readexactly(n)
    return b0 & 0x0F, bytes(c ^ mask[i % 4] for i, c in enumerate(data))


class Connection:
    def __init__(self, args, reader, writer):
        self.args = args
        self.reader = reader
        self.writer = writer

    async def run(self):
        log("connection")
        head = await self.reader.readuntil(b"\r\n\r\n")
        if len(head) > MAX_HEAD:
            return
        key = None
        for line in head.decode("latin-1").split("\r\n")[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "sec-websocket-key":
                key = value.strip()
        if not key:
            return
        if self.args.scenario == "stall" and self.args.stall_at == "upgrade":
            return await self.stall()
        accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
        self.writer.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Accept: {accept}\r\n\r\n").encode())
        await self.writer.drain()
        if self.args.scenario == "ping-flood" and self.args.flood_at == "upgrade":
            return await self.flood()
        if self.args.scenario == "stall" and self.args.stall_at == "upgraded":
            return await self.stall()
        if self.args.scenario == "oversize" and self.args.oversize_at == "challenge":
            self.writer.write(frame(0x1, padded({"type": "event", "event": "connect.challenge"}, self.args.oversize_bytes)))
            await self.writer.drain()
            return await self.stall()
        self.writer.write(text({"type": "event", "event": "connect.challenge",
                                "payload": {"nonce": str(uuid.uuid4()), "ts": int(time.time() * 1000)}}))
        await self.writer.drain()
        if self.args.scenario == "ping-flood" and self.args.flood_at == "challenge":
            return await self.flood()
        if self.args.scenario == "oversize" and self.args.oversize_at == "ping":
            self.writer.write(frame(0x9, b"p" * self.args.oversize_bytes))
            await self.writer.drain()
            return await self.stall()
        if self.args.scenario == "never-read":
            await asyncio.sleep(self.args.max_seconds)  # the scenario: a peer that stays silent
            return
        while True:
            opcode, payload = await read_frame(self.reader)
            if opcode == 0x8:
                self.writer.write(frame(0x8, payload[:2]))
                await self.writer.drain()
                return
            if opcode != 0x1:
                continue
            request = json.loads(payload)
            method = request.get("method")
            if method == "connect":
                await self.answer_connect(request)
                if self.args.scenario == "stall" and self.args.stall_at == "hello":
                    return await self.stall()
                continue
            log("rpc", method=method)
            if self.args.scenario == "ping-flood" and self.args.flood_at == "hello":
                return await self.flood()
            if self.args.scenario == "event-flood":
                return await self.event_flood()
            result = {}
            if method == "device.pair.list":
                # A display name with a C1 CSI, a bidi override and an isolate: --json must escape them.
                hostile = {"requestId": "r1", "deviceId": "d1", "displayName": "Evil\u009b31m \u202egnp.exe\u2066", "ts": 1}
                result = {"pending": [hostile] if self.args.hostile_names else [], "paired": []}
                if self.args.scenario == "huge-message":
                    result["pending"] = [{"requestId": "r%d" % i, "deviceId": "d" * 64, "displayName": "x" * 100}
                                         for i in range(100_000)]
            if self.args.scenario == "oversize" and self.args.oversize_at == "hello":
                self.writer.write(frame(0x1, padded({"type": "event", "event": "device.pair.requested"},
                                                    self.args.oversize_bytes)))
                await self.writer.drain()
                return await self.stall()
            self.writer.write(text({"type": "res", "id": request.get("id"), "ok": True, "payload": result}))
            await self.writer.drain()

    async def answer_connect(self, request):
        params = request.get("params") or {}
        protocol = self.args.protocol if self.args.scenario == "bad-protocol" else params.get("maxProtocol", 4)
        policy = {"maxPayload": 25 * 1024 * 1024, "maxBufferedBytes": 50 * 1024 * 1024, "tickIntervalMs": 15000}
        if self.args.scenario == "huge-policy":
            policy = {"maxPayload": 2 ** 62, "maxBufferedBytes": 2 ** 63 - 1, "tickIntervalMs": self.args.tick_ms}
        if self.args.scenario == "stall":
            policy["tickIntervalMs"] = 100
        if self.args.max_payload is not None:
            policy["maxPayload"] = self.args.max_payload
        role = params.get("role", "operator")
        hello = {"type": "hello-ok", "protocol": protocol, "server": {"version": "2026.11.1", "connId": "hostile"},
                 "features": {"methods": ["device.pair.list"], "events": ["tick"]}, "snapshot": {},
                 "auth": {"role": role, "scopes": params.get("scopes", []), "issuedAtMs": 2 ** 63 - 1},
                 "policy": policy}
        log("connect", protocol=protocol)
        self.writer.write(text({"type": "res", "id": request.get("id"), "ok": True, "payload": hello}))
        await self.writer.drain()

    async def stall(self):
        """Silence: reads (and drops) whatever the client sends, never writes, until it goes away."""
        while await self.reader.read(65536):
            pass

    async def event_flood(self):
        """Large events, as fast as the client reads them; the RPC is never answered."""
        event = text({"type": "event", "event": "device.pair.requested", "payload": {"blob": "x" * (1 << 20)}})
        sent, until = 0, time.monotonic() + self.args.flood_seconds
        try:
            while time.monotonic() < until:
                self.writer.write(event)
                await asyncio.wait_for(self.writer.drain(), max(0.01, until - time.monotonic()))
                sent += len(event)
        except (asyncio.TimeoutError, ConnectionError, OSError):
            pass
        log("flood", bytes=sent, reason="events")

    async def flood(self):
        """Pings, never reading: each write waits until the client took the previous one."""
        ping = frame(0x9, os.urandom(125))
        chunk = ping * (1024 * 1024 // len(ping))
        sent, reason = 0, "time"
        until = time.monotonic() + self.args.flood_seconds
        try:
            while time.monotonic() < until:
                if sent >= self.args.flood_bytes:
                    reason = "bytes"
                    break
                self.writer.write(chunk)
                await asyncio.wait_for(self.writer.drain(), max(0.01, until - time.monotonic()))
                sent += len(chunk)
        except asyncio.TimeoutError:
            reason = "stalled"
        except (ConnectionError, OSError):
            reason = "client-gone"
        log("flood", bytes=sent, reason=reason)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenario", required=True, choices=["huge-policy", "bad-protocol", "ping-flood", "never-read",
                                                            "huge-message", "event-flood", "stall", "oversize"])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--max-seconds", type=float, default=60)
    parser.add_argument("--tick-ms", type=int, default=2 ** 62)
    parser.add_argument("--protocol", type=int, default=99)
    parser.add_argument("--flood-at", choices=["upgrade", "challenge", "hello"], default="challenge")
    parser.add_argument("--flood-seconds", type=float, default=30)
    parser.add_argument("--flood-bytes", type=int, default=8 << 30)
    parser.add_argument("--hostile-names", action="store_true")
    parser.add_argument("--stall-at", choices=["upgrade", "upgraded", "hello"], default="hello")
    parser.add_argument("--oversize-at", choices=["challenge", "hello", "ping"], default="hello")
    parser.add_argument("--oversize-bytes", type=int, default=70000)
    parser.add_argument("--max-payload", type=int)
    args = parser.parse_args()

    async def handle(reader, writer):
        try:
            await Connection(args, reader, writer).run()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, OSError, ValueError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, args.host, args.port, limit=MAX_HEAD)
    port = server.sockets[0].getsockname()[1]
    print(f"ready {port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await asyncio.wait_for(stop.wait(), args.max_seconds)
    except asyncio.TimeoutError:
        pass
    server.close()
    sys.exit(0)


if __name__ == "__main__":
    asyncio.run(main())
