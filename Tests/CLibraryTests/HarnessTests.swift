import ClawpairTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Self-tests of the namespace harness (ClawpairTestSupport): what later discovery, probe, TLS and
/// gateway tests rely on.
@Suite("Network lab harness", .networkLab)
struct HarnessTests {
    @Test("two namespaces ping each other over IPv4 and IPv6; teardown leaves nothing behind")
    func pingAcrossVethAndCleanTeardown() async throws {
        let (namespaces, directory, sleeper) = try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            let link = try await lab.link(a, b)
            #expect(link.a.ipv4 == "10.250.0.1" && link.b.ipv4 == "10.250.0.2")
            #expect(link.a.ipv6.hasPrefix("fd00:c1a0:") && link.b.ipv6.hasPrefix("fd00:c1a0:"))
            #expect(a.interfaces == [link.a.interface] && b.interfaces == [link.b.interface])

            try await a.run(["ping", "-n", "-c", "1", "-W", "5", link.b.ipv4]).requireSuccess()
            try await a.run(["ping", "-n", "-6", "-c", "1", "-W", "5", link.b.ipv6]).requireSuccess()
            try await b.run(["ping", "-n", "-c", "1", "-W", "5", link.a.ipv4]).requireSuccess()
            try await b.run(["ping", "-n", "-6", "-c", "1", "-W", "5", link.a.ipv6]).requireSuccess()

            // The namespaces hold only lo and the lab veth: nothing of the machine's interfaces.
            // `ip -o link` lines look like "2: veth0@if2: <…>"; keep the name before any "@".
            let names = try await a.ip("-o", "link", "show").stdout.split(separator: "\n").compactMap { line in
                line.split(separator: ":").dropFirst().first?.trimmingCharacters(in: .whitespaces)
                    .split(separator: "@").first.map(String.init)
            }
            #expect(names == ["lo", link.a.interface])

            // Left running on purpose: teardown must stop and reap it.
            let sleeper = try a.spawn(["sleep", "600"])
            return ([a.namespace, b.namespace], lab.temporaryDirectory.path, sleeper)
        }
        let remaining = try await Subprocess.run(["ip", "netns", "list"]).requireSuccess().stdout
        for namespace in namespaces {
            #expect(!remaining.contains(namespace), "namespace \(namespace) survived teardown")
        }
        #expect(!FileManager.default.fileExists(atPath: directory), "\(directory) survived teardown")
        #expect(sleeper.exitStatus == .signaled(SIGTERM))
        #expect(kill(sleeper.pid, 0) == -1 && errno == ESRCH, "pid \(sleeper.pid) still exists")
    }

    @Test("run reports status and both streams; a timeout kills the whole process group")
    func runStatusOutputAndTimeout() async throws {
        try await withNetworkLab { lab in
            let host = try await lab.addHost()
            let result = try await host.run(["sh", "-c", "echo out; echo err >&2; exit 3"])
            #expect(result.status == .exited(3))
            #expect(result.stdout == "out\n")
            #expect(result.stderr == "err\n")
            #expect(throws: HarnessError.self) { try result.requireSuccess() }

            let started = ContinuousClock.now
            await #expect(throws: HarnessError.self) {
                try await host.run(["sh", "-c", "sleep 600 & sleep 600"], timeout: .milliseconds(300))
            }
            #expect(ContinuousClock.now - started < .seconds(15))
            let leftovers = try await Subprocess.run(["ip", "netns", "pids", host.namespace]).requireSuccess().stdout
            #expect(leftovers.isEmpty, "processes left in \(host.namespace): \(leftovers)")
        }
    }

    @Test("waitForLine sees output; terminate escalates to SIGKILL when SIGTERM is ignored")
    func spawnedProcessLifecycle() async throws {
        try await withNetworkLab { lab in
            let host = try await lab.addHost()
            let stubborn = try host.spawn(["sh", "-c", "trap '' TERM; echo ready; while :; do sleep 1; done"])
            let line = try await stubborn.waitForLine(containing: "ready", on: .stdout, timeout: .seconds(10))
            #expect(line == "ready")
            #expect(await stubborn.terminate(grace: .milliseconds(300)) == .signaled(SIGKILL))

            let quitter = try host.spawn(["sh", "-c", "echo bye >&2; exit 0"])
            await #expect(throws: HarnessError.self) {
                _ = try await quitter.waitForLine(containing: "never printed", timeout: .seconds(10))
            }
            #expect(try await quitter.waitForExit(timeout: .seconds(10)) == .exited(0))
            #expect(quitter.lines == [ChildProcess.Line(stream: .stderr, text: "bye")])
        }
    }

    @Test("the body's error propagates and teardown still runs")
    func teardownAfterBodyThrows() async throws {
        struct Planned: Error {}
        var namespace = ""
        await #expect(throws: Planned.self) {
            try await withNetworkLab { lab in
                let host = try await lab.addHost()
                namespace = host.namespace
                _ = try host.spawn(["sleep", "600"])
                throw Planned()
            }
        }
        #expect(!namespace.isEmpty)
        let remaining = try await Subprocess.run(["ip", "netns", "list"]).requireSuccess().stdout
        #expect(!remaining.contains(namespace), "namespace \(namespace) survived a throwing body")
    }
}
