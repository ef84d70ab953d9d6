import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Child processes for tests, spawned with posix_spawn so the harness controls exactly what they
// inherit and how they die:
//
// - each child leads its own process group, so a signal reaches everything it started;
// - it gets /dev/null as stdin, two pipes for stdout and stderr and no other descriptor;
// - signal mask and dispositions are reset (the test runner may ignore SIGPIPE or block signals);
// - a dedicated thread waits for it; when the leader exits, whatever it left in its group is
//   killed, and waited for (bounded), before the leader is reaped (the group id cannot be reused
//   while the zombie exists), so "exited" means the whole group is gone;
// - a reader thread drains both pipes into a bounded buffer, so a chatty child never blocks on a
//   full pipe, and every wait takes a timeout.

/// How a child process ended.
public enum ProcessTermination: Sendable, Hashable, CustomStringConvertible {
    /// It called `exit` with this status.
    case exited(Int32)
    /// A signal killed it.
    case signaled(Int32)

    /// Decodes a `waitpid` status word (the `WIFEXITED`/`WEXITSTATUS` macros do not import).
    init(waitStatus status: Int32) {
        let signal = status & 0x7f
        self = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }

    /// Exit status 0.
    public var isSuccess: Bool { self == .exited(0) }

    public var description: String {
        switch self {
        case .exited(let code): "exit status \(code)"
        case .signaled(let signal): "killed by signal \(signal)"
        }
    }
}

/// The outcome of a command run to completion.
public struct ProcessResult: Sendable {
    /// The command as spawned (after `ip netns exec` wrapping, with argv[0] resolved).
    public let command: [String]
    public let status: ProcessTermination
    public let stdout: String
    public let stderr: String

    /// Returns `self` when the command exited 0; otherwise throws with its output.
    @discardableResult
    public func requireSuccess() throws(HarnessError) -> ProcessResult {
        guard status.isSuccess else {
            throw HarnessError("`\(Subprocess.render(command))` failed with \(status)\(Subprocess.excerpt(stdout: stdout, stderr: stderr))")
        }
        return self
    }
}

/// Spawning and running child processes.
public enum Subprocess {
    /// Directories searched for a bare command name after `$PATH` (CI environments may lack sbin).
    static let fallbackSearchPath = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]

    /// The environment children start from: the test process's environment at first use, minus
    /// variables the harness sets explicitly per child (a test may have set them process-wide).
    static let baseEnvironment: [String: String] = {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = nil
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        var path = environment["PATH"].map { $0.split(separator: ":").map(String.init) } ?? []
        for directory in fallbackSearchPath where !path.contains(directory) {
            path.append(directory)
        }
        environment["PATH"] = path.joined(separator: ":")
        return environment
    }()

    /// Finds an executable: a path containing `/` is taken as is, a bare name is searched in
    /// `$PATH` and then the usual sbin/bin directories. Nil when not found.
    public static func resolveExecutable(_ name: String) -> String? {
        if name.contains("/") {
            return access(name, X_OK) == 0 ? name : nil
        }
        let path = baseEnvironment["PATH"] ?? fallbackSearchPath.joined(separator: ":")
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }

    /// Starts `command` (argv[0] resolved through ``resolveExecutable(_:)``) and returns at once.
    ///
    /// - Parameters:
    ///   - environment: variables added to (or, with a nil value, removed from) the base environment.
    ///   - label: a short name for messages, e.g. `"avahi-daemon@A"`; defaults to argv[0].
    public static func spawn(
        _ command: [String],
        environment: [String: String?] = [:],
        label: String? = nil
    ) throws(HarnessError) -> ChildProcess {
        guard let first = command.first else {
            throw HarnessError("spawn: empty command")
        }
        guard let executable = resolveExecutable(first) else {
            throw HarnessError("spawn: `\(first)` not found in PATH or \(fallbackSearchPath.joined(separator: ":")); run scripts/install-deps")
        }
        var argv = command
        argv[0] = executable
        var merged = baseEnvironment
        for (key, value) in environment {
            merged[key] = value
        }
        return try ChildProcess.launch(argv: argv, environment: merged, label: label ?? (first as NSString).lastPathComponent)
    }

    /// Runs `command` to completion and collects its output. Does not throw for a non-zero exit
    /// (see ``ProcessResult/requireSuccess()``); throws when it cannot start or outlives `timeout`,
    /// in which case its whole process group is killed first.
    public static func run(
        _ command: [String],
        environment: [String: String?] = [:],
        timeout: Duration = .seconds(30)
    ) async throws(HarnessError) -> ProcessResult {
        let child = try spawn(command, environment: environment)
        return try await child.collect(timeout: timeout)
    }

    /// Shell-like rendering of a command for messages.
    static func render(_ command: [String]) -> String {
        command.map { word in
            word.isEmpty || word.contains(where: { " \t\n'\"$\\".contains($0) }) ? "'\(word.replacingOccurrences(of: "'", with: "'\\''"))'" : word
        }.joined(separator: " ")
    }

    /// The tail of a process's output for an error message, or "" when it printed nothing.
    static func excerpt(stdout: String, stderr: String, maxLines: Int = 30) -> String {
        var parts: [String] = []
        for (name, text) in [("stdout", stdout), ("stderr", stderr)] {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).suffix(maxLines + 1)
            let trimmed = lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty {
                parts.append("\n--- \(name) ---\n\(trimmed)")
            }
        }
        return parts.joined()
    }
}

