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
            Subcommand("discover") { DiscoverCommand.spec },
            Subcommand("advertise") { AdvertiseCommand.spec },
            Subcommand("setup-code") { SetupCodeCommand.spec },
            Subcommand("qr") { QRCommand.spec },
            Subcommand("identity") { IdentityCommand.spec },
            Subcommand("zone") { ZoneCommand.spec },
            Subcommand("probe") { ProbeCommand.spec },
            Subcommand("devices") { DevicesCommand.spec },
            Subcommand("nodes") { NodesCommand.spec },
            Subcommand("node") { NodeCommand.spec },
            Subcommand("pair") { PairCommand.spec },
            Subcommand("gateways") { GatewaysCommand.spec },
            Subcommand("completions") { CompletionsCommand.spec },
            Subcommand("generate-docs") { GenerateDocsCommand.spec },
            Subcommand("check-args") { CheckArgsCommand.spec },
            Subcommand("list-names") { ListNamesCommand.spec },
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
