import ClawpairCLIKit
import ClawpairCore
import ClawpairSetupCode

/// `clawpair setup-code encode`: mints a newest-generation (G4) setup code.
struct SetupCodeEncodeCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "encode",
        abstract: "Make a setup code (newest generation, G4) from gateway URLs and a bootstrap token",
        discussion: [
            "The code is printed on stdout: base64url, without padding, of the compact JSON payload "
                + "{url, urls, bootstrapToken, expiresAtMs, tlsFingerprint} in the order OpenClaw gateways write it. "
                + "Every code it prints is accepted by the newest strict OpenClaw decoder.",
            "URLs are normalized as gateways do (http becomes ws, https becomes wss, default ports and query strings "
                + "are dropped); a bare host[:port] gets wss://. Plaintext ws:// is refused unless the host is loopback, "
                + "a private-LAN or link-local address, or a .local name; anything else needs wss:// (Tailscale Serve, "
                + "or the gateway's own TLS). Port 80 is refused for ws:// because apps would dial 18789.",
            "The bootstrap token is read from --bootstrap-token-file, from standard input with --bootstrap-token -, "
                + "or from CLAWPAIR_BOOTSTRAP_TOKEN. A literal --bootstrap-token value works but warns, because "
                + "command lines are visible to other users.",
        ],
        options: [
            .repeated("url", "URL", help: "A gateway WebSocket URL; the first is primary, later ones are fallbacks (at most 8).",
                      completion: .none),
            .value("bootstrap-token-file", "FILE", help: "Read the bootstrap token from FILE.", completion: .file),
            .value("bootstrap-token", "TOKEN", help: "The bootstrap token, or - to read it from standard input."),
            .value("expires-in", "DURATION", help: "Lifetime from now, e.g. 10m, 90s, 1h (default 10m, as gateways issue). A bare number is "
                       + "still seconds here, with a warning (see DURATIONS in clawpair(1))."),
            .value("expires-at-ms", "MS", help: "Absolute expiry in milliseconds since the epoch, instead of --expires-in."),
            .value("tls-fingerprint", "SHA256", help: "SHA-256 pin of the gateway certificate for the primary wss:// route "
                   + "(64 hex digits, or colon-separated pairs, optionally prefixed sha256:)."),
            .flag("prefix", help: "Print the oc-pair:// command-text form instead of the bare code (never put it in a QR)."),
        ],
        examples: [
            Example("clawpair setup-code encode --url wss://gateway.example.com --bootstrap-token-file token.txt",
                    "A code for a TLS gateway"),
            Example("printf %s \"$TOKEN\" | clawpair setup-code encode --url ws://192.168.1.20:18789 "
                    + "--url wss://gw.tailnet.ts.net --bootstrap-token -",
                    "A LAN route with a tailnet fallback, token from standard input"),
        ],
        sections: [
            .inManSource("JSON OUTPUT"),
            .inManSource("ENVIRONMENT"),
        ],
        runner: SetupCodeEncodeCommand.runner
    )

    static let token = SecretInput(what: "bootstrap token", fileOption: "bootstrap-token-file",
                                   valueOption: "bootstrap-token", environmentVariable: "CLAWPAIR_BOOTSTRAP_TOKEN")

    let urls: [String]
    let expiresAtMs: Int64
    let tlsFingerprint: String?
    let prefix: Bool
    let arguments: ParsedArguments

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        urls = arguments.values("url")
        guard !urls.isEmpty else {
            throw UsageError("give at least one gateway URL with --url", hint: "e.g. --url wss://gateway.example.com")
        }
        if let warning = DurationOption.bareSecondsWarning(arguments.value("expires-in"), option: "expires-in") { context.warn(warning) }
        do throws(SetupCodeExpiry.Problem) {
            expiresAtMs = try SetupCodeExpiry.parse(lifetime: arguments.value("expires-in"), at: arguments.value("expires-at-ms"))
                .expiresAtMs(nowMs: context.nowMs)
        } catch {
            throw Self.present(error)
        }
        tlsFingerprint = arguments.value("tls-fingerprint")
        prefix = arguments.flag("prefix")
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let token = try Self.token.require(arguments, context)
        let code: String, payload: SetupCodePayload
        do {
            try SetupCodeExpiry.checkInFuture(expiresAtMs, nowMs: context.nowMs)
            (code, payload) = try SetupCode.make(urls: urls, bootstrapToken: token, expiresAtMs: expiresAtMs,
                                                 tlsFingerprint: tlsFingerprint, defaultScheme: .wss)
        } catch let problem as SetupCodeExpiry.Problem {
            throw Self.present(problem)
        } catch let error as SetupCodeError {
            throw Self.present(error)
        }
        context.output(json: SetupCode.mintedJSON(code: code, payload: payload),
                       text: (prefix ? SetupCode.prefixed(code) : code) + "\n")
        if context.stderrIsTTY && !context.globals.quiet {
            let relative = WallClock.relative(ms: expiresAtMs, now: context.nowMs)
            context.note(context.errorStyle.dim("This code is a bearer credential until it expires (\(relative)): treat it like a password."))
            context.note(context.errorStyle.dim("Next: check it with 'clawpair setup-code decode -' and paste it there."))
        }
        return .success
    }

    /// An encoder error as a usage error naming the option it is about (exit 2).
    static func present(_ error: SetupCodeError) -> any Error {
        if case .insecurePlaintextHost = error { return error }
        switch error.encoderInput {
        case .url: return UsageError("--url: \(error.message)", hint: error.hint)
        case .tlsFingerprint:
            return UsageError("--tls-fingerprint: \(error.message)",
                              hint: "give the SHA-256 of the gateway's certificate (64 hex digits) with a wss:// primary --url")
        case .bootstrapToken:
            return UsageError("the bootstrap token (--bootstrap-token-file, --bootstrap-token or CLAWPAIR_BOOTSTRAP_TOKEN): "
                              + error.message, hint: "give a file that holds only the token the gateway issued")
        case .expiry: return UsageError("--expires-in/--expires-at-ms: \(error.message)")
        case nil: return error
        }
    }

    /// The CLI wording of an expiry problem.
    static func present(_ problem: SetupCodeExpiry.Problem) -> any Error {
        switch problem {
        case .conflicting: return UsageError("give --expires-in or --expires-at-ms, not both")
        case let .invalidLifetime(text):
            return UsageError("--expires-in '\(TerminalText.sanitize(text, maxScalars: 40))' is not a duration",
                              hint: "use e.g. 10m, 90s, 1h30m")
        case let .invalidTime(text):
            return UsageError("--expires-at-ms '\(TerminalText.sanitize(text, maxScalars: 40))' is not a time in ms since the epoch")
        case let .notInFuture(expiresAtMs):
            return GeneralError("the expiry \(WallClock.iso8601(ms: expiresAtMs) ?? String(expiresAtMs)) is not in the future",
                                hint: "apps refuse expired codes; use --expires-in 10m", status: .usage)
        }
    }
}
