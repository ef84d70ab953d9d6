#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore

/// Reading files that hold secrets (identity files, token caches) the way ssh reads private keys.
enum SecretFile {
    /// Opens `path` with O_NOFOLLOW|O_NONBLOCK, requires a regular file with no group/other
    /// permission bits and at most `limit` bytes, and reads it into guarded memory.
    /// ENOENT becomes ``IdentityError/noIdentity(path:)``.
    static func read(path: String, limit: Int) throws(IdentityError) -> (SecureBytes, stat) {
        let fd: Int32
        do {
            fd = try Syscall.retrying("open", path: path) { open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        } catch {
            switch error.errno {
            case ELOOP: throw .symlink(path: path)
            case ENOENT: throw .noIdentity(path: path)
            default: throw .system(error)
            }
        }
        defer { close(fd) }
        var info = stat()
        do { try Syscall.retrying("fstat", path: path) { fstat(fd, &info) } } catch { throw .system(error) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile(path: path) }
        guard info.st_mode & 0o077 == 0 else { throw .unsafePermissions(path: path, mode: UInt32(info.st_mode)) }
        guard Int(info.st_size) <= limit else {
            throw .malformed(path: path, .tooLarge(limit: limit))
        }
        let buffer = try readAll(fd: fd, name: path, limit: limit)
        return (buffer, info)
    }

    /// Reads `fd` to its end into guarded memory (at most `limit` bytes), so a secret never
    /// passes through growing ordinary buffers.
    static func readAll(fd: Int32, name: String, limit: Int) throws(IdentityError) -> SecureBytes {
        let buffer = try SecureBytes(capacity: limit + 1)
        while buffer.count <= limit {
            let n: Int
            do {
                n = try Syscall.retrying("read", path: name) {
                    buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + buffer.count, $0.count - buffer.count) }
                }
            } catch { throw .system(error) }
            if n == 0 { break }
            buffer.count += n
        }
        guard buffer.count <= limit else { throw .malformed(path: name, .tooLarge(limit: limit)) }
        return buffer
    }
}
