import ClawpairCore

extension CommandLineError {
    /// The code of a command-line error that names none, after its exit status: `usage` (2),
    /// `not-found` (3), `refused` (4), else `error`. ``PresentedError`` carries its own.
    public var code: String {
        switch exitStatus {
        case .usage: return "usage"
        case .notFound: return "not-found"
        case .refused: return "refused"
        case .configuration: return "configuration"
        case .success, .failure: return "error"
        }
    }
}
