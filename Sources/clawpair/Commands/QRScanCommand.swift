import ClawpairCLIKit
import ClawpairCore
import ClawpairQR
import ClawpairSetupCode

/// `clawpair qr scan IMAGE...`: finds QR codes in images and prints what they hold.
struct QRScanCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "scan",
        abstract: "Read the QR codes in PNG, JPEG and PNM images",
        discussion: [
            "Each image is decoded to gray (PNG with libpng, JPEG with libjpeg, PBM/PGM/PPM directly; the format is "
                + "recognised from the first bytes, never the file name) and searched with zbar. When nothing is found, "
                + "an inverted copy is searched (light-on-dark codes), then a halved one (noise, oversized photos), a "
                + "sharpened one (blur) and, for small images, an enlarged one (tiny codes).",
            "Every QR code found is printed on its own line, as zbarimg --raw does. Piped or redirected, each line is "
                + "the payload's bytes exactly. On a terminal, control characters and other text that could act on it are "
                + "shown escaped, and with several images each line starts with the image name and a colon. A payload that is an OpenClaw setup code is a secret: it is printed, "
                + "because that is the job of a scanner, and a note on standard error says what it is; pipe it to "
                + "'clawpair setup-code decode -' to see what it holds.",
            "- reads the image from standard input.",
        ],
        arguments: [ArgumentSpec("image", help: "PNG, JPEG or PNM files; - reads standard input.",
                                 repeated: true, completion: .file)],
        examples: [
            Example("clawpair qr scan pairing.png", "Print the code in a screenshot"),
            Example("clawpair qr scan pairing.png | clawpair setup-code decode -", "See what a setup code's QR code holds"),
            Example("grim -g \"$(slurp)\" - | clawpair qr scan -", "Scan a region of the screen (Wayland)"),
            Example("clawpair qr scan --json *.jpg | jq -r '.images[].codes[].payload'", "Every payload, for scripts"),
        ],
        sections: [
            DocSection("LIMITS", [
                "Images are read whole, at most \(ImageLimits.defaultMaxFileBytes / (1024 * 1024)) MiB each. The "
                    + "image size is checked from the header before any pixel is decoded: images of more than "
                    + "\(ImageLimits.defaultMaxPixels / 1_000_000) million pixels are refused (crop or scale them "
                    + "around the code), and progressive JPEGs with more than \(ImageLimits.defaultMaxJPEGScans) scans. "
                    + "A damaged or truncated image is an error, never a partial guess.",
                "Decoding needs more memory than the pixels: the PNG and JPEG decoders and the scanner keep working buffers in "
                    + "proportion to the size an image declares, so a small file can cost a lot (a 5 KB PNG peaked at about 126 MB, "
                    + "a 465 KB progressive JPEG at about 279 MB, both within the bound). Scan untrusted images where that much "
                    + "memory may be used, or scale them down first.",
                "The exit status is 0 when at least one code was found, 3 when no image held one (zbarimg's \"no "
                    + "code\" status), and 1 when an image could not be read, even if others held codes; the "
                    + "remaining images are still scanned.",
            ]),
            .inManSource("JSON OUTPUT"),
        ],
        runner: QRScanCommand.runner
    )

    let images: [String]

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        images = arguments.positionals
        if images.filter({ $0 == "-" }).count > 1 {
            throw UsageError("standard input (-) can be read only once", hint: "give - at most once")
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let scans = images.map { image in
            let read = { try context.readFile(image, limit: ImageLimits.defaultMaxFileBytes) }
            let scan = ImageScan(named: displayName(image), reading: read)
            for line in context.globals.verbosity > 0 ? scan.detailLines : [] { context.note(line) }
            return scan
        }
        let found = scans.reduce(0) { $0 + $1.codes.count }
        let errors = scans.compactMap(\.namedError).map { ErrorPresentation.present($0) }
        // The run's failure: an image that could not be read (each is reported on stderr in order, the
        // last as the run's error), else no code in any.
        var failure = errors.last.map {
            PresentedError($0.underlying, status: .failure, message: $0.message, hint: $0.hint, code: $0.code, details: $0.details)
        }
        if failure == nil && found == 0 {
            let damage = scans.lazy.compactMap { $0.loaded?.warnings.first }.first
            let what = images.count == 1 ? displayName(images[0]) : "any of the \(images.count) images"
            let notFound = GeneralError("no QR code found in \(what)",
                                        hint: damage.map { "the image is damaged (\($0)); re-capture it" }
                                            ?? "make sure the whole code, with its light border, is in the picture, sharp and not too small",
                                        status: .notFound)
            failure = ErrorPresentation.present(notFound)
        }
        if context.globals.json {
            let described = zip(images, scans).map { name, scan in
                scan.json(image: name, code: { json($0, context) }, error: { JSONEnvelope.errorObject(ErrorPresentation.present($0)) })
            }
            let document = JSONValue.object([("found", .int(Int64(found))), ("images", .array(described))])
            context.printJSON(failure.map { JSONEnvelope.failure($0, document: document) } ?? document)
        } else {
            printHuman(scans, context: context)
        }
        for error in errors.dropLast() { context.report(error) }
        if let failure { throw failure }
        return .success
    }

    private func printHuman(_ scans: [ImageScan], context: CommandContext) {
        let prefixed = images.count > 1 && context.stdoutIsTTY
        for (name, scan) in zip(images, scans) {
            for code in scan.codes {
                if context.stdoutIsTTY {
                    let shown = TerminalText.sanitize(bytes: code.payload, maxScalars: 4096)
                    context.print(prefixed ? "\(TerminalText.sanitize(name)): \(shown)" : shown)
                } else {
                    // Not a terminal: the payload's bytes as they are, like zbarimg --raw, for the next program
                    // in the pipe (a reader that went away ends the output, as for every write to stdout).
                    try? FileIO.writeAll(fd: 1, code.payload + [0x0A], name: "standard output")
                }
                if let setup = SetupCode.setupInput(in: code.text) {
                    context.note("\(scan.name): \(setup.secretWarning(nowMs: context.nowMs)). "
                                 + "See what it holds: pipe it to 'clawpair setup-code decode -'.")
                }
            }
        }
    }

    /// A code's `--json` object: its payload and, for a setup code, what `setup-code decode --json` says (secrets null).
    private func json(_ code: ScannedCode, _ context: CommandContext) -> JSONValue {
        let setup = SetupCode.setupInput(in: code.text).map { setup in
            SetupCodeJSON.decoded(setup, nowMs: context.nowMs, showSecrets: false, failure: setup.expiryFailure(nowMs: context.nowMs))
        }
        return .object(code.jsonMembers + [("setupCode", setup ?? .null)])
    }

    private func displayName(_ name: String) -> String {
        name == "-" ? "standard input" : TerminalText.sanitize(name)
    }
}
