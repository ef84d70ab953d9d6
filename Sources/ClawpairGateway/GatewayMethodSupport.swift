// Which gateway methods a client may expect, and since when. A gateway lists the methods it
// serves in hello-ok `features.methods`; clawpair checks that list before calling one and says
// which upstream release added a missing method instead of showing a raw `unknown method`.

/// What clawpair knows about when upstream added the methods it calls.
public enum GatewayMethodSupport {
    /// Methods upstream serves without listing them in `features.methods`
    /// (`docs/gateway/protocol/rpc-devices-nodes-and-approvals.md`: `device.pair.setupCode` and
    /// `device.pair.setupStatus` are "not advertised").
    public static let unlisted: Set<String> = ["device.pair.setupCode", "device.pair.setupStatus"]

    /// The upstream release that added `method`, where the shared spec dates it; nil otherwise.
    public static func addedIn(_ method: String) -> String? {
        switch method {
        // upstream-2026-10.md §0/§1.2: setupId and setupStatus arrived with #120933 (2026-08-09).
        case "device.pair.setupStatus": return "2026.8 (openclaw#120933)"
        default: return nil
        }
    }
}
