import ClawpairCore

/// Signs a batch of connect payloads, one JSON object per input line (the fields of
/// ``ConnectPayload/batchKeys`` over the defaults of `base`), one answer per line: the
/// signature as base64url, or with `json` the object of ``SignedConnect/json(includePayload:)``.
/// ``answer(_:number:)`` leaves reading and writing to the caller; ``run(_:write:failed:)`` reads
/// the lines from a ``LineReader``.
public struct ConnectBatchSigner {
    /// The signing identity.
    public let identity: DeviceIdentity
    /// The fields a line does not give.
    public let base: ConnectPayload
    /// Verify every signature before answering with it.
    public let selfCheck: Bool
    /// Answer with JSON objects instead of bare signatures.
    public let json: Bool
    /// With `json`, include the signed payload (it includes the token).
    public let includePayload: Bool
    /// Words the error of a line that cannot be signed (the caller may name its own options).
    public let describe: (any Error) -> String

    /// A signer of lines over `base`; `describe` words failures (default: the error's message).
    public init(identity: DeviceIdentity, base: ConnectPayload, selfCheck: Bool, json: Bool, includePayload: Bool,
                describe: @escaping (any Error) -> String = { ($0 as? any ClawpairError)?.message ?? "\($0)" }) {
        self.identity = identity
        self.base = base
        self.selfCheck = selfCheck
        self.json = json
        self.includePayload = includePayload
        self.describe = describe
    }

    /// The answer to input line `number` (1-based), without its line end. A line that cannot be
    /// signed gets `failure` (its message) and, with `json`, `{"line": N, "error": message}`
    /// (else an empty answer, so answers stay in step with lines).
    public func answer<Line: Collection>(_ line: Line, number: Int) -> (output: [UInt8], failure: String?) where Line.Element == UInt8 {
        do {
            let signed = try identity.signConnect(try base.applying(batchLine: line), selfCheck: selfCheck)
            return (json ? signed.json(includePayload: includePayload).compactBytes() : Array(signed.signature.base64URL.utf8), nil)
        } catch {
            let message = describe(error)
            let output = json ? JSONValue.object([("line", .int(Int64(number))), ("error", .string(message))]).compactBytes() : []
            return (output, message)
        }
    }

    /// Signs every line `reader` reads, in order, and returns how many could not be signed.
    /// After each chunk of input, that chunk's answers go to `write` in one piece, each ending
    /// in a newline; `failed(number, message)` hears of each line that failed, as it fails. A
    /// line longer than the reader's limit ends the batch with ``LineReader/LineTooLong``.
    public func run(_ reader: inout LineReader, write: ([UInt8]) throws -> Void,
                    failed: (_ line: Int, _ message: String) -> Void) throws -> Int {
        var lineNumber = 0
        var failures = 0
        while try reader.fill() {
            var out: [UInt8] = []
            while let line = try reader.nextLine() {
                lineNumber += 1
                let answer = answer(line, number: lineNumber)
                if let failure = answer.failure {
                    failures += 1
                    failed(lineNumber, failure)
                }
                out += answer.output
                out.append(0x0A)
            }
            if !out.isEmpty { try write(out) }
        }
        return failures
    }
}
