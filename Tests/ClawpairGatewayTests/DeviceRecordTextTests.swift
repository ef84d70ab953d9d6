import ClawpairCore
import Testing
@testable import ClawpairGateway

/// Device pairing records for people: list rows, a request's details, the event line, the
/// approve/reject/clear summaries, lookup messages and the pairing progress notes.
@Suite struct DeviceRecordTextTests {
    static let phone = String(repeating: "a", count: 64)
    static let laptop = "ab" + String(repeating: "c", count: 62)
    static let now: Int64 = 100_000_000

    static let phoneRequest: JSONValue = .object([
        ("requestId", "req-1"), ("deviceId", .string(phone)), ("publicKey", "k"), ("displayName", "Pixel 8"),
        ("platform", "android"), ("clientId", "openclaw-android"), ("clientMode", "node"), ("role", "node"),
        ("scopes", .array([])), ("remoteIp", "10.0.0.7"), ("isRepair", true), ("ts", .int(now - 120_000)),
    ])
    static let laptopRequest: JSONValue = .object([
        ("requestId", "req-2"), ("deviceId", .string(laptop)), ("publicKey", "k"), ("roles", .array(["operator", "node"])),
        ("scopes", .array(["operator.read"])), ("silent", true), ("ts", .int(now - 1_000)),
    ])
    static let pairedLaptop: JSONValue = .object([
        ("deviceId", .string(laptop)), ("displayName", "ThinkPad"), ("operatorLabel", "Anna's laptop\u{1B}[31m"),
        ("roles", .array(["operator"])), ("scopes", .array(["operator.read", "operator.write"])), ("remoteIp", "fd00::2"),
        ("approvedAtMs", .int(now - 3_600_000)), ("lastSeenAtMs", .int(now - 60_000)),
    ])
    static let pairedPhone: JSONValue = .object([
        ("deviceId", .string(phone)), ("displayName", "Pixel 8"), ("role", "node"), ("approvedAtMs", .int(now - 7_200_000)),
        ("connected", true),
    ])

    static func listing() throws -> DevicePairingList {
        try DevicePairingList(json: .object([("pending", .array([phoneRequest, laptopRequest])),
                                             ("paired", .array([pairedPhone, pairedLaptop]))]))
    }

