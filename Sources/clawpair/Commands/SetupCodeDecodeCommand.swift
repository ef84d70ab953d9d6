import ClawpairCLIKit
import ClawpairCore
import ClawpairSetupCode

/// `clawpair setup-code decode [INPUT|-]`: shows what a setup code holds.
struct SetupCodeDecodeCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "decode",
        abstract: "Show what a setup code holds: routes, TLS pin, expiry, access, generation",
        discussion: [
            "Accepts every form OpenClaw has used: a bare code (generations G1 to G4), the oc-pair:// form, the raw "
                + "JSON payload, a code pasted inside other text, an openclaw://gateway?... deep link, a ws://, wss://, "
                + "http:// or https:// gateway URL, and the host-shape JSON payload.",
            "A join URL (https://<gateway>/j/<shortcode>, from openclaw devices join-code) is recognised and explained: "
                + "it holds no setup code itself, the gateway hands one out to the first request only, and clawpair pair "
                + "redeems it. decode never fetches it, since that would use it up. Plain http:// join URLs are accepted "
                + "only for loopback gateways.",
            "Routes are listed in the order apps try them, the first being primary. Plaintext ws:// routes to hosts "
                + "other than loopback, private-LAN, link-local and .local names are dropped, as the OpenClaw apps do, "
                + "and listed with the reason. Secrets are redacted unless --show-secrets is given.",
            "With no input, or with -, the input is read from standard input. Prefer that: command-line arguments "
                + "are visible to other users of the machine.",
        ],
        options: [
            .flag("show-secrets", help: "Print bootstrap tokens, shared tokens and passwords instead of redacting them."),
            .flag("strict", help: "Also fail (exit 1) when the newest strict OpenClaw decoder would refuse the code."),
        ],
        arguments: [ArgumentSpec("input", help: "The setup code or other setup input; - or nothing reads standard input.",
                                 optional: true, completion: .none)],
        examples: [
            Example("clawpair setup-code decode - < code.txt", "Decode a code kept in a file"),
            Example("wl-paste | clawpair setup-code decode", "Decode the clipboard (Wayland)"),
            Example("clawpair setup-code decode --json - < code.txt | jq -r '.endpoints[0].url'", "Print the primary route"),
        ],
        sections: [
            .inManSource("JSON OUTPUT"),
        ],
        runner: SetupCodeDecodeCommand.runner
    )

    let input: String?
    let showSecrets: Bool
    let strict: Bool

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        let given = arguments.positionals.first
        input = given == "-" ? nil : given
        showSecrets = arguments.flag("show-secrets")
        strict = arguments.flag("strict")
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        guard let text = try input ?? context.readText(prompting: "Paste the setup code, then press Ctrl-D:",
                                                        limit: SetupCode.maxInputBytes) else {
            throw SetupCodeError.notAPayload("the input is not UTF-8 text")
        }
        let joinURL: JoinLink?
        do {
            joinURL = try JoinLink.recognize(text)
        } catch {
            throw SetupCodeJSON.presented(error)
        }
        if let joinURL {
            if input != nil { context.warnOnCommandLine("this join URL", instead: "clawpair setup-code decode -") }
            let rows = joinURL.textRows(showSecrets: showSecrets, secretNote: Self.secretNote, paint: context.style.paint)
            context.output(json: joinURL.json(showSecrets: showSecrets), text: lines(rows + [
                ("Redeem", "clawpair pair <join URL>"), ("Note", "decode does not fetch the link: fetching it would use it up"),
            ], context))
            return .success
        }
        let decoded: DecodedSetup
        do {
            decoded = try SetupCode.parse(text)
        } catch {
            // `decode code.txt` names a file: say how to read it rather than "not a setup code".
            guard case .notAPayload = error, let path = input, FileIO.isRegularFile(path: path) else {
                throw SetupCodeJSON.presented(error)
            }
            throw SetupCodeJSON.presented(error, hint: "\(path) is a file; to decode what it holds, run: "
                                                   + "clawpair setup-code decode - < \(path)")
        }
        if input != nil, decoded.hasCredential {
            context.warnOnCommandLine("this setup code", instead: "clawpair setup-code decode -")
        }
        var failure: (any ClawpairError)?
        if decoded.isExpired(nowMs: context.nowMs), let expiresAtMs = decoded.expiresAtMs {
            failure = SetupCodeError.expired(expiresAtMs: expiresAtMs, nowMs: context.nowMs)
        } else if strict, case .rejected(let reason) = decoded.strictCheck {
            failure = GeneralError("the newest strict OpenClaw decoder refuses this code: \(reason)",
                                   hint: "re-mint the code with a current gateway (openclaw qr) or with 'clawpair setup-code encode'")
        }
        context.output(json: SetupCodeJSON.decoded(decoded, nowMs: context.nowMs, showSecrets: showSecrets, failure: failure),
                       text: lines(decoded.textRows(nowMs: context.nowMs, showSecrets: showSecrets, secretNote: Self.secretNote,
                                                    verbose: context.globals.verbosity > 0, paint: context.style.paint), context))
        if let failure { throw failure }
        return .success
    }

    static let secretNote = " (--show-secrets prints it)"

    /// `rows` in the two-column layout, labels in bold.
    private func lines(_ rows: [(label: String, value: String)], _ context: CommandContext) -> String {
        TextColumns.lines(rows, width: 17, styleLabel: context.style.bold)
    }
}
