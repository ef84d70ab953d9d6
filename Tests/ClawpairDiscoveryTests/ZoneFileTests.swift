import ClawpairCore
import ClawpairDiscovery
import Foundation
import Testing

/// `WideAreaZone.write`: the file flow of `clawpair zone` (create, leave alone, bump, refuse a
/// foreign file) and the record fields of its JSON output.
@Suite struct ZoneFileTests {
    static let options = WideAreaZoneOptions(domain: "openclaw.internal", displayName: "Studio (OpenClaw)",
                                             tailnetIPv4: "100.123.224.76", tailnetIPv6: "fd7a:115c:a1e0::8801:e04c",
                                             osHostname: "studio")
    static let now: Int64 = 1_773_403_200_000  // 2026-03-13T12:00:00Z

    static func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("clawpair-zone-\(getpid())-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func writesThenLeavesAloneThenBumps() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/openclaw.internal.db"
        #expect(try WideAreaZone.readExisting(path) == nil)

        let first = try WideAreaZone.write(Self.options, to: path, replacingForeign: false, nowMs: Self.now)
        #expect(first.changed && first.serial == 2026031301)
        #expect(try WideAreaZone.readExisting(path) == first.text)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o644)

        let again = try WideAreaZone.write(Self.options, to: path, replacingForeign: false, nowMs: Self.now + 86_400_000)
        #expect(!again.changed && again.serial == first.serial && again.contentHash == first.contentHash)

        var moved = Self.options
        moved.gatewayPort = 18790
        let bumped = try WideAreaZone.write(moved, to: path, replacingForeign: false, nowMs: Self.now)
        #expect(bumped.changed && bumped.serial == 2026031302)
        #expect(try WideAreaZone.readExisting(path) == bumped.text)
    }

    @Test func refusesAForeignFileUnlessAllowed() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/other.db"
        let foreign = "$ORIGIN example.\n@ IN SOA ns hostmaster 7 7200 3600 1209600 60\n"
        try foreign.write(toFile: path, atomically: false, encoding: .utf8)
        #expect(throws: ZoneFileError.notOurZone(path: path)) {
            try WideAreaZone.write(Self.options, to: path, replacingForeign: false, nowMs: Self.now)
        }
        #expect(try WideAreaZone.readExisting(path) == foreign)
        #expect(ZoneFileError.notOurZone(path: path).description == "\(path) exists and is not a zone written by clawpair or OpenClaw")
        // Replacing it continues from its serial (7 is far behind today's base).
        let replaced = try WideAreaZone.write(Self.options, to: path, replacingForeign: true, nowMs: Self.now)
        let written = try #require(try WideAreaZone.readExisting(path))
        #expect(replaced.changed && replaced.serial == 2026031301 && WideAreaZone.isOurZone(written))
    }

    @Test func systemFailuresNameTheZoneFile() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/missing-directory/zone.db"
        do {
            _ = try WideAreaZone.write(Self.options, to: path, replacingForeign: false, nowMs: Self.now)
            Issue.record("wrote into a missing directory")
        } catch let error as SystemError {
            #expect(error.path == path)
        }
        // A directory is not a zone file.
        #expect(throws: (any Error).self) { try WideAreaZone.readExisting(directory) }
    }

    @Test func recordFieldsFollowTheFile() {
        let fields = WideAreaZone.recordFields(Self.options, serial: 2026031301)
        #expect(fields.map(\.type) == ["SOA", "NS", "A", "A", "AAAA", "PTR", "SRV", "TXT"])
        #expect(fields[0].name == "@" && fields[0].data.contains("2026031301"))
        #expect(fields[5].name == "_openclaw-gw._tcp")
        let text = WideAreaZone.render(Self.options, serial: 2026031301)
        for field in fields { #expect(text.contains("\(field.name) IN \(field.type) \(field.data)"), "\(field)") }
        #expect(WideAreaZone.recordFields(Self.options, serial: nil)[0].data.contains("SERIAL"))
    }

    @Test func advisoriesSayWhatMayNotBeMeant() {
        #expect(WideAreaZone.advisories(Self.options).isEmpty)
        var options = Self.options
        options.tailnetIPv4 = "192.168.1.20"
        options.hostLabel = "Studio Box"
        options.instanceLabel = "studio-gateway"
        #expect(WideAreaZone.advisories(options) == [
            "192.168.1.20 is not a tailnet address (100.64.0.0/10); clients must be able to reach it",
            "host label 'Studio Box' is written as 'studio-box'",
        ])
        options.tailnetIPv4 = "100.127.255.255"
        options.instanceLabel = "A"
        #expect(WideAreaZone.advisories(options) == ["host label 'Studio Box' is written as 'studio-box'",
                                                      "instance label 'A' is written as 'a'"])
    }
}
