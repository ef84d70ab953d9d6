import ClawpairCore
import ClawpairGateway
import Testing

/// Issue #23.3: a gateway without a method clawpair calls is named with the upstream release that
/// added it where upstream's records date it, and otherwise as needing a newer OpenClaw (never an
/// invented version).
@Suite struct GatewayMethodSupportTests {
    @Test("dated methods name their release and pull request; undated ones say a newer OpenClaw has them")
    func availability() {
        #expect(GatewayMethodSupport.addedIn("device.pair.setupStatus") == "2026.8 (openclaw#120933)")
        #expect(GatewayMethodSupport.addedIn("device.pair.remove") == "2026.2 (openclaw#20057)")
        #expect(GatewayMethodSupport.addedIn(GatewayMethodSupport.tokenDelivery) == "August 2026 (openclaw#121361)")
        for undated in ["node.describe", "node.pair.remove", "node.list", "no.such.method"] {
            #expect(GatewayMethodSupport.addedIn(undated) == nil, "\(undated)")
        }
        let dated = GatewayError.unsupportedMethod(method: "device.pair.remove", serverVersion: "2026.1.30")
        #expect(dated.message == "this gateway (OpenClaw 2026.1.30) does not support device.pair.remove "
                + "(upstream added it in 2026.2 (openclaw#20057))")
        let undated = GatewayError.unsupportedMethod(method: "node.describe", serverVersion: nil)
        #expect(undated.message == "this gateway does not support node.describe (a newer OpenClaw has it)")
    }

    @Test("a rotation answer without tokenDelivery says when upstream added it")
    func tokenDeliveryAbsent() throws {
        let old = try TokenRotation(json: .object([("deviceId", "d"), ("role", "node"), ("scopes", .array([])), ("rotatedAtMs", 1)]))
        #expect(old.withheldNote.contains("upstream added tokenDelivery in August 2026 (openclaw#121361)"), "\(old.withheldNote)")
        let withheld = try TokenRotation(json: .object([("deviceId", "d"), ("role", "node"), ("tokenDelivery", "withheld-cross-device")]))
        #expect(!withheld.withheldNote.contains("openclaw#121361"))
    }
}
