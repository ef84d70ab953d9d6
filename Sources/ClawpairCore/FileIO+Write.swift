#if canImport(Glibc)
import Glibc
#endif

extension FileIO {
    /// Writes all of `bytes` to the blocking descriptor `fd`, retrying short writes and EINTR;
    /// `name` (e.g. `standard output`) is the path a failure names. The bytes are never copied,
    /// so a secret written from guarded memory stays there.
    public static func writeAll(fd: Int32, _ bytes: UnsafeRawBufferPointer, name: String) throws(SystemError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            offset += try Syscall.retrying("write", path: name) { Glibc.write(fd, base + offset, bytes.count - offset) }
        }
    }

    /// Writes all of `bytes` to `fd` (see `writeAll(fd:_:name:)`).
    public static func writeAll(fd: Int32, _ bytes: [UInt8], name: String) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            offset += try Syscall.retrying("write", path: name) {
                bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            }
        }
    }
}
