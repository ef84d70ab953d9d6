#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: its name, errno, and what it was doing.
public struct SystemError: ClawpairError, Equatable {
    /// The C call that failed, e.g. `open`.
    public let call: String
    /// The errno it set.
    public let errno: Int32
    /// The file or endpoint involved, when there is one.
    public let path: String?

    /// The failure of `call` with `errno`, on `path` when there is one.
    public init(call: String, errno: Int32, path: String? = nil) {
        self.call = call
        self.errno = errno
        self.path = path
    }

    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        let reason = String(cString: strerror(errno))
        if let path { return "\(path): \(reason)" }
        return "\(call): \(reason)"
    }
    /// What to do next, or nil (``ClawpairError/hint``).
    public var hint: String? {
        switch errno {
        case EACCES, EPERM: return "check the permissions of \(path ?? "the file"), or run as a user who may read it"
        case ENOENT: return path.map { "check that \($0) exists and the path is spelled right" }
        case EISDIR: return "give a file, not a directory"
        default: return nil
        }
    }
}

/// The one errno wrapper: every socket and file call goes through it.
public enum Syscall {
    /// The outcome of a call that may report would-block.
    public enum Outcome<T> {
        case done(T)
        case wouldBlock
    }

    /// Runs `body` until it does not fail with EINTR. A negative result throws a
    /// ``SystemError`` naming `call` (and `path`).
    @discardableResult
    public static func retrying<T: BinaryInteger>(_ call: String, path: String? = nil,
                                                  _ body: () -> T) throws(SystemError) -> T {
        while true {
            let result = body()
            if result >= 0 { return result }
            let code = Glibc.errno
            if code == EINTR { continue }
            throw SystemError(call: call, errno: code, path: path)
        }
    }

    /// Like ``retrying(_:path:_:)``, but EAGAIN/EWOULDBLOCK/EINPROGRESS come back as `.wouldBlock`.
    public static func nonBlocking<T: BinaryInteger>(_ call: String, path: String? = nil,
                                                     _ body: () -> T) throws(SystemError) -> Outcome<T> {
        while true {
            let result = body()
            if result >= 0 { return .done(result) }
            let code = Glibc.errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK || code == EINPROGRESS { return .wouldBlock }
            throw SystemError(call: call, errno: code, path: path)
        }
    }
}

/// Bounded whole-file and whole-stream reads.
///
/// A path is opened with `O_NONBLOCK` (so a FIFO or a device at that path cannot block the
/// open) and `fstat`ed: only a regular file is read. Symbolic links are followed unless the
/// caller owns the file and says `followSymlinks: false` (`O_NOFOLLOW`).
public enum FileIO {
    /// Reading more than `limit` bytes fails with this.
    public struct TooLarge: ClawpairError {
        /// The file that was read.
        public let path: String
        /// The most bytes read.
        public let limit: Int
        /// What failed, in one sentence (``ClawpairError/message``).
        public var message: String { "\(path) is larger than \(limit) bytes" }
        /// What to do next, or nil (``ClawpairError/hint``).
        public var hint: String? { "check that this is the right input; clawpair reads at most \(limit) bytes here" }
    }

    /// The path names something other than a regular file (a FIFO, socket, device or directory,
    /// or a symbolic link where none is allowed).
    public struct NotARegularFile: ClawpairError {
        /// The path that was opened.
        public let path: String
        /// What it is instead: "a FIFO", "a directory", "a symbolic link", …
        public let kind: String
        /// What failed, in one sentence (``ClawpairError/message``).
        public var message: String { "\(path) is not a regular file (it is \(kind))" }
        /// What to do next, or nil (``ClawpairError/hint``).
        public var hint: String? {
            kind == "a directory" ? "give a file, not a directory" : "replace \(path) with a regular file, or point clawpair at one"
        }
    }

    /// All bytes of the regular file at `path`, at most `limit`.
    public static func read(path: String, limit: Int, followSymlinks: Bool = true) throws(ClawpairErrorBox) -> [UInt8] {
        let fd: Int32
        do {
            let flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | (followSymlinks ? 0 : O_NOFOLLOW)
            fd = try Syscall.retrying("open", path: path) { open(path, flags) }
        } catch {
            if error.errno == ELOOP && !followSymlinks { throw ClawpairErrorBox(NotARegularFile(path: path, kind: "a symbolic link")) }
            throw ClawpairErrorBox(error)
        }
        defer { close(fd) }
        var info = stat()
        do { try Syscall.retrying("fstat", path: path) { fstat(fd, &info) } } catch { throw ClawpairErrorBox(error) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw ClawpairErrorBox(NotARegularFile(path: path, kind: kind(of: info.st_mode)))
        }
        if Int64(info.st_size) > Int64(limit) { throw ClawpairErrorBox(TooLarge(path: path, limit: limit)) }
        return try read(fd: fd, limit: limit, name: path)
    }

    /// Whether `path` names an existing regular file (after symlinks). Only `stat`s it: nothing
    /// is opened, so a FIFO cannot block the caller.
    public static func isRegularFile(path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// "a FIFO", "a directory", … for a `st_mode`.
    static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a FIFO"
        case S_IFDIR: return "a directory"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFLNK: return "a symbolic link"
        default: return "not a file"
        }
    }

    /// All bytes readable from `fd` until end of file, at most `limit`.
    public static func read(fd: Int32, limit: Int, name: String) throws(ClawpairErrorBox) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n: Int
            do {
                n = try Syscall.retrying("read", path: name) {
                    chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                }
            } catch { throw ClawpairErrorBox(error) }
            if n == 0 { return bytes }
            if bytes.count + n > limit { throw ClawpairErrorBox(TooLarge(path: name, limit: limit)) }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }
}

/// Carries any ``ClawpairError`` through a typed `throws`.
public struct ClawpairErrorBox: ClawpairError {
    /// The wrapped error.
    public let error: any ClawpairError
    /// Boxes `error`.
    public init(_ error: any ClawpairError) { self.error = error }
    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String { error.message }
    /// What to do next, or nil (``ClawpairError/hint``).
    public var hint: String? { error.hint }
}
