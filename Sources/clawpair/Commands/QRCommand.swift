import ClawpairCLIKit
import ClawpairCore
import ClawpairQR
import ClawpairSetupCode

/// `clawpair qr`: QR codes of setup codes. `render` and `scan` are subcommands so that a
/// gateway-minting `clawpair qr [--limited|--node]` can live beside them.
enum QRCommand {
    static let spec = CommandSpec(
        name: "qr",
        abstract: "Mint a pairing QR code on a gateway; render setup codes as QR codes and scan QR images",
        discussion: QRMintCommand.discussion + [
            "'clawpair qr render' draws a setup code you already have; 'clawpair qr scan' reads QR images. A setup "
                + "code's QR code holds the bare code and nothing else, exactly as 'openclaw qr' draws it. Like the code "
                + "itself it is a secret until it expires.",
        ],
        options: QRMintCommand.options,
        subcommands: [QRRenderCommand.spec, QRScanCommand.spec],
        examples: [
            Example("clawpair qr", "Mint a full-access pairing code on the local gateway and draw it"),
            Example("clawpair qr --node --public-url wss://gw.tail1234.ts.net", "A node-only code with a chosen URL"),
            Example("clawpair qr -o pair.png", "Write the QR code as a PNG image instead"),
            Example("clawpair qr --setup-code-only | clawpair setup-code decode -", "Mint a code and inspect it"),
        ],
        sections: [QRMintCommand.jsonSection, GatewayCLI.credentialsSection, GatewayCLI.environmentSection, GatewayCLI.exitSection],
        runner: QRMintCommand.runner
    )
}

/// JSON pieces shared by the `qr` commands.
enum QRJSON {
    /// `{"ok": false, "error": {...}}` for a command that failed before it had anything to show.
    static func failure(_ error: any ClawpairError) -> JSONValue {
        .object([("ok", .bool(false)), ("error", errorObject(error))])
    }

    /// `{"code", "message", "hint"}` with the most specific stable code available.
    static func errorObject(_ error: any ClawpairError) -> JSONValue {
        .object([
            ("code", .string(code(of: error))),
            ("message", .string(error.message)),
            ("hint", ErrorPresentation.present(error).hint.map(JSONValue.string) ?? .null),
        ])
    }

    private static func code(of error: any Error) -> String {
        switch error {
        case let error as QRError: return error.code
        case let error as SetupCodeError: return error.code
        case let error as ClawpairErrorBox: return code(of: error.error)
        case let error as ContextualError: return code(of: error.underlying)
        case is FileIO.TooLarge: return "input-too-large"
        case is SystemError, is AtomicFileError: return "io-error"
        default: return "error"
        }
    }
}
