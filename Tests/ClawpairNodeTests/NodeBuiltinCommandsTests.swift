import ClawpairCore
import Foundation
import Testing
@testable import ClawpairNode

/// system.which and system.notify's parameter rules; nothing runs a shell.
@Suite struct NodeBuiltinCommandsTests {
    func invocation(_ params: JSONValue?) -> NodeInvocation {
        NodeInvocation(command: "x", params: params, deadline: Monotonic.Instant(nanoseconds: 0))
    }

    @Test func whichFindsExecutablesOnTheServicePathOnly() throws {
        let dir = NSTemporaryDirectory() + "clawpair-which-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        FileManager.default.createFile(atPath: dir + "/tool", contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755])
        FileManager.default.createFile(atPath: dir + "/plain", contents: Data(), attributes: [.posixPermissions: 0o644])
        try FileManager.default.createDirectory(atPath: dir + "/dir", withIntermediateDirectories: true)
        let found = try NodeBuiltinCommands.which(invocation(["bins": [" tool ", "plain", "dir", "missing", "../tool", "/bin/sh"]]),
                                                  searchPath: "relative:\(dir)")
        #expect(found == .object([("bins", .object([("tool", .string(dir + "/tool"))]))]))
    }

    @Test func whichRefusesMalformedParams() {
        for params: JSONValue? in [nil, ["bins": "ls"], ["bins": [1]], ["bins": .array(Array(repeating: "a", count: 65))]] {
            #expect(throws: NodeInvokeError.self) { try NodeBuiltinCommands.which(invocation(params), searchPath: "/bin") }
        }
    }

    @Test func notifyNeedsATitleOrBodyAndAKnownPriority() {
        let notifier = DesktopNotifier()
        for params: JSONValue? in [nil, [:], ["title": "", "body": ""], ["title": 5], ["title": "t", "priority": "loud"]] {
            do {
                _ = try NodeBuiltinCommands.notify(invocation(params), notifier: notifier)
                Issue.record("accepted \(String(describing: params))")
            } catch {
                #expect(error.code == "INVALID_REQUEST")
            }
        }
    }

    @Test func onlyTheNamedCommandsAreBuilt() {
        let facts = NodeHostFacts(stateDirectory: "/")
        #expect(NodeBuiltinCommands.commands(NodeBuiltinCommands.defaultNames, facts: facts, hostName: "h").map(\.name)
            == ["device.info", "device.status", "system.notify"])
        #expect(NodeBuiltinCommands.commands(["system.which", "system.run"], facts: facts, hostName: "h").map(\.name) == ["system.which"])
    }
}
