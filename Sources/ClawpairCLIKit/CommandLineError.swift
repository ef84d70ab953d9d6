import ClawpairCore

/// An error of the command-line layer: it knows the exit status it ends the process with.
///
/// Library errors (``ClawpairError``) carry none; the executable turns each of them into a
/// ``PresentedError`` (status, message and the command line's hint) in one place, and
/// ``CommandLineTool`` reports and exits with that.
public protocol CommandLineError: ClawpairError {
    /// The exit status this error ends the process with.
    var exitStatus: ExitStatus { get }
}

/// A plain error with a message, a hint and an exit status; for the command layer's own checks.
public struct GeneralError: CommandLineError {
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

/// A library error as the command line shows it: the exit status, stable code and hint the
/// executable gives it, and the error itself.
public struct PresentedError: CommandLineError {
    /// The error as thrown.
    public let underlying: any Error
    public let exitStatus: ExitStatus
    public let message: String
    public let hint: String?
    /// The stable, kebab-case code of the JSON error envelope (`usage`, `unreachable`, `tls-trust`…).
    public let code: String
    /// Members the JSON envelope's `error` object carries after `code`, `message` and `hint`
    /// (e.g. a pairing request's `requestId`).
    public let details: [(String, JSONValue)]

    /// `code` defaults to ``defaultCode(for:)`` of `underlying`.
    public init(_ underlying: any Error, status: ExitStatus, message: String, hint: String?,
                code: String? = nil, details: [(String, JSONValue)] = []) {
        self.underlying = underlying
        self.exitStatus = status
        self.message = message
        self.hint = hint
        self.code = code ?? Self.defaultCode(for: underlying)
        self.details = details
    }

    /// The code of an error that names none: `usage` for a ``UsageError``, else `error`.
    public static func defaultCode(for error: any Error) -> String {
        switch error {
        case let presented as PresentedError: return presented.code
        case is UsageError: return "usage"
        default: return "error"
        }
    }

    /// The command line's own errors as they are; other ``ClawpairError``s with status 1 and
    /// their library hint; anything else with status 1 and its description. The executable
    /// passes a presentation that knows the library error types to ``CommandLineTool``.
    public static func standard(_ error: any Error) -> PresentedError {
        switch error {
        case let presented as PresentedError: return presented
        case let error as any CommandLineError:
            return PresentedError(error, status: error.exitStatus, message: error.message, hint: error.hint)
        case let error as any ClawpairError:
            return PresentedError(error, status: .failure, message: error.message, hint: error.hint)
        default:
            return PresentedError(error, status: .failure, message: "\(error)", hint: nil)
        }
    }
}
