import ClawpairCLIKit

/// `clawpair identity` (being built; hidden until it has subcommands).
enum IdentityCommand {
    static let spec = CommandSpec(
        name: "identity",
        abstract: "Create and manage this machine's Ed25519 device identity",
        hidden: true
    )
}