/// A spawned child process: its pid, captured output and exit status.
///
/// Thread-safe. The process leads its own process group (`pgid == pid`); ``terminate(grace:)``
/// signals the whole group. A dedicated thread reaps it, so it never lingers as a zombie.
public final class ChildProcess: Sendable, CustomStringConvertible {
    /// Which pipe a line came from.
    public enum Stream: Sendable, Hashable {
        case stdout
        case stderr
    }

    /// One complete line of output (without its newline).
    public struct Line: Sendable, Hashable {
        public let stream: Stream
        public let text: String

        public init(stream: Stream, text: String) {
            self.stream = stream
            self.text = text
        }
    }

    /// Bytes kept per stream; beyond this, output is counted but dropped.
    static let maxBufferedBytes = 8 << 20

    /// The command as spawned.
    public let argv: [String]
    /// The process id, which is also its process group id.
    public let pid: pid_t
    /// A short name for messages.
    public let label: String

    private let state: Mutex<State>
    private let changes = ChangeSignal()

    private struct StreamState {
        var data: [UInt8] = []
        var pendingLine: [UInt8] = []
        var dropped = 0
        var closed = false
    }

    private struct State {
        var stdout = StreamState()
        var stderr = StreamState()
        var lines: [Line] = []
        var exitStatus: ProcessTermination?
        var outputAbandoned = false

        subscript(stream: Stream) -> StreamState {
            get { stream == .stdout ? stdout : stderr }
            set { if stream == .stdout { stdout = newValue } else { stderr = newValue } }
        }
    }

    private init(argv: [String], pid: pid_t, label: String) {
        self.argv = argv
        self.pid = pid
        self.label = label
        self.state = Mutex(State())
    }

    public var description: String { "\(label) (pid \(pid))" }

    /// Everything written to stdout so far (lossy UTF-8).
    public var stdout: String { state.withLock { String(decoding: $0.stdout.data, as: UTF8.self) } }
    /// Everything written to stderr so far (lossy UTF-8).
    public var stderr: String { state.withLock { String(decoding: $0.stderr.data, as: UTF8.self) } }
    /// The complete lines seen so far, both streams in arrival order.
    public var lines: [Line] { state.withLock { $0.lines } }
    /// How it ended, once it has been reaped.
    public var exitStatus: ProcessTermination? { state.withLock { $0.exitStatus } }
    /// Whether the process has been reaped.
    public var hasExited: Bool { exitStatus != nil }
    /// Whether both output pipes reached end of file (and were closed).
    public var outputClosed: Bool { state.withLock { $0.stdout.closed && $0.stderr.closed } }

    /// The last lines of both streams, for error messages.
    public var outputExcerpt: String { Subprocess.excerpt(stdout: stdout, stderr: stderr) }

    // MARK: Waiting

    /// Waits until a complete line on `stream` (either when nil) contains a match for `regex`,
    /// and returns it. Lines printed before the call count. Throws on timeout, or when the
    /// process exits (or closes the stream) without printing such a line.
    public func waitForLine(
        matching regex: some RegexComponent,
        on stream: Stream? = nil,
        timeout: Duration
    ) async throws(HarnessError) -> String {
        try await waitForLine(on: stream, timeout: timeout, describing: "a line matching the pattern") { $0.contains(regex) }
    }

    /// Waits until a complete line contains `text`; see ``waitForLine(matching:on:timeout:)``.
    public func waitForLine(
        containing text: String,
        on stream: Stream? = nil,
        timeout: Duration
    ) async throws(HarnessError) -> String {
        try await waitForLine(on: stream, timeout: timeout, describing: "a line containing \"\(text)\"") { $0.contains(text) }
    }

