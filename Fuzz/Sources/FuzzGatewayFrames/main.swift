// libFuzzer target: gateway frame decoding and what the client reads out of decoded frames.
// The input is one WebSocket text message (invalid UTF-8 repaired, as the codec never hands
// the client bytes that are not text). Never traps, never hangs, and:
// - decoding is the same under the 64 KiB pre-connect limit and under a tiny one whenever the
//   message fits both; a message over a limit is refused as `tooLarge` with its true size;
// - a decoded request re-encodes (`GatewayFrames.request`) to text that decodes to the same frame;
// - for every response and event, `HelloOK`, `PairingRequired` (with the raw text as the close
//   reason), `GatewayError.connectFailure` and `PairedGateway(json:)` read the payload (or the
//   error shape) without trapping; a parsed hello-ok keeps its documented bounds, and a parsed
//   registry record re-serializes to a record that parses equal;
// - `PairingRequired.requestId(inCloseReason:)` on the raw text finds an id that is non-empty,
//   inside the text and free of ')' and ' '.
import CFuzzerDriver
import ClawpairCore
import ClawpairGateway

/// The process entry point: SwiftPM links `main` as `<Module>_main`; libFuzzer takes over from here.
@_cdecl("FuzzGatewayFrames_main")
public func fuzzGatewayFramesMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzGatewayFrames(data, size) }
}

/// The limits exercised: the pre-connect cap and one small enough that most inputs exceed it.
private let limits = [GatewayFrames.preConnectMaxBytes, 48]

private func decode(_ text: String, maxBytes: Int) -> Result<GatewayFrame, GatewayFrameError> {
    do {
        return .success(try GatewayFrames.decode(text, maxBytes: maxBytes))
    } catch {
        _ = error.message
        return .failure(error)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGatewayFrames(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let length = text.utf8.count

    var results: [Result<GatewayFrame, GatewayFrameError>] = []
    for limit in limits {
        let result = decode(text, maxBytes: limit)
        if length > limit {
            precondition(result == .failure(.tooLarge(size: length, limit: limit)), "an oversized frame was not refused as such")
        }
        results.append(result)
    }
    if length <= limits.min()! {
        precondition(results.allSatisfy { $0 == results[0] }, "the limit changed the decoding of a frame within every limit")
    }

    // What the client reads out of a frame, as it would.
    if case .success(let frame) = results[0] {
        switch frame {
        case .response(_, _, let payload, let error):
            if let payload { readPayload(payload, closeReason: text) }
            if let error { readErrorShape(error, closeReason: text) }
        case .event(_, let payload, let seq):
            precondition(seq.map { $0 >= 0 } ?? true, "a negative seq was accepted")
            if let payload {
                readPayload(payload, closeReason: text)
                readErrorShape(GatewayErrorShape(code: "NOT_PAIRED", message: "", details: payload), closeReason: text)
            }
        case .request(let id, let method, let params):
            let encoded = GatewayFrames.request(id: id, method: method, params: params)
            guard case .success(.request(let id2, let method2, let params2)) = decode(encoded, maxBytes: 8 * length + 1024) else {
                preconditionFailure("a decoded request does not survive re-encoding")
            }
            precondition(id2 == id && method2 == method && params2?.compact() == params?.compact(),
                         "a re-encoded request decodes differently")
        case .cancel:
            break
        }
    }

    checkRequestId(in: text)
    // A registry record is JSON on disk, not a frame: read the whole text as one too.
    if let json = try? JSONValue.parse(text, limits: JSONLimits(maxInputBytes: GatewayFrames.preConnectMaxBytes)) {
        readRecord(json)
    }
    return 0
}

private func readPayload(_ payload: JSONValue, closeReason: String) {
    if let hello = HelloOK(payload) {
        precondition(hello.maxPayload > 0 && hello.tickIntervalMs > 0, "hello-ok limits must be positive")
        precondition(hello.deviceToken.map { !$0.token.isEmpty } ?? true, "an empty device token was kept")
        precondition(hello.handoffTokens.allSatisfy { !$0.token.isEmpty }, "an empty hand-off token was kept")
        precondition(hello.raw == payload, "hello-ok does not keep its payload")
    }
    readRecord(payload)
}

private func readErrorShape(_ shape: GatewayErrorShape, closeReason: String) {
    let pairing = PairingRequired(shape, closeReason: closeReason)
    _ = pairing.requestId
    let failure = GatewayError.connectFailure(shape, closeReason: closeReason)
    _ = failure.message
    _ = failure.hint
    _ = failure.isPermissionRefusal
    _ = GatewayError.rpcFailed(method: "device.pair.list", shape).message
    _ = shape.json.compact()
}

private func readRecord(_ json: JSONValue) {
    guard let record = try? PairedGateway(json: json) else { return }
    precondition(PairedGateway.isValidID(record.id) && !record.name.isEmpty && !record.urls.isEmpty,
                 "a record that parsed breaks the registry's rules")
    guard let again = try? PairedGateway(json: record.json) else {
        preconditionFailure("a parsed record does not parse after re-serializing")
    }
    precondition(again == record, "a record changed through re-serializing")
}

private func checkRequestId(in text: String) {
    guard let id = PairingRequired.requestId(inCloseReason: text) else { return }
    precondition(!id.isEmpty && !id.utf8.contains(UInt8(ascii: ")")) && !id.utf8.contains(UInt8(ascii: " ")),
                 "the request id from a close reason is empty or runs past its end")
    precondition(id.utf8.count <= text.utf8.count, "the request id is longer than the close reason")
}
