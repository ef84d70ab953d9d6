import ClawpairCore
import Foundation
import Glibc
import Testing

/// Whole-file reads never block on what is not a regular file (a FIFO nobody writes to would
/// hang a plain open(2)), and refuse symbolic links where the caller owns the file.
@Suite struct FileIOTests {
    let directory: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("clawpair-fileio-\(UUID())").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    func message(_ body: () throws -> [UInt8]) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as ClawpairErrorBox {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func fifosDirectoriesAndDevicesAreRefusedWithoutBlocking() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(message { try FileIO.read(path: fifo, limit: 1024) } == "\(fifo) is not a regular file (it is a FIFO)")
        #expect(message { try FileIO.read(path: directory, limit: 1024) } == "\(directory) is not a regular file (it is a directory)")
        #expect(message { try FileIO.read(path: "/dev/zero", limit: 1024) } == "/dev/zero is not a regular file (it is a character device)")
    }

    @Test func regularFilesSymlinksAndSizes() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/file", link = directory + "/link"
        try "hello".write(toFile: file, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        #expect(try FileIO.read(path: file, limit: 5) == Array("hello".utf8))
        #expect(try FileIO.read(path: link, limit: 5) == Array("hello".utf8))
        #expect(message { try FileIO.read(path: link, limit: 5, followSymlinks: false) } == "\(link) is not a regular file (it is a symbolic link)")
        #expect(message { try FileIO.read(path: file, limit: 4) } == "\(file) is larger than 4 bytes")
        #expect(message { try FileIO.read(path: directory + "/missing", limit: 4) } == "\(directory)/missing: No such file or directory")
    }
}
