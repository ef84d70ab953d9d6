import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway
import ClawpairQR

/// `clawpair qr [--limited | --node | --voice-node] ...`: mint a pairing setup code on the gateway and draw it,
/// the same job as `openclaw qr`.
struct QRMintCommand: ParsableCommand {
    /// The spec is the `qr` group's: minting is what `clawpair qr` does without a subcommand.
    static var spec: CommandSpec { QRCommand.spec }

    /// Options of the minting form (the `qr` group's own options).
    static let options: [OptionSpec] = [
        .flag("limited", help: "Mint a limited code: node plus operator without operator.admin."),
        .flag("node", help: "Mint a node-only code (watches, companion devices, and Linux machines running 'clawpair node')."),
        .flag("voice-node", help: "Mint a voice-node code: node plus operator.read and operator.talk (room speakers)."),
        .value("public-url", "URL", help: "Put this gateway URL in the code (default: the URL clawpair reached it through, "
                   + "unless loopback).", completion: .hostname),
        .value("format", "FORMAT", help: "How to draw the QR code: utf8 (default), utf8i, ansi, ascii, png or svg "
                   + "(png and svg need --output).", completion: .values(QRFormat.allCases.map(\.rawValue))),
        .value("output", short: "o", "FILE", help: "Write the QR image to FILE (0600; the code is a secret) instead of "
                   + "drawing it in the terminal.", completion: .file),
        .flag("force", help: "Replace an existing --output file."),
        .flag("setup-code-only", help: "Print only the setup code on stdout."),
        .flag("no-ascii", help: "Leave out the QR drawing."),
        .flag("wait", help: "Then wait until a device uses the code or it expires."),
    ] + GatewayCLI.connectionOptions

    static let discussion: [String] = [
        "Without a subcommand, 'clawpair qr' asks the gateway for a new setup code (device.pair.setupCode, which "
            + "needs operator.admin), draws it as a QR code and prints its URL(s), the access it grants, its expiry and "
            + "how to approve the device. Scan it in the OpenClaw app under Onboarding -> Scan QR.",
        "Codes expire after 10 minutes and are a secret until then; URLS AND ACCESS in 'man clawpair-qr' says which "
            + "URL and access a code gets.",
    ]

    static let jsonSection = DocSection.inManSource("JSON OUTPUT")

    let arguments: ParsedArguments
    let profile: String?
    let format: QRFormat
    let output: String?

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
        let profiles = [("limited", "limited"), ("node", "node"), ("voice-node", SetupCodeRequest.voiceNodeProfile)]
            .filter { arguments.flag($0.0) }
        if profiles.count > 1 { throw UsageError("give one of --limited, --node and --voice-node") }
        profile = profiles.first?.1
        output = arguments.value("output")
        format = try QRCommand.format(arguments) ?? (output == nil ? .utf8 : QRFormat.forOutput(output, otherwise: .png))
        if format.isImage && output == nil {
            throw UsageError("--format \(format.rawValue) needs --output FILE", hint: "e.g. clawpair qr -o pair.\(format.rawValue)")
        }
        if arguments.flag("setup-code-only") && context.globals.json {
            throw UsageError("give --setup-code-only or --json, not both")
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            var minted = try session.mintSetupCode(bootstrapProfile: profile, publicURL: arguments.value("public-url"),
                                                   preferRemoteURL: arguments.flag("remote"), nowMs: context.nowMs)
            // A wss:// gateway reached through a pin (its certificate is not one the system roots vouch
            // for): without the pin in the code, a phone could not trust it (issue #24 §8).
            let endpoint = session.target.endpoint
            if let pinned = try minted.pinning(for: endpoint) {
                minted = pinned
                context.note("The gateway's certificate is not trusted by the system roots: the code carries its pin "
                             + "(SHA-256 \(endpoint.pin ?? "")) so that the device can check it.")
            } else if endpoint.pin != nil, minted.decoded.primary.tls, minted.decoded.tlsFingerprint == nil {
                context.warn("the code's route \(TerminalText.sanitize(minted.decoded.primary.url, maxScalars: 200)) carries no "
                             + "certificate pin, and this machine reached the gateway through one: a device cannot verify a "
                             + "self-signed certificate there; mint with --public-url \(endpoint.url) instead")
            }
            if arguments.flag("setup-code-only") {
                context.print(minted.result.setupCode)
                if minted.result.accessDowngraded { context.warn(MintedSetupCode.downgradeWarning) }
            } else if !context.globals.json {
                try printHuman(minted, context: context)
            }
            guard arguments.flag("wait") else {
                if context.globals.json { context.printJSON(minted.json()) }
                return .success
            }
            guard let setupId = minted.result.setupId else {
                throw GeneralError("this gateway does not say when a code is used (no setupId: it is older than OpenClaw 2026.7)",
                                   hint: "watch for the device's request instead: clawpair devices watch")
            }
            let remaining = minted.waitMs(nowMs: context.nowMs)
            context.note("Waiting for a device to use the code (until it expires in \(DurationText.describe(milliseconds: remaining)))…")
            let signals = TerminationSignals()
            let status = try session.waitForSetupUse(setupId: setupId, within: .milliseconds(remaining), stopped: { signals.pending() != nil })
            guard let used = status.usedText else {
                throw GeneralError("no device used the code before it expired (or the wait was stopped)",
                                   hint: "mint another: clawpair qr", status: .notFound)
            }
            if context.globals.json {
                context.printJSON(minted.json(setupStatus: status))
            } else {
                context.note(used + " 'clawpair devices list' shows it.")
            }
            return .success
        }
    }

    private func printHuman(_ minted: MintedSetupCode, context: CommandContext) throws {
        if output != nil || !arguments.flag("no-ascii") {
            // The format's own layout: upstream's for images, the terminal's for text (also in a file).
            let drawn = try QRCode(encoding: minted.result.setupCode, errorCorrection: .medium).rendering(format)
            if let output {
                try AtomicFile.write(drawn.bytes, to: output, mode: 0o600, replacing: arguments.flag("force"))
            } else if let columns = TerminalWindow.narrower(than: drawn.width, stdoutIsTTY: context.stdoutIsTTY) {
                // Wrapped lines would not scan; the code was minted, so the setup code below still pairs.
                context.warn("the QR code is \(drawn.width) columns wide but the terminal has \(columns), so it is not drawn (it "
                             + "would not scan): enter the setup code below, widen the window, or write an image with -o pair.png")
            } else {
                context.print(context.style.bold("Pairing QR"))
                context.print("Scan this with the OpenClaw mobile app (Onboarding -> Scan QR).")
                context.stdout.write(drawn.text ?? "")
            }
        }
        for line in minted.textLines(nowMs: context.nowMs, paint: context.style.paint) { context.print(line) }
        if let output { context.print("QR image: \(TerminalText.sanitize(output, maxScalars: 300)) (private, 0600; delete it after pairing)") }
        context.print("Approve after scan with: clawpair devices list / clawpair devices approve <requestId>")
        if arguments.flag("node") {
            // A node code serves a Linux machine too (issue #22.7).
            context.print("On a Linux machine: save the setup code to code.txt, then run 'clawpair pair - < code.txt' and "
                          + "'clawpair node run' there.")
        }
    }
}
