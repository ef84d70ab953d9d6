import ClawpairCLIKit
import ClawpairGateway

/// `clawpair gateways list|use|forget`: the paired-gateways registry.
enum GatewaysCommand {
    static let spec = CommandSpec(
        name: "gateways",
        abstract: "List, choose and forget the gateways this machine paired with",
        discussion: [
            "The registry keeps, per gateway: a stable id, its URLs (the one that last worked first), the TLS "
                + "certificate pin, the device tokens issued to this machine by role, and when it was last seen. "
                + "'clawpair pair' adds gateways; operator commands use the chosen one when no --url or --gateway is "
                + "given, with its stored pin and operator token. Records are files in <clawpair home>/gateways/ "
                + "(0600 in a 0700 directory, changed under a lock and written atomically, so two clawpair processes "
                + "never undo each other); one file per gateway, so switching never mixes their state. A record that "
                + "other users can read, or a symbolic link, is refused with the fix, never used.",
        ],
        subcommands: [
            Subcommand("list") { GatewaysListCommand.spec },
            Subcommand("use") { GatewaysUseCommand.spec },
            Subcommand("check") { GatewaysCheckCommand.spec },
            Subcommand("forget") { GatewaysForgetCommand.spec },
        ]
    )

    static let filesSection = DocSection("FILES", [
        "<clawpair home>/gateways/<id>.json: one paired gateway (0600). <clawpair home>/gateways/active: the id "
            + "'clawpair gateways use' chose. <clawpair home>/gateways/.lock: locked (flock) while a command changes the "
            + "registry. The clawpair home is $CLAWPAIR_HOME, else $XDG_CONFIG_HOME/clawpair, else ~/.config/clawpair.",
    ])

    static func registry(_ context: CommandContext) throws -> GatewayRegistry {
        try GatewayCLI.registry(context)
    }

}
