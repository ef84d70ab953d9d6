// Who a Linux node says it is in `connect` (`upstream-2026-10.md` §2.2: the node host's client
// is `node-host`/`node`, and linux maps to platform `linux`, deviceFamily `Linux`). Values a
// gateway records and compares on every connect: constants, one definition (style habit 19).

import ClawpairCore
import ClawpairGateway

/// The `client` block of a node host's `connect`.
public enum NodeClient {
    /// `node-host`/`node`, this clawpair's version, platform `linux`, deviceFamily `Linux`
    /// (``GatewayClientInfo/nodeHost(version:platform:displayName:)``, the library's one definition).
    public static func info(displayName: String) -> GatewayClientInfo {
        .nodeHost(version: ClawpairVersion.current, displayName: displayName)
    }
}

extension NodeClient {
    /// The `node.presence.alive` members (``NodeHostConfiguration/presence``) that say the same
    /// as ``info(displayName:)``: `displayName`, `version`, `platform` and `deviceFamily`.
    public static func presence(displayName: String) -> [(String, JSONValue)] {
        let client = info(displayName: displayName)
        return [("displayName", .string(displayName)), ("version", .string(client.version)), ("platform", .string(client.platform)),
                ("deviceFamily", .string(client.deviceFamily ?? GatewayClientInfo.linuxDeviceFamily))]
    }
}