    @Test("list rows: pending newest first with role or roles and flags; paired with the label, roles and when seen")
    func rows() throws {
        let list = try Self.listing()
        #expect(DevicePairingList.pendingColumns.count == 8 && DevicePairingList.pairedColumns.count == 7)
        #expect(list.pendingRows(now: Self.now) == [
            ["req-2", "abcccccccccc…", "-", "operator,node", "operator.read", "-", "1s ago", "silent"],
            ["req-1", "aaaaaaaaaaaa…", "Pixel 8", "node", "-", "10.0.0.7", "2m ago", "repair"],
        ])
        #expect(list.pairedRows(now: Self.now) == [
            ["abcccccccccc…", TerminalText.sanitize("Anna's laptop\u{1B}[31m", maxScalars: 32), "operator",
             "operator.read,operator.write", "fd00::2", "1h ago", "1m ago"],
            ["aaaaaaaaaaaa…", "Pixel 8", "node", "-", "-", "2h ago", "now"],
        ])
    }

    @Test("a request's details and its event line (a request from the future is 0ms old; the superseded request flagged)")
    func requestText() throws {
        let request = try PendingRequest(json: Self.phoneRequest)
        let details = request.details(now: Self.now)
        #expect(details.map(\.label) == ["Request", "Device", "Name", "Platform", "Client", "Role", "Scopes", "Address",
                                          "Requested", "Repair"])
        #expect(details.map(\.value) == ["req-1", Self.phone, "Pixel 8", "android", "openclaw-android / node", "node", "-",
                                          "10.0.0.7", "2m ago", "yes (already paired; asks again)"])
        #expect(request.eventLine(supersedes: "req-0", now: Self.now)
                == "request req-1  Pixel 8 (aaaaaaaaaaaa…)  node  -  from 10.0.0.7  2m ago  [repair, supersedes req-0]")
        let early = try PendingRequest(json: Self.laptopRequest)
        #expect(early.eventLine(supersedes: nil, now: 0)
                == "request req-2  - (abcccccccccc…)  operator,node  operator.read  from -  just now  [silent]")
    }

    @Test("approve, reject and clear summaries")
    func summaries() throws {
        let request = try PendingRequest(json: Self.phoneRequest)
        let resolved = ResolvedDeviceRequest(request: request, matchedBy: .name)
        let approval = try DeviceApproval(json: .object([("requestId", "req-1"), ("device", Self.pairedLaptop)]))
        let outcome = DeviceApprovalOutcome(resolved: resolved, approved: request, approval: approval, superseded: [])
        #expect(outcome.summary == "Approved " + TerminalText.sanitize("Anna's laptop\u{1B}[31m", maxScalars: 40)
                + " (abcccccccccc…) as operator with scopes operator.read,operator.write.")
        let bare = DeviceApprovalOutcome(resolved: resolved, approved: try PendingRequest(json: Self.laptopRequest),
                                         approval: try DeviceApproval(json: .object([("requestId", "req-2")])), superseded: [])
        #expect(bare.summary == "Approved device (abcccccccccc…) as operator,node with scopes operator.read.")

        let rejected = try DeviceRejection(json: .object([("requestId", "req-1")]))
        let rejection = DeviceRejectionOutcome(resolved: resolved, rejected: request, rejection: rejected, superseded: [])
        #expect(rejection.summary == "Rejected request req-1 from device aaaaaaaaaaaa….")
        #expect(rejection.json == rejected.json && outcome.json == approval.json)
        #expect(outcome.notes(query: "pixel") == ["pixel (name) is request req-1"])
        let superseded = DeviceRejectionOutcome(resolved: resolved, rejected: try PendingRequest(json: Self.laptopRequest),
                                                rejection: rejected, superseded: ["req-1"])
        #expect(superseded.notes(query: "pixel") == ["pixel (name) is request req-1",
                                                     "request req-1 was superseded by the device's retry; rejecting its current request req-2"])

        var clearing = DeviceClearing()
        clearing.removedDevices = [Self.phone]
        #expect(clearing.summary(rejectingPending: false) == "Removed 1 device.")
        clearing.removedDevices.append(Self.laptop)
        clearing.rejectedPending = ["req-1"]
        #expect(clearing.summary(rejectingPending: true) == "Removed 2 devices, rejected 1 pending request.")
        clearing.rejectedPending = []
        #expect(clearing.summary(rejectingPending: true) == "Removed 2 devices, rejected 0 pending requests.")
    }

    @Test("lookup failures say what matched, sanitized, with the candidates")
    func lookupMessages() throws {
        let list = try Self.listing()
        #expect(DeviceRequestLookupError.emptyQuery.message == "give a device id, request id, prefix or name")
        #expect(DeviceRequestLookupError.notFound(query: "x\u{7}").message
                == "no pending pairing request matches " + TerminalText.sanitize("x\u{7}", maxScalars: 80))
        #expect(DeviceRequestLookupError.ambiguous(query: "req", candidates: list.sortedPending).message
                == "req matches 2 devices' requests: req-2 (-, device abcccccccccc…); req-1 (Pixel 8, device aaaaaaaaaaaa…)")
        #expect(DeviceRequestLookupError.alreadyPaired(query: "Pixel 8", device: list.sortedPaired[1]).message
                == "Pixel 8 is a paired device's id or name, with no pending request (device aaaaaaaaaaaa…)")

        #expect(try list.pairedDevice(named: "pixel 8").deviceId == Self.phone)
        #expect(throws: PairedDeviceLookupError.notFound(query: "nope")) { try list.pairedDevice(named: "nope") }
        #expect(PairedDeviceLookupError.notFound(query: "nope").message == "no paired device matches nope")
        let two = try DevicePairingList(json: .object([("pending", .array([])), ("paired", .array([
            .object([("deviceId", .string("abcd" + Self.phone.dropFirst(4))), ("displayName", "one")]),
            .object([("deviceId", .string("abcd" + Self.laptop.dropFirst(4))), ("displayName", "two")]),
        ]))]))
        do throws(PairedDeviceLookupError) {
            _ = try two.pairedDevice(named: "abcd")
            Issue.record("a prefix of two ids matched")
        } catch {
            #expect(error.message == "abcd matches 2 paired devices: abcdaaaaaaaa… (one); abcdcccccccc… (two)")
        }
    }

    @Test("pairing progress notes name the caller's approve command and OpenClaw's; the ends say nothing")
    func progressNotes() {
        let command: (String?) -> String = { "approve \($0 ?? "?")" }
        #expect(PairingProgress.reachable(url: "wss://gw:18789").notes(approveCommand: command)
                == ["Gateway answers at wss://gw:18789"])
        #expect(PairingProgress.pending(PairingRequired(requestId: "r1")).notes(approveCommand: command) == [
            "Waiting for approval of pairing request r1.", "On the gateway host run: approve r1",
            "  (or: openclaw devices approve r1)",
        ])
        #expect(PairingProgress.superseded(PairingRequired()).notes(approveCommand: command) == [
            "Waiting for approval of pairing request (id not given).", "On the gateway host run: approve ?",
            "  (or: openclaw devices approve <requestId>)",
        ])
        #expect(PairingProgress.stillWaiting(elapsed: .seconds(90), requestId: "r1").notes(approveCommand: command)
                == ["Still waiting (1m 30s) for approval of pairing request r1; on the gateway host run: approve r1"])
        #expect(PairingProgress.handoffTokensIgnored(count: 2).notes(approveCommand: command)
                == ["Ignored 2 hand-off token(s) issued over plaintext to a non-local host."])
        for end in [PairingProgress.approved(requestId: "r1"), .rejected(requestId: "r1"), .expired(requestId: nil)] {
            #expect(end.notes(approveCommand: command).isEmpty)
        }
    }
}

