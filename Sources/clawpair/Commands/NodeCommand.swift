import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway
import ClawpairNode

/// `clawpair node`: this machine as an OpenClaw node.
enum NodeCommand {
    static let spec = CommandSpec(
        name: "node",
        abstract: "Run this machine as an OpenClaw node, in the foreground or as a systemd service",
        discussion: [
            "After 'clawpair pair' with a node setup code, 'node run' connects to the gateway with role node and stays "
                + "online: it answers the commands it declares (device.info, device.status, system.notify; system.which "
                + "with --commands system.which), reports presence and host stats, reconnects after a gateway restart, and "
                + "finds a gateway that moved to another address through discovery, by its identity. 'node install' runs it "
                + "as a systemd service. system.run (with exec approvals) is not offered yet.",
        ],
        subcommands: [
            Subcommand("run") { NodeRunCommand.spec },
            Subcommand("install") { NodeInstallCommand.spec },
            Subcommand("uninstall") { NodeUninstallCommand.spec },
            Subcommand("status") { NodeStatusCommand.spec },
        ]
    )

    /// Commands declared only when asked for with --commands.
    static let optionalCommands = NodeBuiltinCommands.optionalNames

    /// `--gateway NAME`: which paired gateway the node serves.
    static let gatewayOption = OptionSpec.value("gateway", "NAME", help: "The paired gateway to serve, by name or id (default: "
                                                    + "the only gateway this machine holds a node token for).",
                                                    completion: ListNamesCommand.gatewayNames)

    /// The registry record the node serves: `--gateway`, else the one record holding a node token.
    static func gateway(_ name: String?, registry: GatewayRegistry) throws -> PairedGateway {
        if let name {
            let record: PairedGateway
            do { record = try registry.gateway(named: name) } catch {
                throw GeneralError(error.message, hint: "'clawpair gateways list' shows the paired gateways", status: .notFound)
            }
            guard record.tokens.contains(where: { $0.role == "node" }) else {
                throw GeneralError("this machine holds no node token for gateway '\(RecordText.field(record.name, max: 64))'",
                                   hint: "pair as a node with a node setup code: clawpair pair - < code.txt", status: .notFound)
            }
            return record
        }
        let nodes = registry.list().gateways.filter { $0.tokens.contains { $0.role == "node" } }
        switch nodes.count {
        case 1: return nodes[0]
        case 0:
            throw GeneralError("this machine is not paired as a node with any gateway",
                               hint: "mint a node code on the gateway ('clawpair qr --node' or the app), then: clawpair pair - < code.txt",
                               status: .notFound)
        default:
            let names = nodes.map { RecordText.field($0.name, max: 32) }.joined(separator: ", ")
            throw GeneralError("this machine is a node of several gateways (\(names))", hint: "choose one with --gateway NAME",
                               status: .usage)
        }
    }
}
