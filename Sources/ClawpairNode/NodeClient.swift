// Who a Linux node says it is in `connect` (`upstream-2026-10.md` §2.2: the node host's client
// is `node-host`/`node`, and linux maps to platform `linux`, deviceFamily `Linux`). Values a
// gateway records and compares on every connect: constants, one definition (style habit 19).

import ClawpairCore
import ClawpairGateway

/// The platform and device family a Linux node declares.
enum NodePlatform {
    static let platform = "linux"
    static let deviceFamily = "Linux"
}

/// The `client` block of a node host's `connect`.
public enum NodeClient {
    /// `node-host`/`node`, this clawpair's version, platform `linux`, deviceFamily `Linux`.
    public static func info(displayName: String) -> GatewayClientInfo {
        GatewayClientInfo(id: "node-host", displayName: displayName, version: ClawpairVersion.current,
                          platform: NodePlatform.platform, deviceFamily: NodePlatform.deviceFamily, mode: "node")
    }
}
