import Foundation

/// Runs the built `clawpair` executable, as a user would, and captures what it prints.
public enum ClawpairBinary {
    /// The executable beside the running test bundle (same build configuration and scratch
    /// path), or `.build/debug/clawpair`; `$CLAWPAIR_BINARY` overrides.
    public static let path: String = {
        if let explicit = ProcessInfo.processInfo.environment["CLAWPAIR_BINARY"], !explicit.isEmpty { return explicit }
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = exe.deletingLastPathComponent()
        // The test bundle may be `…/debug/clawpairPackageTests.xctest` (a file) or inside a directory.
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("clawpair").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return SpecFiles.packageRoot.appendingPathComponent(".build/debug/clawpair").path
    }()

    /// What one run printed and how it ended.
    public struct Result: Sendable, CustomStringConvertible {
        public let status: Int32
        public let stdout: String
        public let stderr: String
        public var description: String { "exit \(status)\n--- stdout ---\n\(stdout)--- stderr ---\n\(stderr)" }
        public init(status: Int32, stdout: String, stderr: String) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
        }
    }

    /// Runs `clawpair arguments…` with `stdin` (empty when nil), a clean environment (only
    /// PATH, a pinned `CLAWPAIR_NOW_MS` when given, and `environment`), and a timeout.
    public static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
                           nowMs: Int64? = nil, timeoutSeconds: Double = 30) throws -> Result {
        var env = ["PATH": "/usr/bin:/bin"]
        if let nowMs { env["CLAWPAIR_NOW_MS"] = String(nowMs) }
        env.merge(environment) { _, new in new }
        return try runProgram(path, arguments, stdin: stdin, environment: env, timeoutSeconds: timeoutSeconds)
    }

    /// Runs any program with exactly `environment`, feeding `stdin` and capturing both outputs.
    public static func runProgram(_ executable: String, _ arguments: [String], stdin: String? = nil,
                                  environment: [String: String] = ["PATH": "/usr/bin:/bin"],
                                  timeoutSeconds: Double = 30) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try withSignalsUnblocked { try process.run() }
        // Drain both pipes on their own threads so a chatty child never blocks.
        let outData = Locked(Data()), errData = Locked(Data())
        let group = DispatchGroup()
        for (pipe, sink) in [(output, outData), (errors, errData)] {
            group.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                sink.set(data)
                group.leave()
            }
        }
        if let stdin { writeIgnoringBrokenPipe(Data(stdin.utf8), to: input.fileHandleForWriting.fileDescriptor) }
        try? input.fileHandleForWriting.close()
        if group.wait(timeout: .now() + timeoutSeconds) == .timedOut {
            process.terminate()
            throw SpecFileError(message: "\(executable) \(arguments) did not finish within \(timeoutSeconds)s")
        }
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: outData.get(), as: UTF8.self),
                      stderr: String(decoding: errData.get(), as: UTF8.self))
    }
}

/// Writes `data` to a child's standard input pipe, stopping quietly when the child has exited
/// without reading it (a usage error, a refusal; a fast binary can exit before this write).
/// SIGPIPE is blocked in the calling thread for the write and a pending one is taken back, so a
/// closed pipe neither kills the test process nor changes signal handling anywhere else.
public func writeIgnoringBrokenPipe(_ data: Data, to fd: Int32) {
    var pipeSignal = sigset_t(), previous = sigset_t()
    sigemptyset(&pipeSignal)
    sigaddset(&pipeSignal, SIGPIPE)
    pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
    defer {
        var pending = sigset_t()
        sigpending(&pending)
        if sigismember(&pending, SIGPIPE) == 1 && sigismember(&previous, SIGPIPE) == 0 {
            var none = timespec(tv_sec: 0, tv_nsec: 0)
            _ = sigtimedwait(&pipeSignal, nil, &none)
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
    }
    data.withUnsafeBytes { bytes in
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }  // EPIPE: the child is gone
            offset += written
        }
    }
}

/// A value behind a lock, for handing results across threads.
final class Locked<T>: @unchecked Sendable {
    private var value: T
    private let lock = NSLock()
    init(_ value: T) { self.value = value }
    func get() -> T { lock.lock(); defer { lock.unlock() }; return value }
    func set(_ newValue: T) { lock.lock(); value = newValue; lock.unlock() }
}

/// Runs `body` (which starts a child process) with no signal blocked on this thread, then puts
/// the thread's mask back. A child inherits the mask of the thread that spawns it, and the test
/// runner's worker threads block nearly every signal: a shell started from one (zsh for the
/// completion tests) then never sees SIGCHLD and can wait forever for its own children. A shell
/// started from a terminal has none blocked; so do the programs the tests run.
public func withSignalsUnblocked<T>(_ body: () throws -> T) rethrows -> T {
    var none = sigset_t()
    var previous = sigset_t()
    sigemptyset(&none)
    pthread_sigmask(SIG_SETMASK, &none, &previous)
    defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    return try body()
}
