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
                       + "terminal (see QUIET ZONE)."),
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
            DocSection("FORMATS", [
                "utf8: half blocks (U+2580, U+2584, U+2588), two module rows per line, drawn in the text colour on the "
                    + "light modules: for dark themes (light text on a dark background), the common case. The default "
                    + "on a terminal.",
                "utf8i: the same drawn on the dark modules, for light themes.",
                "ansi: half blocks on the dark modules with every line wrapped in ESC[47m ESC[30m ... ESC[0m (black on "
                    + "white), so the code scans whatever the theme: upstream's compact terminal form.",
                "ascii: one line per module row, ## for a dark module and two spaces for a light one; for documents "
                    + "and places without Unicode (dark text on a light background).",
                "png: black on white, 1-bit palette. svg: one white square and one black path of module runs, "
                    + "with shape-rendering=\"crispEdges\". PNG is refused when standard output is a terminal.",
            ]),
            DocSection("QUIET ZONE", [
                "QR codes need a light border, the quiet zone; ISO/IEC 18004 asks for 4 modules, which png and svg use "
                    + "(as upstream does). On a terminal the code is surrounded by the terminal's own background, dark on "
                    + "most themes, so clawpair draws the quiet zone itself and uses 2 modules: the test suite draws "
                    + "each terminal format as a screen shows it, with a dark surround, and zbar decodes it down to a "
                    + "1-module margin (upstream's compact form uses 1); 2 keeps a module in hand for phone cameras and "
                    + "low-contrast themes while the code stays 4 columns and 2 lines smaller than with 4. Use "
                    + "--margin 4 for a scanner that insists.",
            ]),
            DocSection("SECRETS", [
                "A QR code of a setup code is the setup code: anyone who scans it before it expires can pair with the "
                    + "gateway. Files written with --output are therefore private (mode 0600) and never replace an "
                    + "existing file without --force; delete them once the device has paired.",
            ]),
            DocSection("JSON OUTPUT", [
                "With --json, one object is printed on stdout, also on failure. The drawing itself is in \"text\" "
                    + "(terminal formats and svg) or \"dataUrl\" (png, as data:image/png;base64,...) when no --output "
                    + "file is given, and null otherwise.",
                """
                  {
                    "ok": true,
                    "input": "setup-code",          setup-code or raw
                    "format": "png",
                    "version": 7,                   QR version, 1 to 40
                    "errorCorrection": "M",
                    "modules": 45,                  modules per side, without margin
                    "margin": 4,
                    "scale": 6,
                    "width": 318,                   pixels (png, svg) or columns (terminal)
                    "height": 318,                  pixels or lines
                    "output": "pair.png",           or null for standard output
                    "text": null,
                    "dataUrl": null,
                    "error": null                   on failure: {"code", "message", "hint"}
                  }
                """,
            ]),
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
