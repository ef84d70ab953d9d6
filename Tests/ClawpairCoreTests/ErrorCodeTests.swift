import ClawpairCore
import Foundation
import Testing

/// ``ClawpairError/code``: ClawpairCore's errors, the wrappers, and the default.
@Suite("error codes of ClawpairCore")
struct ErrorCodeTests {
    struct Uncoded: ClawpairError {
        var message: String { "something failed" }
    }

    /// What reading `text` from a file with `limit` throws.
    static func readError(_ text: String, limit: Int, directory: Bool = false) throws -> ClawpairErrorBox? {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("clawpair-code-\(UUID())").path
        if directory {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        } else {
            try text.write(toFile: path, atomically: false, encoding: .utf8)
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        do { _ = try FileIO.read(path: path, limit: limit) } catch { return error }
        return nil
    }

    @Test("file and system errors have their codes; a type that names none is `error`")
    func codes() throws {
        let system = SystemError(call: "open", errno: 13, path: "/x")
        #expect(system.code == "io-error")
        #expect(AtomicFileError.exists(path: "/x").code == "exists")
        #expect(AtomicFileError.system(system).code == "io-error")
        #expect(AtomicFileError.insecureDirectory(path: "/x", mode: 0o777).code == "io-error")
        #expect(AtomicFileError.notADirectory(path: "/x").code == "io-error")
        let tooLarge = try #require(try Self.readError("12345", limit: 2))
        #expect(tooLarge.error is FileIO.TooLarge)
        #expect(tooLarge.error.code == "input-too-large")
        #expect(tooLarge.code == "input-too-large")
        let notAFile = try #require(try Self.readError("", limit: 2, directory: true))
        #expect(notAFile.error is FileIO.NotARegularFile)
        #expect(notAFile.code == "error")
        #expect(Uncoded().code == "error")
    }

    @Test("wrappers carry the wrapped error's code, through an existential too")
    func wrappers() {
        let exists = AtomicFileError.exists(path: "/x")
        #expect(ContextualError("writing /x", exists).code == "exists")
        #expect(ClawpairErrorBox(exists).code == "exists")
        #expect(ContextualError("a", ClawpairErrorBox(SystemError(call: "read", errno: 5))).code == "io-error")
        let erased: any ClawpairError = ContextualError("b", exists)
        #expect(erased.code == "exists")
        struct NotLibrary: Error {}
        #expect(ContextualError("c", NotLibrary()).code == "error")
    }
}
