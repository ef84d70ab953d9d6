// The stable codes (``ClawpairError/code``) of ClawpairCore's errors.

extension SystemError {
    /// `io-error`: a system call on a file or socket failed.
    public var code: String { "io-error" }
}

extension AtomicFileError {
    /// `exists` when the target exists and replacing it was not allowed, else `io-error`.
    public var code: String {
        switch self {
        case .exists: return "exists"
        case .system, .insecureDirectory, .notADirectory: return "io-error"
        }
    }
}

extension FileIO.TooLarge {
    /// `input-too-large`: the input is over its size limit.
    public var code: String { "input-too-large" }
}

extension ClawpairErrorBox {
    /// The wrapped error's code.
    public var code: String { error.code }
}