/// Token and join-code results, labels.
@Suite struct DeviceTokenTextTests {
    static let device = String(repeating: "5", count: 64)

    @Test("rotation and revocation summaries name the role and the short device id; a withheld token says where it went")
    func tokens() throws {
        let rotation = try TokenRotation(json: .object([("deviceId", .string(Self.device)), ("role", "operator"),
                                                        ("scopes", .array(["operator.read"])), ("tokenDelivery", "withheld-cross-device")]))
        #expect(rotation.summary(deviceId: Self.device, role: "operator")
                == "Rotated the operator token of 555555555555… (scopes operator.read).")
        #expect(rotation.withheldNote
                == "The gateway withheld the new token (withheld-cross-device): it is not sent to the device, whose stored "
                + "token no longer works, so its next connect is refused; pair that device again with a new setup code.")
        let older = try TokenRotation(json: .object([("deviceId", .string(Self.device)), ("role", "operator")]))
        #expect(older.withheldNote.hasPrefix("The gateway did not return the new token (an older gateway, which does not say where it went"))
        let revocation = try TokenRevocation(json: .object([("deviceId", .string(Self.device)), ("role", "node")]))
        #expect(revocation.summary(deviceId: Self.device, role: "node") == "Revoked the node token of 555555555555….")
    }

    @Test("a loopback-only join code warns; one with a public origin does not")
    func joinCode() {
        #expect(JoinCode(url: "https://gw.example/j/abc", expiresAtMs: nil, loopbackOnly: false).loopbackWarning == nil)
        let warning = JoinCode(url: "http://127.0.0.1:18789/j/abc", expiresAtMs: nil, loopbackOnly: true).loopbackWarning
        #expect(warning?.hasPrefix("the gateway is only bound to loopback: ") == true)
        #expect(warning?.contains("gateway.publicOrigin") == true)
    }

    @Test("labels: trimmed, 1 to 64 characters")
    func labels() {
        #expect(PairedDevice.label("  Anna's phone \n") == "Anna's phone")
        #expect(PairedDevice.label(String(repeating: "x", count: 64))?.count == 64)
        #expect(PairedDevice.label(String(repeating: "x", count: 65)) == nil)
        #expect(PairedDevice.label(" \t ") == nil)
    }

    @Test("pairing summary: the gateway, URL, role and scopes; the tokens stored and where")
    func pairingSummary() {
        let token = StoredDeviceToken(token: "secret", role: "node", scopes: [], issuedAtMs: nil)
        let gateway = PairedGateway(id: "gw-1", name: "studio", urls: ["wss://studio:18789"], tlsFingerprint: nil, deviceId: Self.device,
                                    tokens: [token], pairedAtMs: 1)
        let result = PairingResult(gateway: gateway, url: "wss://studio:18789", deviceId: Self.device, token: token, tokens: [token],
                                   requestId: nil, becameActive: true)
        #expect(result.summary(registryDirectory: "/home/u/.config/clawpair/gateways") == [
            "Paired with studio (wss://studio:18789) as node.",
            "Stored node token(s) in /home/u/.config/clawpair/gateways (gateway id gw-1).",
            "Made a new record 'studio'.",
        ])
    }
}
