import ClawpairAdvertise
import ClawpairAvahi
import ClawpairBrowse
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
/// Libraries say what failed (`message`), in their own terms what to do (`hint`), and a stable
/// `code`; they carry no exit status and name no option or command. This maps every library
/// error type to the status it ends the process with and, where the command line can say more,
/// to a hint that names the options and commands that help. ``CommandLineTool`` calls
/// ``present(_:)`` for any error a command throws (and prints its JSON envelope under `--json`).
///
/// To add an error type: give it a `code` in its library (and list it in ``codes``), a status in
/// ``status(of:)`` when it is not `failure`, and a hint in ``hint(for:plan:)`` when the command
/// line has a better one than the library's.
enum ErrorPresentation {
    /// `error` with its exit status and the command line's hint; `plan` is the operator
    /// session's, when it was resolved (some hints depend on where the credential came from).
    static func present(_ error: any Error, plan: OperatorPlan? = nil) -> PresentedError {
        let error = (error as? BrowseError)?.underlying ?? error  // hints and statuses are the backend's
        return PresentedError.presenting(error, status: status(of:), hint: { hint(for: $0, plan: plan) },
                                  details: { details(of: $0) })
    }

    // MARK: Codes of the JSON error envelope

    /// Every code `--json` errors carry, with what it means: documented in clawpair(1).
    static let codes: [(String, String)] = [
        ("usage", "the command line is wrong (exit 2)"),
        ("error", "a failure with no more specific code (exit 1)"),
        ("not-found", "nothing was found (exit 3)"),
        ("refused", "refused, with no more specific code (exit 4)"),
        ("invalid-url", "the gateway URL cannot be used"),
        ("unreachable", "nothing answered at the gateway's address (exit 3)"),
        ("tls-trust", "the certificate failed its pin or system trust; the hint has the --tls-fingerprint to pass (exit 4)"),
        ("wrong-scheme", "ws:// was used for a TLS port or wss:// for a plaintext one; the hint and url have the URL that works"),
        ("not-gateway", "something answered that is not an OpenClaw gateway"),
        ("timeout", "the gateway did not answer in time"), ("stalled", "the gateway went silent after hello-ok"),
        ("closed", "the gateway closed the connection"), ("protocol-violation", "the gateway broke the protocol"),
        ("frame-too-large", "a message exceeded a limit"), ("not-connected", "the session was already closed"),
        ("cancelled", "stopped by Ctrl-C or SIGTERM before it finished (exit 1)"),
        ("pairing-required", "the gateway wants this device approved; requestId and approveCommand say how (exit 4)"),
        ("auth-rejected", "the token or password was refused (exit 4)"),
        ("device-token-revoked", "the gateway no longer accepts the stored device token; it was removed from the registry, "
            + "pair again (exit 4)"),
        ("device-auth-rejected", "the device proof was refused (exit 4)"),
        ("connect-rejected", "the gateway refused the connect request"),
        ("operator-access-denied", "the gateway authenticated this device but grants it no operator access; an "
            + "administrator must grant it (exit 4)"),
        ("identity-required", "the gateway admits only clients with an identity clawpair cannot present (a trusted "
            + "proxy's identity header, a verified user, a device identity) (exit 4)"),
        ("gateway-starting", "the gateway was still starting for the whole --timeout (exit 3)"),
        ("unsupported-method", "the gateway does not offer the method (not in its hello-ok features.methods, or unknown "
            + "to it); method and serverVersion say which"),
        ("missing-scope", "the gateway refused a call for a scope this connection lacks; gateway has its error (exit 4)"),
        ("rpc-failed", "the gateway failed a call; gateway has its error; a missing scope is exit 4"),
        ("code-expired", "the setup code has expired (exit 4)"), ("no-credential", "the code names a gateway but holds no credential"),
        ("no-route", "no route of the code reached the gateway"), ("not-approved", "the pairing request was not approved in time"),
        ("rejected", "the pairing request was rejected"), ("request-expired", "the pairing request expired before approval"),
        ("pairing-rejected", "the gateway says the pairing request was rejected (exit 4)"),
        ("pairing-expired", "the gateway says the pairing request expired (exit 4)"),
        ("scope-mismatch", "the credential does not cover the scopes asked for (exit 4)"),
        ("protocol-mismatch", "the gateway speaks another protocol version"),
        ("client-version-mismatch", "the gateway wants a newer client"),
        ("no-identity", "there is no device identity yet (exit 3)"), ("identity-invalid", "an identity file or key is damaged"),
        ("unsafe-permissions", "a secret file is readable by others"), ("exists", "the file exists (--force replaces it)"),
        ("unknown-gateway", "no paired gateway has that name (exit 3)"), ("name-taken", "another paired gateway has that name"),
        ("registry-error", "the gateway registry could not be read or written"),
        ("registry-busy", "another clawpair process held the registry lock past --timeout; nothing was changed"),
        ("approval-upgrade", "the device's request asks for more role or scope than was shown; nothing was approved (exit 4)"),
        ("io-error", "reading or writing a file failed"), ("input-too-large", "the input is over its size limit"),
        ("avahi-unavailable", "the Avahi daemon or library is missing"), ("mdns-error", "multicast DNS failed"),
        ("name-conflict", "advertise: the instance name and every rename up to --max-renames were taken on the network"),
        ("host-name-taken", "advertise: another host owns OPENCLAW_MDNS_HOSTNAME's name on the network"),
        ("unknown-interface", "no network interface has the name given (a usage error on the command line, exit 2)"),
        ("invalid-host-name", "OPENCLAW_MDNS_HOSTNAME is not a DNS host label (a usage error on the command line, exit 2)"),
        ("wide-area-error", "the wide-area DNS server failed"),
        ("configuration", "fix the configuration before running again (exit 78)"),
        ("not-running", "node status: no node runs with this clawpair home (exit 3)"),
        ("token-revoked", "node run: the gateway no longer accepts the node token; it was cleared, pair again (exit 78)"),
        ("setup-code errors", "not-a-payload, invalid-field, no-endpoint, insecure-plaintext-host, expired, invalid-expiry, "
            + "invalid-fingerprint, fingerprint-without-tls, not-normalized, missing-bootstrap-token, too-many-routes, "
            + "plaintext-port-80, empty-token, strict-refused, url-metadata"),
        ("join URL errors", "not-a-join-url, join-url-credentials, join-url-query, join-url-shortcode, join-url-path, "
            + "join-url-plaintext"),
        ("QR errors", "empty-payload, payload-too-long, invalid-parameter, encoder-failed, png-write-failed, unsupported-image, "
            + "image-too-large, corrupt-image, scanner-failed, scanner-unavailable"),
    ]

