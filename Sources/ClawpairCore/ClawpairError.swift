/// An error that knows how it should end the process and how to help the user.
///
/// Library modules define their own error enums and conform them to this protocol, so the
/// command-line layer can print `message` (what failed), `hint` (what to do next) and exit
/// with `exitStatus` without knowing every module's cases.
public protocol ClawpairError: Error, Sendable, CustomStringConvertible {
    /// The exit status this error ends the process with.
    var exitStatus: ExitStatus { get }
    /// What failed, in one sentence without a trailing period.
    var message: String { get }
    /// What to do next, or `nil` when there is nothing useful to suggest.
    var hint: String? { get }
}

extension ClawpairError {
    public var hint: String? { nil }
    public var description: String { message }
}

/// A plain error with a message, a hint and an exit status; for the command layer's own checks.
public struct GeneralError: ClawpairError {
    public let exitStatus: ExitStatus
    public let message: String
    public let hint: String?

    /// Creates an error that ends the process with `status`.
    public init(_ message: String, hint: String? = nil, status: ExitStatus = .failure) {
        self.message = message
        self.hint = hint
        self.exitStatus = status
    }
}

/// Wraps an error with the context in which it happened ("reading token file /x: …").
public struct ContextualError: ClawpairError {
    /// What was being done, e.g. `reading /etc/foo`.
    public let context: String
    /// The error that happened.
    public let underlying: any Error

    public init(_ context: String, _ underlying: any Error) {
        self.context = context
        self.underlying = underlying
    }

    public var exitStatus: ExitStatus { (underlying as? any ClawpairError)?.exitStatus ?? .failure }
    public var message: String {
        let inner = (underlying as? any ClawpairError)?.message ?? String(describing: underlying)
        return "\(context): \(inner)"
    }
    public var hint: String? { (underlying as? any ClawpairError)?.hint }
}
