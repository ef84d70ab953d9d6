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
