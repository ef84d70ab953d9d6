import ClawpairAvahi
import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway
import ClawpairIdentity
import ClawpairMDNS
import ClawpairProbe
import ClawpairQR
import ClawpairSetupCode
import ClawpairTransport
import ClawpairWideArea

/// The one place where library errors and reports become exit statuses and command-line hints.
///
/// Libraries say what failed (`message`) and, in their own terms, what to do (`hint`); they
/// carry no exit status and name no option or command. This maps every library error type to
/// the status it ends the process with and, where the command line can say more, to a hint that
/// names the options and commands that help. ``CommandLineTool`` calls ``present(_:)`` for any
/// error a command throws; `GatewayCLI.run` calls it for its JSON error document.
///
/// To add an error type: give it a status in ``status(of:)`` when it is not `failure`, and a hint
/// in ``hint(for:plan:)`` when the command line has a better one than the library's.
enum ErrorPresentation {
    /// The error a pairing failure wraps (a gateway, transport, identity or registry error), so
    /// the JSON error document names its own code; the pairing's own failures as they are.
    static func unwrapped(_ error: PairingError) -> any Error {
        switch error {
        case .gateway(let inner): return inner
        case .transport(let inner): return inner
        case .identity(let inner): return inner
        case .registry(let inner): return inner
        case .codeExpired, .noCredential, .noRoute, .notApproved, .rejected, .requestExpired: return error
        }
    }

    /// `error` with its exit status and the command line's hint.
    static func present(_ error: any Error) -> PresentedError {
        present(error, plan: nil)
    }

    /// `error` with its exit status and the command line's hint; `plan` is the operator
    /// session's, when it was resolved (some hints depend on where the credential came from).
    static func present(_ error: any Error, plan: OperatorPlan?) -> PresentedError {
        switch error {
        case let presented as PresentedError:
            return presented
        case let error as any CommandLineError:
            return PresentedError(error, status: error.exitStatus, message: error.message, hint: error.hint)
        case let error as ContextualError:
            let inner = present(error.underlying, plan: plan)
            return PresentedError(error, status: inner.exitStatus, message: error.message, hint: inner.hint)
        case let error as ClawpairErrorBox:
            let inner = present(error.error, plan: plan)
            return PresentedError(error, status: inner.exitStatus, message: error.message, hint: inner.hint)
        case let error as any ClawpairError:
            return PresentedError(error, status: status(of: error), message: error.message, hint: hint(for: error, plan: plan))
        default:
            return PresentedError(error, status: .failure, message: "\(error)", hint: nil)
        }
    }

    // MARK: Exit statuses

    /// The exit status of a library error: `failure` unless listed here.
    static func status(of error: any ClawpairError) -> ExitStatus {
        switch error {
        case let error as GatewayError: return status(of: error)
        case is TLSTrustFailure: return .refused
        case SetupCodeError.insecurePlaintextHost, SetupCodeError.expired: return .refused
        case IdentityError.noIdentity: return .notFound
        case GatewayRegistryError.unknownGateway: return .notFound
        case GatewayRegistryError.nameTaken: return .usage
        case let error as PairingError: return status(of: error)
        case NodeApprovalError.unknownRequest: return .notFound
        case let error as JoinError: return error.isRefusal ? .refused : error.isUnreachable ? .notFound : error.isBadInput ? .usage : .failure
        default: return .failure
        }
    }

    /// Refusals (credentials, pairing, device proof, TLS trust, missing permission) are 4, an
    /// unreachable gateway 3, a URL that cannot be used 2; the gateway failing or breaking the
    /// protocol 1. Silence follows the stage (GatewayCLI.exitSection): before connect.challenge
    /// the client reports it as `.unreachable` (3), after it as `.timedOut` or `.stalled` (1).
    static func status(of error: GatewayError) -> ExitStatus {
        switch error {
        case .invalidURL: return .usage
        case .unreachable: return .notFound
        case .tlsTrust, .pairingRequired, .authRejected, .deviceAuthRejected: return .refused
        case .pairingRejected, .pairingExpired, .scopeMismatch: return .refused
        case .protocolMismatch, .clientVersionMismatch: return .failure
        case .connectRejected, .rpcFailed: return error.isPermissionRefusal ? .refused : .failure
        case .notGateway, .timedOut, .stalled, .closed, .protocolViolation, .frameTooLarge, .notConnected: return .failure
        }
    }