    /// Waits until a complete line satisfies `predicate`; see ``waitForLine(matching:on:timeout:)``.
    /// `what` describes the line for the error message.
    public func waitForLine(
        on stream: Stream? = nil,
        timeout: Duration,
        describing what: String = "the expected line",
        where predicate: (String) -> Bool
    ) async throws(HarnessError) -> String {
        let deadline = ContinuousClock.now + timeout
        var checked = 0
        while true {
            let generation = changes.generation
            let (newLines, ended, status) = state.withLock { state in
                let ended = stream.map { state[$0].closed } ?? (state.stdout.closed && state.stderr.closed)
                return (Array(state.lines[checked...]), ended && state.exitStatus != nil, state.exitStatus)
            }
            for line in newLines where stream == nil || line.stream == stream {
                if predicate(line.text) {
                    return line.text
                }
            }
            checked += newLines.count
            if ended {
                throw HarnessError("\(self) ended (\(status.map(String.init(describing:)) ?? "running")) without printing \(what)\(outputExcerpt)")
            }
            if ContinuousClock.now >= deadline {
                throw HarnessError("\(self) printed no \(what) within \(timeout)\(outputExcerpt)")
            }
            if Task.isCancelled {
                throw HarnessError("\(self): cancelled while waiting for \(what)")
            }
            await changes.wait(after: generation, deadline: deadline)
        }
    }

    /// Waits for the process to exit and be reaped. Throws when it is still running at the deadline.
    @discardableResult
    public func waitForExit(timeout: Duration) async throws(HarnessError) -> ProcessTermination {
        let deadline = ContinuousClock.now + timeout
        while true {
            let generation = changes.generation
            if let status = exitStatus {
                return status
            }
            if ContinuousClock.now >= deadline || Task.isCancelled {
                throw HarnessError("\(self) still running after \(timeout)\(outputExcerpt)")
            }
            await changes.wait(after: generation, deadline: deadline)
        }
    }

