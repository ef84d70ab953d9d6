import ClawpairCLIKit
import ClawpairCore
import ClawpairQR
import ClawpairSetupCode

/// `clawpair qr render [INPUT|-]`: draws a setup code (or any text) as a QR code.
struct QRRenderCommand: ParsableCommand {
    /// The most bytes read for `--raw -` or a setup code on standard input.
    static let maxInputBytes = 64 * 1024

    static let spec = CommandSpec(
        name: "render",
        abstract: "Draw a setup code as a QR code on the terminal, or as a PNG or SVG image",
        discussion: [
            "The QR code holds the bare setup code, exactly what the OpenClaw apps scan (Onboarding -> Scan QR). "
                + "Any setup input is accepted (a bare code, the oc-pair:// form, raw setup JSON, a code pasted inside "
                + "other text) and the canonical bare code is drawn; deep links and gateway URLs carry no setup payload "
                + "and are refused. --raw TEXT draws any text as it is.",
            "The symbol uses 8-bit byte mode, the smallest QR version that fits and error correction M unless --ec "
                + "says otherwise, as upstream does. Encoding is done by libqrencode, PNG writing by libpng.",
            "On a terminal narrower than the code nothing is drawn (exit 1): its lines would wrap and it would not scan. "
                + "Write an image instead (-o pair.png), widen the window, or pass --force to draw it anyway. -o FILE picks "
                + "png or svg from the name; a name that promises another image format (pair.jpg) is refused.",
            "With no input, or with -, the input is read from standard input. Prefer that for setup codes: "
                + "command-line arguments are visible to other users of the machine. An expired code is refused "
                + "(exit 4): the gateway would refuse it too.",
        ],
        options: [
            .value("format", short: "t", "FORMAT",
                   help: "utf8, utf8i, ansi, ascii, png or svg. Default: png or svg when --output ends in .png or "
                       + ".svg, otherwise utf8.",
                   completion: .values(QRFormat.allCases.map(\.rawValue))),
            .value("ec", "LEVEL", help: "Error correction level: L, M (default), Q or H.",
                   completion: .values(QRErrorCorrection.allCases.map(\.rawValue))),
            .value("margin", "MODULES",
                   help: "Quiet zone around the code, in modules (0 to 16). Default: 4 for png and svg, 2 on the "
                       + "terminal (see QUIET ZONE in 'man clawpair-qr-render')."),
            .value("scale", "N",
                   help: "Pixels per module for png and svg (default 6), or repeats per module on the terminal "
                       + "(default 1); 1 to 32."),
            .value("output", short: "o", "FILE",
                   help: "Write to FILE (mode 0600) instead of standard output; - is standard output.",
                   completion: .file),
            .flag("force", help: "Replace FILE when it already exists; on a terminal narrower than the code, draw it anyway "
                      + "(with a warning) instead of refusing."),
            .value("raw", "TEXT", help: "Draw TEXT as it is instead of a setup code; - reads it from standard input "
                       + "(trailing newlines removed)."),
        ],
        arguments: [ArgumentSpec("input", help: "The setup code or other setup input; - or nothing reads standard input.",
                                 optional: true, completion: .none)],
        examples: [
            Example("clawpair qr render - < code.txt", "Show a setup code as a QR code on the terminal"),
            Example("openclaw qr --setup-code-only | clawpair qr render --format ansi",
                    "Black on white, for any terminal theme"),
            Example("clawpair qr render -o pair.png - < code.txt", "Write a PNG (6 pixels per module, 4-module margin)"),
            Example("clawpair qr render --format svg --raw 'https://example.com' > link.svg", "Any text, as SVG"),
        ],
        sections: [
            .inManSource("FORMATS"),
            .inManSource("QUIET ZONE"),
            .inManSource("SECRETS"),
            .inManSource("JSON OUTPUT"),
        ],
        runner: QRRenderCommand.runner
    )