    /// Refused (expired code, not approved, rejected, only untrusted routes) is 4, no route 3, a
    /// code without a credential 2; a wrapped error keeps its own status.
    static func status(of error: PairingError) -> ExitStatus {
        switch error {
        case .codeExpired, .notApproved, .rejected, .requestExpired: return .refused
        case .noCredential: return .usage
        case .noRoute(_, let trustFailure): return trustFailure ? .refused : .notFound
        case .gateway(let inner): return present(inner).exitStatus
        case .transport(let inner): return present(inner).exitStatus
        case .identity(let inner): return present(inner).exitStatus
        case .registry(let inner): return present(inner).exitStatus
        }
    }

    /// A probe's status: 0 when a route passed, 4 when none did and at least one failed TLS
    /// trust (an untrusted certificate or a pin mismatch), 3 otherwise.
    static func status(of report: ProbeReport) -> ExitStatus {
        if report.winner != nil { return .success }
        return report.hasTrustFailure ? .refused : .notFound
    }

    // MARK: Hints

    /// The command line's hint for a library error: the library's, unless the options and
    /// commands of `clawpair` say it better.
    static func hint(for error: any ClawpairError, plan: OperatorPlan?) -> String? {
        switch error {
        case OperatorSessionError.emptyCredential:
            return "check the file or variable that should hold it"
        case GatewayError.authRejected where plan?.credential.source == OperatorCredentialSource.none
                                                && plan?.credential.withheldEnvironment.isEmpty == false:
            let names = plan?.credential.withheldEnvironment ?? []
            return "\(names.joined(separator: " and ")) \(names.count > 1 ? "are" : "is") not sent to a "
                + "gateway named with --url (it could be a typo or someone "
                + "else's): pass --token-file FILE (or --password-file), or set OPENCLAW_GATEWAY_URL instead of --url"
        case let error as GatewayError: return hint(for: error) ?? error.hint
        case let error as IdentityError: return hint(for: error)
        case let error as AtomicFileError: return hint(for: error)
        case let error as QRError: return hint(for: error)
        case let error as GatewayRegistryError: return hint(for: error)
        case let error as PairingError: return hint(for: error)
        case NodeApprovalError.unknownRequest: return "'clawpair nodes pending' lists the current requests (a node's retry can replace its request)"
        case AvahiError.daemonNotRunning: return "start it (systemctl start avahi-daemon) or use --backend native"
        case AvahiError.libraryUnavailable:
            return "install libavahi-client3 and libavahi-compat-libdnssd1, or use --backend native"
        case MDNSError.noInterfaces: return "bring a LAN interface up, or use --domain for wide-area DNS-SD"
        case is WideAreaError: return "check --dns-server (or /etc/resolv.conf) and that the server serves the domain"
        default: return error.hint
        }
    }

    /// Gateway errors whose remedy is an option or a command.
    static func hint(for error: GatewayError) -> String? {
        switch error {
        case .unreachable: return "is the gateway running? 'clawpair probe URL' shows which step fails"
        case .tlsTrust(_, .pinMismatch): return "the certificate changed: if you expected that, check it and pass --tls-fingerprint with the new value"
        case .timedOut, .stalled: return "the gateway may be overloaded or a proxy may be holding the connection; try again or raise --timeout"
        case .pairingRequired(let pairing):
            return "approve it on the gateway host: \(pairing.approveCommand) (or: openclaw devices approve \(pairing.requestId.map { TerminalText.sanitize($0, maxScalars: 80) } ?? "<requestId>"))"
        case .authRejected:
            return "pass the gateway's token with --token-file FILE or OPENCLAW_GATEWAY_TOKEN (or its password with --password-file)"
        case .deviceAuthRejected where error.hint == GatewayError.checkIdentityHint:
            return "check the identity with 'clawpair identity show'"
        default:
            return nil
        }
    }

