import ClawpairCLIKit

/// `clawpair zone` (being built; hidden until it has subcommands).
enum ZoneCommand {
    static let spec = CommandSpec(
        name: "zone",
        abstract: "Write a wide-area DNS-SD zone file for a gateway beacon",
        hidden: true
    )
}
