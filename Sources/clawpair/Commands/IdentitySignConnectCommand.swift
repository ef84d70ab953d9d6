import ClawpairCLIKit
import ClawpairCore
import ClawpairIdentity

/// `clawpair identity sign-connect`: the device signature for a gateway connect.
struct IdentitySignConnectCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "sign-connect",
        abstract: "Sign a gateway connect challenge (v2 payload, v3 with --v3, v4 with --v4) and print the signature",
        discussion: [
            "Builds the payload OpenClaw gateways verify, v2|deviceId|clientId|clientMode|role|scopes|signedAtMs|"
                + "token|nonce (with --v3, followed by |platform|deviceFamily, trimmed and lowercased A-Z only), signs "
                + "its UTF-8 bytes with the identity and prints the signature as base64url without padding: the "
                + "connect's device.signature. v2 is what every nonce-checking gateway accepts; v3 is the payload "
                + "upstream now calls preferred and what clawpair's own connects sign.",
            "Scopes are trimmed and de-duplicated in order, exactly as a connect should send them. The token is the "
                + "one the connect sends in auth.token, auth.deviceToken or auth.bootstrapToken (first non-empty); a "
                + "password is never signed. --signed-at-ms should be the challenge's ts (default: now).",
            "--v4 signs the length-prefixed payload of connects that assert a trusted broker profile (--broker-profile "
                + "ID); --batch signs one JSON object per line of standard input (SIGNATURE V4 and BATCH in "
                + "'man clawpair-identity-sign-connect'). A signature is always verified before it is printed.",
        ],
        options: [
            .value("nonce", "NONCE", help: "The nonce of the gateway's connect.challenge."),
            .value("signed-at-ms", "MS", help: "device.signedAt: the challenge's ts in ms since the epoch (default: now)."),
            .value("client-id", "ID", help: "client.id (default cli)."),
            .value("client-mode", "MODE", help: "client.mode (default cli)."),
            .value("role", "ROLE", help: "The role requested: operator (default) or node."),
            .repeated("scope", "SCOPE", help: "A scope requested, in the order sent; repeat for several (none for a node)."),
            .value("token-file", "FILE", help: "Read the signed token (shared, device or bootstrap token) from FILE.",
                   completion: .file),
            .value("token", "TOKEN", help: "The signed token, or - to read it from standard input."),
            .value("platform", "PLATFORM", help: "client.platform, signed in v3 only (clawpair's connects send \"linux\")."),
            .value("device-family", "FAMILY", help: "client.deviceFamily, signed in v3 only."),
            .flag("v3", help: "Sign the v3 payload (binds platform and deviceFamily) instead of v2."),
            .flag("v4", help: "Sign the length-prefixed v4 payload of a trusted broker profile connect (needs --broker-profile)."),
            .value("broker-profile", "ID", help: "With --v4: the trusted broker profile id the connect asserts."),
            .flag("print-payload", help: "Also print the signed payload (it includes the token) before the signature."),
            .flag("batch", help: "Sign one JSON object per line of standard input, one signature per line out."),
            .flag("self-check", help: "With --batch: verify every signature before writing it."),
            IdentityCLI.identityOption,
        ],
        examples: [
            Example("clawpair identity sign-connect --nonce \"$NONCE\" --signed-at-ms \"$TS\" --scope operator.read",
                    "Sign an operator connect (client cli, mode cli, role operator)"),
            Example("clawpair identity sign-connect --nonce \"$NONCE\" --client-id node-host --client-mode node --role node "
                    + "--token-file bootstrap.txt", "Sign a node connect that redeems a bootstrap token"),
            Example("clawpair identity sign-connect --v4 --broker-profile profile-human-1 --client-id gateway-client "
                    + "--client-mode backend --nonce \"$NONCE\" --platform linux --token-file device-token.txt",
                    "Sign a connect that asserts a trusted broker profile"),
            Example("printf '{\"nonce\":\"n1\",\"signedAtMs\":1737264000000}\\n' | clawpair identity sign-connect --batch",
                    "Sign from a script, one JSON object per line"),
        ],
        sections: [
            .inManSource("SIGNATURE V4"),
            .inManSource("BATCH"),
            .inManSource("JSON OUTPUT"),
            DocSection("ENVIRONMENT", [
                "CLAWPAIR_CONNECT_TOKEN holds the signed token when neither --token-file nor --token is given.",
            ] + IdentityCLI.environmentSection.paragraphs),
        ],
        runner: IdentitySignConnectCommand.runner
    )

    static let token = SecretInput(what: "token", fileOption: "token-file", valueOption: "token",
                                   environmentVariable: "CLAWPAIR_CONNECT_TOKEN")

    /// The command-line fields (deviceId and token are filled in at run); in batch mode, the
    /// defaults of every line.
    let defaults: ConnectPayload
    let batch: Bool
    let printPayload: Bool
    let selfCheck: Bool
    let arguments: ParsedArguments

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        batch = arguments.flag("batch")
        printPayload = arguments.flag("print-payload")
        selfCheck = arguments.flag("self-check")
        let nonce = arguments.value("nonce")
        if !batch {
            guard let nonce, !nonce.isEmpty else {
                throw UsageError("give the challenge nonce with --nonce", hint: "it is payload.nonce of the gateway's connect.challenge event")
            }
            if selfCheck { throw UsageError("--self-check is for --batch (single signatures are always checked)") }
        } else {
            if arguments.value("token") == "-" {
                throw UsageError("--batch reads standard input; give the token with --token-file or CLAWPAIR_CONNECT_TOKEN")
            }
            if printPayload && !context.globals.json {
                throw UsageError("--batch --print-payload needs --json", hint: "each output line is then one JSON object")
            }
        }
        let signedAt = try arguments.epochMs("signed-at-ms") ?? context.nowMs
        if arguments.flag("v3") && arguments.flag("v4") { throw UsageError("give --v3 or --v4, not both") }
        let version: ConnectPayloadVersion = arguments.flag("v4") ? .v4 : arguments.flag("v3") ? .v3 : .v2
        if version == .v4 {
            if batch { throw UsageError("--batch signs v2 and v3 only", hint: "sign a v4 payload without --batch") }
            guard let profile = arguments.value("broker-profile"), !profile.isEmpty else {
                throw UsageError("--v4 needs --broker-profile ID", hint: "v4 binds the trusted broker profile the connect asserts")
            }
            _ = profile
        } else if arguments.value("broker-profile") != nil {
            throw UsageError("--broker-profile is signed only in v4; add --v4")
        }
        if version == .v2 && !batch && (arguments.value("platform") != nil || arguments.value("device-family") != nil) {
            context.warn("--platform and --device-family are signed only in v3 and v4; add --v3 to bind them")
        }
        defaults = ConnectPayload(version: version, deviceId: "", clientId: arguments.value("client-id") ?? "cli",
                                  clientMode: arguments.value("client-mode") ?? "cli", role: arguments.value("role") ?? "operator",
                                  scopes: ConnectPayload.normalizeScopes(arguments.values("scope")), signedAtMs: signedAt,
                                  token: "", nonce: nonce ?? "", platform: arguments.value("platform"),
                                  deviceFamily: arguments.value("device-family"),
                                  trustedBrokerProfileId: version == .v4 ? arguments.value("broker-profile") : nil)
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let token = try Self.token.read(arguments, context) ?? ""
        let identity = try IdentityCLI.identity(arguments, context)
        var payload = defaults
        (payload.deviceId, payload.token) = (identity.deviceId, token)
        if batch { return try runBatch(identity, base: payload, context) }

        let signed = try identity.signConnect(payload, selfCheck: true)
        context.output(json: signed.json(includePayload: printPayload),
                       text: (printPayload ? payload.text + "\n" : "") + signed.signature.base64URL + "\n")
        return .success
    }

    // MARK: Batch

    private func runBatch(_ identity: DeviceIdentity, base: ConnectPayload, _ context: CommandContext) throws -> ExitStatus {
        let signer = ConnectBatchSigner(identity: identity, base: base, selfCheck: selfCheck, json: context.globals.json,
                                        includePayload: printPayload) { error in
            error as? ConnectBatchLineError == .missingNonce ? "no \"nonce\" (and no --nonce default)"
                : (error as? any ClawpairError)?.message ?? "\(error)"
        }
        var reader = LineReader(maxLineBytes: ConnectPayload.maxBatchLineBytes)
        do {
            let failures = try signer.run(&reader, write: { try FileIO.writeAll(fd: 1, $0, name: "standard output") },
                                          failed: { context.report(GeneralError("line \($0): \($1)")) })
            return failures == 0 ? .success : .failure
        } catch let error as LineReader.LineTooLong {
            throw GeneralError("standard input: \(error.message)", hint: "give one JSON object per line")
        }
    }
}
