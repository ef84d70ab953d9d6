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
                      DevicesRotateCommand.spec, DevicesRevokeCommand.spec, DevicesJoinCodeCommand.spec]
    )


    /// `--device ID` and `--role ROLE`, both required (rotate, revoke).
    static func deviceAndRole(_ arguments: ParsedArguments) throws -> (deviceId: String, role: String) {
        guard let deviceId = arguments.value("device"), !deviceId.isEmpty else { throw UsageError("--device ID is required") }
        guard let role = arguments.value("role"), !role.isEmpty else { throw UsageError("--role ROLE is required", hint: "operator or node") }
        return (deviceId, role)
    }

    /// Checks that `requestId` is still pending; when it is a deviceId instead, says so and shows
    /// the right id.
    static func requirePending(_ requestId: String, in listing: DevicePairingList, verb: String) throws -> PendingRequest {
        if let match = listing.pending(requestId: requestId) { return match }
        let shown = TerminalText.sanitize(requestId, maxScalars: 80)
        if let byDevice = listing.pending.first(where: { $0.deviceId == requestId }) {
            let right = byDevice.requestId
            throw GeneralError("\(shown) is a device id, not a request id", hint:
                "its pending request is \(TerminalText.sanitize(right, maxScalars: 80)): clawpair devices \(verb) \(TerminalText.sanitize(right, maxScalars: 80))",
                status: .usage)
        }
        if listing.paired(deviceId: requestId) != nil {
            throw GeneralError("\(shown) is a paired device's id, not a pending request id", hint:
                verb == "reject" ? "to unpair it: clawpair devices remove \(shown)" : "it is already approved; 'clawpair devices list' shows pending requests",
                status: .usage)
        }
        throw GeneralError("no pending pairing request has the id \(shown)", hint:
            "it may have been approved, rejected, superseded by a newer request, or expired (after 5 minutes); "
                + "'clawpair devices list' shows the pending ones", status: .notFound)
    }
}
