#!/usr/bin/python3
"""A small, independent OpenClaw gateway client in Python (python3-websockets, python3-
cryptography): connect, wait for connect.challenge, send a signed connect (v2 payload by
default, as the Swift WebSocket clients do), make one RPC and print its payload as JSON.

It is the reference peer for Tests/Fixtures/openclaw_gateway.py (its own tests use it) and a
baseline for benchmarks (--repeat). Not executable on purpose: bench/run-all runs every
executable in bench/ with the clawpair binary as argument. Run it as
`/usr/bin/python3 bench/py_gateway_client.py --url ws://127.0.0.1:PORT --token-file F`.

Identity: --identity PATH loads an OpenClaw device.json (TS form with PEM keys, or the Swift
form with base64 keys); when PATH does not exist a new identity is written there in TS form
(mode 0600). Without --identity an ephemeral identity is generated. --no-device sends none.

Output (stdout, one JSON document per line):
  success  the RPC payload (with --repeat N, the last one; timings go to stderr)
  failure  {"error": {code, message, details?}, "stage": "connect"|"rpc"|"challenge"}
Exit status: 0 ok; 1 RPC error; 2 usage; 3 transport failure or timeout; 4 connect refused for
auth (details.code AUTH_*); 5 NOT_PAIRED; 6 any other connect refusal (DEVICE_AUTH_*, …).
"""
import argparse
import asyncio
import base64
import hashlib
import json
import os
import ssl
import statistics
import sys
import time
import uuid

import websockets
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


class Failure(Exception):
    def __init__(self, status, stage, error):
        super().__init__(error.get("message", ""))
        self.status, self.stage, self.error = status, stage, error


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def read_secret(path):
    if path is None:
        return None
    with open(path, encoding="utf-8") as f:
        return f.read().strip()


class Identity:
    def __init__(self, private_key):
        self.private_key = private_key
        self.public_raw = private_key.public_key().public_bytes(serialization.Encoding.Raw,
                                                                serialization.PublicFormat.Raw)
        self.device_id = hashlib.sha256(self.public_raw).hexdigest()

    @classmethod
    def load_or_create(cls, path):
        if path is None:
            return cls(Ed25519PrivateKey.generate())
        if not os.path.exists(path):
            identity = cls(Ed25519PrivateKey.generate())
            identity.write_ts(path)
            return identity
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if "privateKeyPem" in data:
            key = serialization.load_pem_private_key(data["privateKeyPem"].encode(), password=None)
        elif "privateKey" in data:
            key = Ed25519PrivateKey.from_private_bytes(base64.b64decode(data["privateKey"]))
        else:
            raise ValueError(f"{path}: neither a TS (privateKeyPem) nor a Swift (privateKey) device.json")
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError(f"{path}: not an Ed25519 key")
        return cls(key)

    def write_ts(self, path):
        public_pem = self.private_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
        private_pem = self.private_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
        text = json.dumps({"version": 1, "deviceId": self.device_id, "publicKeyPem": public_pem,
                           "privateKeyPem": private_pem, "createdAtMs": int(time.time() * 1000)}, indent=2) + "\n"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)

    def sign(self, text):
        return b64url(self.private_key.sign(text.encode()))