    /// clawpair(1)'s JSON OUTPUT: the envelope and every code.
    static let jsonSection = DocSection("JSON OUTPUT", [
        "With --json every command prints one JSON document on stdout, also when it fails. Its first member is "
            + "\"ok\": true on success, followed by the command's own members (each command's page describes them). "
            + "On failure, usage errors included, it is {\"ok\": false, \"error\": {\"code\", \"message\", \"hint\"}}: hint is "
            + "null when there is none, and some errors add members after it (a pairing request's requestId, reason and "
            + "approveCommand; the gateway's own error object as gateway). Streams (discover --watch --json, advertise "
            + "--json) print one object per line, and a failure ends the stream with the envelope as one line. The "
            + "message and hint also go to stderr.",
        "The codes are stable, in kebab-case:",
        codes.map { "  \($0.0): \($0.1)" }.joined(separator: "\n"),
    ])

    /// The envelope's members after code, message and hint: the library's (a pairing request's
    /// id and reason, the gateway's own error object), and the command that approves a request.
    static func details(of error: any Error) -> [(String, JSONValue)] {
        switch error {
        case let error as PairingError: return error.cause.map { details(of: $0) } ?? []
        case GatewayError.pairingRequired(let pairing):
            return GatewayError.pairingRequired(pairing).jsonDetails + [("approveCommand", .string(pairing.approveCommand))]
        case let error as GatewayError: return error.jsonDetails
        default: return []
        }
    }

