import ClawpairCLIKit
import ClawpairQR

/// `clawpair qr`: QR codes of setup codes. `render` and `scan` are subcommands so that a
/// gateway-minting `clawpair qr [--limited|--node]` can live beside them.
enum QRCommand {
    static let spec = CommandSpec(
        name: "qr",
        abstract: "Mint a pairing QR code on a gateway; render setup codes as QR codes and scan QR images",
        discussion: QRMintCommand.discussion,
        options: QRMintCommand.options,
        subcommands: [
            Subcommand("render") { QRRenderCommand.spec },
            Subcommand("scan") { QRScanCommand.spec },
        ],
        examples: [
            Example("clawpair qr", "Mint a full-access pairing code on the local gateway and draw it"),
            Example("clawpair qr --setup-code-only | clawpair setup-code decode -", "Mint a code and inspect it"),
        ],
        sections: [.inManSource("URLS AND ACCESS"), QRMintCommand.jsonSection, GatewayCLI.credentialsSection, GatewayCLI.environmentSection, GatewayCLI.exitSection],
        runner: QRMintCommand.runner
    )

    /// `--format`, in any case (`qr` and `qr render`); nil when not given.
    static func format(_ arguments: ParsedArguments) throws(UsageError) -> QRFormat? {
        try arguments.choice("format", noun: "format", normalizing: { $0.lowercased() },
                             hint: "use one of: \(QRFormat.allCases.map(\.rawValue).joined(separator: ", "))")
    }
}
