import ClawpairCore
import Foundation
import Testing

@Suite struct AtomicFileTests {
    let directory: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("clawpair-atomic-\(UUID())").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".tmp-") }
    }

    @Test func writesWithModeAndRefusesToReplace() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/key"
        try AtomicFile.write(Array("one".utf8), to: path, mode: 0o600, replacing: false)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "one")
        #expect(try mode(path) == 0o600)
        #expect(throws: AtomicFileError.exists(path: path)) {
            try AtomicFile.write(Array("two".utf8), to: path, replacing: false)
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "one")
        try AtomicFile.write(Array("two".utf8), to: path, mode: 0o644, replacing: true)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "two")
        #expect(try mode(path) == 0o644)
        #expect(try leftovers().isEmpty)
    }

    @Test func replacesASymlinkRatherThanItsTarget() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = directory + "/target", link = directory + "/link"
        try "target".write(toFile: target, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        try AtomicFile.write(Array("new".utf8), to: link, replacing: true)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "target")
        #expect(try String(contentsOfFile: link, encoding: .utf8) == "new")
    }

    @Test func failureLeavesNoTemporaryFile() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: AtomicFileError.self) {
            try AtomicFile.write([1], to: directory + "/missing/dir/file", replacing: true)
        }
        #expect(try leftovers().isEmpty)
    }

    @Test func privateDirectories() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let nested = directory + "/a/b/c"
        try AtomicFile.ensurePrivateDirectory(nested)
        #expect(try mode(nested) == 0o700)
        try AtomicFile.ensurePrivateDirectory(nested)  // idempotent
        chmod(nested, 0o755)
        #expect(throws: AtomicFileError.insecureDirectory(path: nested, mode: UInt32(S_IFDIR) | 0o755)) {
            try AtomicFile.ensurePrivateDirectory(nested)
        }
        let file = directory + "/plain"
        try "x".write(toFile: file, atomically: false, encoding: .utf8)
        #expect(throws: AtomicFileError.notADirectory(path: file)) { try AtomicFile.ensurePrivateDirectory(file) }
    }
}

/// Temporaries left by a writer killed before its rename (they may hold a private key) are
/// removed by the next write of the same file; a live writer's are not.
@Suite struct AtomicFileStaleTemporaryTests {
    /// A pid that no longer exists: a child that has exited and been reaped.
    static func deadPID() throws -> pid_t {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    @Test func staleTemporariesOfTheSameTargetAreRemoved() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clawpair-stale-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let dead = try Self.deadPID()
        let live = getppid()  // the test runner's parent: alive throughout
        let names = [".key.tmp-\(dead)-abc", ".key.tmp-\(live)-def", ".key.tmp-oldformat", ".other.tmp-\(dead)-x"]
        for name in names { try "PRIVATE KEY".write(toFile: "\(directory)/\(name)", atomically: false, encoding: .utf8) }
        // An old-format temporary (no pid) counts as stale only once it is older than the limit.
        var old = [timespec(tv_sec: time(nil) - time_t(AtomicFile.staleAgeSeconds) - 5, tv_nsec: 0),
                   timespec(tv_sec: time(nil) - time_t(AtomicFile.staleAgeSeconds) - 5, tv_nsec: 0)]
        try "PRIVATE KEY".write(toFile: "\(directory)/.key.tmp-ancient", atomically: false, encoding: .utf8)
        #expect(utimensat(AT_FDCWD, "\(directory)/.key.tmp-ancient", &old, 0) == 0)

        try AtomicFile.write(Array("new".utf8), to: directory + "/key", replacing: true)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory))
        #expect(left == ["key", ".key.tmp-\(live)-def", ".key.tmp-oldformat", ".other.tmp-\(dead)-x"], "\(left)")
    }
}
