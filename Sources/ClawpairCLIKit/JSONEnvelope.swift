import ClawpairCore
import Synchronization

/// The one shape of every `--json` document: `"ok"` first, and on failure the error object.
///
///     {"ok": true, ...the command's members...}
///     {"ok": false, "error": {"code": "unreachable", "message": "...", "hint": "..." or null, ...}}
///
/// ``CommandContext/printJSON(_:)`` adds `"ok": true` to a command's object that has no `ok` of
/// its own, and ``CommandLineTool`` prints the failure envelope for any error a command throws
/// (usage errors included) unless the command already printed its JSON document. A command that
/// streams JSON lines (``CommandContext/printJSONLine(_:)``) gets the envelope as one line, so
/// the stream stays one object per line.
public enum JSONEnvelope {
    /// `value` with `"ok": true` first when it is an object without an `ok` member; anything
    /// else unchanged (a command's own `ok`, e.g. a probe whose routes all failed, stands).
    public static func success(_ value: JSONValue) -> JSONValue {
        guard case .object(let members) = value, !members.contains(where: { $0.0 == "ok" }) else { return value }
        return .object([("ok", .bool(true))] + members)
    }

    /// `{"ok": false, "error": {...}}` for `error`.
    public static func failure(_ error: PresentedError) -> JSONValue {
        .object([("ok", .bool(false)), ("error", errorObject(error))])
    }

    /// `{"ok": false, "error": {...}, ...}`: a command's own document (e.g. what a search saw
    /// before it found nothing) as a failure: `ok` false first, then `error`, then the document's
    /// other members (an `ok` or `error` of its own is dropped). A command prints it and throws
    /// `error`, whose status then ends the process (the error is reported on stderr, once).
    public static func failure(_ error: PresentedError, document: JSONValue) -> JSONValue {
        guard case .object(let members) = document else { return failure(error) }
        return .object([("ok", .bool(false)), ("error", errorObject(error))]
                       + members.filter { $0.0 != "ok" && $0.0 != "error" })
    }

    /// `{"code", "message", "hint", ...details}`: the `error` member of the envelope, also for
    /// documents that report several failures (one per item).
    public static func errorObject(_ error: PresentedError) -> JSONValue {
        .object([("code", .string(error.code)), ("message", .string(error.message)),
                 ("hint", error.hint.map(JSONValue.string) ?? .null)] + error.details)
    }
}

/// What a command has printed as JSON so far, so that ``CommandLineTool`` prints an error
/// envelope only where no document stands and in the form the output already has.
public final class JSONOutputRecord: Sendable {
    private struct State {
        var documents = 0
        var lines = 0
    }
    private let state = Mutex(State())

    public init() {}

    /// Whether ``CommandContext/printJSON(_:)`` printed a document.
    public var printedDocument: Bool { state.withLock { $0.documents > 0 } }
    /// Whether ``CommandContext/printJSONLine(_:)`` printed a line of a stream.
    public var printedLines: Bool { state.withLock { $0.lines > 0 } }

    func recordDocument() { state.withLock { $0.documents += 1 } }
    func recordLine() { state.withLock { $0.lines += 1 } }
}
