import ClawpairCLIKit

/// `clawpair`: the command tree's root.
enum RootCommand {
    static let spec = CommandSpec(
        name: "clawpair",
        abstract: "Find OpenClaw gateways and pair devices with them, on Linux",
        discussion: [
            "clawpair reads and writes OpenClaw setup codes byte-for-byte as real gateways and apps do. "
                + "Run 'clawpair help <command>' or 'clawpair <command> --help' for the details of a command.",
            "Secrets (setup codes, bootstrap tokens, passwords) are read from files, standard input or the "
                + "environment rather than the command line, where other users could see them, and are redacted "
                + "in output unless asked for.",
        ],
        subcommands: [
            DiscoverCommand.spec, AdvertiseCommand.spec, SetupCodeCommand.spec, QRCommand.spec, IdentityCommand.spec, ZoneCommand.spec, ProbeCommand.spec,
            DevicesCommand.spec, NodesCommand.spec, PairCommand.spec, GatewaysCommand.spec,
            CompletionsCommand.spec, GenerateDocsCommand.spec, ListNamesCommand.spec,
        ],
        examples: [
            Example("clawpair setup-code decode - < code.txt", "Show what a setup code contains, without printing its secrets"),
            Example("clawpair setup-code encode --url wss://gateway.example.com --bootstrap-token-file token.txt",
                    "Make a setup code for a gateway reachable over TLS"),
        ],
        sections: [ErrorPresentation.jsonSection, DurationOption.section,
                   DocSection("EXIT STATUS", ["Gateway commands: " + GatewayCLI.exitSection.paragraphs[1]]
                                + GatewayCLI.exitSection.paragraphs.dropFirst(2))]
    )
}
