#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore
import Testing

/// LineReader over a pipe: LF and CRLF lines, the unterminated rest, lines split across chunks,
/// and the limit; ShellQuote's words.
@Suite struct LineReaderTests {
    /// The lines read from a pipe that was fed `input` and closed, in chunks of `chunkSize`.
    static func lines(_ input: String, chunkSize: Int, maxLineBytes: Int = 1024) throws -> [String] {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        let bytes = Array(input.utf8)
        #expect(write(ends[1], bytes, bytes.count) == bytes.count)
        close(ends[1])
        defer { close(ends[0]) }
        var reader = LineReader(fd: ends[0], maxLineBytes: maxLineBytes, chunkSize: chunkSize)
        var lines: [String] = []
        while try reader.fill() {
            while let line = try reader.nextLine() { lines.append(String(decoding: line, as: UTF8.self)) }
        }
        return lines
    }

    @Test("LF and CRLF ends, an empty line, the unterminated rest; the same in 3-byte chunks")
    func lines() throws {
        let input = "one\ntwo\r\n\nlast"
        #expect(try Self.lines(input, chunkSize: 4096) == ["one", "two", "", "last"])
        #expect(try Self.lines(input, chunkSize: 3) == ["one", "two", "", "last"])
    }

    @Test("a line longer than the limit without an end throws LineTooLong")
    func limit() throws {
        #expect(throws: LineReader.LineTooLong(limit: 4)) { try Self.lines("0123456789\n", chunkSize: 8, maxLineBytes: 4) }
        #expect(LineReader.LineTooLong(limit: 4).message == "a line is longer than 4 bytes")
    }

    @Test("shell words: plain text unchanged, anything else single-quoted")
    func shellQuote() {
        #expect(ShellQuote.quote("/home/me/.config/x.json") == "/home/me/.config/x.json")
        #expect(ShellQuote.quote("a b") == "'a b'")
        #expect(ShellQuote.quote("it's") == #"'it'\''s'"#)
        #expect(ShellQuote.quote("") == "''")
    }
}

/// HostName: gethostname(2) as text, never empty.
@Suite struct HostNameTests {
    @Test("the kernel's host name, or the fallback when it is empty")
    func current() {
        var buffer = [CChar](repeating: 0, count: 256)
        #expect(gethostname(&buffer, 255) == 0)
        let expected = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #expect(HostName.current(fallback: "fallback-name") == (expected.isEmpty ? "fallback-name" : expected))
        #expect(!HostName.current(fallback: "x").isEmpty)
    }
}