    static func hint(for error: IdentityError) -> String? {
        switch error {
        case .malformed:
            return "the file is damaged or not an identity file; restore it from a backup, or replace it with 'clawpair identity new --force' (a new identity must be paired again)"
        case .noIdentity: return "create one with 'clawpair identity new', or import one with 'clawpair identity import FILE'"
        case .alreadyExists: return "pass --force to replace it (the old identity is lost unless you exported it)"
        case .deviceIdMismatch: return "re-import the file with 'clawpair identity import FILE --force' to rewrite the deviceId"
        case .insideOpenClawState:
            return "name the file explicitly (--identity FILE or --output FILE) if you really mean to write there"
        case .file(let inner): return hint(for: inner)
        default: return error.hint
        }
    }

    static func hint(for error: AtomicFileError) -> String? {
        switch error {
        case .exists: return "pass --force to replace it, or choose another path"
        default: return error.hint
        }
    }

    static func hint(for error: QRError) -> String? {
        switch error {
        case .emptyPayload: return "give a setup code (or --raw TEXT)"
        case .payloadTooLong(_, _, let level):
            return level == .low ? "shorten the text" : "use a lower error-correction level (--ec L) or shorten the text"
        case .pngWriteFailed: return "try --format svg"
        case .unsupportedImage(let detected):
            if detected == "SVG" { return "rsvg-convert IMAGE.svg | clawpair qr scan -" }
            return "convert it first, e.g.: convert IMAGE png:- | clawpair qr scan -"
        default: return error.hint
        }
    }

    static func hint(for error: GatewayRegistryError) -> String? {
        switch error {
        case .unknownGateway(_, let known):
            return known.isEmpty ? "no gateway is paired yet: 'clawpair pair' pairs this machine with a setup code"
                : "paired gateways: \(known.joined(separator: ", ")) ('clawpair gateways list')"
        case .damaged(let path, _): return "'clawpair gateways forget \(recordID(path) ?? "NAME")' removes it; then pair again"
        case .insecureFile(let path, let mode): return IdentityError.unsafePermissions(path: path, mode: mode).hint
        case .symlink(let path):
            return "replace \(path) with the file it points to, or remove it" + (recordID(path).map { ": clawpair gateways forget \($0)" } ?? "")
        case .nameTaken: return "choose another --name, or 'clawpair gateways forget' the old one"
        case .tooManyRecords(let directory, _):
            return "forget the gateways you no longer use: clawpair gateways forget ID (the ids are the file names in \(directory))"
        case .io: return nil
        }
    }

    /// The id in a registry record's path (`…/gateways/<id>.json`).
    static func recordID(_ path: String) -> String? {
        guard path.hasSuffix(".json"), let slash = path.lastIndex(of: "/") else { return nil }
        let id = String(path[path.index(after: slash)...].dropLast(5))
        return PairedGateway.isValidID(id) ? id : nil
    }

    static func hint(for error: PairingError) -> String? {
        switch error {
        case .codeExpired: return "mint a new one on the gateway: clawpair qr (or openclaw qr)"
        case .noCredential: return "it only names a gateway; mint a pairing code with 'clawpair qr'"
        case .noRoute: return "'clawpair probe --all - < code.txt' shows every route's outcome"
        case .notApproved(let requestId, _):
            return "approve it (\(PairingRequired(requestId: requestId).approveCommand)), then run 'clawpair pair' again with the same code while it is valid"
        case .rejected(nil, _): return "the request may have been rejected; ask the operator"
        case .rejected, .requestExpired: return "run 'clawpair pair' again, and have the new request approved while it is pending"
        case .gateway(let inner): return present(inner).hint
        case .transport(let inner): return present(inner).hint
        case .identity(let inner): return present(inner).hint
        case .registry(let inner): return present(inner).hint
        }
    }
}

// The registry's and the pairing flow's errors say what failed (`message`) and nothing else; as
// ``ClawpairError``s they reach ``ErrorPresentation`` like every library error.
extension GatewayRegistryError: ClawpairError {}
extension PairingError: ClawpairError {}

extension PairingRequired {
    /// The command an operator runs on the gateway's host to approve this request (the CLI's
    /// wording: the library's pairing types name no command).
    var approveCommand: String {
        let id = requestId.map { TerminalText.sanitize($0, maxScalars: 80) } ?? "<requestId>"
        return "clawpair devices approve \(id)"
    }
}
