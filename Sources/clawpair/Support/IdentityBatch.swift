#if canImport(Glibc)
import Glibc
#endif
import ClawpairCLIKit
import ClawpairCore
import ClawpairIdentity

/// Line-at-a-time standard input and chunked standard output for `identity sign-connect --batch`.
///
/// Input is read in chunks as it arrives, every complete line in a chunk is handled, and the
/// answers for that chunk go out in one write: a co-process that writes one line and waits gets
/// its answer at once, and a bulk pipe costs one read and one write per 64 KiB.
struct IdentityLineReader {
    /// The longest line accepted; longer ones are reported and skipped.
    static let maxLineBytes = ConnectPayload.maxBatchLineBytes

    private var buffer: [UInt8] = []
    private var start = 0
    private var eof = false
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    let fd: Int32

    init(fd: Int32 = 0) { self.fd = fd }

    /// Reads one more chunk; false at end of input.
    mutating func fill() throws -> Bool {
        if eof { return false }
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        let n = try Syscall.retrying("read", path: "standard input") {
            chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        }
        if n == 0 {
            eof = true
            return !buffer.isEmpty
        }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    /// The next complete line in the buffer (without its LF or CRLF), or the unterminated rest
    /// at end of input; nil when more input is needed. A line that grows past `maxLineBytes`
    /// without an end ends the batch.
    mutating func nextLine() throws -> ArraySlice<UInt8>? {
        if let newline = buffer[start...].firstIndex(of: 0x0A) {
            var end = newline
            if end > start && buffer[end - 1] == 0x0D { end -= 1 }
            let line = buffer[start..<end]
            start = newline + 1
            return line
        }
        if eof && start < buffer.count {
            let line = buffer[start...]
            start = buffer.count
            return line
        }
        if buffer.count - start > Self.maxLineBytes {
            throw GeneralError("standard input: a line is longer than \(Self.maxLineBytes) bytes",
                               hint: "give one JSON object per line")
        }
        return nil
    }
}
