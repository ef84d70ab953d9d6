/// An error a library throws: what failed and, where the library can tell, what to do next.
///
/// Library modules define their own error enums and conform them to this protocol. A library
/// error says nothing about the process that runs it, and its hint names no command-line
/// option or command. A command-line layer (the `clawpair` executable is one)
/// maps each error type to its own outcomes and words hints in terms of its own commands.
public protocol ClawpairError: Error, Sendable, CustomStringConvertible {
    /// What failed, in one sentence without a trailing period.
    var message: String { get }
    /// What to do next, in the library's own terms (the file, the gateway, the network, a
    /// system package), or `nil` when there is nothing useful to suggest. Never names a
    /// command-line option or command: a program using the library has neither.
    var hint: String? { get }
    /// A stable, kebab-case identifier of the failure (`unreachable`, `tls-trust`, `no-identity`…)
    /// that programs can match on and JSON output carries; `error` when the type names none more
    /// specific. Codes never change once published.
    var code: String { get }
}

extension ClawpairError {
    /// What to do next, or nil (``ClawpairError/hint``).
    public var hint: String? { nil }
    /// `error`, for an error type that names no more specific code.
    public var code: String { "error" }
    /// A readable form, for messages and logs.
    public var description: String { message }
}

/// Wraps an error with the context in which it happened ("reading token file /x: …").
public struct ContextualError: ClawpairError {
    /// What was being done, e.g. `reading /etc/foo`.
    public let context: String
    /// The error that happened.
    public let underlying: any Error

    /// Wraps `underlying` with what was being done (`context`).
    public init(_ context: String, _ underlying: any Error) {
        self.context = context
        self.underlying = underlying
    }

    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        let inner = (underlying as? any ClawpairError)?.message ?? String(describing: underlying)
        return "\(context): \(inner)"
    }
    /// What to do next, or nil (``ClawpairError/hint``).
    public var hint: String? { (underlying as? any ClawpairError)?.hint }
    /// The wrapped error's code (`error` when it is not a ``ClawpairError``).
    public var code: String { (underlying as? any ClawpairError)?.code ?? "error" }
}
