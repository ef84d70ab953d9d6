import ClawpairCLIKit

/// `clawpair qr` (being built; hidden until it has subcommands).
enum QRCommand {
    static let spec = CommandSpec(
        name: "qr",
        abstract: "Render setup codes as QR codes and scan QR images",
        hidden: true
    )
}