def build_connect(args, identity, nonce, challenge_ts, token_cache):
    auth = {}
    shared = read_secret(args.token_file)
    bootstrap = read_secret(args.bootstrap_token_file)
    password = read_secret(args.password_file)
    device_token = read_secret(args.device_token_file)
    cached = (token_cache or {}).get("tokens", {}).get(args.role, {}).get("token")
    if shared:
        auth["token"] = shared
    elif device_token or (cached and not bootstrap and not password):
        auth["token"] = device_token or cached
    elif bootstrap:
        auth["bootstrapToken"] = bootstrap
    elif password:
        auth["password"] = password
    if args.auth_json:
        auth = json.loads(args.auth_json)
    scopes = [s for s in args.scopes.split(",") if s] if args.scopes else []
    client = {"id": args.client_id, "version": "0.0.0-pyclient", "platform": args.platform, "mode": args.client_mode}
    if args.device_family:
        client["deviceFamily"] = args.device_family
    if args.display_name:
        client["displayName"] = args.display_name
    params = {"minProtocol": args.min_protocol, "maxProtocol": args.max_protocol, "client": client,
              "role": args.role, "scopes": scopes}
    if args.role == "node":
        params.update({"caps": args.caps.split(",") if args.caps else [], "commands": [], "permissions": {}})
    if auth:
        params["auth"] = auth
    if identity is not None:
        signed_at = challenge_ts if challenge_ts is not None else int(time.time() * 1000)
        signed_at += args.signed_at_offset_ms
        token = next((auth[k] for k in ("token", "deviceToken", "bootstrapToken") if auth.get(k)), "")
        fields = [identity.device_id, client["id"], client["mode"], args.role, ",".join(scopes),
                  str(signed_at), token, args.nonce_override if args.nonce_override is not None else nonce]
        if args.sign == "v3":
            lower = lambda s: "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in (s or "").strip())
            payload = "|".join(["v3"] + fields + [lower(client["platform"]), lower(client.get("deviceFamily"))])
        else:
            payload = "|".join(["v2"] + fields)
        signature = identity.sign(payload)
        if args.bad_signature:
            raw = bytearray(base64.urlsafe_b64decode(signature + "=="))
            raw[0] ^= 0x01
            signature = b64url(bytes(raw))
        device = {"id": args.device_id_override or identity.device_id, "publicKey": b64url(identity.public_raw),
                  "signature": signature, "signedAt": signed_at, "nonce": nonce}
        if args.nonce_override is not None:
            device["nonce"] = args.nonce_override
            if not args.nonce_override:
                del device["nonce"]
        params["device"] = device
    if args.extra_param:
        params.update(json.loads(args.extra_param))
    return {"type": "req", "id": str(uuid.uuid4()), "method": "connect", "params": params}


def classify(error):
    detail = (error.get("details") or {}).get("code") or ""
    if error.get("code") == "NOT_PAIRED" and detail != "DEVICE_IDENTITY_REQUIRED":
        return 5
    if detail.startswith("AUTH_"):
        return 4
    return 6


async def recv_json(ws, timeout, stage):
    try:
        raw = await asyncio.wait_for(ws.recv(), timeout)
    except asyncio.TimeoutError:
        raise Failure(3, stage, {"code": "TIMEOUT", "message": f"nothing received within {timeout} s"})
    except websockets.ConnectionClosed as e:
        raise Failure(3, stage, {"code": "CLOSED", "message": f"connection closed: {e.code} {e.reason}"})
    try:
        frame = json.loads(raw)
    except (ValueError, TypeError):
        raise Failure(3, stage, {"code": "BAD_FRAME", "message": "non-JSON frame from the gateway"})
    if not isinstance(frame, dict):
        raise Failure(3, stage, {"code": "BAD_FRAME", "message": "frame is not an object"})
    return frame


