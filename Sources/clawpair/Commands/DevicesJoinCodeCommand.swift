import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair devices join-code`: a single-use join URL for a node, as `openclaw devices join-code`.
struct DevicesJoinCodeCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "join-code",
        abstract: "Mint a single-use join URL for a node (OpenClaw 2026.7+)",
        discussion: ["Calls device.pair.setupCode with the node profile and joinUrl (needs operator.admin) and prints the URL on stdout: "
                     + "it works once, for about 10 minutes, with 'clawpair pair URL' or 'openclaw connect URL' on the node. It is a secret "
                     + "until used. A gateway bound only to loopback mints a http://127.0.0.1 URL that only this machine (or a tunnel) can use."],
        options: GatewayCLI.connectionOptions,
        sections: GatewayCLI.sections,
        runner: DevicesJoinCodeCommand.runner
    )

    let arguments: ParsedArguments

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let code: JoinCode
            do {
                code = try JoinCode.mint(session)
            } catch JoinError.invalidURL(.plaintext(let host)) {
                // Nodes redeem join URLs over https only (plain http only to loopback): this one would never work.
                throw PresentedError(JoinError.invalidURL(.plaintext(host: host)), status: .failure,
                                     message: "the gateway minted a plain http:// join URL for \(TerminalText.sanitize(host, maxScalars: 80)), "
                                         + "which no node redeems: join URLs need https://, or http:// to loopback",
                                     hint: "serve the gateway over TLS (wss://) to mint join URLs, or pair the node with a setup code: "
                                         + "clawpair qr --node", code: "join-url-plaintext")
            }
            if context.globals.json { context.printJSON(code.json); return .success }
            context.print(code.url)
            context.note("Single use\(code.expiresAtMs.map { ", valid until \(WallClock.iso8601(ms: $0) ?? "")" } ?? ""). On the node: clawpair pair --target-file FILE")
            if let warning = code.loopbackWarning { context.warn(warning) }
            return .success
        }
    }
}