    /// Waits until both output pipes reached end of file; false at the deadline.
    func waitForOutputClosed(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let generation = changes.generation
            if outputClosed {
                return true
            }
            if ContinuousClock.now >= deadline || Task.isCancelled {
                return false
            }
            await changes.wait(after: generation, deadline: deadline)
        }
    }

    /// Waits for exit and end of output, killing the group at the deadline, and returns the result.
    func collect(timeout: Duration) async throws(HarnessError) -> ProcessResult {
        do {
            try await waitForExit(timeout: timeout)
        } catch {
            await terminate(grace: .zero)
            throw HarnessError("`\(Subprocess.render(argv))` timed out after \(timeout) and was killed\(outputExcerpt)")
        }
        // The group was killed at exit, so the pipes close promptly unless a process that left
        // the group (setsid) holds them; then stop reading rather than wait for it.
        if !(await waitForOutputClosed(timeout: .seconds(5))) {
            abandonOutput()
        }
        return ProcessResult(command: argv, status: exitStatus ?? .signaled(SIGKILL), stdout: stdout, stderr: stderr)
    }

    // MARK: Signals

    /// Sends `signal` to the child's process group while the leader is unreaped (afterwards the
    /// group is already gone: it was killed when the leader exited).
    public func signal(_ signal: Int32) {
        state.withLock { state in
            if state.exitStatus == nil {
                _ = kill(-pid, signal)
            }
        }
    }

    /// Stops the child: SIGTERM to its group, then SIGKILL after `grace`, and waits for it to be
    /// reaped. Returns its exit status, or nil if even SIGKILL did not end it within 10 s (a
    /// process stuck in the kernel: the lab reports it as a leak).
    @discardableResult
    public func terminate(grace: Duration = .seconds(5)) async -> ProcessTermination? {
        if let status = exitStatus {
            return status
        }
        if grace > .zero {
            signal(SIGTERM)
            if let status = try? await waitForExit(timeout: grace) {
                return status
            }
        }
        signal(SIGKILL)
        return try? await waitForExit(timeout: .seconds(10))
    }

    // MARK: Launch

    static func launch(argv: [String], environment: [String: String], label: String) throws(HarnessError) -> ChildProcess {
        let outPipe = try makePipe()
        let errPipe: (read: Int32, write: Int32)
        do {
            errPipe = try makePipe()
        } catch {
            close(outPipe.read); close(outPipe.write)
            throw error
        }
        var pid: pid_t = 0
        let spawnError = spawnChild(&pid, argv: argv, environment: environment, stdout: outPipe.write, stderr: errPipe.write)
        close(outPipe.write)
        close(errPipe.write)
        guard spawnError == 0 else {
            close(outPipe.read)
            close(errPipe.read)
            throw HarnessError("cannot start `\(Subprocess.render(argv))`: \(String(cString: strerror(spawnError)))")
        }
        let child = ChildProcess(argv: argv, pid: pid, label: label)
        child.startReader(stdout: outPipe.read, stderr: errPipe.read)
        child.startReaper()
        return child
    }

    private static func makePipe() throws(HarnessError) -> (read: Int32, write: Int32) {
        guard let pipe2 = GNULibC.pipe2 else {
            throw HarnessError("pipe2 is missing from the C library (glibc >= 2.9 needed)")
        }
        var fds: [Int32] = [-1, -1]
        guard pipe2(&fds, O_CLOEXEC) == 0 else {
            throw HarnessError("pipe2: \(String(cString: strerror(errno)))")
        }
        return (fds[0], fds[1])
    }

    /// posix_spawn with the file actions and attributes described at the top of this file.
    private static func spawnChild(_ pid: inout pid_t, argv: [String], environment: [String: String], stdout: Int32, stderr: Int32) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        var result = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if result == 0 { result = posix_spawn_file_actions_adddup2(&actions, stdout, 1) }
        if result == 0 { result = posix_spawn_file_actions_adddup2(&actions, stderr, 2) }
        if result == 0 {
            // Close every other descriptor in the child, whatever other threads opened meanwhile.
            result = GNULibC.addCloseFrom.map { $0(&actions, 3) } ?? ENOSYS
        }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        if result == 0 { result = posix_spawnattr_setsigmask(&attributes, &noSignals) }
        if result == 0 { result = posix_spawnattr_setsigdefault(&attributes, &allSignals) }
        if result == 0 { result = posix_spawnattr_setpgroup(&attributes, 0) }
        if result == 0 {
            result = posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        }
        guard result == 0 else { return result }

        let cArgv = argv.map { strdup($0) } + [nil]
        let cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArgv.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        return posix_spawn(&pid, argv[0], &actions, &attributes, cArgv, cEnvironment)
    }

    /// A thread that poll()s both pipes and reads them until end of file, then closes them.
    ///
    /// (Not Dispatch read sources: libdispatch's epoll loop on Linux crashed when a closed pipe's
    /// descriptor number was reused by the next child's pipe while the old source was draining.)
    /// The poll timeout lets ``abandonOutput()`` stop the thread even if a stray process that left
    /// the group still holds a pipe open.
    private func startReader(stdout: Int32, stderr: Int32) {
        let thread = Thread { [self] in
            var open: [(fd: Int32, stream: Stream)] = [(stdout, .stdout), (stderr, .stderr)]
            var buffer = [UInt8](repeating: 0, count: 65536)
            while !open.isEmpty {
                if state.withLock({ $0.outputAbandoned }) {
                    break
                }
                var descriptors = open.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
                let ready = poll(&descriptors, nfds_t(descriptors.count), 250)
                if ready < 0 && errno != EINTR {
                    break
                }
                guard ready > 0 else { continue }
                var finished: Set<Int32> = []
                for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
                    let count = buffer.withUnsafeMutableBytes { read(descriptor.fd, $0.baseAddress, $0.count) }
                    if count > 0 {
                        append(buffer[0..<count], to: open[index].stream)
                    } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                        finished.insert(descriptor.fd)
                    }
                }
                for entry in open where finished.contains(entry.fd) {
                    close(entry.fd)
                    markClosed(entry.stream)
                }
                open.removeAll { finished.contains($0.fd) }
            }
            for entry in open {
                close(entry.fd)
                markClosed(entry.stream)
            }
        }
        thread.name = "clawpair.output.\(pid)"
        thread.start()
    }

    /// Stops reading output even though the pipes are still open (a process outside the group
    /// holds them); the reader thread closes them within its poll interval.
    func abandonOutput() {
        state.withLock { $0.outputAbandoned = true }
    }

    private func markClosed(_ stream: Stream) {
        state.withLock { state in
            if !state[stream].pendingLine.isEmpty {
                state.lines.append(Line(stream: stream, text: String(decoding: state[stream].pendingLine, as: UTF8.self)))
                state[stream].pendingLine = []
            }
            state[stream].closed = true
        }
        changes.bump()
    }

    private func append(_ bytes: ArraySlice<UInt8>, to stream: Stream) {
        state.withLock { state in
            var buffer = state[stream]
            let room = max(0, Self.maxBufferedBytes - buffer.data.count)
            buffer.data.append(contentsOf: bytes.prefix(room))
            buffer.dropped += max(0, bytes.count - room)
            var start = bytes.startIndex
            while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
                buffer.pendingLine.append(contentsOf: bytes[start..<newline])
                state.lines.append(Line(stream: stream, text: String(decoding: buffer.pendingLine, as: UTF8.self)))
                buffer.pendingLine = []
                start = newline + 1
            }
            buffer.pendingLine.append(contentsOf: bytes[start...].prefix(Self.maxBufferedBytes))
            state[stream] = buffer
        }
        changes.bump()
    }

    /// A thread that waits for the leader without reaping it, kills what is left of its group
    /// (the zombie leader keeps the group id from being reused), then reaps it.
    private func startReaper() {
        let thread = Thread { [self] in
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
            // SIGKILL is asynchronous: wait (bounded) until no live member is left, so that
            // "exited" means the whole group is gone, not just the leader. Polled
            // (``eventuallyBlocking(within:_:)``): the members are no children of ours to wait for.
            _ = eventuallyBlocking(within: .seconds(5)) {
                kill(-pid, SIGKILL) != 0 || Self.liveMembers(ofGroup: pid).isEmpty
            }
            var status: Int32 = 0
            var reaped: pid_t
            repeat {
                reaped = waitpid(pid, &status, 0)
            } while reaped == -1 && errno == EINTR
            // reaped != pid only if something else in the process reaped our child (ECHILD):
            // the status is unknown then, reported as signal 0.
            state.withLock { $0.exitStatus = reaped == pid ? ProcessTermination(waitStatus: status) : .signaled(0) }
            changes.bump()
        }
        thread.name = "clawpair.reaper.\(pid)"
        thread.start()
    }
}

