"""Writes seed inputs for a fuzz target from the shared test vectors (stdlib only)."""
import hashlib, json, os, sys

target, vectors_path, out = sys.argv[1:4]
vectors = json.load(open(vectors_path))
seeds = []
if target == "FuzzSetupCode":
    for group in ("setupCode.encode", "setupCode.decode"):
        for v in vectors[group]["vectors"]:
            for key in ("setupCode", "input", "payloadJson"):
                if key in v:
                    seeds.append(v[key])
    for v in vectors["urlPolicy"]["normalization"]:
        seeds.append(v["input"])
elif target == "FuzzJSON":
    for v in vectors["setupCode.encode"]["vectors"]:
        seeds.append(v["payloadJson"])
    seeds.append(json.dumps(vectors["setupCode.access"]))
elif target == "FuzzGatewayFrames":
    # The handshake example, then each frame shape the client reads (identity-and-handshake.md
    # §3, §7, §8; pairing-rpcs.md), then paired-gateways registry records (raw and as payloads).
    frame = lambda value: json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    example = vectors["signatures"]["connectExample"]
    seeds += [frame(example["challenge"]), frame(example["request"])]
    device = vectors["identity"]["vectors"][0]
    device_id = device["deviceId"]
    rid = "7d9c1e2a-5b3f-4c8d-9e0a-1f2b3c4d5e6f"
    request_id = "0b7c2f4e-9a31-4d6e-8f10-2c3b4a5d6e7f"
    token = {"deviceToken": "dt-operator-abc", "role": "operator",
             "scopes": ["operator.admin", "operator.pairing"], "issuedAtMs": 1737264000000}
    hello = {"type": "hello-ok", "protocol": 3,
             "server": {"version": "2026.11.1", "connId": "c-1"},
             "features": {"methods": ["device.pair.list", "device.pair.approve", "node.list"],
                          "events": ["tick", "device.pair.requested", "device.pair.resolved"]},
             "snapshot": {"presence": [], "health": {}, "stateVersion": {"presence": 0, "health": 0}},
             "auth": {"role": "operator", "scopes": token["scopes"], "deviceToken": token["deviceToken"],
                      "issuedAtMs": token["issuedAtMs"],
                      "deviceTokens": [dict(token, role="node", deviceToken="dt-node-xyz", scopes=[])]},
             "policy": {"maxPayload": 26214400, "maxBufferedBytes": 52428800, "tickIntervalMs": 15000}}
    seeds.append(frame({"type": "res", "id": rid, "ok": True, "payload": hello}))
    seeds.append(frame({"type": "res", "id": rid, "ok": True,
                        "payload": {"type": "hello-ok", "protocol": 4, "policy": {"maxPayload": 0, "tickIntervalMs": -1}}}))
    not_paired = {"code": "NOT_PAIRED", "message": "pairing required: device is not approved yet",
                  "details": {"code": "PAIRING_REQUIRED", "reason": "not-paired", "requestId": request_id,
                              "remediationHint": "Approve this device from the pending pairing requests.",
                              "deviceId": device_id, "requestedRole": "node", "requestedScopes": [],
                              "recommendedNextStep": "wait_then_retry"},
                  "retryable": True, "retryAfterMs": 1000}
    seeds.append(frame({"type": "res", "id": rid, "ok": False, "error": not_paired}))
    seeds.append("pairing required: device is not approved yet (requestId: %s)" % request_id)
    seeds.append(frame({"type": "res", "id": rid, "ok": False,
                        "error": {"code": "INVALID_REQUEST", "message": "unauthorized: gateway token mismatch",
                                  "details": {"code": "AUTH_TOKEN_MISMATCH", "authReason": "token_mismatch",
                                              "canRetryWithDeviceToken": False,
                                              "recommendedNextStep": "update_auth_credentials"}}}))
    seeds.append(frame({"type": "res", "id": rid, "ok": False,
                        "error": {"code": "INVALID_REQUEST", "message": "device signature invalid",
                                  "details": {"code": "DEVICE_AUTH_SIGNATURE_INVALID", "reason": "device-signature"}}}))
    pending = {"requestId": request_id, "deviceId": device_id, "publicKey": device["publicKeyBase64Url"],
               "displayName": "kitchen-pi", "platform": "linux", "clientId": "node-host", "clientMode": "node",
               "role": "node", "roles": ["node"], "scopes": [], "remoteIp": "127.0.0.1", "silent": False,
               "isRepair": False, "ts": 1737264000000}
    paired = {"deviceId": device_id, "displayName": "laptop", "platform": "linux", "clientId": "cli",
              "clientMode": "cli", "role": "operator", "roles": ["operator"], "scopes": token["scopes"],
              "tokens": [{"role": "operator", "scopes": token["scopes"], "createdAtMs": 1737264000000}],
              "createdAtMs": 1737264000000, "approvedAtMs": 1737264000000}
    seeds.append(frame({"type": "res", "id": rid, "ok": True, "payload": {"pending": [pending], "paired": [paired]}}))
    seeds.append(frame({"type": "res", "id": rid, "ok": True, "payload": {"pending": [], "paired": []}}))
    seeds.append(frame({"type": "event", "event": "device.pair.requested", "payload": pending, "seq": 3}))
    seeds.append(frame({"type": "event", "event": "device.pair.resolved", "seq": 4,
                        "payload": {"requestId": request_id, "deviceId": device_id, "decision": "approved", "ts": 1}}))
    seeds.append(frame({"type": "event", "event": "tick", "payload": {"ts": 1737264015000}, "seq": 0}))
    seeds.append(frame({"type": "event", "event": "shutdown", "payload": {"reason": "restart"}, "stateVersion": 2}))
    seeds.append(frame({"type": "req", "id": rid, "method": "device.pair.list", "params": {}}))
    seeds.append(frame({"type": "cancel", "id": rid}))
    record = {"version": 1, "id": "gw-0123456789abcdef", "name": "home", "urls": ["wss://gw.example:18789", "ws://127.0.0.1:18789"],
              "tlsFingerprint": "ab" * 32, "deviceId": device_id,
              "tokens": {"node": {"token": "dt-node-xyz", "role": "node", "scopes": [], "issuedAtMs": 1737264000000},
                         "operator": {"token": "dt-operator-abc", "role": "operator", "scopes": token["scopes"]}},
              "pairedAtMs": 1737264000000, "lastSeenAtMs": None, "deviceName": "kitchen-pi"}
    seeds.append(frame(record))
    seeds.append(json.dumps(record, indent=2))
    seeds.append(frame({"type": "event", "event": "gateway.record", "payload": record}))
    # Exactly the 64 KiB pre-connect limit (libFuzzer grows its inputs slowly from small ones).
    big = frame({"type": "event", "event": "device.pair.requested", "payload": dict(pending, displayName="")})
    seeds.append(big.replace('"displayName":""', '"displayName":"%s"' % ("x" * (65536 - len(big)))))