    // MARK: Exit statuses

    /// The exit status of a library error: `failure` unless listed here.
    static func status(of error: any ClawpairError) -> ExitStatus {
        switch error {
        // A gateway's refusals are 4; a URL that cannot be used 2; silence follows the stage
        // (GatewayCLI.exitSection): before connect.challenge it is `.unreachable` (3), after it
        // `.timedOut` or `.stalled` (1), like the gateway failing or breaking the protocol.
        case GatewayError.invalidURL: return .usage
        case GatewayError.unreachable, GatewayError.gatewayStarting: return .notFound
        case let error as GatewayError: return error.isRefusal ? .refused : .failure
        case is TLSTrustFailure: return .refused
        case SetupCodeError.insecurePlaintextHost, SetupCodeError.expired: return .refused
        case IdentityError.noIdentity: return .notFound
        case GatewayRegistryError.unknownGateway: return .notFound
        case GatewayRegistryError.nameTaken: return .usage
        case is DeviceApprovalUpgrade: return .refused
        // A pairing refused (expired code, not approved, rejected, only untrusted routes) is 4, no
        // route 3, a code without a credential 2; a wrapped error keeps its own status.
        case PairingError.codeExpired, PairingError.notApproved, PairingError.rejected, PairingError.requestExpired: return .refused
        case PairingError.noCredential: return .usage
        case PairingError.noRoute(_, let trustFailure, _): return trustFailure ? .refused : .notFound
        case let error as PairingError: return error.cause.map { present($0).exitStatus } ?? .failure
        case NodeApprovalError.unknownRequest: return .notFound
        case let error as JoinError: return error.isRefusal ? .refused : error.isUnreachable ? .notFound : error.isBadInput ? .usage : .failure
        default: return .failure
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
        case GatewayError.authRejected where plan?.credential.source == OperatorCredentialSource.none
                                                && plan?.credential.withheldEnvironment.isEmpty == false:
            let names = plan?.credential.withheldEnvironment ?? []
            if plan?.target.source != .explicitURL {
                return "\(names.joined(separator: " and ")) \(names.count > 1 ? "are" : "is") sent only to OPENCLAW_GATEWAY_URL or "
                    + "the local gateway, not to a gateway chosen from the registry: pair with it ('clawpair pair --role operator'), "
                    + "pass --token-file FILE, or set OPENCLAW_GATEWAY_URL to its URL"
            }
            return "\(names.joined(separator: " and ")) \(names.count > 1 ? "are" : "is") not sent to a "
                + "gateway named with --url (it could be a typo or someone "
                + "else's): pass --token-file FILE (or --password-file), or set OPENCLAW_GATEWAY_URL instead of --url"
        case GatewayError.authRejected(let shape) where shape.credentialAdvice != nil:
            // Waiting helps, or only the gateway's administrator can: its advice, not "pass a token".
            return error.hint
        case let upgrade as DeviceApprovalUpgrade:
            return "check what it asks for ('clawpair devices list'); to approve exactly that request: clawpair devices approve "
                + TerminalText.sanitize(upgrade.request.requestId, maxScalars: 64)
        case GatewayError.unreachable: return "is the gateway running? 'clawpair probe URL' shows which step fails"
        case GatewayError.tlsTrust(_, .pinMismatch):
            return "the certificate changed: if you expected that, check it and pass --tls-fingerprint with the new value"
        case GatewayError.timedOut, GatewayError.stalled:
            return "the gateway may be overloaded or a proxy may be holding the connection; try again or raise --timeout"
        case GatewayError.pairingRequired(let pairing) where pairing.reason == "metadata-upgrade":
            return PairingRequired.metadataUpgradeExplanation + ": approve that request once on the gateway host: "
                + "\(pairing.approveCommand) (or: openclaw devices approve \(pairing.displayRequestId))"
        case GatewayError.pairingRequired(let pairing):
            return "approve it on the gateway host: \(pairing.approveCommand) (or: openclaw devices approve \(pairing.displayRequestId))"
        case GatewayError.authRejected where plan?.target.source == .explicitURL:
            // A --url never gets OPENCLAW_GATEWAY_TOKEN (CREDENTIALS): only an explicit credential helps.
            return "pass the gateway's token with --token-file FILE (or its password with --password-file)"
        case GatewayError.authRejected:
            return "pass the gateway's token with --token-file FILE or OPENCLAW_GATEWAY_TOKEN (or its password with --password-file)"
        case GatewayError.operatorAccessDenied:
            return "ask an administrator of the gateway to grant this device operator access (openclaw devices list on the "
                + "gateway host shows it); pairing again does not help"
        case GatewayError.gatewayStarting: return "wait a moment and run the command again, or raise --timeout"
        case GatewayError.rpcFailed(_, let shape) where shape.missingScope != nil:
            let scope = TerminalText.sanitize(shape.missingScope ?? "", maxScalars: 80)
            return "pass the gateway's shared token (--token-file FILE), or have this device approved with \(scope) on the "
                + "gateway host (clawpair devices approve)"
        case GatewayError.rpcFailed where (error as? GatewayError)?.isPermissionRefusal == true:
            return "the credential lacks that permission: pass the gateway's shared token (--token-file FILE), or have "
                + "this device approved with the scope on the gateway host (clawpair devices approve)"
        case GatewayError.deviceAuthRejected where error.hint == GatewayError.checkIdentityHint:
            return "check the identity with 'clawpair identity show'"
        case IdentityError.malformed:
            return "the file is damaged or not an identity file; restore it from a backup, or replace it with 'clawpair identity new --force' (a new identity must be paired again)"
        case IdentityError.noIdentity(let path):
            // Only the store's own identity file missing means there is none: for a file named on the
            // command line, `identity new` would replace the identity that exists and every pairing with it.
            let store = try? IdentityStore.locate(environment: ProcessEnvironment.current())
            guard let store, path != store.identityPath else {
                return "create one with 'clawpair identity new', or import one with 'clawpair identity import FILE'"
            }
            return "check the file name (this machine's own identity is \(store.identityPath): 'clawpair identity show' shows it)"
        case IdentityError.alreadyExists: return "pass --force to replace it (the old identity is lost unless you exported it)"
        case IdentityError.deviceIdMismatch: return "re-import the file with 'clawpair identity import FILE --force' to rewrite the deviceId"
        case IdentityError.insideOpenClawState:
            return "name the file explicitly (--identity FILE or --output FILE) if you really mean to write there"
        case AtomicFileError.exists, IdentityError.file(.exists): return "pass --force to replace it, or choose another path"
        case QRError.emptyPayload: return "give a setup code (or --raw TEXT)"
        case QRError.payloadTooLong(_, _, let level):
            return level == .low ? "shorten the text" : "use a lower error-correction level (--ec L) or shorten the text"
        case QRError.pngWriteFailed: return "try --format svg"
        case QRError.unsupportedImage(let detected):
            if detected == "SVG" { return "rsvg-convert IMAGE.svg | clawpair qr scan -" }
            return "convert it first, e.g.: convert IMAGE png:- | clawpair qr scan -"
        // Setup-code errors whose remedy is minting a code: clawpair does that too (`clawpair qr`).
        case SetupCodeError.inputTooLarge, SetupCodeError.notAPayload:
            return "paste the setup code ('clawpair qr --setup-code-only' or 'openclaw qr --setup-code-only' on the gateway "
                + "prints one), its oc-pair:// form, the setup JSON, an openclaw://gateway?… link or a ws:// / wss:// gateway URL"
        case SetupCodeError.invalidField, SetupCodeError.invalidExpiry, SetupCodeError.invalidFingerprint,
             SetupCodeError.fingerprintWithoutTLS, SetupCodeError.noEndpoint, SetupCodeError.notNormalized,
             SetupCodeError.missingBootstrapToken:
            return "the code is damaged or was not made by an OpenClaw gateway; mint a new one on the gateway: clawpair qr (or openclaw qr)"
        case SetupCodeError.expired:
            return "setup codes are valid for 10 minutes; mint a new one on the gateway: clawpair qr (or openclaw qr)"
        case let error as GatewayRegistryError: return hint(for: error)
        case PairingError.codeExpired: return "mint a new one on the gateway: clawpair qr (or openclaw qr)"
        case PairingError.noCredential: return "it only names a gateway; mint a pairing code with 'clawpair qr'"
        case PairingError.noRoute(_, _, let fingerprint?):
            return "the gateway's certificate is not trusted: check that it is your gateway's (on the gateway host: openssl x509 -in CERT "
                + "-noout -fingerprint -sha256), then accept it: clawpair pair --trust \(fingerprint) - < code.txt"
        case PairingError.noRoute: return "'clawpair probe --all - < code.txt' shows every route's outcome"
        case PairingError.notApproved(let requestId, _):
            return "approve it (\(PairingRequired(requestId: requestId).approveCommand)), then run 'clawpair pair' again with the same code while it is valid"
        case PairingError.rejected(nil, _): return "the request may have been rejected; ask the operator"
        case PairingError.rejected, PairingError.requestExpired:
            return "run 'clawpair pair' again, and have the new request approved while it is pending"
        case let error as PairingError: return error.cause.flatMap { present($0).hint }
        case NodeApprovalError.unknownRequest: return "'clawpair nodes pending' lists the current requests (a node's retry can replace its request)"
        case AvahiError.daemonNotRunning: return "start it (systemctl start avahi-daemon) or use --backend native"
        case AvahiError.libraryUnavailable:
            return "install libavahi-client3, or use --backend native"
        case AdvertiserError.tooManyConflicts:
            return "choose another name with --name; if one host claims every name, find it (avahi-browse -a) or raise --max-renames"
        case AdvertiserError.hostNameTaken: return "set OPENCLAW_MDNS_HOSTNAME to a name no other host uses, or unset it"
        case MDNSError.noInterfaces: return "bring a LAN interface up, or use --domain for wide-area DNS-SD"
        case is WideAreaError: return "check --dns-server (or /etc/resolv.conf) and that the server serves the domain"
        default: return error.hint
        }
    }

