#!/usr/bin/python3
"""A stand-in OpenClaw gateway (and misbehaving servers) for clawpair's probe and transport tests.

It is an independent implementation: the WebSocket side is python3-websockets (Debian), TLS is
Python's ssl module. Modes:

  gateway       WebSocket; sends the connect.challenge event at once, like a real gateway
                (`{"type":"event","event":"connect.challenge","payload":{"nonce":…,"ts":…}}`)
  silent        WebSocket; accepts the upgrade and never sends a frame
  wrong-event   WebSocket; sends a `tick` event first, not connect.challenge
  http          plain HTTP/1.1 server: answers every request with 200 and a small page
  stall         accepts TCP (and TLS, if configured) and then never reads or writes
  close         accepts TCP and closes it at once

--cert/--key wrap every mode in TLS (TLS 1.3 minimum, as the gateway's auto-generated TLS is).
Listens on every --host (default 127.0.0.1) at --port (0: pick one) and prints `ready <port>`
on stdout once listening. Runs until killed.
"""
import argparse
import asyncio
import json
import ssl
import sys
import time
import uuid


def challenge():
    return json.dumps({"type": "event", "event": "connect.challenge",
                       "payload": {"nonce": str(uuid.uuid4()), "ts": int(time.time() * 1000)}})


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="gateway",
                        choices=["gateway", "silent", "wrong-event", "http", "stall", "close"])
    parser.add_argument("--host", action="append")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    args = parser.parse_args()
    hosts = args.host or ["127.0.0.1"]

    context = None
    if args.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_3
        context.load_cert_chain(args.cert, args.key)

    held = []  # stalled connections, kept open

    if args.mode in ("gateway", "silent", "wrong-event"):
        import websockets

        async def handler(websocket, path=None):
            if args.mode == "gateway":
                await websocket.send(challenge())
            elif args.mode == "wrong-event":
                await websocket.send(json.dumps({"type": "event", "event": "tick", "payload": {"ts": 1}}))
            try:
                async for _ in websocket:
                    pass
            except websockets.ConnectionClosed:
                pass

        server = await websockets.serve(handler, hosts, args.port, ssl=context, compression=None)
    else:
        async def raw(reader, writer):
            if args.mode == "close":
                writer.close()
                return
            if args.mode == "stall":
                held.append(writer)
                return
            try:
                head = await reader.read(4096)
                if head[:1].isalpha():
                    while b"\r\n\r\n" not in head and len(head) < 65536:
                        more = await reader.read(4096)
                        if not more:
                            break
                        head += more
            except ConnectionError:
                writer.close()
                return
            if head[:1].isalpha():
                body = b"<html><body>not a gateway</body></html>\n"
                status = b"200 OK"
            else:  # not HTTP at all (e.g. a TLS ClientHello): answer as Node's HTTP server does
                body = b""
                status = b"400 Bad Request"
            writer.write(b"HTTP/1.1 %s\r\nContent-Type: text/html\r\nContent-Length: %d\r\n"
                         b"Connection: close\r\n\r\n%s" % (status, len(body), body))
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(raw, hosts, args.port, ssl=context)

    port = server.sockets[0].getsockname()[1]
    print(f"ready {port}", flush=True)
    await asyncio.Future()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
