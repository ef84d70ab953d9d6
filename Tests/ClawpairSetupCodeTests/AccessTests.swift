@testable import ClawpairSetupCode
import Testing

@Suite struct AccessTests {
    func profile(_ name: String, _ generation: ScopeGeneration) -> AccessProfile? {
        switch name {
        case "full": return .full(generation)
        case "limited": return .limited(generation)
        case "node": return .node
        default: return nil
        }
    }

    @Test func profileVectors() throws {
        let group = try Vectors.access()
        #expect(group.profiles.count == 3)
        for (name, vector) in group.profiles {
            for generation in ScopeGeneration.allCases {
                let ours = try #require(profile(name, generation), "profile \(name)")
                #expect(ours.roles == vector.roles, "\(name) \(generation.rawValue) roles")
                #expect(ours.scopes == vector.scopes.scopes(generation.rawValue), "\(name) \(generation.rawValue) scopes")
                #expect(ours.purpose == vector.purpose, "\(name) purpose")
                #expect(ours.label.rawValue == name, "\(name) \(generation.rawValue) label")
                #expect(!ours.scopes.contains(AccessProfile.pairingScope), "\(name) never hands off pairing")
            }
        }
    }

    @Test func downgradeVectors() throws {
        for vector in try Vectors.access().downgradeVectors {
            for generation in ScopeGeneration.allCases {
                let requested = try #require(profile(vector.requested, generation))
                let (issued, downgraded) = AccessProfile.issue(requested: requested, urls: vector.urls)
                #expect(issued.label.rawValue == vector.issued, "\(vector.requested) \(vector.urls) (\(vector.source))")
                #expect(downgraded == vector.accessDowngraded, "\(vector.requested) \(vector.urls) (\(vector.source))")
                if downgraded {
                    #expect(issued == .limited(generation), "\(vector.urls) keeps the scope generation")
                }
            }
        }
    }

    @Test func labelVectors() throws {
        for vector in try Vectors.access().accessLabel {
            let profiles: [AccessProfile]
            if let named = profile(vector.profile, .g4) {
                profiles = [named, profile(vector.profile, .g3)!]
            } else {
                profiles = [
                    .voiceNode, .controlUIOwner, AccessProfile(roles: ["operator"], scopes: []),
                    AccessProfile(roles: ["node", "operator"], scopes: AccessProfile.full().scopes + ["operator.pairing"]),
                    AccessProfile(roles: ["node"], scopes: ["operator.read"]), AccessProfile(roles: [], scopes: []),
                ]
            }
            for p in profiles {
                #expect(p.label.rawValue == vector.label, "\(vector.profile): \(p.roles) \(p.scopes)")
            }
        }
    }

    @Test func labelIgnoresOrderAndDuplicates() {
        #expect(AccessLabel(roles: ["operator", "node", "node"],
                            scopes: AccessProfile.full().scopes.reversed() + ["operator.admin"]) == .full)
        #expect(AccessLabel(roles: ["node"], scopes: []) == .node)
        #expect(AccessProfile(roles: ["b", "a", "b"], scopes: ["z", "y", "z"]).roles == ["a", "b"])
    }

    @Test func downgradeWarningIsExact() {
        #expect(AccessProfile.downgradeWarning ==
            "This Gateway URL uses plaintext ws://, so the setup code was limited for safety. Use wss:// or Tailscale Serve, then generate a new code for full access.")
    }

    @Test func issueEdgeCases() {
        #expect(AccessProfile.issue(requested: .full(), urls: ["ws://[::1]:18789", "wss://h.example"]).downgraded == false)
        #expect(AccessProfile.issue(requested: .full(), urls: ["http://localhost"]).downgraded == false)
        #expect(AccessProfile.issue(requested: .full(), urls: ["https://h.example"]).downgraded == false)
        #expect(AccessProfile.issue(requested: .full(), urls: ["not a url"]).downgraded == true)
        #expect(AccessProfile.issue(requested: .full(), urls: ["ws://openclaw.local"]).downgraded == true)
        #expect(AccessProfile.issue(requested: .voiceNode, urls: ["ws://192.168.1.2"]) == (.voiceNode, false))
    }
}
