import ClawpairCore

extension PresentedError {
    /// `error` presented with a program's own rules for library errors:
    ///
    /// - a ``PresentedError`` as it is;
    /// - a ``CommandLineError`` with its own status, hint and code;
    /// - a ``ContextualError`` or ``ClawpairErrorBox`` as the error it wraps is presented (status,
    ///   hint, code, details), with the wrapper's message, which names the context;
    /// - any other ``ClawpairError`` with its ``ClawpairError/code`` and the `status`, `hint` and
    ///   `details` the program gives it;
    /// - anything else with status 1, its description and no hint.
    ///
    /// ```swift
    /// PresentedError.presenting(error, status: { $0 is MyRefusal ? .refused : .failure },
    ///                           hint: { $0.hint }, details: { _ in [] })
    /// ```
    public static func presenting(_ error: any Error, status: (any ClawpairError) -> ExitStatus,
                                  hint: (any ClawpairError) -> String?,
                                  details: (any ClawpairError) -> [(String, JSONValue)]) -> PresentedError {
        let wrapped: any Error, message: String
        switch error {
        case let presented as PresentedError:
            return presented
        case let error as any CommandLineError:
            return PresentedError(error, status: error.exitStatus, message: error.message, hint: error.hint, code: error.code)
        case let error as ContextualError:
            (wrapped, message) = (error.underlying, error.message)
        case let error as ClawpairErrorBox:
            (wrapped, message) = (error.error, error.message)
        case let error as any ClawpairError:
            return PresentedError(error, status: status(error), message: error.message, hint: hint(error), code: error.code,
                                  details: details(error))
        default:
            return PresentedError(error, status: .failure, message: "\(error)", hint: nil)
        }
        let inner = presenting(wrapped, status: status, hint: hint, details: details)
        return PresentedError(error, status: inner.exitStatus, message: message, hint: inner.hint, code: inner.code,
                              details: inner.details)
    }
}
