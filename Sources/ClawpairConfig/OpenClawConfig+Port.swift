// The local gateway's port, resolved as OpenClaw resolves it.
import ClawpairCore

extension OpenClawConfig {
    /// OpenClaw's default gateway port.
    public static let defaultGatewayPort = 18789

    /// `gateway.port` of a parsed config: a whole number from 1 to 65535, else nil.
    public static func gatewayPort(in config: JSONValue) -> Int? {
        guard let value = config["gateway"]?["port"], let port = value.int64Value,
              value.doubleValue == Double(port), (1...65_535).contains(port) else { return nil }
        return Int(port)
    }

    /// The port the local gateway listens on, in upstream's order (`resolveGatewayPort`,
    /// src/config/paths.ts): `OPENCLAW_GATEWAY_PORT` (or the older `CLAWDBOT_GATEWAY_PORT`) when
    /// it is a port number, else `gateway.port` of the config file (``path(environment:)``), else
    /// ``defaultGatewayPort``. A config file that is missing or cannot be read gives the default:
    /// the port only chooses where to dial, and a wrong one fails as unreachable.
    public static func gatewayPort(environment: [String: String]) -> Int {
        for name in ["OPENCLAW_GATEWAY_PORT", "CLAWDBOT_GATEWAY_PORT"] {
            let text = environment[name].map { String($0.filter { $0 != " " && $0 != "\t" }) } ?? ""
            if !text.isEmpty, text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(text),
               (1...65_535).contains(port) {
                return port
            }
        }
        if let path = path(environment: environment), let config = try? document(path: path), let port = gatewayPort(in: config) {
            return port
        }
        return defaultGatewayPort
    }
}
