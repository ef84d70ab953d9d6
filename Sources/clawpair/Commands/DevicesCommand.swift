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
        subcommands: [
            Subcommand("list") { DevicesListCommand.spec },
            Subcommand("approve") { DevicesApproveCommand.spec },
            Subcommand("reject") { DevicesRejectCommand.spec },
            Subcommand("remove") { DevicesRemoveCommand.spec },
            Subcommand("rename") { DevicesRenameCommand.spec },
            Subcommand("clear") { DevicesClearCommand.spec },
            Subcommand("watch") { DevicesWatchCommand.spec },
            Subcommand("rotate") { DevicesRotateCommand.spec },
            Subcommand("revoke") { DevicesRevokeCommand.spec },
            Subcommand("join-code") { DevicesJoinCodeCommand.spec },
        ]
    )

    /// `--device ID` and `--role ROLE`, both required (rotate, revoke).
    static func deviceAndRole(_ arguments: ParsedArguments) throws -> (deviceId: String, role: String) {
        (try arguments.required("device", "ID"), try arguments.required("role", "ROLE", hint: "operator or node"))
    }

    /// The one paired device `query` names (id, name, label or unique prefix).
    static func pairedDevice(_ query: String, in listing: DevicePairingList) throws -> PairedDevice {
        do throws(PairedDeviceLookupError) {
            return try listing.pairedDevice(named: query)
        } catch {
            guard case .notFound = error else { throw GeneralError(error.message, hint: "give more of the device id", status: .usage) }
            throw GeneralError(error.message, hint: "'clawpair devices list' shows paired devices", status: .notFound)
        }
    }

    /// Approves or rejects (`act`, named by `verb`) the current request of the device `query`
    /// names, then says what the name resolved to and what was done.
    static func act<Outcome: DeviceRequestOutcome>(_ verb: String, _ query: String, _ context: CommandContext,
                                                   _ act: (String) throws -> Outcome) throws {
        do {
            let outcome = try act(query)
            for line in outcome.notes(query: query) { context.note(line) }
            context.printResult(outcome.json, lines: [outcome.summary])
        } catch let error as DeviceRequestLookupError {
            throw lookupFailure(error, verb: verb)
        }
    }

    /// A failed lookup as the command line shows it: ambiguous and paired are usage errors (2)
    /// naming what to give instead, nothing pending is "not found" (3).
    static func lookupFailure(_ error: DeviceRequestLookupError, verb: String) -> GeneralError {
        switch error {
        case .emptyQuery:
            return GeneralError(error.message, status: .usage)
        case .ambiguous:
            return GeneralError(error.message, hint: "give more of the id: clawpair devices \(verb) <request-id>", status: .usage)
        case .alreadyPaired(_, let device):
            return GeneralError(error.message, hint: verb == "reject"
                                    ? "to unpair it: clawpair devices remove \(TerminalText.sanitize(device.deviceId, maxScalars: 80))"
                                    : "it is already approved; 'clawpair devices list' shows pending requests", status: .usage)
        case .notFound:
            return GeneralError(error.message, hint: "it may have been approved, rejected or expired (after 5 minutes); "
                                + "'clawpair devices list' shows the pending ones", status: .notFound)
        }
    }
}
