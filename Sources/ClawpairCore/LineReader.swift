#if canImport(Glibc)
import Glibc
#endif

/// Line-at-a-time input from a file descriptor, for co-processes and bulk pipes alike.
///
/// Input is read in chunks as it arrives (``fill()``), and every complete line of a chunk is
/// handed out (``nextLine()``) before the next read: a caller that answers the lines of a chunk
/// and then writes once answers a co-process that writes one line and waits at once, and a bulk
/// pipe costs one read and one write per chunk.
///
/// ```swift
/// var reader = LineReader(fd: 0, maxLineBytes: 64 * 1024)
/// while try reader.fill() {
///     while let line = try reader.nextLine() { handle(line) }
/// }
/// ```
public struct LineReader {
    /// A line grew past ``LineReader/maxLineBytes`` without an end.
    public struct LineTooLong: ClawpairError, Equatable {
        /// The limit it passed.
        public let limit: Int
        /// The error for `limit`.
        public init(limit: Int) { self.limit = limit }
        /// What failed, in one sentence (``ClawpairError/message``).
        public var message: String { "a line is longer than \(limit) bytes" }
        /// What to do next, or nil (``ClawpairError/hint``).
        public var hint: String? { nil }
    }

    /// The longest line accepted.
    public let maxLineBytes: Int
    /// The descriptor read (not owned).
    public let fd: Int32
    /// Where it is read from, for errors (e.g. `standard input`).
    public let name: String

    private var buffer: [UInt8] = []
    private var start = 0
    private var eof = false
    private var chunk: [UInt8]

    /// Reads `fd` in chunks of `chunkSize` bytes; lines may be up to `maxLineBytes` long.
    public init(fd: Int32 = 0, name: String = "standard input", maxLineBytes: Int, chunkSize: Int = 64 * 1024) {
        self.fd = fd
        self.name = name
        self.maxLineBytes = maxLineBytes
        chunk = [UInt8](repeating: 0, count: max(1, chunkSize))
    }

    /// Reads one more chunk (blocking until some input or its end); false at end of input once
    /// every line was handed out.
    public mutating func fill() throws(SystemError) -> Bool {
        if eof { return false }
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        let n = try Syscall.retrying("read", path: name) {
            chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        }
        if n == 0 {
            eof = true
            return !buffer.isEmpty
        }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    /// The next complete line read (without its LF or CRLF), or the unterminated rest at end of
    /// input; nil when more input is needed. Throws once a line grows past ``maxLineBytes``
    /// without an end (the input cannot be read further as lines).
    public mutating func nextLine() throws(LineTooLong) -> ArraySlice<UInt8>? {
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
        if buffer.count - start > maxLineBytes { throw LineTooLong(limit: maxLineBytes) }
        return nil
    }
}
