#if canImport(Glibc)
import Glibc
#endif
import ClawpairCLIKit
import Testing

/// The process environment as commands see it.
@Suite struct ConsoleTests {
    @Test("ProcessEnvironment splits each entry at its first '=', keeps UTF-8 and agrees with getenv")
    func environment() throws {
        let name = "CLAWPAIR_CONSOLE_TEST_\(getpid())"
        let value = "a=b==c ümlaut =\u{301} end"
        setenv(name, value, 1)
        defer { unsetenv(name) }
        let environment = ProcessEnvironment.current()
        #expect(environment[name] == value)
        var count = 0
        while environ[count] != nil { count += 1 }
        #expect(environment.count <= count)
        for (key, text) in environment {
            #expect(getenv(key).map { String(cString: $0) } == text, "\(key)")
        }
    }
}
