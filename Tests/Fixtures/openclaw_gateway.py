#!/usr/bin/python3
"""A strict stand-in OpenClaw gateway for clawpair's tests: the server side of the connect
handshake and the pairing RPCs, written from shared/spec (identity-and-handshake.md,
pairing-rpcs.md, setup-codes.md). Debian's python3-websockets (10.x legacy server API) and
python3-cryptography (Ed25519); nothing else outside the standard library.

Command line
    openclaw_gateway.py [--host H]... [--port N] [--cert C --key K]
        [--token T | --password P] [--public-url URL] [--generation g3|g4]
        [--protocol 4] [--tick-ms 15000] [--max-payload 26214400] [--version 2026.11.1]
        [--local-auto-approve yes|no] [--fault KIND] [--fault-delay-ms 3000]
        [--state-file F] [--seed-node-request NAME]...
        [--pending-ttl-ms 300000] [--bootstrap-ttl-ms 600000]      (test knobs, not upstream)
        [--refusal-close-delay-ms 0] [--approve-returns-token]     (test knobs, not upstream)
        [--seed-device-request NAME]...                            (test knob, not upstream)
        [--auth-refusal-style joyhousebot]                         (test knob, not upstream)
        [--auth-mode trusted-proxy]                                (test knob, see below)
        [--starting-connects N]  (test knob: the first N connects meet a gateway still starting:
                                   UNAVAILABLE startup-sidecars, retryAfterMs 200)
        [--connect-refusal CODE]   (test knob: refuse every connect with a 2026.10 detail code)
        [--without-method M]...    (test knob: a gateway that lacks method M, as an older one)
        [--node-host-stats JSON]   (test knob: node.list hostStats of every paired node, g4)

stdout: `ready <port>` once listening, then one JSON object per line:
    connect-ok      {deviceId, role, clientId, auth: token|password|bootstrap|device-token, scopes}
    connect-refused {code, detailCode, message}
    connect-closed  {clientCloseCode}   (after a refusal: the Close code the client sent, null for none)
    pending         {requestId, deviceId, role, scopes, reason}
    waiting         {requestId, deviceId}       (g4: a refused connect held for device.pair.resolved)
    join            {ok}                        (g4: a GET of /j/<shortcode>)
    resolution-sent {requestId, deviceId, decision}
    superseded      {requestId, deviceId, by}
    approved        {requestId, deviceId, silent}
    rejected        {requestId, deviceId}
    removed         {deviceId}
    rpc             {method, ok, code?}
    setup-code      {setupCode, setupId?, access}      (the only line that carries a secret)
    node-pending / node-approved / node-rejected        {requestId, nodeId}
    node-renamed    {nodeId}
    session-closed  {code, reason, deviceId}   (a connection that got hello-ok ended: its close code)
Token values, passwords and bootstrap tokens are never printed, except inside the setup code.
SIGTERM/SIGINT: a `shutdown` event to every client, close 1012, exit 0.

Upstream facts this follows (openclaw/openclaw; the spec cites the same files):
- Handshake failures are `res ok:false` then close 1008. Device-proof failures use top-level
  code INVALID_REQUEST with details {code: DEVICE_AUTH_*, reason} (connect-device-proof.ts);
  the checks run in the order id, signedAt skew (120 s), nonce present, nonce equal, signature
  (v3 then v2), key. Deviation: a key that does not parse is reported as
  DEVICE_AUTH_PUBLIC_KEY_INVALID before the id check (upstream's id derivation fails first and
  says DEVICE_AUTH_DEVICE_ID_MISMATCH); the spec and the toolkit want the precise code.
- Shared-secret failures are INVALID_REQUEST "unauthorized: gateway token mismatch (…)" with
  details {code: AUTH_TOKEN_MISMATCH | AUTH_TOKEN_MISSING | AUTH_PASSWORD_MISMATCH |
  AUTH_PASSWORD_MISSING | AUTH_BOOTSTRAP_TOKEN_INVALID | AUTH_DEVICE_TOKEN_MISMATCH |
  AUTH_SCOPE_MISMATCH, authReason, canRetryWithDeviceToken, recommendedNextStep}
  (connect-error-details.ts, auth-messages.ts, handshake-auth-helpers.ts). A wrong shared
  token with a device identity falls back to checking it as that device's token, and still
  fails as token_mismatch (auth-context.ts).
- A valid shared token does NOT pair a device: a connect with a device identity that is not
  paired always goes through requirePairing("not-paired") (connect-device-pairing.ts). It is
  approved silently only when the pairing locality is local: a direct loopback peer, or a
  loopback peer that proved the shared token/password (handshake-auth-helpers.ts,
  shouldAllowSilentLocalPairing). Here: a loopback peer is local; `--local-auto-approve no`
  turns that off so loopback tests can exercise the approval flow. Scope upgrades are never
  silent; an already-paired non-operator device (re-key, upgrade) is never silent.
- A device-less connect is accepted only for role operator with a valid shared secret; its
  scopes are cleared unless the peer is loopback. A device-less node gets NOT_PAIRED
  DEVICE_IDENTITY_REQUIRED.
- The pairing refusal is NOT_PAIRED "pairing required: <requirement>" with details
  {code: PAIRING_REQUIRED, reason, requestId, remediationHint, deviceId, requestedRole,
  requestedScopes, approvedRoles?, approvedScopes?}; close reason
  "pairing required: <requirement> (requestId: <id>)". Nodes (role node) also get
  recommendedNextStep "wait_then_retry", retryable true, pauseReconnect false (upstream sets
  these for bootstrap nodes; the spec for every waiting node).
- The mobile setup-code path (§10) approves silently with the profile's roles and hands off
  an operator token in hello-ok auth.deviceTokens.
- Without operator.admin (devices.ts, device-management-authz.ts): a session authenticated by
  its device token sees and manages its own entries only; nobody approves a node-role request,
  rotates/revokes a non-operator token or approves scopes beyond their own; an unknown requestId
  then reads "device pairing approval denied" (with admin: "unknown requestId"). Missing method
  scope: INVALID_REQUEST "missing scope: <scope>".
- device.pair.setupCode: G3 payload {url, urls?, bootstrapToken}; G4 payload adds
  expiresAtMs (and tlsFingerprint for a local TLS bind), the result adds setupId and
  expiresAtMs, FULL is downgraded to LIMITED when a URL is plaintext and not loopback
  (accessDowngraded: true). urlSource: "request.publicUrl", "plugins.entries.device-pair.
  config.publicUrl" (--public-url), else "gateway.bind=loopback" / "gateway.bind=custom".
- The FULL profile's operator handoff token carries admin plus the handoff set (purpose
  mobile-full); LIMITED carries the handoff set (G4 adds operator.questions).
- node.list needs operator.read upstream; here operator.read, .write, .pairing or .admin.
- The signed token field is the first non-empty of auth.token, auth.deviceToken,
  auth.bootstrapToken (spec vectors; upstream's `??` would keep an empty auth.token).

Generations (--generation): g4 is current upstream (2026.7+), g3 the older behaviour.
- g4: to an operator that sent the client cap device-pairing-wait, the pairing refusal carries
  waitForResolution: true and the socket is held for device.pair.resolved (decision approved,
  rejected, expired or superseded; see "waiting for resolution" below); every other client, and
  g3, has it closed at once (1008) and connects again.
- g4: two-step node approval (see "two-step node approval" below); node.pair.request and
  node.pair.verify are gone (unknown method). g3 keeps them and has no command-surface step.
  node.list shows a paired node whose surface request waits as pending-approval (or
  pending-reapproval when an earlier surface was approved).

Nodes online (`upstream-2026-10.md` §2.4, §2.7):
- node.invoke (operator, operator.write/.admin) {nodeId, command, params?, timeoutMs?,
  idempotencyKey (required)}: the node must be connected and have declared the command, else
  UNAVAILABLE; the gateway sends it event node.invoke.request {id, nodeId, command, paramsJSON?,
  timeoutMs?, idempotencyKey} (with --invoke-params-object, `params` as an object instead) and
  answers with what its node.invoke.result carried: {ok: true, nodeId, command, payloadJSON?}
  or the node's error {code, message}; TIMEOUT after timeoutMs (default 30 s).
- node.invoke.result (role node) {id, nodeId, ok, payload?, payloadJSON?, error?} → {ok: true};
  node.event (role node) {event, payload? | payloadJSON?} → {ok, event, handled: true, reason}
  (`persisted` for node.presence.alive, `updated` for node.host.stats), or {ok: true} only with
  --node-event-ok-only. Each is logged (`node-invoke-result`, `node-event` with the payload).
- --send-invoke JSON (repeatable): after a node's connect, sends that raw node.invoke.request
  payload (hostile-payload tests); results are logged.

Not modelled: auth rate limiting, trusted CIDRs and proxies, Control UI rules, a second route
in setup codes (`urls`), the join route's rate limit, the SQLite store. Pre-connect frames over
64 KiB close with 1009, later ones over policy.maxPayload likewise; a connect that does not
arrive within 15 s closes with 1008; `cancel` frames are ignored.
"""
import argparse
import asyncio
import base64
import hashlib
import hmac
import http
import ipaddress
import json
import os
import re
import secrets
import signal
import ssl
import subprocess
import sys
import time
import urllib.parse
import uuid

import websockets
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

PRE_CONNECT_MAX_FRAME = 64 * 1024
HANDSHAKE_TIMEOUT_S = 15.0
SIGNATURE_SKEW_MS = 120_000
MAX_QR_DATA_URL = 16_384
SPKI_PREFIX = bytes.fromhex("302a300506032b6570032100")

CLIENT_IDS = {
    "webchat-ui", "openclaw-control-ui", "openclaw-browser-copilot", "openclaw-tui", "webchat",
    "cli", "gateway-client", "openclaw-macos", "openclaw-linux", "openclaw-ios",
    "openclaw-watchos", "openclaw-android", "node-host", "openclaw-worker", "test",
    "fingerprint", "openclaw-probe",
}
CLIENT_MODES = {"webchat", "cli", "ui", "backend", "node", "worker", "probe", "test"}

FRAME_REQ_KEYS = {"type", "id", "method", "params"}
CONNECT_KEYS = {"minProtocol", "maxProtocol", "client", "caps", "commands", "permissions",
                "pathEnv", "role", "scopes", "device", "auth", "locale", "userAgent"}
CLIENT_KEYS = {"id", "displayName", "version", "platform", "deviceFamily", "modelIdentifier",
               "mode", "instanceId", "buildId", "timeZone"}
DEVICE_KEYS = {"id", "publicKey", "signature", "signedAt", "nonce"}
AUTH_KEYS = {"token", "bootstrapToken", "deviceToken", "password", "approvalRuntimeToken",
             "agentRuntimeIdentityToken"}

HANDOFF_G3 = ["operator.approvals", "operator.read", "operator.talk.secrets", "operator.write"]
HANDOFF_G4 = sorted(HANDOFF_G3 + ["operator.questions"])

PAIRING_REASONS = {
    "not-paired": ("device is not approved yet",
                   "Approve this device from the pending pairing requests."),
    "role-upgrade": ("device is asking for a higher role than currently approved",
                     "Review the requested role upgrade, then approve the pending request."),
    "scope-upgrade": ("device is asking for more scopes than currently approved",
                      "Review the requested scopes, then approve the pending upgrade."),
    "metadata-upgrade": ("device identity changed and must be re-approved",
                         "Review the refreshed device details, then approve the pending request."),
}

AUTH_DETAIL_CODES = {
    "token_missing": "AUTH_TOKEN_MISSING",
    "token_mismatch": "AUTH_TOKEN_MISMATCH",
    "password_missing": "AUTH_PASSWORD_MISSING",
    "password_mismatch": "AUTH_PASSWORD_MISMATCH",
    "bootstrap_token_invalid": "AUTH_BOOTSTRAP_TOKEN_INVALID",
    "device_token_mismatch": "AUTH_DEVICE_TOKEN_MISMATCH",
    "scope_mismatch": "AUTH_SCOPE_MISMATCH",
}
AUTH_NEXT_STEP = {
    "token_missing": "update_auth_configuration",
    "password_missing": "update_auth_configuration",
    "token_mismatch": "update_auth_credentials",
    "password_mismatch": "update_auth_credentials",
    "device_token_mismatch": "update_auth_credentials",
    "scope_mismatch": "review_auth_configuration",
}

