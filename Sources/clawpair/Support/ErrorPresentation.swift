import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway
import ClawpairIdentity

// How the registry's and the pairing flow's errors end the process: their exit status and the
// hint printed after the message. The libraries only say what failed; this file is the one place
// that adds what to do about it, for every command (GatewayCLI.run and CommandLineTool reach
// these through `ClawpairError`, which the conformances below add to the library types).

extension GatewayRegistryError: ClawpairError {
    public var exitStatus: ExitStatus {
        switch self {
        case .unknownGateway: return .notFound
        case .nameTaken: return .usage
        case .damaged, .insecureFile, .symlink, .tooManyRecords, .io: return .failure
        }
    }

    public var hint: String? {
        switch self {
        case .unknownGateway(_, let known):
            return known.isEmpty ? "no gateway is paired yet: 'clawpair pair' pairs this machine with a setup code"
                : "paired gateways: \(known.joined(separator: ", ")) ('clawpair gateways list')"
        case .damaged(let path, _): return "'clawpair gateways forget \(Self.recordID(path) ?? "NAME")' removes it; then pair again"
        case .insecureFile(let path, let mode): return IdentityError.unsafePermissions(path: path, mode: mode).hint
        case .symlink(let path):
            return "replace \(path) with the file it points to, or remove it" + (Self.recordID(path).map { ": clawpair gateways forget \($0)" } ?? "")
        case .nameTaken: return "choose another --name, or 'clawpair gateways forget' the old one"
        case .tooManyRecords(let directory, _):
            return "forget the gateways you no longer use: clawpair gateways forget ID (the ids are the file names in \(directory))"
        case .io: return nil
        }
    }

    /// The id in a record's path (`…/gateways/<id>.json`).
    static func recordID(_ path: String) -> String? {
        guard path.hasSuffix(".json"), let slash = path.lastIndex(of: "/") else { return nil }
        let id = String(path[path.index(after: slash)...].dropLast(5))
        return PairedGateway.isValidID(id) ? id : nil
    }
}

extension PairingError: ClawpairError {
    public var exitStatus: ExitStatus {
        switch self {
        case .codeExpired, .notApproved, .rejected: return .refused
        case .noCredential: return .usage
        case .noRoute(_, let trustFailure): return trustFailure ? .refused : .notFound
        case .gateway(let error): return error.exitStatus
        case .transport(let error): return error.exitStatus
        case .identity(let error): return (error as? any ClawpairError)?.exitStatus ?? .failure
        case .registry(let error): return error.exitStatus
        }
    }

    public var hint: String? {
        switch self {
        case .codeExpired: return "mint a new one on the gateway: clawpair qr (or openclaw qr)"
        case .noCredential: return "it only names a gateway; mint a pairing code with 'clawpair qr'"
        case .noRoute: return "'clawpair probe --all - < code.txt' shows every route's outcome"
        case .notApproved(_, _, let approveCommand):
            return "approve it (\(approveCommand)), then run 'clawpair pair' again with the same code while it is valid"
        case .rejected: return "the request may have been rejected; ask the operator"
        case .gateway(let error): return error.hint
        case .transport(let error): return error.hint
        case .identity(let error): return (error as? any ClawpairError)?.hint
        case .registry(let error): return error.hint
        }
    }
}

enum ErrorPresentation {
    /// The error a pairing failure wraps (a gateway, transport, identity or registry error), so
    /// the JSON error document names its own code; the pairing's own failures as they are.
    static func unwrapped(_ error: PairingError) -> any Error {
        switch error {
        case .gateway(let inner): return inner
        case .transport(let inner): return inner
        case .identity(let inner): return inner
        case .registry(let inner): return inner
        case .codeExpired, .noCredential, .noRoute, .notApproved, .rejected: return error
        }
    }
}
