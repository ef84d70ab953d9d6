// The defaults a full-mode beacon (discovery.md §1: `sshPort`, `cliPath` TXT keys) takes from the
// environment when the caller gives none: OPENCLAW_SSH_PORT or 22, and `openclaw` on PATH.

#if canImport(Glibc)
import Glibc
#endif

extension BeaconIdentity {
    /// The environment variable that gives the SSH port of a full-mode beacon.
    public static let sshPortVariable = "OPENCLAW_SSH_PORT"
    /// The SSH port when the environment gives none.
    public static let defaultSSHPort = 22
    /// The command a full-mode beacon's `cliPath` names.
    public static let cliName = "openclaw"

    /// The SSH port for a full-mode beacon: ``sshPortVariable`` when it holds a valid port, else
    /// ``defaultSSHPort``.
    public static func defaultSSHPort(environment: [String: String]) -> Int {
        if let text = environment[sshPortVariable], let port = TXTRecord.parsePort(text) { return port }
        return defaultSSHPort
    }

    /// The first executable ``cliName`` in the environment's `PATH` (absolute directories only),
    /// or nil.
    public static func defaultCLIPath(environment: [String: String]) -> String? {
        findOnPath(cliName, environment: environment)
    }

    /// The first executable `name` in the environment's `PATH` (absolute directories only).
    public static func findOnPath(_ name: String, environment: [String: String]) -> String? {
        for directory in (environment["PATH"] ?? "").split(separator: ":") where directory.hasPrefix("/") {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