DEVICE_METHODS = ["device.pair.list", "device.pair.approve", "device.pair.reject",
                  "device.pair.remove", "device.pair.rename", "device.token.rotate",
                  "device.token.revoke"]
NODE_METHODS = ["node.list", "node.describe", "node.pair.list", "node.pair.approve", "node.pair.reject",
                "node.pair.request", "node.pair.remove", "node.pair.verify", "node.rename",
                "node.invoke", "node.invoke.result", "node.event"]
# --connect-refusal: 2026.10 detail codes (connect-error-details.ts) and the stand-in's messages.
CONNECT_REFUSALS = {
    "OPERATOR_ACCESS_DENIED": "operator access denied",
    "AUTH_IDENTITY_HEADER_REQUIRED": "unauthorized: trusted proxy identity header required",
    "AUTH_VERIFIED_USER_REQUIRED": "unauthorized: verified user required",
    "AUTHENTICATED_PROFILE_UNAVAILABLE": "authenticated profile unavailable",
    "AUTH_RATE_LIMITED": "unauthorized: too many failed authentication attempts",
    "AUTH_TOKEN_NOT_CONFIGURED": "unauthorized: gateway token not configured",
}
# The step upstream's gateway recommends for them (resolveUnauthorizedHandshakeContext: rate
# limited -> wait_then_retry; a credential missing or not configured -> update_auth_configuration).
CONNECT_REFUSAL_STEPS = {"AUTH_RATE_LIMITED": "wait_then_retry", "AUTH_TOKEN_NOT_CONFIGURED": "update_auth_configuration"}
# Removed in 2026.7 (g4): a node is approved by device pairing, then its command surface.
G3_ONLY_NODE_METHODS = ["node.pair.request", "node.pair.verify"]


def now_ms():
    return int(time.time() * 1000)


