import ClawpairCLIKit
import ClawpairCore
import ClawpairIdentity

/// `clawpair identity verify`: checks a device signature as a gateway does.
struct IdentityVerifyCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "verify",
        abstract: "Check an Ed25519 device signature over a payload (exit 0 valid, 4 invalid)",
        discussion: [
            "The public key may be base64url (the wire form), padded standard base64 or an SPKI PEM block, given "
                + "as text or as the path of a file holding one; without --public-key the identity's own key is used. "
                + "The signature may be base64url or standard base64, as gateways accept both.",
            "When the payload is a v2 or v3 connect payload, its deviceId must also be the key's (gateways refuse "
                + "a mismatch as DEVICE_AUTH_DEVICE_ID_MISMATCH). Exit status 4 means the signature is not valid "
                + "for this payload and key (or cannot be decoded); 1 means the key could not be read.",
        ],
        options: [
            .value("public-key", "KEY", help: "The signer's public key, or a file holding it (default: the identity's).",
                   completion: .file),
            .value("payload", "PAYLOAD", help: "The signed text, or - to read it from standard input."),
            .value("payload-file", "FILE", help: "Read the signed text from FILE (used exactly, final newline included).",
                   completion: .file),
            .value("signature", "SIGNATURE", help: "The signature, base64url or standard base64."),
            IdentityCLI.identityOption,
        ],
        examples: [
            Example("clawpair identity verify --public-key \"$PUB\" --payload \"$PAYLOAD\" --signature \"$SIG\"",
                    "Check a signature as a gateway would"),
        ],
        sections: [
            .inManSource("JSON OUTPUT"),
            IdentityCLI.environmentSection,
        ],
        runner: IdentityVerifyCommand.runner
    )

    let signatureText: String
    let arguments: ParsedArguments

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        guard let signature = arguments.value("signature") else { throw UsageError("give the signature with --signature") }
        try arguments.notBoth("payload", "payload-file")
        if arguments.value("payload") == nil && arguments.value("payload-file") == nil {
            throw UsageError("give the signed text with --payload, --payload - or --payload-file FILE")
        }
        try arguments.notBoth("public-key", "identity")
        signatureText = signature
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let key = try arguments.value("public-key").map { try DevicePublicKey.parse(textOrFile: $0, what: "--public-key") }
            ?? IdentityCLI.identity(arguments, context).publicKey
        let check = key.check(signatureText: signatureText, payload: try readPayload(context))
        if context.globals.json { context.printJSON(check.json) }
        guard check.valid else {
            throw GeneralError(check.reason ?? "invalid signature", hint: "check that the payload is byte-for-byte what was signed",
                               status: .refused)
        }
        if !context.globals.json && !context.globals.quiet {
            let kind = check.connect.map { " (\($0.version.rawValue) connect payload)" } ?? ""
            context.print("valid: signed by device \(check.deviceId)\(kind)")
        }
        return .success
    }

    private func readPayload(_ context: CommandContext) throws -> [UInt8] {
        if let file = arguments.value("payload-file") { return try FileIO.read(path: file, limit: 1 << 20) }
        let value = arguments.value("payload") ?? ""
        if value == "-" {
            var bytes = try context.readStandardInput(1 << 20)
            // A payload piped with echo ends with a newline the signer did not sign.
            if bytes.last == 0x0A { bytes.removeLast() }
            if bytes.last == 0x0D { bytes.removeLast() }
            return bytes
        }
        return Array(value.utf8)
    }
}
