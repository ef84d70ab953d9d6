// Which gateway methods a client may expect, and since when. A gateway lists the methods it
// serves in hello-ok `features.methods`; clawpair checks that list before calling one and says
// which upstream release added a missing method instead of showing a raw `unknown method`.
//
// A release is named only where upstream's records date it (the shared spec, or the merged pull
// request and the release that followed it); otherwise nothing is invented and messages say that
// a newer OpenClaw has it. Dated here:
//   device.pair.setupStatus  upstream-2026-10.md §0/§1.2: #120933 (2026-08-09), 2026.8;
//   device.pair.remove       openclaw#20057 "Gateway/CLI: add paired-device remove and clear
//                            flows", merged 2026-02-18 (releases 2026.2.19 and later have it);
//   device.token.rotate's tokenDelivery  openclaw#121361 (opened 2026-08-10, merged; protocol
//                            "additive": older gateways omit the member).
// Not dated, because no upstream record found says when they arrived: node.describe (present by
// 2026-03, openclaw#51926 relies on it), node.pair.remove (present by 2026-05-31, openclaw#88492
// fixes it; #29192, which proposed it in 2026-02, was closed unmerged), node.list's 2026.10 fields.

/// What clawpair knows about when upstream added the methods it calls.
public enum GatewayMethodSupport {
    /// Methods upstream serves without listing them in `features.methods`
    /// (`docs/gateway/protocol/rpc-devices-nodes-and-approvals.md`: `device.pair.setupCode` and
    /// `device.pair.setupStatus` are "not advertised").
    public static let unlisted: Set<String> = ["device.pair.setupCode", "device.pair.setupStatus"]

    /// The name ``addedIn(_:)`` knows `device.token.rotate`'s `tokenDelivery` member by.
    public static let tokenDelivery = "device.token.rotate.tokenDelivery"

    /// The upstream release (or, where no release is known, the month) that added `method` (or a
    /// member named like ``tokenDelivery``) with the pull request, where upstream's records date
    /// it; nil otherwise.
    public static func addedIn(_ method: String) -> String? {
        switch method {
        case "device.pair.setupStatus": return "2026.8 (openclaw#120933)"
        case "device.pair.remove": return "2026.2 (openclaw#20057)"
        case tokenDelivery: return "August 2026 (openclaw#121361)"
        default: return nil
        }
    }

    /// `upstream added it in 2026.8 (openclaw#120933)` where ``addedIn(_:)`` dates `method`,
    /// else `a newer OpenClaw has it`, for a message about a gateway that lacks it.
    public static func availability(_ method: String) -> String {
        addedIn(method).map { "upstream added it in \($0)" } ?? "a newer OpenClaw has it"
    }
}