    /// Whether `--raw` text is drawn as it is; otherwise a setup input is drawn as its canonical code.
    let raw: Bool
    /// The text or setup input given on the command line; nil: standard input.
    let given: String?
    let format: QRFormat
    let errorCorrection: QRErrorCorrection
    let layout: QRLayout
    let output: String?
    let force: Bool

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        let raw = arguments.value("raw")
        if raw != nil && !arguments.positionals.isEmpty {
            throw UsageError("give either a setup input or --raw TEXT, not both", hint: "see 'clawpair qr render --help'")
        }
        self.raw = raw != nil
        given = (raw ?? arguments.positionals.first).flatMap { $0 == "-" ? nil : $0 }
        output = arguments.value("output").flatMap { $0 == "-" ? nil : $0 }
        force = arguments.flag("force")
        format = try QRCommand.format(arguments) ?? QRFormat.forOutput(output, otherwise: .utf8)
        if let output, let problem = format.misnamedOutput(output) {
            throw UsageError(problem, hint: "qr render writes PNG or SVG images: use -o pair.png or -o pair.svg "
                                 + "(or name the file .txt for text)")
        }
        errorCorrection = try arguments.choice("ec", noun: "error correction level", normalizing: { $0.uppercased() }) ?? .medium
        let margin = try arguments.wholeNumber("margin", in: QRLayout.marginRange, default: format.defaultLayout.margin)
        layout = try QRLayout(scale: arguments.wholeNumber("scale", in: QRLayout.scaleRange, default: format.defaultLayout.scale),
                              margin: margin)
        if format == .png && output == nil && context.stdoutIsTTY && !context.globals.json {
            throw UsageError("refusing to write a PNG image to the terminal",
                             hint: "write it to a file with -o FILE.png, or redirect standard output")
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let payload = try raw ? rawBytes(context) : setupCodeBytes(context)
        let drawn = try QRCode(encoding: payload, errorCorrection: errorCorrection).rendering(format, layout: layout)
        if let output { try AtomicFile.write(drawn.bytes, to: output, mode: 0o600, replacing: force) }
        if context.globals.json {
            let input: JSONValue = .string(raw ? "raw" : "setup-code")
            context.printJSON(.object([("input", input)] + drawn.jsonMembers(output: output) + [("error", .null)]))
            return .success
        }
        if let output {
            context.note("Wrote \(TerminalText.sanitize(output)): \(drawn.summary).")
            if !raw {
                context.note("It holds a setup code, a secret: the file is private (0600); delete it once the device has paired.")
            }
            if format == .png { context.note("Check it with: clawpair qr scan \(ShellQuote.quote(TerminalText.sanitize(output)))") }
            return .success
        }
        if !format.isImage, let columns = TerminalWindow.narrower(than: drawn.width, stdoutIsTTY: context.stdoutIsTTY) {
            let problem = "the QR code is \(drawn.width) columns wide but the terminal has \(columns)"
            guard force else {
                throw GeneralError(problem + ": its lines would wrap and it would not scan",
                                   hint: "write an image instead (clawpair qr render -o pair.png), widen the window or make "
                                       + "the font smaller, or pass --force to draw it anyway")
            }
            context.warn(problem + ": widen the window, make the font smaller, or write an image with -o pair.png")
        }
        if let text = drawn.text {
            context.stdout.write(text)
        } else {
            try FileIO.writeAll(fd: 1, drawn.bytes, name: "standard output")
        }
        context.verboseNote(drawn.parameters)
        return .success
    }

    /// The `--raw` text's bytes: as given, or standard input without its trailing newlines.
    private func rawBytes(_ context: CommandContext) throws -> [UInt8] {
        try given.map { Array($0.utf8) }
            ?? context.readBytes(prompting: "Type or paste the text, then press Ctrl-D:", limit: Self.maxInputBytes)
    }

    /// The canonical bare code of the setup input (given, or read from standard input), which must not have expired.
    private func setupCodeBytes(_ context: CommandContext) throws -> [UInt8] {
        let prompt = "Paste the setup code, then press Ctrl-D:"
        guard let text = try given ?? context.readText(prompting: prompt, limit: SetupCode.maxInputBytes) else {
            throw SetupCodeError.notAPayload("the input is not UTF-8 text")
        }
        let setup = try SetupCode.parse(text)
        guard let code = setup.canonicalCode else {
            throw GeneralError("this is a \(setup.form == .deepLink ? "deep link" : "gateway URL"), not a setup code: "
                               + "it carries no setup payload for the app to scan",
                               hint: "mint a setup code on the gateway with 'clawpair qr' (or make one with 'clawpair setup-code encode'), or "
                                   + "draw the text as it is with --raw")
        }
        if given != nil, setup.hasCredential {
            context.warn("this setup code was given on the command line, where other users can see it (ps, shell "
                         + "history); pipe it in instead: clawpair qr render -")
        }
        try setup.checkNotExpired(nowMs: context.nowMs)
        if setup.form != .code { context.verboseNote("Drawing the canonical bare code (the input was \(setup.form.rawValue)).") }
        return Array(code.utf8)
    }
}
