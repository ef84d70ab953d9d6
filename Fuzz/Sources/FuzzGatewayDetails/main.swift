// libFuzzer target: the readers added for OpenClaw 2026.10 (issue #23), on hostile JSON.
// The input is one JSON document (invalid UTF-8 repaired); it is read both as a connect/RPC
// error (`{code, message, details, retryable, retryAfterMs}`, and its `details` under each
// top-level code the readers key on) and as `node.list` / `node.describe` answers. Never traps,
// never hangs, and:
// - `missingScope` is non-empty and space-free, from a MISSING_SCOPE detail or an older
//   gateway's "missing scope: X" message only; `requiredScopes` is empty without that detail
//   and holds at most 16;
// - a startup-sidecars retry delay exists only for `UNAVAILABLE` with that reason, inside
//   ``GatewayStartupRetry/retryAfterRange`` (a peer's number is clamped);
// - `GatewayError.connectFailure` and `rpcFailed` (any code: MISSING_SCOPE, PROTOCOL_MISMATCH
//   details, canRetryWithDeviceToken, recommendedNextStep…) give a message, hint and code with
//   no escape or other control character from the peer, and a kebab-case code;
// - a `node.list` / `node.describe` record that reads keeps its bounds (cpuCount 1…4096, at most
//   three finite non-negative load averages, non-negative sizes) and renders its table row and
//   status lines without a control character.
import CFuzzerDriver
import ClawpairCore
import ClawpairGateway

/// The process entry point: SwiftPM links `main` as `<Module>_main`; libFuzzer takes over from here.
@_cdecl("FuzzGatewayDetails_main")
public func fuzzGatewayDetailsMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzGatewayDetails(data, size) }
}

/// The top-level codes whose details the readers interpret differently.
private let codes = ["FORBIDDEN", "INVALID_REQUEST", "UNAVAILABLE", "NOT_PAIRED", "UNAUTHORIZED"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGatewayDetails(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let json = try? JSONValue.parse(text, limits: JSONLimits(maxInputBytes: 65536)) else { return 0 }

    // As an error object, as sent.
    if let code = json["code"]?.stringValue {
        let shape = GatewayErrorShape(code: code, message: json["message"]?.stringValue ?? "", details: json["details"],
                                      retryable: json["retryable"]?.boolValue, retryAfterMs: json["retryAfterMs"]?.int64Value)
        check(shape, closeReason: text)
    }
    // The whole document as the details of each code the readers key on, with its message when it has one.
    let message = json["message"]?.stringValue ?? text
    for code in codes {
        check(GatewayErrorShape(code: code, message: message, details: json, retryable: true,
                                retryAfterMs: json["retryAfterMs"]?.int64Value), closeReason: text)
    }

    // As node.list and node.describe answers.
    if let list = try? NodeList(json: json) {
        for node in list.nodes { check(node) }
        _ = NodeListNode.statusLines(list.sortedNodes, nowMs: 1_790_000_000_000)
    }
    if let node = try? NodeListNode(json: json, context: "node.describe") { check(node) }
    return 0
}

/// Whether `text` is free of C0/C1 control characters (tab and newline allowed in long text).
private func terminalSafe(_ text: String, allowNewlines: Bool = false) -> Bool {
    !text.unicodeScalars.contains { scalar in
        let value = scalar.value
        if allowNewlines, value == 0x0A || value == 0x09 { return false }
        return value < 0x20 || value == 0x7F || (0x80...0x9F).contains(value)
    }
}

private func isKebab(_ code: String) -> Bool {
    !code.isEmpty && code.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 }
}

private func check(_ shape: GatewayErrorShape, closeReason: String) {
    if let scope = shape.missingScope {
        precondition(!scope.isEmpty && !scope.contains(" "), "a missing scope is empty or has a space")
        precondition(shape.detailCode == "MISSING_SCOPE" || shape.message.hasPrefix("missing scope:"),
                     "a missing scope was read from neither the detail nor the message")
    }
    precondition(shape.requiredScopes.count <= 16, "more than 16 required scopes were kept")
    precondition(shape.detailCode == "MISSING_SCOPE" || shape.requiredScopes.isEmpty, "required scopes without MISSING_SCOPE")
    if let delay = GatewayStartupRetry.retryAfter(shape) {
        precondition(shape.code == "UNAVAILABLE" && shape.details?["reason"]?.stringValue == "startup-sidecars",
                     "a startup retry for another error")
        precondition(GatewayStartupRetry.retryAfterRange.contains(delay), "a startup retry delay outside its range")
    }
    let pairing = PairingRequired(shape, closeReason: closeReason)
    _ = pairing.requestId
    _ = pairing.recommendedNextStep
    for error in [GatewayError.connectFailure(shape, closeReason: closeReason),
                  .connectFailure(shape), .rpcFailed(method: "node.describe", shape), .rpcFailed(method: "node.list", shape)] {
        precondition(terminalSafe(error.message), "an error message carries a control character: \(error.message.debugDescription)")
        precondition(terminalSafe(error.hint ?? "", allowNewlines: true), "an error hint carries a control character")
        precondition(isKebab(error.code), "an error code is not kebab-case: \(error.code)")
        _ = error.isPermissionRefusal
        if case .gatewayStarting(let delay, _) = error {
            precondition(GatewayStartupRetry.retryAfterRange.contains(delay), "gatewayStarting outside its range")
        }
    }
    _ = shape.json.compact()
}

private func check(_ node: NodeListNode) {
    if let stats = node.hostStats {
        precondition(stats.cpuCount.map { (1...4096).contains($0) } ?? true, "cpuCount out of range")
        precondition(stats.loadAverage.count <= 3 && stats.loadAverage.allSatisfy { $0.isFinite && $0 >= 0 },
                     "a load average out of range")
        for size in [stats.memoryTotalBytes, stats.memoryFreeBytes, stats.diskTotalBytes, stats.diskAvailableBytes] {
            precondition(size.map { $0 >= 0 } ?? true, "a negative size was kept")
        }
    }
    let now: Int64 = 1_790_000_000_000
    for cell in node.tableRow(nowMs: now) {
        precondition(terminalSafe(cell), "a node table cell carries a control character: \(cell.debugDescription)")
    }
    for line in node.statusLines(nowMs: now) {
        precondition(terminalSafe(line), "a node status line carries a control character: \(line.debugDescription)")
    }
    precondition(terminalSafe(node.history(nowMs: now)), "a node history carries a control character")
    precondition(terminalSafe(NodeListNode.approvalText(node.approvalState)), "an approval state carries a control character")
    _ = node.json.compact()
}
