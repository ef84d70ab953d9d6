import ClawpairCore
import Testing
@testable import ClawpairGateway

@Suite struct GatewayFrameTests {
    @Test func decodesResponsesEventsAndErrors() throws {
        let ok = try GatewayFrames.decode(#"{"type":"res","id":"a","ok":true,"payload":{"x":1}}"#, maxBytes: 1024)
        #expect(ok == .response(id: "a", ok: true, payload: ["x": 1], error: nil))
        let failed = try GatewayFrames.decode(
            #"{"type":"res","id":"b","ok":false,"error":{"code":"NOT_PAIRED","message":"m","details":{"code":"PAIRING_REQUIRED","requestId":"r1"}}}"#,
            maxBytes: 1024)
        guard case .response(_, false, _, let shape?) = failed else { Issue.record("not a failed response"); return }
        #expect(shape.code == "NOT_PAIRED")
        #expect(shape.detailCode == "PAIRING_REQUIRED")
        #expect(PairingRequired(shape).requestId == "r1")
        let event = try GatewayFrames.decode(#"{"type":"event","event":"tick","payload":{"ts":5},"seq":3}"#, maxBytes: 1024)
        #expect(event == .event(name: "tick", payload: ["ts": 5], seq: 3))
    }

    @Test func rejectsMalformedFrames() {
        #expect(throws: GatewayFrameError.notObject) { try GatewayFrames.decode("[]", maxBytes: 64) }
        #expect(throws: GatewayFrameError.unknownType("nope")) { try GatewayFrames.decode(#"{"type":"nope"}"#, maxBytes: 64) }
        #expect(throws: GatewayFrameError.unknownType(nil)) { try GatewayFrames.decode(#"{"id":"x"}"#, maxBytes: 64) }
        #expect(throws: GatewayFrameError.badField("ok", expected: "a Boolean")) {
            try GatewayFrames.decode(#"{"type":"res","id":"a","ok":"yes"}"#, maxBytes: 64)
        }
        #expect(throws: GatewayFrameError.badField("error", expected: "an ErrorShape on a failed response")) {
            try GatewayFrames.decode(#"{"type":"res","id":"a","ok":false}"#, maxBytes: 64)
        }
        #expect(throws: GatewayFrameError.badField("seq", expected: "an integer ≥ 0")) {
            try GatewayFrames.decode(#"{"type":"event","event":"e","seq":-1}"#, maxBytes: 64)
        }
        #expect(throws: GatewayFrameError.tooLarge(size: 65, limit: 64)) {
            try GatewayFrames.decode(String(repeating: " ", count: 65), maxBytes: 64)
        }
        #expect(throws: (any Error).self) { try GatewayFrames.decode("not json", maxBytes: 64) }
    }

    @Test func requestIdsAreUUIDv4() {
        let id = RequestID.make()
        let parts = id.split(separator: "-").map(\.count)
        #expect(parts == [8, 4, 4, 4, 12])
        #expect(Array(id)[14] == "4")
        #expect("89ab".contains(Array(id)[19]))
        #expect(RequestID.make() != id)
    }

    @Test func requestFrameIsCompactAndClosed() {
        #expect(GatewayFrames.request(id: "1", method: "device.pair.list", params: .object([]))
                == #"{"type":"req","id":"1","method":"device.pair.list","params":{}}"#)
        #expect(GatewayFrames.request(id: "1", method: "m", params: nil) == #"{"type":"req","id":"1","method":"m"}"#)
    }

    @Test func closeReasonCarriesTheRequestId() {
        #expect(PairingRequired.requestId(inCloseReason: "pairing required: device is not approved yet (requestId: 1234-ab)") == "1234-ab")
        #expect(PairingRequired.requestId(inCloseReason: "bye") == nil)
    }

    @Test func connectFailuresAreClassifiedByDetailCode() {
        let pairing = GatewayError.connectFailure(GatewayErrorShape(code: "NOT_PAIRED", message: "x"), closeReason: "(requestId: r9)")
        #expect(pairing == .pairingRequired(PairingRequired(requestId: "r9")))
        let auth = GatewayError.connectFailure(GatewayErrorShape(code: "INVALID_REQUEST", message: "unauthorized",
                                                                 details: ["code": "AUTH_TOKEN_MISMATCH"]))
        guard case .authRejected = auth else { Issue.record("\(auth)"); return }
        // joyhousebot: the reason as the whole message, no details (exit 4 like upstream's).
        for bare in ["token_mismatch", "device_token_mismatch", "unauthorized: gateway token mismatch (set gateway.remote.token)"] {
            let refused = GatewayError.connectFailure(GatewayErrorShape(code: "INVALID_REQUEST", message: bare))
            guard case .authRejected = refused else { Issue.record("\(bare): \(refused)"); return }
        }
        let other = GatewayError.connectFailure(GatewayErrorShape(code: "INVALID_REQUEST", message: "device identity incomplete"))
        guard case .connectRejected = other else { Issue.record("\(other)"); return }
        let skew = GatewayError.connectFailure(GatewayErrorShape(code: "INVALID_REQUEST", message: "m",
                                                                 details: ["code": "DEVICE_AUTH_SIGNATURE_EXPIRED"]))
        guard case .deviceAuthRejected = skew else { Issue.record("\(skew)"); return }
        #expect(skew.message.contains("2 minutes"))
        #expect(skew.hint?.contains("clock") == true)
    }
}