elif target == "FuzzStores":
    # A registry record (as FuzzGatewayFrames seeds it), then OpenClaw state stores with the
    # upstream schema (src/state/openclaw-state-schema.sql) built by python3's sqlite3, one of them
    # with a recursive view where the identity table should be.
    import sqlite3, tempfile
    device = vectors["identity"]["vectors"][0]
    record = {"version": 1, "id": "gw-0123456789abcdef", "name": "home", "urls": ["wss://gw.example:18789"],
              "tlsFingerprint": "ab" * 32, "deviceId": device["deviceId"],
              "tokens": {"node": {"token": "dt-node-xyz", "role": "node", "scopes": [], "issuedAtMs": 1737264000000}},
              "pairedAtMs": 1737264000000, "lastSeenAtMs": None, "deviceName": "kitchen-pi"}
    seeds.append(json.dumps(record, indent=2))
    schema = """
        CREATE TABLE device_identities (identity_key TEXT NOT NULL PRIMARY KEY, device_id TEXT NOT NULL,
          public_key_pem TEXT NOT NULL, private_key_pem TEXT NOT NULL, created_at_ms INTEGER NOT NULL,
          updated_at_ms INTEGER NOT NULL) STRICT;
        CREATE TABLE device_auth_tokens (device_id TEXT NOT NULL, role TEXT NOT NULL, token TEXT NOT NULL,
          scopes_json TEXT NOT NULL, updated_at_ms INTEGER NOT NULL, PRIMARY KEY (device_id, role)) STRICT;
        """
    view = """
        CREATE VIEW device_identities AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n)
          SELECT 'primary' AS identity_key, 'a' AS device_id, 'p' AS public_key_pem, 'k' AS private_key_pem,
                 1 AS created_at_ms FROM n WHERE x < 0;
        """
    pem = device.get("publicKeyPem", "-----BEGIN PUBLIC KEY-----\nAA==\n-----END PUBLIC KEY-----\n")
    for sql, rows in ((schema, True), (view, False)):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "s.sqlite")
            c = sqlite3.connect(path)
            c.executescript(sql)
            if rows:
                c.execute("INSERT INTO device_identities VALUES ('primary', ?, ?, ?, 1, 2)", (device["deviceId"], pem, pem))
                c.execute("INSERT INTO device_auth_tokens VALUES (?, 'node', 't', '[]', 1)", (device["deviceId"],))
            c.commit()
            c.close()
            seeds.append(open(path, "rb").read())
for seed in seeds:
    data = seed if isinstance(seed, bytes) else seed.encode()
    with open(os.path.join(out, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)
