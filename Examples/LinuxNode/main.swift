// Runs this machine as an OpenClaw node with one command of its own beside the built-in ones,
// in a screen of code. Pair first (`clawpair pair - < code.txt` with a node setup code), then:
//
//   swift run LinuxNode            # until Ctrl-C
//
// The operator then calls it: clawpair nodes invoke <this machine> example.uptime
import ClawpairCore
import ClawpairGateway
import ClawpairIdentity
import ClawpairNode

#if canImport(Glibc)
import Glibc
#endif

var environment: [String: String] = [:]
for name in ["HOME", "CLAWPAIR_HOME", "XDG_CONFIG_HOME", "LANG", "LC_ALL"] {
    if let value = getenv(name) { environment[name] = String(cString: value) }
}
let store = try IdentityStore.locate(environment: environment)
let identity = try store.loadIdentity().identity
let registry = GatewayRegistry(home: store.directory)
guard let gateway = registry.list().gateways.first(where: { record in record.tokens.contains { $0.role == "node" } }) else {
    print("pair this machine as a node first: clawpair pair - < code.txt")
    exit(3)
}

let hostName = HostName.current(fallback: "linux")
let facts = NodeHostFacts(stateDirectory: store.directory, environment: environment)
var commands = NodeCommandSet(NodeBuiltinCommands.commands(NodeBuiltinCommands.defaultNames, facts: facts, hostName: hostName))
// A command of our own: its name must be approved on the gateway like any other.
commands.add(NodeCommand("example.uptime") { _ in
    ["uptimeSeconds": facts.deviceStatus()["uptimeSeconds"] ?? 0]
})

let options = NodeRunnerOptions(host: NodeHostConfiguration(commands: commands, presence: NodeClient.presence(displayName: hostName),
                                                            hostStats: { facts.hostStats() }),
                                displayName: hostName)
let runner = NodeRunner(gateway: gateway, registry: registry, identity: identity, options: options)
let end = runner.run { event in print(event) }
print("ended: \(end)")
