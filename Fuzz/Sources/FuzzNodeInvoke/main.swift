// libFuzzer target: hostile `node.invoke.request` / `node.invoke.cancel` payloads through a
// node's invoke pipeline. The input is a script: each line is one event payload (JSON; a line
// with `invokeId` is a cancel), and after each line every started handler may finish or the
// clock may move, chosen from the input's bytes. Never traps, never hangs, and:
// - no more handlers run than the concurrency limit;
// - every result names an invoke id that was given, within the field limit, and its params
//   serialize to JSON that parses back equal, with `payloadJSON` (when present) itself JSON;
// - a request is started at most once per invoke id while it runs.
import CFuzzerDriver
import ClawpairCore
import ClawpairNode

/// The process entry point: SwiftPM links `main` as `<Module>_main`; libFuzzer takes over from here.
@_cdecl("FuzzNodeInvoke_main")
public func fuzzNodeInvokeMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzNodeInvoke(data, size) }
}

private let limits = NodeInvokeLimits(maxParamsBytes: 512, maxResultBytes: 256, maxFieldBytes: 32, maxConcurrent: 3,
                                      idempotencyEntries: 4, idempotencyWindow: .seconds(5), maxTimeout: .seconds(30))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNodeInvoke(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var pipeline = NodeInvokePipeline(commands: ["device.status", "system.which", "x"], limits: limits)
    var now = Monotonic.Instant(nanoseconds: 1_000_000_000)
    var running: Set<String> = []
    var given: Set<String> = []
    for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).prefix(64).enumerated() {
        let payload = try? JSONValue.parse(line, limits: JSONLimits(maxInputBytes: 4096))
        if let id = payload?["id"]?.stringValue { given.insert(id.trimmed) }
        var actions: [NodeInvokePipeline.Action]
        if payload?["invokeId"] != nil {
            actions = pipeline.cancel(payload)
        } else {
            actions = pipeline.receive(payload, now: now)
        }
        let choice = line.first ?? UInt8(truncatingIfNeeded: index)
        if choice & 1 == 1, let first = running.sorted().first {
            let outcome: NodeInvokeOutcome = choice & 2 == 2 ? .success(payload) : .failure(.unavailable("x"))
            actions += pipeline.finish(taskId: first, outcome: outcome, now: now)
            running.remove(first)
        }
        if choice & 4 == 4 {
            now = now + .milliseconds(Int64(choice) * 97)
            actions += pipeline.expire(now: now)
        }
        for action in actions {
            switch action {
            case .start(let taskId, _):
                precondition(running.insert(taskId).inserted, "an invoke was started twice while it ran")
            case .abort(let taskId):
                running.remove(taskId)
            case .send(let result):
                precondition(given.contains(result.id) && result.id.utf8.count <= limits.maxFieldBytes, "a result names an id never given")
                let text = result.params.compact()
                guard let again = try? JSONValue.parse(text) else { preconditionFailure("result params are not JSON") }
                precondition(again == result.params, "result params do not round-trip")
                if let inner = again["payloadJSON"]?.stringValue {
                    precondition((try? JSONValue.parse(inner)) != nil, "payloadJSON is not JSON")
                }
            }
        }
        precondition(pipeline.runningCount <= limits.maxConcurrent, "more handlers run than the limit")
    }
    return 0
}

extension String {
    var trimmed: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
