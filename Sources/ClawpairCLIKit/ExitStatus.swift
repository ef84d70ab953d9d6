/// The process exit statuses of every clawpair command, in one place.
///
/// Only the command-line layer uses these: libraries throw typed errors that carry no status,
/// and the `clawpair` executable's `ErrorPresentation` maps each of them to one. The table is
/// documented once, in the root's man page (EXIT STATUS, generated from ``ExitStatus/allCases``;
/// every other page points to it), and in README.md.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// The command did what was asked.
    case success = 0
    /// Something failed (I/O, a malformed input, an internal error).
    case failure = 1
    /// The command line was wrong: unknown command or option, missing or extra argument.
    case usage = 2
    /// Nothing was found, or nothing was reachable.
    case notFound = 3
    /// Refused by authentication, pairing, TLS trust, or an expired credential.
    case refused = 4
    /// The configuration must be fixed before running again (sysexits' EX_CONFIG): a service
    /// manager does not restart after it (`RestartPreventExitStatus=78`).
    case configuration = 78

    /// One line describing the status, for `--help`, man pages and the README.
    public var summary: String {
        switch self {
        case .success: return "success"
        case .failure: return "failure: I/O error, malformed input or internal error"
        case .usage: return "usage error: unknown command or option, bad or missing argument"
        case .notFound: return "nothing found or nothing reachable"
        case .refused: return "refused: authentication, pairing, TLS trust, or an expired code"
        case .configuration: return "clawpair node run: fix the configuration first (the node token was revoked, or no node pairing: pair again)"
        }
    }
}
