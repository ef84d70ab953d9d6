import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair devices`: device pairing on a gateway, as `openclaw devices`.
enum DevicesCommand {
    static let spec = CommandSpec(
        name: "devices",
        abstract: "List, approve, reject and remove devices paired with a gateway",
        discussion: [
            "Talks to a gateway as an operator over its WebSocket protocol (device.pair.* and device.token.* RPCs), "
                + "the same job as 'openclaw devices'. A device that connects for the first time (or asks for more "
                + "access) waits as a pending request until an operator approves it by its request id.",
        ],
        subcommands: [DevicesListCommand.spec, DevicesApproveCommand.spec, DevicesRejectCommand.spec, DevicesRemoveCommand.spec,
                      DevicesRenameCommand.spec, DevicesClearCommand.spec, DevicesWatchCommand.spec, DevicesRotateCommand.spec,
                      DevicesRevokeCommand.spec, DevicesJoinCodeCommand.spec]
    )


    /// `--device ID` and `--role ROLE`, both required (rotate, revoke).
    static func deviceAndRole(_ arguments: ParsedArguments) throws -> (deviceId: String, role: String) {
        guard let deviceId = arguments.value("device"), !deviceId.isEmpty else { throw UsageError("--device ID is required") }
        guard let role = arguments.value("role"), !role.isEmpty else { throw UsageError("--role ROLE is required", hint: "operator or node") }
        return (deviceId, role)
    }

    /// The one paired device `query` names (id, name, label or unique prefix).
    static func pairedDevice(_ query: String, in listing: DevicePairingList) throws -> PairedDevice {
        let matches = listing.pairedDevices(matching: query)
        if matches.count == 1 { return matches[0] }
        let shown = TerminalText.sanitize(query, maxScalars: 80)
        if matches.isEmpty {
            throw GeneralError("no paired device matches \(shown)", hint: "'clawpair devices list' shows paired devices", status: .notFound)
        }
        let names = matches.prefix(8).map { "\(GatewayOutput.shortId($0.deviceId)) (\(GatewayOutput.field($0.operatorLabel ?? $0.displayName, max: 32)))" }
        throw GeneralError("\(shown) matches \(matches.count) paired devices: " + names.joined(separator: "; "),
                           hint: "give more of the device id", status: .usage)
    }

    /// A failed lookup as the command line shows it: ambiguous and paired are usage errors (2)
    /// naming what to give instead, nothing pending is "not found" (3).
    static func lookupFailure(_ error: DeviceRequestLookupError, verb: String) -> GeneralError {
        switch error {
        case .emptyQuery:
            return GeneralError("give a device id, request id, prefix or name", status: .usage)
        case .ambiguous(let query, let candidates):
            let shown = candidates.prefix(8).map { request in
                "\(TerminalText.sanitize(request.requestId, maxScalars: 64)) (\(GatewayOutput.field(request.displayName, max: 32)), "
                    + "device \(GatewayOutput.shortId(request.deviceId)))"
            }
            return GeneralError("\(TerminalText.sanitize(query, maxScalars: 80)) matches \(candidates.count) devices' requests: "
                                + shown.joined(separator: "; "),
                                hint: "give more of the id: clawpair devices \(verb) <request-id>", status: .usage)
        case .alreadyPaired(let query, let device):
            return GeneralError("\(TerminalText.sanitize(query, maxScalars: 80)) is a paired device's id or name, with no pending request "
                                + "(device \(GatewayOutput.shortId(device.deviceId)))",
                                hint: verb == "reject" ? "to unpair it: clawpair devices remove \(TerminalText.sanitize(device.deviceId, maxScalars: 80))"
                                    : "it is already approved; 'clawpair devices list' shows pending requests", status: .usage)
        case .notFound(let query):
            return GeneralError("no pending pairing request matches \(TerminalText.sanitize(query, maxScalars: 80))", hint:
                "it may have been approved, rejected or expired (after 5 minutes); 'clawpair devices list' shows the pending ones",
                status: .notFound)
        }
    }
}