extension ChildProcess {
    /// Processes in process group `pgid` that are not zombies, from /proc/<pid>/stat
    /// ("pid (comm) state ppid pgrp …"; comm may contain spaces and parentheses).
    static func liveMembers(ofGroup pgid: pid_t) -> [pid_t] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, fields[0] != "Z", fields[0] != "X", pid_t(fields[2]) == pgid else { return nil }
            return pid
        }
    }
}

/// glibc functions that Swift's Glibc module hides behind `_GNU_SOURCE`, looked up at run time.
enum GNULibC {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32

    /// `int pipe2(int fds[2], int flags)`.
    static let pipe2: Pipe2? = symbol("pipe2")
    /// `int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int from)` (glibc 2.34).
    static let addCloseFrom: AddCloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")

    private static func symbol<F>(_ name: String) -> F? {
        guard let handle = dlopen(nil, RTLD_NOW), let address = dlsym(handle, name) else { return nil }
        return unsafeBitCast(address, to: F.self)
    }
}

/// A generation counter that async tasks can wait on with a deadline: the building block for
/// every wait in the harness (no polling, no unbounded waits).
final class ChangeSignal: Sendable {
    private struct Waiter {
        let continuation: CheckedContinuation<Void, Never>
        let timer: Task<Void, Never>?
    }

    private struct State {
        var generation: UInt64 = 0
        var nextID: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
    }

    private let state = Mutex(State())

    var generation: UInt64 { state.withLock { $0.generation } }

    /// Records a change and wakes every waiter.
    func bump() {
        let woken = state.withLock { state in
            state.generation &+= 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in woken {
            waiter.timer?.cancel()
            waiter.continuation.resume()
        }
    }

    /// Returns once the generation differs from `generation`, at `deadline`, or on cancellation.
    func wait(after generation: UInt64, deadline: ContinuousClock.Instant) async {
        let id = state.withLock { state in
            state.nextID &+= 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let timer = Task { [self] in
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    wake(id)
                }
                let resumeNow = state.withLock { state in
                    if state.generation != generation || Task.isCancelled || ContinuousClock.now >= deadline {
                        return true
                    }
                    state.waiters[id] = Waiter(continuation: continuation, timer: timer)
                    return false
                }
                if resumeNow {
                    timer.cancel()
                    continuation.resume()
                }
            }
        } onCancel: {
            wake(id)
        }
    }

    private func wake(_ id: UInt64) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.timer?.cancel()
        waiter?.continuation.resume()
    }
}