def log(kind, **fields):
    sys.stdout.write(json.dumps({"log": kind, **fields}, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64_any(text):
    """Decodes base64url or standard base64, padded or not; None when it is neither."""
    if not isinstance(text, str) or not re.fullmatch(r"[A-Za-z0-9+/_-]*={0,2}", text.strip()):
        return None
    body = text.strip().rstrip("=").replace("-", "+").replace("_", "/")
    body += "=" * (-len(body) % 4)
    try:
        return base64.b64decode(body, validate=True)
    except ValueError:
        return None


def new_token():
    return b64url(secrets.token_bytes(32))


def same_secret(a, b):
    return isinstance(a, str) and isinstance(b, str) and hmac.compare_digest(a.encode(), b.encode())


def parse_public_key(value):
    """Raw 32-byte key from base64url, padded base64 or an Ed25519 SPKI PEM; None otherwise."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if "BEGIN" in text:
        match = re.fullmatch(r"-----BEGIN PUBLIC KEY-----\s*([A-Za-z0-9+/=\s]+?)\s*-----END PUBLIC KEY-----",
                             text)
        if not match:
            return None
        try:
            der = base64.b64decode("".join(match.group(1).split()), validate=True)
        except ValueError:
            return None
        if len(der) != 44 or not der.startswith(SPKI_PREFIX):
            return None
        raw = der[12:]
    else:
        raw = b64_any(text)
    if raw is None or len(raw) != 32:
        return None
    try:
        Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        return None
    return raw


def ascii_lower(text):
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


def signature_payloads(device_id, params, role, scopes, signed_at, nonce):
    auth = params.get("auth") or {}
    token = ""
    for key in ("token", "deviceToken", "bootstrapToken"):
        value = auth.get(key)
        if isinstance(value, str) and value:
            token = value
            break
    client = params["client"]
    base = ["", device_id, client["id"], client["mode"], role, ",".join(scopes), str(signed_at), token, nonce]
    v2 = "|".join(["v2"] + base[1:])
    platform = ascii_lower((client.get("platform") or "").strip())
    family = ascii_lower((client.get("deviceFamily") or "").strip())
    v3 = "|".join(["v3"] + base[1:] + [platform, family])
    return [("v3", v3), ("v2", v2)]


def verify_signature(raw_key, payload, signature_text):
    signature = b64_any(signature_text)
    if signature is None or len(signature) != 64:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(raw_key).verify(signature, payload.encode())
        return True
    except (InvalidSignature, ValueError):
        return False


def is_loopback(address):
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def norm_host(host):
    host = host.lower().strip("[]")
    if host.endswith("."):
        host = host[:-1]
    return host.split("%")[0]


def plaintext_allowed(host):
    """setup-codes.md §5: hosts that may be reached over ws://."""
    host = norm_host(host)
    if host == "localhost" or host.endswith(".local"):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    if isinstance(ip, ipaddress.IPv4Address):
        return any(ip in ipaddress.ip_network(n) for n in
                   ("127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16"))
    return ip.is_loopback or any(ip in ipaddress.ip_network(n) for n in ("fe80::/10", "fc00::/7"))


def loopback_host(host):
    host = norm_host(host)
    return host == "localhost" or is_loopback(host)


def normalize_url(raw, default_scheme):
    """setup-codes.md §4; None when invalid."""
    text = raw.strip() if isinstance(raw, str) else ""
    if not text:
        return None
    if re.match(r"^(https?|wss?):(?!//)", text, re.I):
        return None

    def from_parts(url, keep_path):
        try:
            parts = urllib.parse.urlsplit(url)
            port = parts.port
        except ValueError:
            return None
        scheme = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}.get(parts.scheme.lower())
        if scheme is None or "@" in parts.netloc or not parts.hostname:
            return None
        host = parts.hostname.lower()
        if ":" in host:
            host = f"[{host}]"
        elif not re.fullmatch(r"[a-z0-9._-]+", host):
            return None
        out = f"{scheme}://{host}"
        if port is not None and port != (80 if scheme == "ws" else 443):
            out += f":{port}"
        if keep_path and parts.path not in ("", "/"):
            out += parts.path
        return out

    if "://" in text:
        return from_parts(text, True)
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:/", text):
        return None
    return from_parts(f"{default_scheme}://{text.split('/')[0]}", False)


def scopes_allow(requested, allowed):
    allowed = set(allowed)
    for scope in requested:
        if scope in allowed:
            continue
        if scope.startswith("operator.") and "operator.admin" in allowed:
            continue
        if scope == "operator.read" and "operator.write" in allowed:
            continue
        return False
    return True


def clean_scopes(scopes):
    out = []
    for scope in scopes or []:
        scope = scope.strip()
        if scope and scope not in out:
            out.append(scope)
    return out


class ParamError(Exception):
    pass


def check_closed(obj, allowed, where, required=()):
    if not isinstance(obj, dict):
        raise ParamError(f"at {where}: must be object")
    for key in obj:
        if key not in allowed:
            raise ParamError(f"at {where}: unexpected property '{key}'")
    for key in required:
        if key not in obj:
            raise ParamError(f"at {where}: must have required property '{key}'")


def check_type(value, kind, where, optional=True):
    if value is None and optional:
        return
    ok = {
        "string": isinstance(value, str),
        "nonempty": isinstance(value, str) and value.strip() != "",
        "int": isinstance(value, int) and not isinstance(value, bool),
        "bool": isinstance(value, bool),
        "strings": isinstance(value, list) and all(isinstance(v, str) for v in value),
        "object": isinstance(value, dict),
    }[kind]
    if not ok:
        raise ParamError(f"at {where}: must be {kind}")


def validate_connect(params):
    check_closed(params, CONNECT_KEYS, "/", ("minProtocol", "maxProtocol", "client"))
    for key in ("minProtocol", "maxProtocol"):
        check_type(params[key], "int", f"/{key}", optional=False)
        if params[key] < 1:
            raise ParamError(f"at /{key}: must be >= 1")
    client = params["client"]
    check_closed(client, CLIENT_KEYS, "/client", ("id", "version", "platform", "mode"))
    for key in ("id", "version", "platform", "mode"):
        check_type(client[key], "nonempty", f"/client/{key}", optional=False)
    for key in ("displayName", "deviceFamily", "modelIdentifier", "instanceId", "buildId", "timeZone"):
        check_type(client.get(key), "string", f"/client/{key}")
    if client["id"].lower() not in CLIENT_IDS:
        raise ParamError("at /client/id: must be equal to one of the allowed values")
    if client["mode"].lower() not in CLIENT_MODES:
        raise ParamError("at /client/mode: must be equal to one of the allowed values")
    for key in ("caps", "commands", "scopes"):
        check_type(params.get(key), "strings", f"/{key}")
    check_type(params.get("permissions"), "object", "/permissions")
    if params.get("permissions") and not all(isinstance(v, bool) for v in params["permissions"].values()):
        raise ParamError("at /permissions: values must be boolean")
    for key in ("pathEnv", "locale", "userAgent", "role"):
        check_type(params.get(key), "string", f"/{key}")
    if params.get("role") is not None and params["role"] not in ("node", "operator"):
        raise ParamError("at /role: must be equal to one of the allowed values")
    if params.get("device") is not None:
        device = params["device"]
        check_closed(device, DEVICE_KEYS, "/device", ("id", "publicKey", "signature", "signedAt"))
        for key in ("id", "publicKey", "signature"):
            check_type(device[key], "nonempty", f"/device/{key}", optional=False)
        check_type(device["signedAt"], "int", "/device/signedAt", optional=False)
        check_type(device.get("nonce"), "string", "/device/nonce")
    if params.get("auth") is not None:
        check_closed(params["auth"], AUTH_KEYS, "/auth")
        for key, value in params["auth"].items():
            check_type(value, "string", f"/auth/{key}")


class Refusal(Exception):
    """A handshake failure: the error shape to send and the close to follow."""

    def __init__(self, code, message, details=None, close_code=1008, close_reason=None, hold=None,
                 retryable=None, retry_after_ms=None):
        super().__init__(message)
        self.code, self.message, self.details = code, message, details
        self.retryable, self.retry_after_ms = retryable, retry_after_ms
        self.close_code, self.close_reason = close_code, close_reason or message
        # (deviceId, requestId): keep the socket for device.pair.resolved (waitForResolution, g4).
        self.hold = hold


class RpcError(Exception):
    def __init__(self, message, code="INVALID_REQUEST", details=None):
        super().__init__(message)
        self.code, self.message, self.details = code, message, details


class Connection:
    def __init__(self, ws, remote):
        self.ws = ws
        self.remote = remote
        self.conn_id = str(uuid.uuid4())
        self.nonce = str(uuid.uuid4())
        self.authed = False
        self.role = None
        self.scopes = []
        self.device_id = None
        self.params = None
        self.connected_at = None
        self.seq = 0
        self.rpc_count = 0
        self.ticking = True
        self.connect_id = "connect"
        self.device_token_auth = False

    @property
    def is_admin(self):
        return "operator.admin" in self.scopes

    async def send(self, obj):
        try:
            await self.ws.send(json.dumps(obj, separators=(",", ":")))
        except websockets.ConnectionClosed:
            pass

    async def event(self, name, payload):
        self.seq += 1
        await self.send({"type": "event", "event": name, "payload": payload, "seq": self.seq})


class Gateway:
    def __init__(self, args):
        self.args = args
        self.hosts = args.host or ["127.0.0.1"]
        self.port = None
        self.connections = set()
        self.paired = {}
        self.pending = {}
        self.bootstrap = {}
        self.setups = {}
        self.node_pending = {}
        self.node_paired = {}
        self.node_meta = {}   # deviceId -> what a role-node connect declared (caps, commands, …)
        self.waiters = {}     # deviceId -> (Connection, requestId, future): held pairing refusals (g4)
        self.join_codes = {}  # shortcode -> {payload, expiresAtMs}: single-use join URLs (g4)
        self.invokes = {}     # invoke id -> future of the node's node.invoke.result params
        self.started_ms = now_ms()
        self.starting_refusals = 0
        self.tls_fingerprint = None
        self.load_state()

    # ------------------------------------------------------------------ state

    def load_state(self):
        path = self.args.state_file
        if not path or not os.path.exists(path):
            return
        with open(path, encoding="utf-8") as f:
            state = json.load(f)
        self.paired = state.get("paired", {})
        self.pending = state.get("pending", {})
        self.bootstrap = state.get("bootstrap", {})
        self.setups = state.get("setups", {})
        self.node_pending = state.get("nodes", {}).get("pending", {})
        self.node_paired = state.get("nodes", {}).get("paired", {})
        self.node_meta = state.get("nodeMeta", {})

    def save_state(self):
        path = self.args.state_file
        if not path:
            return
        state = {"version": 1, "paired": self.paired, "pending": self.pending,
                 "bootstrap": self.bootstrap, "setups": self.setups,
                 "nodes": {"pending": self.node_pending, "paired": self.node_paired},
                 "nodeMeta": self.node_meta}
        temporary = f"{path}.tmp-{os.getpid()}"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(state, f, indent=2)
            f.write("\n")
        os.replace(temporary, path)

    def prune(self):
        now = now_ms()
        for request_id in [r for r, p in self.pending.items() if now - p["ts"] > self.args.pending_ttl_ms]:
            expired = self.pending.pop(request_id)
            self.resolve_waiter({"requestId": request_id, "deviceId": expired["deviceId"], "decision": "expired", "ts": now})
        for request_id in [r for r, p in self.node_pending.items() if now - p["ts"] > self.args.pending_ttl_ms]:
            del self.node_pending[request_id]
        for token in [t for t, b in self.bootstrap.items() if now - b["issuedAtMs"] > self.args.bootstrap_ttl_ms]:
            del self.bootstrap[token]

    def find_bootstrap(self, token):
        self.prune()
        for key, record in self.bootstrap.items():
            if same_secret(token, record["token"]):
                return key, record
        return None, None

    # ------------------------------------------------------------ broadcasts

    async def broadcast(self, name, payload, scope="operator.pairing"):
        if name == "device.pair.resolved":
            self.resolve_waiter(payload)
        for conn in list(self.connections):
            if conn.authed and conn.role == "operator" and (scope in conn.scopes or conn.is_admin):
                await conn.event(name, payload)

    def connected(self, device_id):
        return any(c.authed and c.device_id == device_id for c in self.connections)

    async def disconnect_device(self, device_id, role=None, reason="device removed", exclude=None):
        for conn in list(self.connections):
            if conn is exclude or conn.device_id != device_id or (role and conn.role != role):
                continue
            try:
                await conn.ws.close(1008, reason)
            except Exception:
                pass

    # ------------------------------------------------ two-step node approval (g4)
    # docs/nodes/node-host.md "Pair + name": after its device pairing is approved, a node's next
    # connect is admitted with no effective commands and creates a separate command-surface
    # request (listed by node.pair.list, approved by node.pair.approve {requestId} → {requestId,
    # node}; the device and node request ids differ). Bootstrap enrollment (a setup code)
    # approves the first surface automatically.

    def node_surface(self, device_id, params, conn, bootstrap):
        if device_id in self.node_paired or any(r["nodeId"] == device_id for r in self.node_pending.values()):
            return
        client = params["client"]
        surface = {"nodeId": device_id}
        for key, source in (("displayName", "displayName"), ("platform", "platform"), ("version", "version"),
                            ("deviceFamily", "deviceFamily"), ("modelIdentifier", "modelIdentifier")):
            if client.get(source):
                surface[key] = client[source]
        surface.update({"caps": params.get("caps") or [], "commands": params.get("commands") or [], "remoteIp": conn.remote})
        if bootstrap:
            now = now_ms()
            self.node_paired[device_id] = dict(surface, token=new_token(), createdAtMs=now, approvedAtMs=now)
            self.save_state()
            log("node-approved", requestId=None, nodeId=device_id)
            return
        self.create_node_request(surface)

    # ------------------------------------------------------- join URLs (g4)
    # src/pairing/join-code.ts: the shortcode is 16 random bytes as 22 base64url characters;
    # the URL is the setup URL as https (loopback ws as http), context path kept, + /j/<code>.
    # The gateway's /j/ route answers a plain GET once with the setup payload JSON itself
    # (Cache-Control: no-store), and 404 {"error":"not_found"} for an unknown, expired or used
    # code or any query. Not modelled: the 429 rate limit.

    def mint_join_url(self, base, payload, expires):
        shortcode = b64url(secrets.token_bytes(16))
        self.join_codes[shortcode] = {"payload": dict(payload), "expiresAtMs": expires}
        return f"{base.rstrip('/')}/j/{shortcode}"

    async def join_route(self, path, request_headers):
        marker = path.rfind("/j/")
        if marker < 0 and not path.endswith("/j"):
            return None  # a WebSocket upgrade (or anything else): the gateway's handler
        shortcode = path[marker + 3:] if marker >= 0 else ""
        now = now_ms()
        for code in [c for c, j in self.join_codes.items() if j["expiresAtMs"] <= now]:
            del self.join_codes[code]
        entry = None
        if "?" not in path and re.fullmatch(r"[A-Za-z0-9_-]{22}", shortcode):
            entry = self.join_codes.pop(shortcode, None)
        headers = [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store")]
        if entry is None:
            log("join", ok=False)
            return http.HTTPStatus.NOT_FOUND, headers, b'{"error":"not_found"}'
        log("join", ok=True)
        return http.HTTPStatus.OK, headers, json.dumps(entry["payload"], separators=(",", ":")).encode()

    # ------------------------------------------- waiting for resolution (g4)
    # 2026.7+ (packages/gateway-protocol/src/connect-error-details.ts; the Control UI's pairing
    # waiter test in src/gateway): the pairing refusal carries waitForResolution, the gateway
    # keeps that socket and pushes device.pair.resolved {requestId, deviceId, decision, ts} to it;
    # any frame on a waiting socket closes it (1008); a newer connect of the same device
    # supersedes the waiter (1008). Decision "expired" (which clients accept) is sent here when
    # the pending request outlives --pending-ttl-ms: upstream's emitter was not found.

    def resolve_waiter(self, payload):
        waiter = self.waiters.get(payload.get("deviceId"))
        if waiter is not None and waiter[1] == payload.get("requestId") and not waiter[2].done():
            waiter[2].set_result(dict(payload))

    async def hold_for_resolution(self, conn, device_id, request_id):
        previous = self.waiters.get(device_id)
        if previous is not None:
            await previous[0].ws.close(1008, "superseded by a newer connect")
        decided = asyncio.get_running_loop().create_future()
        self.waiters[device_id] = (conn, request_id, decided)
        log("waiting", requestId=request_id, deviceId=device_id)
        reader = asyncio.ensure_future(conn.ws.recv())
        expiry = asyncio.ensure_future(self.expire_later(request_id))
        try:
            done, _ = await asyncio.wait({reader, decided}, return_when=asyncio.FIRST_COMPLETED)
            if decided in done:
                await conn.send({"type": "event", "event": "device.pair.resolved", "payload": decided.result()})
                log("resolution-sent", requestId=request_id, deviceId=device_id, decision=decided.result()["decision"])
                try:
                    await asyncio.wait_for(conn.ws.wait_closed(), 5)
                except asyncio.TimeoutError:
                    await conn.ws.close(1000, "pairing resolved")
            elif reader.exception() is None:
                await conn.ws.close(1008, "pairing approval pending")
        finally:
            reader.cancel()
            expiry.cancel()
            if self.waiters.get(device_id, (None,))[0] is conn:
                del self.waiters[device_id]

    async def expire_later(self, request_id):
        request = self.pending.get(request_id)
        if request is None:
            return
        # The gateway's own expiry timer (the scenario), not a test waiting for something.
        await asyncio.sleep(max(0, self.args.pending_ttl_ms - (now_ms() - request["ts"])) / 1000 + 0.01)
        self.prune()

    # ------------------------------------------------------------ connection

    async def handler(self, ws, path=None):
        peer = ws.remote_address[0] if ws.remote_address else ""
        conn = Connection(ws, peer)
        self.connections.add(conn)
        ticker = None
        try:
            fault = self.args.fault
            ws.max_size = PRE_CONNECT_MAX_FRAME
            if fault == "garbage":
                await ws.send("<<this is not json>> \x00\x01")
            elif fault == "slow-challenge":
                await asyncio.sleep(self.args.fault_delay_ms / 1000)  # the fault: a challenge this late
            if fault not in ("no-challenge", "garbage"):
                await conn.send({"type": "event", "event": "connect.challenge",
                                 "payload": {"nonce": conn.nonce, "ts": now_ms()}})
            try:
                first = await asyncio.wait_for(ws.recv(), HANDSHAKE_TIMEOUT_S)
            except asyncio.TimeoutError:
                log("connect-refused", code="TIMEOUT", detailCode=None, message="handshake timeout")
                await ws.close(1008, "handshake timeout")
                return
            try:
                hello = await self.handle_connect(conn, first)
            except Refusal as refusal:
                await self.refuse(conn, first, refusal)
                return
            await conn.send(hello)
            ws.max_size = self.args.max_payload
            ticker = asyncio.ensure_future(self.tick(conn))
            if conn.role == "node" and self.args.send_invoke:
                asyncio.ensure_future(self.send_raw_invokes(conn))
            async for message in ws:
                await self.handle_frame(conn, message)
        except websockets.ConnectionClosed:
            pass
        finally:
            if ticker:
                ticker.cancel()
            self.connections.discard(conn)
            if conn.authed:
                # The close code and reason the session ended with (a client's 4000 "tick timeout").
                log("session-closed", code=ws.close_code, reason=ws.close_reason, deviceId=conn.device_id)
            if conn.device_id and conn.device_id in self.paired:
                self.paired[conn.device_id]["lastSeenAtMs"] = now_ms()
                self.paired[conn.device_id]["lastSeenReason"] = "disconnect"
                if conn.role == "node" and conn.device_id in self.node_meta:
                    self.node_meta[conn.device_id]["lastDisconnectedAtMs"] = now_ms()

    async def tick(self, conn):
        while True:
            await asyncio.sleep(self.args.tick_ms / 1000)  # the gateway's tick interval (the scenario)
            if conn.ticking:
                await conn.send({"type": "event", "event": "tick", "payload": {"ts": now_ms()}})

    async def refuse(self, conn, raw, refusal):
        frame_id = "connect"
        try:
            parsed = json.loads(raw)
            if isinstance(parsed, dict) and isinstance(parsed.get("id"), str) and parsed["id"]:
                frame_id = parsed["id"]
        except (ValueError, TypeError):
            pass
        error = {"code": refusal.code, "message": refusal.message}
        if refusal.details is not None:
            error["details"] = refusal.details
        if refusal.retryable is not None:
            error["retryable"] = refusal.retryable
        if refusal.retry_after_ms is not None:
            error["retryAfterMs"] = refusal.retry_after_ms
        detail = refusal.details.get("code") if isinstance(refusal.details, dict) else None
        log("connect-refused", code=refusal.code, detailCode=detail, message=refusal.message)
        await conn.send({"type": "res", "id": frame_id, "ok": False, "error": error})
        if refusal.hold:
            await self.hold_for_resolution(conn, *refusal.hold)
            received = conn.ws.close_rcvd
            log("connect-closed", clientCloseCode=received.code if received is not None else None)
            return
        if self.args.refusal_close_delay_ms:
            # Test knob: hold the socket open, so a client that gives up must close first.
            try:
                await asyncio.wait_for(conn.ws.wait_closed(), self.args.refusal_close_delay_ms / 1000)
            except asyncio.TimeoutError:
                pass
        await conn.ws.close(refusal.close_code, refusal.close_reason[:120])
        received = conn.ws.close_rcvd
        log("connect-closed", clientCloseCode=received.code if received is not None else None)

    async def handle_connect(self, conn, raw):
        if not isinstance(raw, str):
            raise Refusal("INVALID_REQUEST", "invalid handshake: expected a text frame")
        try:
            frame = json.loads(raw)
        except ValueError:
            raise Refusal("INVALID_REQUEST", "invalid request frame: not JSON")
        if not isinstance(frame, dict) or frame.get("type") != "req":
            raise Refusal("INVALID_REQUEST", "invalid handshake: first request must be connect")
        try:
            check_closed(frame, FRAME_REQ_KEYS, "/", ("type", "id", "method"))
            check_type(frame["id"], "nonempty", "/id", optional=False)
            check_type(frame["method"], "nonempty", "/method", optional=False)
        except ParamError as e:
            raise Refusal("INVALID_REQUEST", f"invalid request frame: {e}")
        if frame["method"] != "connect":
            raise Refusal("INVALID_REQUEST", "invalid handshake: first request must be connect")
        conn.connect_id = frame["id"]
        params = frame.get("params")
        try:
            validate_connect(params)
            if params["maxProtocol"] < params["minProtocol"]:
                raise ParamError("at /maxProtocol: must be >= minProtocol")
        except ParamError as e:
            raise Refusal("INVALID_REQUEST", f"invalid connect params: {e}")

        if self.starting_refusals < self.args.starting_connects:
            self.starting_refusals += 1
            # handshake.md: a gateway still starting refuses connect with a retryable UNAVAILABLE,
            # details.reason "startup-sidecars" and retryAfterMs; the TS client closes 1013.
            raise Refusal("UNAVAILABLE", "gateway starting",
                          {"reason": "startup-sidecars", "retryAfterMs": 200}, close_code=1013,
                          close_reason="gateway starting", retryable=True, retry_after_ms=200)
        if self.args.connect_refusal:
            # Test knob: a 2026.10 connect refusal clawpair cannot resolve by itself
            # (connect-error-details.ts detail codes).
            raise Refusal("INVALID_REQUEST", CONNECT_REFUSALS[self.args.connect_refusal],
                          {"code": self.args.connect_refusal,
                           "recommendedNextStep": CONNECT_REFUSAL_STEPS.get(self.args.connect_refusal,
                                                                            "review_auth_configuration"),
                           "canRetryWithDeviceToken": False})

        role = params.get("role") or "operator"
        scopes_sent = list(params.get("scopes") or [])
        scopes = clean_scopes(scopes_sent)
        client = params["client"]
        protocol = self.args.protocol
        lowest = 3 if role == "node" or client["mode"].lower() == "probe" else protocol
        if params["maxProtocol"] < lowest or params["minProtocol"] > protocol:
            raise Refusal("INVALID_REQUEST", "protocol mismatch",
                          {"code": "PROTOCOL_MISMATCH", "expectedProtocol": protocol,
                           "minProtocol": params["minProtocol"], "maxProtocol": params["maxProtocol"]},
                          close_code=1002)
        negotiated = min(protocol, params["maxProtocol"])

        auth = params.get("auth") or {}
        device = params.get("device")
        mode = "password" if self.args.password is not None else "token"

        # Shared secret (token or password mode).
        if mode == "token":
            provided = (auth.get("token") or "").strip()
            shared_ok = bool(provided) and same_secret(provided, self.args.token)
            reason = None if shared_ok else ("token_mismatch" if provided else "token_missing")
        else:
            provided = (auth.get("password") or "").strip()
            shared_ok = bool(provided) and same_secret(provided, self.args.password)
            reason = None if shared_ok else ("password_mismatch" if provided else "password_missing")
        method = mode if shared_ok else None
        loopback = is_loopback(conn.remote)

        if device is None:
            if role == "operator" and shared_ok:
                if not loopback:
                    scopes = []
                return self.accept(conn, params, role, scopes, None, None, method, negotiated)
            if not shared_ok:
                self.unauthorized(auth, reason, has_device=False)
            raise Refusal("NOT_PAIRED", "device identity required", {"code": "DEVICE_IDENTITY_REQUIRED"})

        # Device proof (connect-device-proof.ts).
        def invalid(reason_code, detail, message):
            raise Refusal("INVALID_REQUEST", message, {"code": detail, "reason": reason_code})

        raw_key = parse_public_key(device["publicKey"])
        if raw_key is None:
            invalid("device-public-key", "DEVICE_AUTH_PUBLIC_KEY_INVALID", "device public key invalid")
        device_id = hashlib.sha256(raw_key).hexdigest()
        if device_id != device["id"]:
            invalid("device-id-mismatch", "DEVICE_AUTH_DEVICE_ID_MISMATCH", "device identity mismatch")
        if abs(now_ms() - device["signedAt"]) > SIGNATURE_SKEW_MS:
            invalid("device-signature-stale", "DEVICE_AUTH_SIGNATURE_EXPIRED", "device signature expired")
        nonce = (device.get("nonce") or "").strip()
        if not nonce:
            invalid("device-nonce-missing", "DEVICE_AUTH_NONCE_REQUIRED", "device nonce required")
        if nonce != conn.nonce:
            invalid("device-nonce-mismatch", "DEVICE_AUTH_NONCE_MISMATCH", "device nonce mismatch")
        version = None
        for name, payload in signature_payloads(device["id"], params, role, scopes_sent,
                                                device["signedAt"], nonce):
            if verify_signature(raw_key, payload, device["signature"]):
                version = name
                break
        if version is None:
            invalid("device-signature", "DEVICE_AUTH_SIGNATURE_INVALID", "device signature invalid")
        public_key = b64url(raw_key)

        # Credentials that need the device (auth-context.ts).
        bootstrap_key = None
        if (auth.get("bootstrapToken") or "").strip():
            key, record = self.find_bootstrap(auth["bootstrapToken"].strip())
            if record is not None and record["profile"]["roles"] and role in record["profile"]["roles"] \
                    and scopes_allow(scopes, record["profile"]["scopes"]) \
                    and (not record.get("deviceId") or (record["deviceId"] == device_id
                                                        and record.get("publicKey") == public_key)):
                record["deviceId"], record["publicKey"] = device_id, public_key
                record["lastUsedAtMs"] = now_ms()
                self.save_state()
                method, bootstrap_key = "bootstrap", key
            elif not shared_ok:
                reason = "bootstrap_token_invalid"
        if method is None:
            explicit = (auth.get("deviceToken") or "").strip()
            candidate = explicit or (auth.get("token") or "").strip()
            if candidate:
                check = self.verify_device_token(device_id, candidate, role, scopes)
                if check is True:
                    method = "device-token"
                elif check == "scope_mismatch":
                    reason = "scope_mismatch"
                elif explicit:
                    reason = "device_token_mismatch"
        if method is None:
            self.unauthorized(auth, reason, has_device=True)

        # Pairing (connect-device-pairing.ts).
        handoff = None
        record = self.paired.get(device_id)
        if record is None or record["publicKey"] != public_key:
            handoff = self.require_pairing(conn, params, role, scopes, device_id, public_key, "not-paired",
                                           record, method, bootstrap_key, loopback)
        else:
            upgrade = None
            if self.metadata_changed(record, client):
                upgrade = "metadata-upgrade"
            elif role not in record.get("roles", []):
                upgrade = "role-upgrade"
            elif scopes and not scopes_allow(scopes, record.get("approvedScopes", [])):
                upgrade = "scope-upgrade"
            if upgrade:
                handoff = self.require_pairing(conn, params, role, scopes, device_id, public_key, upgrade,
                                               record, method, bootstrap_key, loopback)
            record.update({"lastSeenAtMs": now_ms(), "lastSeenReason": "connect"})
            if client.get("displayName"):
                record["displayName"] = client["displayName"]
        return self.accept(conn, params, role, scopes, device_id, public_key, method, negotiated,
                           bootstrap_key=bootstrap_key, handoff=handoff)

    def unauthorized(self, auth, reason, has_device):
        reason = reason or "token_missing"
        messages = {
            "token_missing": "unauthorized: gateway token missing (set gateway.remote.token to match gateway.auth.token)",
            "token_mismatch": "unauthorized: gateway token mismatch (set gateway.remote.token to match gateway.auth.token)",
            "password_missing": "unauthorized: gateway password missing (set gateway.remote.password to match gateway.auth.password)",
            "password_mismatch": "unauthorized: gateway password mismatch (set gateway.remote.password to match gateway.auth.password)",
            "device_token_mismatch": "unauthorized: device token mismatch (rotate/reissue device token)",
        }
        if self.args.auth_refusal_style == "joyhousebot":
            # joyhousebot 0.1.2 (PyPI; joyhousebot/gateway/connect_auth.py try_authorize_connect):
            # {"code": "INVALID_REQUEST", "message": "token_mismatch"}, no details at all.
            raise Refusal("INVALID_REQUEST", reason, None)
        provided = "password" if auth.get("password") else "token" if auth.get("token") else \
            "bootstrap-token" if auth.get("bootstrapToken") else "device-token" if auth.get("deviceToken") else "none"
        retry = reason == "token_mismatch" and has_device and provided == "token" and not auth.get("deviceToken")
        raise Refusal("INVALID_REQUEST", messages.get(reason, "unauthorized"), {
            "code": AUTH_DETAIL_CODES.get(reason, "AUTH_UNAUTHORIZED"),
            "authReason": reason,
            "canRetryWithDeviceToken": retry,
            "recommendedNextStep": "retry_with_device_token" if retry else
            AUTH_NEXT_STEP.get(reason, "review_auth_configuration"),
        })

    def verify_device_token(self, device_id, token, role, scopes):
        record = self.paired.get(device_id)
        entry = (record or {}).get("tokens", {}).get(role)
        if not entry or entry.get("revokedAtMs") or not same_secret(token, entry["token"]):
            return False
        if not scopes_allow(scopes, entry.get("scopes", [])):
            return "scope_mismatch"
        entry["lastUsedAtMs"] = now_ms()
        return True

    @staticmethod
    def metadata_changed(record, client):
        """connect-device-metadata.ts resolvePinnedClientMetadata: the paired platform and device
        family are pinned and compared exactly (trimmed, A-Z lowercased), so "Linux 6.1.0" then
        "linux" is a metadata-upgrade. Exceptions: a node-host/node client whose platform maps to
        the paired one's runtime identity (gateway-client-platform.ts: darwin->macos,
        win32->windows), an unpinned family adopting its canonical tuple, and native apps
        refreshing an OS version ("iOS 18.1" -> "iOS 18.2")."""
        def norm(text):
            return ascii_lower((text or "").strip())

        def runtime(platform):
            return {"darwin": ("macos", "mac"), "win32": ("windows", "windows"),
                    "linux": ("linux", "linux")}.get(platform, (platform, ""))

        def native_family(client_id, value):
            patterns = {"openclaw-ios": (r"^(?:ios|ipados)(?:\s|$)", "ios-family"),
                        "openclaw-android": (r"^android(?:\s|$)", "android"),
                        "openclaw-watchos": (r"^watchos \d+(?:\.\d+){0,2}$", "watchos"),
                        "openclaw-macos": (r"^macos \d+(?:\.\d+){0,2}$", "macos")}
            pattern = patterns.get(client_id)
            return pattern[1] if pattern and re.match(pattern[0], value) else None

        claimed, paired = norm(client.get("platform")), norm(record.get("platform"))
        claimed_family, paired_family = norm(client.get("deviceFamily")), norm(record.get("deviceFamily"))
        node_host = client.get("id") == "node-host" and client.get("mode") == "node"
        runtime_pin = (node_host and paired and claimed and runtime(claimed)[0] == runtime(paired)[0]) or \
            (not paired_family and runtime(paired)[0] != paired and claimed == runtime(paired)[0]
             and claimed_family == runtime(paired)[1])
        native_refresh = paired and claimed and claimed != paired \
            and native_family(client.get("id"), claimed) is not None \
            and native_family(client.get("id"), claimed) == native_family(client.get("id"), paired)
        if paired and claimed != paired and not runtime_pin and not native_refresh:
            return True
        return bool(paired_family) and claimed_family != paired_family

    def require_pairing(self, conn, params, role, scopes, device_id, public_key, reason, existing,
                        method, bootstrap_key, loopback):
        """Creates or reuses the pending request; approves it silently when allowed (then
        returns the bootstrap handoff profile or None), otherwise raises the NOT_PAIRED refusal."""
        client = params["client"]
        mobile_profile = None
        if method == "bootstrap" and reason == "not-paired" and existing is None and role == "node" \
                and not scopes and client["mode"].lower() == "node" and self.mobile_client(client):
            profile = self.bootstrap[bootstrap_key]["profile"]
            if self.access_label(profile) in ("full", "limited") and profile["roles"] == ["node", "operator"]:
                mobile_profile = profile
        local_silent = (self.args.local_auto_approve == "yes" and loopback
                        and not (existing is not None and role != "operator"))
        if reason == "metadata-upgrade":
            local_silent = local_silent and method in ("token", "password")
        silent = reason != "scope-upgrade" and (local_silent or mobile_profile is not None)

        roles = sorted(set([role] + (mobile_profile["roles"] if mobile_profile else [])))
        request_scopes = scopes
        if mobile_profile:
            request_scopes = self.handoff_scopes(mobile_profile)
        if role == "node":
            self.remember_node(device_id, params, pending=True)
        request = self.request_pairing(conn, client, device_id, public_key, role, roles, request_scopes,
                                       silent, existing is not None)
        if silent:
            via = "bootstrap" if mobile_profile else "silent"
            self.approve_request(request["requestId"], via)
            log("approved", requestId=request["requestId"], deviceId=device_id, silent=True)
            asyncio.ensure_future(self.broadcast("device.pair.resolved", {
                "requestId": request["requestId"], "deviceId": device_id, "decision": "approved", "ts": now_ms()}))
            return mobile_profile
        requirement, hint = PAIRING_REASONS[reason]
        details = {"code": "PAIRING_REQUIRED", "reason": reason, "requestId": request["requestId"],
                   "remediationHint": hint}
        if role == "node":
            details.update({"recommendedNextStep": "wait_then_retry", "retryable": True, "pauseReconnect": False})
        details.update({"deviceId": device_id, "requestedRole": role, "requestedScopes": scopes})
        if existing is not None and existing["publicKey"] == public_key:
            if existing.get("roles"):
                details["approvedRoles"] = existing["roles"]
            if existing.get("approvedScopes"):
                details["approvedScopes"] = existing["approvedScopes"]
        message = f"pairing required: {requirement}"
        hold = None
        if self.args.generation == "g4" and "device-pairing-wait" in (params.get("caps") or []) and role == "operator":
            # docs/gateway/protocol/auth.md: operator clients advertising the cap
            # device-pairing-wait keep the refused socket; others are closed as before.
            # (Upstream documents it for Control UI operator clients; the stand-in offers it to
            # any operator that sends the cap, so a client's held-socket path stays testable.)
            details["waitForResolution"] = True
            hold = (device_id, request["requestId"])
        raise Refusal("NOT_PAIRED", message, details,
                      close_reason=f"{message} (requestId: {request['requestId']})", hold=hold)

    @staticmethod
    def mobile_client(client):
        cid = client["id"].lower()
        platform = ascii_lower((client.get("platform") or "").strip())
        family = ascii_lower((client.get("deviceFamily") or "").strip())
        if cid == "openclaw-ios":
            return platform.startswith(("ios", "ipados")) and family in ("iphone", "ipad", "ios")
        if cid == "openclaw-android":
            return platform.startswith("android") and family == "android"
        return False

    def request_pairing(self, conn, client, device_id, public_key, role, roles, scopes, silent, is_repair):
        self.prune()
        for request in list(self.pending.values()):
            if request["deviceId"] != device_id:
                continue
            if request["publicKey"] == public_key and request.get("role") == role \
                    and request.get("roles") == roles and request.get("scopes") == scopes:
                request["refreshedAtMs"] = now_ms()
                if silent:
                    request["silent"] = True
                self.save_state()
                return request
        request = {"requestId": str(uuid.uuid4()), "deviceId": device_id, "publicKey": public_key}
        for key, source in (("displayName", "displayName"), ("platform", "platform"),
                            ("deviceFamily", "deviceFamily"), ("clientId", "id"), ("clientMode", "mode")):
            if client.get(source) is not None:
                request[key] = client[source]
        request.update({"role": role, "roles": roles, "scopes": scopes, "remoteIp": conn.remote})
        if silent:
            request["silent"] = True
        if is_repair:
            request["isRepair"] = True
        request["ts"] = now_ms()
        for old_id in [r for r, p in self.pending.items() if p["deviceId"] == device_id]:
            del self.pending[old_id]
            log("superseded", requestId=old_id, deviceId=device_id, by=request["requestId"])
            # A socket held for the old request hears decision "superseded" (auth.md).
            self.resolve_waiter({"requestId": old_id, "deviceId": device_id, "decision": "superseded", "ts": now_ms()})
            asyncio.ensure_future(self.broadcast("device.pair.resolved", {
                "requestId": old_id, "deviceId": device_id, "decision": "rejected", "ts": now_ms()}))
        self.pending[request["requestId"]] = request
        self.save_state()
        if not silent:
            log("pending", requestId=request["requestId"], deviceId=device_id, role=role, scopes=scopes,
                reason="repair" if is_repair else "new")
            asyncio.ensure_future(self.broadcast("device.pair.requested", request))
        return request

    def seed_device_request(self, name):
        """Test knob: a pending operator request from a device with a fresh key, as if it had
        connected from another host."""
        raw = Ed25519PrivateKey.generate().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        request = {"requestId": str(uuid.uuid4()), "deviceId": hashlib.sha256(raw).hexdigest(), "publicKey": b64url(raw),
                   "displayName": name, "platform": "linux", "clientId": "cli", "clientMode": "cli",
                   "role": "operator", "roles": ["operator"], "scopes": ["operator.read"], "remoteIp": "192.0.2.7",
                   "ts": now_ms()}
        self.pending[request["requestId"]] = request
        log("pending", requestId=request["requestId"], deviceId=request["deviceId"], role="operator",
            scopes=request["scopes"], reason="new")

    def approve_request(self, request_id, via):
        request = self.pending.pop(request_id)
        now = now_ms()
        record = self.paired.get(request["deviceId"])
        if record is None or record["publicKey"] != request["publicKey"]:
            record = {"deviceId": request["deviceId"], "publicKey": request["publicKey"],
                      "roles": [], "scopes": [], "approvedScopes": [], "tokens": {}, "createdAtMs": now}
        for key in ("displayName", "platform", "deviceFamily", "clientId", "clientMode", "remoteIp"):
            if key in request:
                record[key] = request[key]
        record["role"] = request["role"]
        record["roles"] = sorted(set(record["roles"]) | set(request.get("roles") or [request["role"]]))
        record["approvedScopes"] = sorted(set(record["approvedScopes"]) | set(request.get("scopes") or []))
        record["scopes"] = record["approvedScopes"]
        record["approvedVia"] = via
        record["approvedAtMs"] = now
        self.paired[record["deviceId"]] = record
        self.save_state()
        return record

    def ensure_token(self, device_id, role, scopes):
        record = self.paired[device_id]
        tokens = record.setdefault("tokens", {})
        entry = tokens.get(role)
        now = now_ms()
        if entry and not entry.get("revokedAtMs") and scopes_allow(scopes, entry["scopes"]):
            return entry
        fresh = {"token": new_token(), "role": role, "scopes": scopes, "createdAtMs": now}
        if entry:
            fresh["createdAtMs"] = entry["createdAtMs"]
            fresh["rotatedAtMs"] = now
        tokens[role] = fresh
        return fresh

    def handoff_scopes(self, profile, role="operator"):
        if role != "operator":
            return []
        allowed = set(HANDOFF_G4 if self.args.generation == "g4" else HANDOFF_G3)
        if profile.get("purpose") == "mobile-full":
            allowed.add("operator.admin")
        return sorted(s for s in profile["scopes"] if s in allowed)

    def remember_node(self, device_id, params, pending):
        """Keeps what a node declared: the last connect's caps for node.list, or the pending
        request's declaration (pendingDeclared*)."""
        client = params["client"]
        declared = {"caps": params.get("caps") or [], "commands": params.get("commands") or []}
        if params.get("permissions") is not None:
            declared["permissions"] = params["permissions"]
        meta = self.node_meta.setdefault(device_id, {})
        if pending:
            meta["pending"] = declared
            return
        meta.pop("pending", None)
        meta.update(declared)
        meta["version"] = client["version"]
        for key in ("modelIdentifier", "deviceFamily"):
            if client.get(key):
                meta[key] = client[key]
        if params.get("pathEnv") is not None:
            meta["pathEnv"] = params["pathEnv"]

    def accept(self, conn, params, role, scopes, device_id, public_key, method, protocol,
               bootstrap_key=None, handoff=None):
        conn.authed = True
        conn.role, conn.scopes, conn.device_id, conn.params = role, scopes, device_id, params
        conn.device_token_auth = method == "device-token"
        conn.connected_at = now_ms()
        if device_id and role == "node":
            self.remember_node(device_id, params, pending=False)
            self.node_meta.setdefault(device_id, {})["lastConnectedAtMs"] = now_ms()
            if self.args.generation == "g4":
                self.node_surface(device_id, params, conn, bootstrap=method == "bootstrap")
        auth = {"role": role, "scopes": scopes}
        if device_id:
            grant = self.ensure_token(device_id, role, scopes)
            grants = [grant]
            if handoff:
                for extra_role in handoff["roles"]:
                    if extra_role != role:
                        grants.append(self.ensure_token(device_id, extra_role, self.handoff_scopes(handoff, extra_role)))
            auth = {"deviceToken": grant["token"], "role": role, "scopes": grant["scopes"],
                    "issuedAtMs": grant.get("rotatedAtMs", grant["createdAtMs"])}
            if len(grants) > 1:
                auth["deviceTokens"] = [{"deviceToken": g["token"], "role": g["role"], "scopes": g["scopes"],
                                         "issuedAtMs": g.get("rotatedAtMs", g["createdAtMs"])} for g in grants]
            record = self.paired[device_id]
            record["lastSeenAtMs"], record["lastSeenReason"] = now_ms(), "connect"
            if bootstrap_key:
                self.redeem_bootstrap(bootstrap_key, [g["role"] for g in grants], device_id, params)
            self.save_state()
        log("connect-ok", deviceId=device_id, role=role, clientId=params["client"]["id"], auth=method,
            scopes=scopes)
        methods = DEVICE_METHODS + [m for m in NODE_METHODS if self.args.generation == "g3" or m not in G3_ONLY_NODE_METHODS]
        methods = [m for m in methods if m not in (self.args.without_method or [])]
        events = ["tick", "shutdown", "device.pair.requested", "device.pair.resolved", "device.pair.changed",
                  "node.pair.requested", "node.pair.resolved"]
        if self.args.generation == "g4":
            events.append("device.pair.setup.completed")
        return {"type": "res", "id": conn.connect_id, "ok": True, "payload": {
            "type": "hello-ok",
            "protocol": protocol,
            "server": {"version": self.args.version, "connId": conn.conn_id},
            "features": {"methods": methods, "events": events},
            "snapshot": {"presence": [], "health": {}, "stateVersion": {"presence": 0, "health": 0},
                         "uptimeMs": now_ms() - self.started_ms,
                         "authMode": "password" if self.args.password is not None else "token"},
            "auth": auth,
            "policy": {"maxPayload": self.args.max_payload, "maxBufferedBytes": 2 * self.args.max_payload,
                       "tickIntervalMs": self.args.tick_ms},
        }}

    def redeem_bootstrap(self, key, roles, device_id, params):
        record = self.bootstrap.get(key)
        if record is None:
            return
        redeemed = record.setdefault("redeemedProfile", {"roles": [], "scopes": []})
        redeemed["roles"] = sorted(set(redeemed["roles"]) | set(roles))
        setup_id = record.get("setupId")
        if setup_id and setup_id in self.setups and not self.setups[setup_id].get("completion"):
            completion = {"setupId": setup_id, "deviceId": device_id}
            if params["client"].get("displayName"):
                completion["deviceName"] = params["client"]["displayName"]
            completion.update({"access": self.setups[setup_id]["access"], "ts": now_ms()})
            self.setups[setup_id]["completion"] = completion
            asyncio.ensure_future(self.broadcast("device.pair.setup.completed", completion, scope="operator.admin"))
        if set(record["profile"]["roles"]) <= set(redeemed["roles"]):
            del self.bootstrap[key]

    # -------------------------------------------------------------- requests

    async def handle_frame(self, conn, raw):
        try:
            frame = json.loads(raw) if isinstance(raw, str) else None
        except ValueError:
            frame = None
        if isinstance(frame, dict) and frame.get("type") == "cancel":
            return
        try:
            if not isinstance(frame, dict) or frame.get("type") != "req":
                raise RpcError("invalid request frame")
            check_closed(frame, FRAME_REQ_KEYS, "/", ("type", "id", "method"))
            check_type(frame["id"], "nonempty", "/id", optional=False)
            check_type(frame["method"], "nonempty", "/method", optional=False)
        except (RpcError, ParamError) as e:
            frame_id = frame.get("id") if isinstance(frame, dict) and isinstance(frame.get("id"), str) else "invalid"
            await conn.send({"type": "res", "id": frame_id, "ok": False,
                             "error": {"code": "INVALID_REQUEST", "message": f"invalid request frame: {e}"}})
            log("rpc", method=None, ok=False, code="INVALID_REQUEST")
            return
        conn.rpc_count += 1
        fault = self.args.fault
        if conn.rpc_count == 1 and fault == "close-mid-call":
            log("rpc", method=frame["method"], ok=False, code="FAULT")
            conn.ws.transport.abort()
            return
        if conn.rpc_count == 1 and fault == "stall-call":
            log("rpc", method=frame["method"], ok=False, code="FAULT")
            conn.ticking = False
            return
        if conn.rpc_count == 1 and fault == "oversized":
            log("rpc", method=frame["method"], ok=False, code="FAULT")
            padding = "x" * (self.args.max_payload + 1)
            await conn.send({"type": "res", "id": frame["id"], "ok": True, "payload": {"padding": padding}})
            return
        method, params = frame["method"], frame.get("params")
        if method in ("node.invoke", "node.invoke.result", "node.event"):
            await self.node_rpc(conn, frame["id"], method, params if isinstance(params, dict) else {})
            return
        after = None
        try:
            result = self.dispatch(conn, method, params if params is not None else {})
            if isinstance(result, tuple):
                result, after = result
            response = {"type": "res", "id": frame["id"], "ok": True, "payload": result}
            log("rpc", method=method, ok=True)
        except RpcError as e:
            error = {"code": e.code, "message": e.message}
            if e.details is not None:
                error["details"] = e.details
            response = {"type": "res", "id": frame["id"], "ok": False, "error": error}
            log("rpc", method=method, ok=False, code=e.code)
        await conn.send(response)
        if after:
            await after()

    async def node_rpc(self, conn, frame_id, method, params):
        async def answer(payload=None, error=None):
            if error is not None:
                await conn.send({"type": "res", "id": frame_id, "ok": False, "error": error})
                log("rpc", method=method, ok=False, code=error["code"])
            else:
                await conn.send({"type": "res", "id": frame_id, "ok": True, "payload": payload})
                log("rpc", method=method, ok=True)
        if method == "node.invoke.result":
            if conn.role != "node":
                return await answer(error={"code": "INVALID_REQUEST", "message": "unauthorized role: " + str(conn.role)})
            log("node-invoke-result", id=params.get("id"), ok=params.get("ok"), error=params.get("error"),
                payloadJSON=params.get("payloadJSON"))
            future = self.invokes.pop(params.get("id"), None)
            if future is not None and not future.done():
                future.set_result(params)
            return await answer({"ok": True})
        if method == "node.event":
            if conn.role != "node":
                return await answer(error={"code": "INVALID_REQUEST", "message": "unauthorized role: " + str(conn.role)})
            name = params.get("event")
            payload = params.get("payload")
            if payload is None and isinstance(params.get("payloadJSON"), str):
                try:
                    payload = json.loads(params["payloadJSON"])
                except ValueError:
                    payload = None
            log("node-event", deviceId=conn.device_id, name=name, payload=payload)
            if self.args.node_event_ok_only:
                return await answer({"ok": True})
            reason = {"node.presence.alive": "persisted", "node.host.stats": "updated"}.get(name, "ignored")
            return await answer({"ok": True, "event": name, "handled": reason != "ignored", "reason": reason})
        # node.invoke
        if conn.role != "operator" or not (conn.is_admin or "operator.write" in conn.scopes):
            return await answer(error={"code": "INVALID_REQUEST", "message": "missing scope: operator.write"})
        node_id, command = params.get("nodeId"), params.get("command")
        if not isinstance(node_id, str) or not isinstance(command, str) or not isinstance(params.get("idempotencyKey"), str):
            return await answer(error={"code": "INVALID_REQUEST", "message": "invalid node.invoke params"})
        target = next((c for c in self.connections if c.authed and c.role == "node" and c.device_id == node_id), None)
        if target is None:
            return await answer(error={"code": "UNAVAILABLE", "message": "node not connected"})
        declared = (target.params or {}).get("commands") or []
        if command not in declared:
            return await answer(error={"code": "UNAVAILABLE", "message": "node command not allowed: " + command})
        timeout_ms = params.get("timeoutMs") if isinstance(params.get("timeoutMs"), int) else 30000
        invoke_id = str(uuid.uuid4())
        request = {"id": invoke_id, "nodeId": node_id, "command": command}
        if params.get("params") is not None:
            if self.args.invoke_params_object:
                request["params"] = params["params"]
            else:
                request["paramsJSON"] = json.dumps(params["params"], separators=(",", ":"))
        request["timeoutMs"] = timeout_ms
        request["idempotencyKey"] = params["idempotencyKey"]
        future = asyncio.get_running_loop().create_future()
        self.invokes[invoke_id] = future
        log("node-invoke", id=invoke_id, nodeId=node_id, command=command)
        await target.event("node.invoke.request", request)
        try:
            result = await asyncio.wait_for(future, timeout=timeout_ms / 1000)
        except asyncio.TimeoutError:
            self.invokes.pop(invoke_id, None)
            return await answer(error={"code": "TIMEOUT", "message": "node invoke timed out"})
        if result.get("ok"):
            payload = {"ok": True, "nodeId": node_id, "command": command}
            if isinstance(result.get("payloadJSON"), str):
                payload["payloadJSON"] = result["payloadJSON"]
            elif "payload" in result:
                payload["payload"] = result["payload"]
            return await answer(payload)
        error = result.get("error") if isinstance(result.get("error"), dict) else {}
        return await answer(error={"code": str(error.get("code") or "UNAVAILABLE"), "message": str(error.get("message") or "")})

    async def send_raw_invokes(self, conn):
        for raw in self.args.send_invoke or []:
            try:
                payload = json.loads(raw)
            except ValueError:
                payload = raw
            await conn.event("node.invoke.request", payload)
            log("node-invoke-raw", deviceId=conn.device_id)

    def require_scope(self, conn, *accepted):
        if conn.role != "operator":
            raise RpcError(f"unauthorized role: {conn.role}")
        if not any(s in conn.scopes for s in accepted) and not conn.is_admin:
            if self.args.generation == "g4":
                # gateway-error-details.ts: FORBIDDEN with details MISSING_SCOPE (older: INVALID_REQUEST).
                raise RpcError(f"missing scope: {accepted[0]}", code="FORBIDDEN",
                               details={"code": "MISSING_SCOPE", "missingScope": accepted[0],
                                        "requiredScopes": list(accepted)})
            raise RpcError(f"missing scope: {accepted[0]}")

    def dispatch(self, conn, method, params):
        handlers = {
            "device.pair.list": self.m_list, "device.pair.approve": self.m_approve,
            "device.pair.reject": self.m_reject, "device.pair.remove": self.m_remove,
            "device.pair.rename": self.m_rename, "device.token.rotate": self.m_rotate,
            "device.token.revoke": self.m_revoke, "node.list": self.m_node_list,
            "node.pair.list": self.m_node_pair_list, "node.pair.approve": self.m_node_approve,
            "node.pair.reject": self.m_node_reject, "node.pair.request": self.m_node_request,
            "node.pair.remove": self.m_node_remove, "node.pair.verify": self.m_node_verify,
            "device.pair.setupCode": self.m_setup_code, "node.rename": self.m_node_rename,
        }
        if self.args.generation == "g4":
            for removed in G3_ONLY_NODE_METHODS:
                del handlers[removed]
        if self.args.generation == "g4":
            handlers["device.pair.setupStatus"] = self.m_setup_status
        handlers["node.describe"] = self.m_node_describe
        for removed in self.args.without_method or []:
            handlers.pop(removed, None)
        handler = handlers.get(method)
        if handler is None:
            raise RpcError(f"unknown method: {method}")
        if method == "device.pair.setupCode" or method == "device.pair.setupStatus":
            self.require_scope(conn, "operator.admin")
        elif method in ("node.list", "node.describe"):
            self.require_scope(conn, "operator.read", "operator.write", "operator.pairing")
        else:
            self.require_scope(conn, "operator.pairing")
        self.prune()
        return handler(conn, params)

    @staticmethod
    def params(method, params, allowed, required=()):
        try:
            check_closed(params, set(allowed), "/", required)
            for key, kind in allowed.items():
                check_type(params.get(key), kind, f"/{key}", optional=key not in required)
        except ParamError as e:
            raise RpcError(f"invalid {method} params: {e}")
        return params

    @staticmethod
    def own_only(conn):
        """device-management-authz.ts: a session that authenticated with its device token and
        lacks operator.admin manages its own device only (shared-secret sessions are not bound
        to a device)."""
        return conn.device_token_auth and conn.device_id is not None and not conn.is_admin

    # device.pair.*

    def redact(self, record, connected=None):
        out = {k: v for k, v in record.items() if k not in ("tokens", "approvedScopes")}
        if connected is not None:
            out["connected"] = connected
        summary = []
        for role in sorted(record.get("tokens", {})):
            entry = record["tokens"][role]
            summary.append({k: entry[k] for k in ("role", "scopes", "createdAtMs", "rotatedAtMs",
                                                   "revokedAtMs", "lastUsedAtMs") if k in entry})
        out["tokens"] = summary
        return out

    def m_list(self, conn, params):
        self.params("device.pair.list", params, {})
        pending = sorted(self.pending.values(), key=lambda p: p["ts"], reverse=True)
        paired = sorted(self.paired.values(), key=lambda d: d.get("approvedAtMs", 0), reverse=True)
        if self.own_only(conn):
            pending = [p for p in pending if p["deviceId"] == conn.device_id]
            paired = [d for d in paired if d["deviceId"] == conn.device_id]
        return {"pending": pending, "paired": [self.redact(d, self.connected(d["deviceId"])) for d in paired]}

    def m_approve(self, conn, params):
        request_id = self.params("device.pair.approve", params, {"requestId": "nonempty"}, ("requestId",))["requestId"]
        request = self.pending.get(request_id)
        if not conn.is_admin:
            # devices.ts: without admin, only the caller's own operator requests (when the session
            # is device-token bound), and only within the caller's scopes.
            if request is None or (self.own_only(conn) and request["deviceId"] != conn.device_id) \
                    or any(r != "operator" for r in [request.get("role")] + (request.get("roles") or [])):
                raise RpcError("device pairing approval denied")
            missing = [s for s in request.get("scopes", []) if not scopes_allow([s], conn.scopes)]
            if missing:
                raise RpcError(f"device pairing approval denied: missing scope {missing[0]}")
        if request is None:
            raise RpcError("unknown requestId")
        record = self.approve_request(request_id, "owner")
        log("approved", requestId=request_id, deviceId=record["deviceId"], silent=False)

        async def after():
            await self.broadcast("device.pair.resolved", {"requestId": request_id, "deviceId": record["deviceId"],
                                                          "decision": "approved", "ts": now_ms()})
        result = {"requestId": request_id, "device": self.redact(record)}
        if self.args.approve_returns_token:
            # Test knob: some forks (joyhousebot) return the new device token with the approval.
            result["device"]["token"] = self.ensure_token(record["deviceId"], request.get("role") or "operator",
                                                          request.get("scopes", []))["token"]
        return result, after

    def m_reject(self, conn, params):
        request_id = self.params("device.pair.reject", params, {"requestId": "nonempty"}, ("requestId",))["requestId"]
        request = self.pending.get(request_id)
        if request is not None and self.own_only(conn) and request["deviceId"] != conn.device_id:
            raise RpcError("device pairing rejection denied")
        if request is None:
            raise RpcError("unknown requestId")
        del self.pending[request_id]
        self.save_state()
        log("rejected", requestId=request_id, deviceId=request["deviceId"])

        async def after():
            await self.broadcast("device.pair.resolved", {"requestId": request_id, "deviceId": request["deviceId"],
                                                          "decision": "rejected", "ts": now_ms()})
        return {"requestId": request_id, "deviceId": request["deviceId"]}, after

    def cross_device_denied(self, conn, device_id, role=None):
        """Removal/rename (role None) and token rotation/revocation (role given) by a caller
        without operator.admin: its own device only, and never a non-operator role."""
        if self.own_only(conn) and device_id != conn.device_id:
            return True
        if role is not None:
            return not conn.is_admin and role != "operator"
        record = self.paired.get(device_id)
        return self.own_only(conn) and record is not None and any(r != "operator" for r in record.get("roles", []))

    def m_remove(self, conn, params):
        device_id = self.params("device.pair.remove", params, {"deviceId": "nonempty"}, ("deviceId",))["deviceId"].strip()
        if self.cross_device_denied(conn, device_id):
            raise RpcError("device pairing removal denied")
        if device_id not in self.paired:
            raise RpcError("unknown deviceId")
        del self.paired[device_id]
        self.save_state()
        log("removed", deviceId=device_id)

        async def after():
            await self.disconnect_device(device_id, reason="device removed")
        return {"deviceId": device_id, "removedAtMs": now_ms()}, after

    def m_rename(self, conn, params):
        p = self.params("device.pair.rename", params, {"deviceId": "nonempty", "label": "string"}, ("deviceId", "label"))
        label = p["label"].strip()
        if not label:
            raise RpcError("label required")
        if len(label) > 64:
            raise RpcError("invalid device.pair.rename params: at /label: must NOT have more than 64 characters")
        if self.cross_device_denied(conn, p["deviceId"].strip()):
            raise RpcError("device pairing rename denied")
        record = self.paired.get(p["deviceId"].strip())
        if record is None:
            raise RpcError("unknown deviceId")
        record["operatorLabel"] = label
        self.save_state()

        async def after():
            await self.broadcast("device.pair.changed", {})
        return {"deviceId": record["deviceId"], "label": label}, after

    def m_rotate(self, conn, params):
        p = self.params("device.token.rotate", params, {"deviceId": "nonempty", "role": "nonempty", "scopes": "strings"},
                        ("deviceId", "role"))
        device_id, role = p["deviceId"].strip(), p["role"].strip()
        if self.cross_device_denied(conn, device_id, role):
            raise RpcError("device token rotation denied")
        record = self.paired.get(device_id)
        if record is None or role not in record.get("roles", []):
            raise RpcError("device token rotation denied")
        entry = record.get("tokens", {}).get(role)
        scopes = clean_scopes(p["scopes"]) if p.get("scopes") is not None else (entry or {}).get("scopes", [])
        if role == "operator" and not scopes_allow(scopes, record.get("approvedScopes", [])):
            raise RpcError("device token rotation denied")
        if role == "operator" and not conn.is_admin and not scopes_allow(scopes, conn.scopes):
            raise RpcError("device token rotation denied")
        if role != "operator":
            scopes = []
        now = now_ms()
        fresh = {"token": new_token(), "role": role, "scopes": scopes,
                 "createdAtMs": entry["createdAtMs"] if entry else now, "rotatedAtMs": now}
        record.setdefault("tokens", {})[role] = fresh
        self.save_state()
        in_band = conn.device_id == device_id
        result = {"deviceId": device_id, "role": role}
        if in_band:
            result["token"] = fresh["token"]
        result.update({"scopes": scopes, "rotatedAtMs": now})
        if self.args.generation == "g4":
            # Older gateways omit tokenDelivery (packages/gateway-protocol/src/schema/devices.ts).
            result["tokenDelivery"] = "in-band" if in_band else "withheld-cross-device"

        async def after():
            await self.disconnect_device(device_id, role=role, reason="device token rotated")
        return result, after

    def m_revoke(self, conn, params):
        p = self.params("device.token.revoke", params, {"deviceId": "nonempty", "role": "nonempty"}, ("deviceId", "role"))
        device_id, role = p["deviceId"].strip(), p["role"].strip()
        if self.cross_device_denied(conn, device_id, role):
            raise RpcError("device token revocation denied")
        entry = self.paired.get(device_id, {}).get("tokens", {}).get(role)
        if entry is None:
            raise RpcError("device token revocation denied")
        entry["revokedAtMs"] = entry.get("revokedAtMs") or now_ms()
        self.save_state()

        async def after():
            await self.disconnect_device(device_id, role=role, reason="device token revoked")
        return {"deviceId": device_id, "role": role, "revokedAtMs": entry["revokedAtMs"]}, after

    # node.*

    def m_node_list(self, conn, params):
        self.params("node.list", params, {})
        nodes = {}
        for record in self.paired.values():
            if "node" not in record.get("roles", []):
                continue
            node = {"nodeId": record["deviceId"]}
            for key in ("displayName", "platform", "clientId", "clientMode", "deviceFamily", "remoteIp"):
                if record.get(key) is not None:
                    node[key] = record[key]
            if record.get("operatorLabel"):
                node["displayName"] = record["operatorLabel"]
            meta = self.node_meta.get(record["deviceId"], {})
            for key in ("version", "modelIdentifier", "deviceFamily"):
                if meta.get(key):
                    node[key] = meta[key]
            node.update({"caps": meta.get("caps", []), "commands": meta.get("commands", [])})
            for key in ("pathEnv", "permissions"):
                if key in meta:
                    node[key] = meta[key]
            node.update({"approvalState": "approved", "paired": True,
                         "connected": False, "approvedAtMs": record.get("approvedAtMs")})
            if record.get("lastSeenAtMs"):
                node["lastSeenAtMs"] = record["lastSeenAtMs"]
                node["lastSeenReason"] = record.get("lastSeenReason", "connect")
            nodes[record["deviceId"]] = node
        for request in self.pending.values():
            if "node" not in (request.get("roles") or [request.get("role")]):
                continue
            node = nodes.get(request["deviceId"])
            if node is None:
                node = {"nodeId": request["deviceId"]}
                for key in ("displayName", "platform", "clientId", "clientMode", "deviceFamily", "remoteIp"):
                    if request.get(key) is not None:
                        node[key] = request[key]
                node.update({"caps": [], "commands": [], "approvalState": "pending-approval",
                             "paired": False, "connected": False})
                nodes[request["deviceId"]] = node
            else:
                node["approvalState"] = "pending-reapproval"
            node["pendingRequestId"] = request["requestId"]
            declared = self.node_meta.get(request["deviceId"], {}).get("pending")
            if declared:
                node["pendingDeclaredCaps"] = declared["caps"]
                node["pendingDeclaredCommands"] = declared["commands"]
                if "permissions" in declared:
                    node["pendingDeclaredPermissions"] = declared["permissions"]
        for c in self.connections:
            if not c.authed or c.role != "node" or c.device_id not in nodes:
                continue
            node, client = nodes[c.device_id], c.params["client"]
            node.update({"connected": True, "connectedAtMs": c.connected_at, "version": client["version"],
                         "caps": c.params.get("caps") or [], "commands": c.params.get("commands") or [],
                         "clientId": client["id"], "clientMode": client["mode"], "platform": client["platform"],
                         "remoteIp": c.remote})
            for key in ("modelIdentifier", "deviceFamily"):
                if client.get(key):
                    node[key] = client[key]
            if c.params.get("pathEnv") is not None:
                node["pathEnv"] = c.params["pathEnv"]
            if c.params.get("permissions") is not None:
                node["permissions"] = c.params["permissions"]
        if self.args.generation == "g4":
            # 2026.10 node.list fields (built d.ts; docs/gateway/protocol/presence.md): connect
            # history, the active computer (headless hosts never are), the last node.host.stats
            # (--node-host-stats stands in for a node that sent them).
            for node_id, node in nodes.items():
                meta = self.node_meta.get(node_id, {})
                for key in ("lastConnectedAtMs", "lastDisconnectedAtMs"):
                    if meta.get(key):
                        node[key] = meta[key]
                node["active"] = False
                if self.args.node_host_stats and node.get("paired"):
                    node["hostStats"] = json.loads(self.args.node_host_stats)
            # The command surface of the two-step approval (docs/nodes/node-host.md "Pair + name";
            # upstream-2026-10.md §1.7, §2.6): a node whose surface request waits is
            # pending-approval, or pending-reapproval when an earlier surface was approved.
            for request in self.node_pending.values():
                node = nodes.get(request["nodeId"])
                if node is not None and node.get("approvalState") == "approved":
                    node["approvalState"] = "pending-reapproval" if request["nodeId"] in self.node_paired else "pending-approval"
        ordered = sorted(nodes.values(), key=lambda n: (not n["connected"],
                                                        (n.get("displayName") or n["nodeId"]).lower()))
        for node in ordered:
            if node.get("approvedAtMs") is None:
                node.pop("approvedAtMs", None)
        return {"ts": now_ms(), "nodes": ordered}

    def m_node_describe(self, conn, params):
        p = self.params("node.describe", params, {"nodeId": "nonempty"}, ("nodeId",))
        for node in self.m_node_list(conn, {})["nodes"]:
            if node["nodeId"] == p["nodeId"].strip():
                return dict({"ts": now_ms()}, **node)
        raise RpcError("unknown nodeId")

    def create_node_request(self, p, broadcast=True):
        for request in self.node_pending.values():
            if request["nodeId"] == p["nodeId"]:
                return request, False
        request = {"requestId": str(uuid.uuid4()), **p, "ts": now_ms()}
        self.node_pending[request["requestId"]] = request
        self.save_state()
        log("node-pending", requestId=request["requestId"], nodeId=p["nodeId"])
        if broadcast:
            asyncio.ensure_future(self.broadcast("node.pair.requested", request))
        return request, True

    def m_node_request(self, conn, params):
        p = self.params("node.pair.request", params, {
            "nodeId": "nonempty", "displayName": "string", "platform": "string", "version": "string",
            "coreVersion": "string", "uiVersion": "string", "deviceFamily": "string", "modelIdentifier": "string",
            "caps": "strings", "commands": "strings", "remoteIp": "string", "silent": "bool"}, ("nodeId",))
        request, created = self.create_node_request(dict(p))
        return {"status": "pending", "request": request, "created": created}

    def m_node_pair_list(self, conn, params):
        self.params("node.pair.list", params, {})
        pending = sorted(self.node_pending.values(), key=lambda p: p["ts"], reverse=True)
        paired = sorted(({k: v for k, v in n.items() if k != "token"} for n in self.node_paired.values()),
                        key=lambda n: n.get("approvedAtMs", 0), reverse=True)
        return {"pending": pending, "paired": paired}

    def m_node_approve(self, conn, params):
        request_id = self.params("node.pair.approve", params, {"requestId": "nonempty"}, ("requestId",))["requestId"]
        request = self.node_pending.get(request_id)
        if request is None:
            raise RpcError("unknown requestId")
        commands = request.get("commands") or []
        needed = []
        if commands:
            needed.append("operator.write")
        if any(c in ("system.run", "system.run.prepare", "system.which") for c in commands):
            needed.append("operator.admin")
        for scope in needed:
            if not scopes_allow([scope], conn.scopes):
                raise RpcError(f"missing scope: {scope}")
        del self.node_pending[request_id]
        now = now_ms()
        node = {k: v for k, v in request.items() if k not in ("requestId", "ts", "silent")}
        node.update({"token": new_token(), "createdAtMs": self.node_paired.get(request["nodeId"], {}).get("createdAtMs", now),
                     "approvedAtMs": now})
        self.node_paired[request["nodeId"]] = node
        self.save_state()
        log("node-approved", requestId=request_id, nodeId=request["nodeId"])

        async def after():
            await self.broadcast("node.pair.resolved", {"requestId": request_id, "nodeId": request["nodeId"],
                                                        "decision": "approved", "ts": now_ms()})
        return {"requestId": request_id, "node": node}, after

    def m_node_reject(self, conn, params):
        request_id = self.params("node.pair.reject", params, {"requestId": "nonempty"}, ("requestId",))["requestId"]
        request = self.node_pending.pop(request_id, None)
        if request is None:
            raise RpcError("unknown requestId")
        self.save_state()
        log("node-rejected", requestId=request_id, nodeId=request["nodeId"])

        async def after():
            await self.broadcast("node.pair.resolved", {"requestId": request_id, "nodeId": request["nodeId"],
                                                        "decision": "rejected", "ts": now_ms()})
        return {"requestId": request_id, "nodeId": request["nodeId"]}, after

    def m_node_remove(self, conn, params):
        node_id = self.params("node.pair.remove", params, {"nodeId": "nonempty"}, ("nodeId",))["nodeId"]
        if self.node_paired.pop(node_id, None) is None:
            raise RpcError("unknown nodeId")
        self.save_state()
        return {"nodeId": node_id}

    def m_node_rename(self, conn, params):
        """node.rename {nodeId, displayName} (packages/gateway-protocol/src/schema/nodes.ts
        NodeRenameParamsSchema): a device-paired node shows the name in node.list (as its
        operatorLabel here), a node.pair.* record keeps it as displayName."""
        p = self.params("node.rename", params, {"nodeId": "nonempty", "displayName": "nonempty"}, ("nodeId", "displayName"))
        node_id, name = p["nodeId"].strip(), p["displayName"].strip()
        record = self.paired.get(node_id)
        if record is not None and "node" in record.get("roles", []):
            record["operatorLabel"] = name
        elif node_id in self.node_paired:
            self.node_paired[node_id]["displayName"] = name
        else:
            raise RpcError("unknown nodeId")
        self.save_state()
        log("node-renamed", nodeId=node_id)
        return {"nodeId": node_id, "displayName": name}

    def m_node_verify(self, conn, params):
        p = self.params("node.pair.verify", params, {"nodeId": "nonempty", "token": "nonempty"}, ("nodeId", "token"))
        node = self.node_paired.get(p["nodeId"])
        if node is None or not same_secret(p["token"], node["token"]):
            return {"ok": False}
        return {"ok": True, "node": {k: v for k, v in node.items() if k != "token"}}

    # setup codes

    def default_url(self):
        host = self.hosts[0]
        if ":" in host:
            host = f"[{host}]"
        scheme = "wss" if self.args.cert else "ws"
        return f"{scheme}://{host}:{self.port}"

    def profile(self, name):
        generation = self.args.generation
        handoff = HANDOFF_G4 if generation == "g4" else HANDOFF_G3
        if name == "full":
            return {"roles": ["node", "operator"], "scopes": sorted(["operator.admin"] + handoff), "purpose": "mobile-full"}
        if name == "limited":
            return {"roles": ["node", "operator"], "scopes": list(handoff)}
        if name == "voice-node":
            # src/shared/device-bootstrap-profile.ts VOICE_NODE_PAIRING_SETUP_BOOTSTRAP_PROFILE
            return {"roles": ["node", "operator"], "scopes": ["operator.read", "operator.talk"], "purpose": "voice-node"}
        return {"roles": ["node"], "scopes": []}

    def access_label(self, profile):
        for name in ("full", "node", "voice-node"):
            candidate = self.profile(name)
            if profile["roles"] == candidate["roles"] and profile["scopes"] == candidate["scopes"] \
                    and profile.get("purpose") == candidate.get("purpose"):
                return name
        return "limited"

    def m_setup_code(self, conn, params):
        allowed = {"publicUrl": "string", "preferRemoteUrl": "bool", "includeQr": "bool", "bootstrapProfile": "string"}
        if self.args.generation == "g4":
            allowed["joinUrl"] = "bool"
        p = self.params("device.pair.setupCode", params, allowed)
        profile_name = p.get("bootstrapProfile")
        profiles = ("limited", "node", "voice-node") if self.args.generation == "g4" else ("limited", "node")
        if profile_name is not None and profile_name not in profiles:
            raise RpcError("invalid device.pair.setupCode params: at /bootstrapProfile: must be equal to one of the allowed values")
        if p.get("joinUrl") and profile_name not in (None, "node"):
            raise RpcError("Join URLs require bootstrapProfile=node.")
        default_scheme = "wss" if self.args.cert else "ws"
        if p.get("publicUrl") is not None:
            url, source = normalize_url(p["publicUrl"], default_scheme), "request.publicUrl"
        elif self.args.public_url and not p.get("preferRemoteUrl"):
            url, source = normalize_url(self.args.public_url, default_scheme), "plugins.entries.device-pair.config.publicUrl"
        else:
            url = self.default_url()
            source = "gateway.bind=loopback" if loopback_host(self.hosts[0]) else "gateway.bind=custom"
        if url is None:
            raise RpcError("Configured publicUrl is invalid.")
        host = urllib.parse.urlsplit(url).hostname or ""
        if url.startswith("ws://") and not plaintext_allowed(host):
            raise RpcError("Tailscale and public mobile pairing require a secure gateway URL (wss://). "
                           "Set gateway.tls or use Tailscale Serve, then generate a new code.")
        if url.startswith("ws://") and urllib.parse.urlsplit(url).port is None:
            raise RpcError("Configured publicUrl is invalid: plaintext ws:// on port 80 is dialed on 18789 by the apps.")
        requested = {"limited": "limited", "node": "node", "voice-node": "voice-node"}.get(profile_name, "full")
        access, downgraded = requested, False
        if self.args.generation == "g4" and requested == "full" and url.startswith("ws://") and not loopback_host(host):
            access, downgraded = "limited", True
        profile = self.profile(access)
        token, issued = new_token(), now_ms()
        expires = issued + self.args.bootstrap_ttl_ms
        record = {"token": token, "ts": issued, "issuedAtMs": issued, "profile": profile,
                  "redeemedProfile": {"roles": [], "scopes": []}}
        payload = {"url": url, "bootstrapToken": token}
        result = {}
        if self.args.generation == "g4":
            setup_id = str(uuid.uuid4())
            record["setupId"] = setup_id
            self.setups[setup_id] = {"setupId": setup_id, "access": access, "expiresAtMs": expires}
            payload["expiresAtMs"] = expires
            if self.tls_fingerprint and source.startswith("gateway.bind") and url.startswith("wss://"):
                payload["tlsFingerprint"] = self.tls_fingerprint
            result.update({"setupId": setup_id, "expiresAtMs": expires})
        self.bootstrap[token] = record
        self.save_state()
        code = b64url(json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode())
        result["setupCode"] = code
        if p.get("joinUrl"):
            base = url.replace("wss://", "https://", 1) if url.startswith("wss://") else \
                url.replace("ws://", "http://", 1) if loopback_host(host) or self.args.plaintext_join_urls else None
            if base is None:
                raise RpcError("Join URLs require a TLS gateway endpoint, except for loopback.")
            result["joinUrl"] = self.mint_join_url(base, payload, expires)
        if p.get("includeQr", True):
            qr = self.qr_data_url(code)
            if qr and len(qr) <= MAX_QR_DATA_URL:
                result["qrDataUrl"] = qr
        # --auth-mode trusted-proxy: the label upstream's resolveAuthLabel gives for
        # gateway.auth.mode=trusted-proxy with no token or password configured
        # (extensions/device-pair/pair-command-auth.ts). The shared token/password stays this
        # stand-in's ingress credential, in place of the identity-aware proxy in front of it.
        label = "trusted-proxy" if self.args.auth_mode == "trusted-proxy" else \
            "password" if self.args.password is not None else "token"
        result.update({"gatewayUrl": url, "auth": label,
                       "urlSource": source, "access": access})
        if downgraded:
            result["accessDowngraded"] = True
        log("setup-code", setupCode=code, setupId=result.get("setupId"), access=access)
        return result

    @staticmethod
    def qr_data_url(code):
        try:
            png = subprocess.run(["qrencode", "-o", "-", "-t", "PNG", "-s", "6", "-m", "4", "-l", "M", code],
                                 capture_output=True, timeout=10, check=True).stdout
        except (OSError, subprocess.SubprocessError):
            return None
        return "data:image/png;base64," + base64.b64encode(png).decode()

    def m_setup_status(self, conn, params):
        setup_id = self.params("device.pair.setupStatus", params, {"setupId": "nonempty"}, ("setupId",))["setupId"]
        setup = self.setups.get(setup_id)
        if setup and setup.get("completion"):
            return {"completion": setup["completion"]}
        return {}

    # ----------------------------------------------------------------- main

    async def run(self):
        context = None
        if self.args.cert:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.minimum_version = ssl.TLSVersion.TLSv1_2
            context.load_cert_chain(self.args.cert, self.args.key)
            with open(self.args.cert, encoding="ascii") as f:
                der = ssl.PEM_cert_to_DER_cert(f.read())
            self.tls_fingerprint = hashlib.sha256(der).hexdigest()
        loop = asyncio.get_running_loop()
        stop = loop.create_future()
        for number in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(number, lambda: stop.done() or stop.set_result(None))
        # One port for every host: with port 0 the first bind picks it and the others reuse it.
        servers = []
        self.port = self.args.port
        for host in self.hosts:
            server = await websockets.serve(self.handler, host, self.port, ssl=context, compression=None,
                                            process_request=self.join_route,
                                            max_size=self.args.max_payload, ping_interval=None,
                                            max_queue=64, close_timeout=1)
            self.port = server.sockets[0].getsockname()[1]
            servers.append(server)
        print(f"ready {self.port}", flush=True)
        for name in self.args.seed_node_request or []:
            self.create_node_request({"nodeId": name, "displayName": name}, broadcast=False)
        for name in self.args.seed_device_request or []:
            self.seed_device_request(name)
        await stop
        for server in servers:
            server.close()
        for conn in list(self.connections):
            if conn.authed:
                await conn.event("shutdown", {"reason": "gateway stopping", "restartExpectedMs": None})
        closing = [asyncio.ensure_future(c.ws.close(1012, "service restart")) for c in list(self.connections)]
        if closing:
            await asyncio.wait(closing, timeout=1)
        for conn in list(self.connections):
            conn.ws.transport.abort()
        self.save_state()


def main():
    parser = argparse.ArgumentParser(description="Strict stand-in OpenClaw gateway for tests.")
    parser.add_argument("--host", action="append")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--token")
    parser.add_argument("--password")
    parser.add_argument("--public-url")
    parser.add_argument("--generation", choices=["g3", "g4"], default="g4")
    parser.add_argument("--protocol", type=int, default=4)
    parser.add_argument("--tick-ms", type=int, default=15000)
    parser.add_argument("--max-payload", type=int, default=25 * 1024 * 1024)
    parser.add_argument("--version", default="2026.11.1")
    parser.add_argument("--local-auto-approve", choices=["yes", "no"], default="yes")
    parser.add_argument("--fault", default="none", choices=["none", "no-challenge", "slow-challenge", "garbage",
                                                            "oversized", "close-mid-call", "stall-call"])
    parser.add_argument("--fault-delay-ms", type=int, default=3000)
    parser.add_argument("--state-file")
    parser.add_argument("--seed-node-request", action="append")
    parser.add_argument("--pending-ttl-ms", type=int, default=300_000)
    parser.add_argument("--bootstrap-ttl-ms", type=int, default=600_000)
    parser.add_argument("--refusal-close-delay-ms", type=int, default=0)
    parser.add_argument("--auth-mode", choices=["shared", "trusted-proxy"], default="shared")
    parser.add_argument("--auth-refusal-style", choices=["openclaw", "joyhousebot"], default="openclaw")
    parser.add_argument("--approve-returns-token", action="store_true")
    # Behave like an independent implementation that mints a plain http join URL for a plaintext
    # gateway that is not on loopback (upstream refuses: "Join URLs require a TLS gateway endpoint").
    parser.add_argument("--plaintext-join-urls", action="store_true")
    parser.add_argument("--seed-device-request", action="append")
    parser.add_argument("--starting-connects", type=int, default=0)
    parser.add_argument("--without-method", action="append")
    parser.add_argument("--node-host-stats")
    parser.add_argument("--connect-refusal", choices=sorted(CONNECT_REFUSALS))
    parser.add_argument("--node-event-ok-only", action="store_true")
    parser.add_argument("--invoke-params-object", action="store_true")
    parser.add_argument("--send-invoke", action="append")
    args = parser.parse_args()
    if (args.token is None) == (args.password is None):
        parser.error("exactly one of --token and --password is required (auth mode none is not supported)")
    if bool(args.cert) != bool(args.key):
        parser.error("--cert and --key go together")
    if (args.token is not None and not args.token.strip()) or (args.password is not None and not args.password.strip()):
        parser.error("the shared token or password must not be empty")
    asyncio.run(Gateway(args).run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