    static func hint(for error: GatewayRegistryError) -> String? {
        switch error {
        case .unknownGateway(_, let known):
            return known.isEmpty ? "no gateway is paired yet: 'clawpair pair' pairs this machine with a setup code"
                : "paired gateways: \(known.joined(separator: ", ")) ('clawpair gateways list')"
        case .damaged: return "'clawpair gateways forget \(error.recordID ?? "NAME")' removes it; then pair again"
        case .symlink(let path):
            return "replace \(path) with the file it points to, or remove it" + (error.recordID.map { ": clawpair gateways forget \($0)" } ?? "")
        case .nameTaken: return "choose another --name, or 'clawpair gateways forget' the old one"
        case .tooManyRecords(let directory, _):
            return "forget the gateways you no longer use: clawpair gateways forget ID (the ids are the file names in \(directory))"
        case .lockTimeout:
            return "another clawpair command is changing the registry (a pairing waiting for approval holds it only while it "
                + "writes); try again, or raise --timeout"
        case .recordTooLarge:
            return "the gateway sent more than a record can hold; nothing was stored (check the gateway, or 'clawpair gateways forget' it)"
        case .insecureFile, .io: return error.hint
        }
    }

}

extension PairingRequired {
    /// The command an operator runs on the gateway's host to approve this request (the CLI's
    /// wording: the library's pairing types name no command).
    var approveCommand: String {
        "clawpair devices approve \(displayRequestId)"
    }
}