async def session(args, identity, token_cache):
    context = None
    if args.url.startswith("wss://"):
        context = ssl.create_default_context(cafile=args.cafile)
        if args.insecure:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
    try:
        ws = await asyncio.wait_for(websockets.connect(args.url, ssl=context, compression=None, max_size=args.max_size,
                                                       ping_interval=None, open_timeout=args.timeout,
                                                       close_timeout=1), args.timeout)
    except (OSError, asyncio.TimeoutError, websockets.InvalidHandshake, websockets.InvalidURI) as e:
        raise Failure(3, "connect", {"code": "TRANSPORT", "message": f"{type(e).__name__}: {e}"})
    try:
        timings = {}
        started = time.perf_counter()
        challenge = await recv_json(ws, args.timeout, "challenge")
        if challenge.get("type") != "event" or challenge.get("event") != "connect.challenge":
            raise Failure(3, "challenge", {"code": "NOT_GATEWAY", "message": "first frame is not connect.challenge"})
        payload = challenge.get("payload") or {}
        timings["challenge"] = time.perf_counter() - started
        request = build_connect(args, identity, payload.get("nonce"), payload.get("ts"), token_cache)
        await ws.send(json.dumps(request))
        hello = await recv_json(ws, args.timeout, "connect")
        while hello.get("type") == "event":
            hello = await recv_json(ws, args.timeout, "connect")
        if not hello.get("ok"):
            error = hello.get("error") or {}
            raise Failure(classify(error), "connect", error)
        timings["connect"] = time.perf_counter() - started
        hello_payload = hello["payload"]
        auth = hello_payload.get("auth") or {}
        if args.token_cache and identity is not None and auth.get("deviceToken"):
            cache = {"version": 1, "deviceId": identity.device_id, "tokens": dict((token_cache or {}).get("tokens", {}))}
            for entry in auth.get("deviceTokens") or [{"deviceToken": auth["deviceToken"], "role": auth["role"],
                                                        "scopes": auth.get("scopes", [])}]:
                cache["tokens"][entry["role"]] = {"token": entry["deviceToken"], "role": entry["role"],
                                                  "scopes": entry.get("scopes", []),
                                                  "updatedAtMs": int(time.time() * 1000)}
            fd = os.open(args.token_cache, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(cache, f, indent=2)
        if args.method == "-":
            return hello_payload, timings
        rid = str(uuid.uuid4())
        await ws.send(json.dumps({"type": "req", "id": rid, "method": args.method, "params": json.loads(args.params)}))
        while True:
            frame = await recv_json(ws, args.timeout, "rpc")
            if frame.get("type") == "res" and frame.get("id") == rid:
                break
        timings["rpc"] = time.perf_counter() - started
        if not frame.get("ok"):
            raise Failure(1, "rpc", frame.get("error") or {})
        result = frame.get("payload")
        if args.print_hello:
            result = {"hello": hello_payload, "payload": result}
        return result, timings
    finally:
        try:
            await asyncio.wait_for(ws.close(), 1)
        except Exception:
            pass


async def run(args):
    identity = None if args.no_device else Identity.load_or_create(args.identity)
    token_cache = None
    if args.token_cache and os.path.exists(args.token_cache):
        with open(args.token_cache, encoding="utf-8") as f:
            token_cache = json.load(f)
    samples = []
    result = None
    for _ in range(args.repeat):
        result, timings = await session(args, identity, token_cache)
        samples.append(timings)
    if args.repeat > 1:
        for key in ("challenge", "connect", "rpc"):
            values = [s[key] * 1000 for s in samples if key in s]
            if values:
                print(f"{key}: median {statistics.median(values):.2f} ms, min {min(values):.2f} ms "
                      f"over {len(values)} runs", file=sys.stderr)
    print(json.dumps(result, separators=(",", ":")), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--token-file", help="file holding the shared gateway token")
    parser.add_argument("--password-file")
    parser.add_argument("--bootstrap-token-file")
    parser.add_argument("--device-token-file", help="a device token, sent in auth.token")
    parser.add_argument("--auth-json", help="the auth object verbatim (overrides the files)")
    parser.add_argument("--token-cache", help="device-auth.json-like cache: used when no other credential, updated")
    parser.add_argument("--identity", help="device.json (TS or Swift form); created in TS form if missing")
    parser.add_argument("--no-device", action="store_true")
    parser.add_argument("--method", default="device.pair.list", help="'-' stops after hello-ok and prints it")
    parser.add_argument("--params", default="{}")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--role", default="operator", choices=["operator", "node"])
    parser.add_argument("--scopes", default=None, help="comma-separated; default operator.admin,operator.pairing "
                                                       "for operators, none for nodes")
    parser.add_argument("--client-id", default=None)
    parser.add_argument("--client-mode", default=None)
    parser.add_argument("--platform", default="Linux")
    parser.add_argument("--device-family", default=None)
    parser.add_argument("--display-name", default=None)
    parser.add_argument("--caps", default="")
    parser.add_argument("--min-protocol", type=int, default=3)
    parser.add_argument("--max-protocol", type=int, default=4)
    parser.add_argument("--sign", choices=["v2", "v3"], default="v2")
    parser.add_argument("--bad-signature", action="store_true", help="flip a bit of the signature")
    parser.add_argument("--signed-at-offset-ms", type=int, default=0)
    parser.add_argument("--nonce-override", default=None, help="sign and send this nonce ('' omits it)")
    parser.add_argument("--device-id-override", default=None)
    parser.add_argument("--extra-param", default=None, help="JSON merged into ConnectParams (tests)")
    parser.add_argument("--print-hello", action="store_true")
    parser.add_argument("--timeout", type=float, default=6.0, help="seconds per wait (Swift waits 6 s for the challenge)")
    parser.add_argument("--max-size", type=int, default=25 * 1024 * 1024)
    parser.add_argument("--cafile")
    parser.add_argument("--insecure", action="store_true")
    args = parser.parse_args()
    if args.scopes is None:
        args.scopes = "operator.admin,operator.pairing" if args.role == "operator" else ""
    args.client_id = args.client_id or ("node-host" if args.role == "node" else "cli")
    args.client_mode = args.client_mode or ("node" if args.role == "node" else "cli")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    try:
        asyncio.run(run(args))
    except Failure as failure:
        print(json.dumps({"error": failure.error, "stage": failure.stage}, separators=(",", ":")), flush=True)
        return failure.status
    except websockets.ConnectionClosed as e:
        print(json.dumps({"error": {"code": "CLOSED", "message": f"{e.code} {e.reason}"}, "stage": "rpc"}), flush=True)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
