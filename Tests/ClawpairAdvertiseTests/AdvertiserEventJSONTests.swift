import ClawpairAdvertise
import ClawpairCore
import Testing

/// What the advertiser's events say to people and to scripts: every rename with its count and
/// limit, and the registration with its type, port, host and interfaces.
@Suite struct AdvertiserEventJSONTests {
    let plan = ServicePlan(name: "Box (OpenClaw)", port: 18789, txt: [TXTPair("role", "gateway")])

    @Test("a rename is one warning line and one JSON object with the old and new name, the count and the limit")
    func renamed() {
        let event = AdvertiserEvent.renamed(from: "Box (OpenClaw)", to: "Box (OpenClaw) #2", count: 1, limit: 32)
        #expect(event.lines == [.warning("the name \"Box (OpenClaw)\" is taken on this network; renamed to \"Box (OpenClaw) #2\" "
                                         + "(rename 1 of at most 32)")])
        #expect(event.json.compact() == #"{"event":"renamed","name":"Box (OpenClaw)","newName":"Box (OpenClaw) #2","renames":1,"maxRenames":32}"#)
    }

    @Test("the registration line names type, port, host and every interface")
    func registered() {
        #expect(AdvertiserEvent.registered(name: "Box (OpenClaw)", plan: plan, host: "box.local").lines == [
            .output("Advertising \"Box (OpenClaw)\" (_openclaw-gw._tcp, port 18789, host box.local, every interface) until interrupted."),
        ])
        var restricted = plan
        restricted.interfaces = [AdvertiseInterface(name: "eth0", index: 2), AdvertiseInterface(name: "wlan0", index: 3)]
        restricted.hostLabel = "gw-1"
        let event = AdvertiserEvent.registered(name: "Box (OpenClaw) #2", plan: restricted, host: "gw-1.local")
        #expect(event.lines == [
            .output("Advertising \"Box (OpenClaw) #2\" (_openclaw-gw._tcp, port 18789, host gw-1.local, interfaces eth0, wlan0) "
                    + "until interrupted."),
        ])
        #expect(event.json.compact() == #"{"event":"registered","name":"Box (OpenClaw) #2","requestedName":"Box (OpenClaw)","type":"_openclaw-gw._tcp","port":18789,"host":"gw-1.local","interfaces":["eth0","wlan0"],"txt":{"role":"gateway"}}"#)
    }

    @Test("names from the network are sanitized in the text lines")
    func sanitized() {
        let event = AdvertiserEvent.renamed(from: "Evil\u{1B}]0;pwned\u{07}", to: "Evil #2", count: 1, limit: 32)
        guard case .warning(let text) = event.lines.first else { Issue.record("\(event.lines)"); return }
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(text)")
    }
}
