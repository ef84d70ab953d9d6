#if canImport(Glibc)
import Glibc
#endif

/// Why an atomic write or a private directory could not be made.
public enum AtomicFileError: ClawpairError, Equatable {
    /// A system call failed.
    case system(SystemError)
    /// The target exists and replacing it was not allowed.
    case exists(path: String)
    /// A directory that must be private is readable or writable by others.
    case insecureDirectory(path: String, mode: UInt32)
    /// Something that must be a directory is not one (or is a symbolic link).
    case notADirectory(path: String)

    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .system(let error): return error.message
        case .exists(let path): return "\(path) already exists"
        case .insecureDirectory(let path, let mode):
            return "\(path) is accessible to other users (mode \(String(mode & 0o7777, radix: 8)))"
        case .notADirectory(let path): return "\(path) is not a directory"
        }
    }

    /// What to do next, or nil (``ClawpairError/hint``).
    public var hint: String? {
        switch self {
        case .system(let error): return error.hint
        case .exists: return "choose another path, or replace the file on purpose"
        case .insecureDirectory(let path, _): return "run: chmod 700 \(path)"
        case .notADirectory(let path): return "move \(path) out of the way or choose another location"
        }
    }
}

/// Crash-safe file replacement: a reader sees the old file or the new one, never a torn one.
///
/// The bytes go to a fresh temporary file in the same directory (`O_CREAT|O_EXCL|O_NOFOLLOW`,
/// the final mode set with `fchmod`), which is fsynced, then renamed over the target (or, when
/// replacing is not allowed, renamed only if the target does not exist), and the directory is
/// fsynced so the rename itself survives a crash. On any failure the temporary file is removed.
///
/// A process killed between creating the temporary file and the rename leaves it behind, and
/// it may hold a private key or a token. Its name records the writer's pid
/// (`.<name>.tmp-<pid>-<random>`), so every write first removes the temporaries of the same
/// target that belong to this user and to a process that no longer exists (and, from older
/// versions without a pid, those more than ``staleAgeSeconds`` old).
public enum AtomicFile {
    /// Temporaries without a pid in their name are stale after this long.
    public static let staleAgeSeconds = 600

    /// Writes `bytes` to `path` with permissions `mode`. With `replacing: false` an existing
    /// target is never touched and ``AtomicFileError/exists(path:)`` is thrown.
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600,
                             replacing: Bool) throws(AtomicFileError) {
        let (directory, name) = split(path)
        removeStaleTemporaries(directory: directory, name: name)
        let temporary = "\(directory)/.\(name).tmp-\(getpid())-\(randomSuffix())"
        do {
            let fd = try Syscall.retrying("open", path: temporary) {
                open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            }
            var closed = false
            defer { if !closed { close(fd) } }
            try Syscall.retrying("fchmod", path: temporary) { fchmod(fd, mode) }
            var offset = 0
            while offset < bytes.count {
                offset += try Syscall.retrying("write", path: temporary) {
                    bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
                }
            }
            try Syscall.retrying("fsync", path: temporary) { fsync(fd) }
            closed = true
            try Syscall.retrying("close", path: temporary) { close(fd) }
        } catch {
            unlink(temporary)
            throw .system(error)
        }
        do {
            if replacing {
                try Syscall.retrying("rename", path: path) { rename(temporary, path) }
            } else {
                try renameNoReplace(temporary, path)
            }
        } catch {
            unlink(temporary)
            if error.errno == EEXIST { throw .exists(path: path) }
            throw .system(error)
        }
        try syncDirectory(directory)
    }

    /// Makes sure `path` is a directory only its owner can use: creates it (and missing
    /// parents) with mode 0700, and refuses an existing one that others can read or write.
    public static func ensurePrivateDirectory(_ path: String) throws(AtomicFileError) {
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw .notADirectory(path: path) }
            if info.st_mode & 0o077 != 0 { throw .insecureDirectory(path: path, mode: UInt32(info.st_mode)) }
            return
        }
        guard errno == ENOENT else { throw .system(SystemError(call: "lstat", errno: errno, path: path)) }
        let (parent, _) = split(path)
        if parent != path && parent != "/" && parent != "." && access(parent, F_OK) != 0 {
            try ensureDirectory(parent)
        }
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw .system(SystemError(call: "mkdir", errno: errno, path: path))
        }
        chmod(path, 0o700)
    }

    /// Creates `path` and its missing parents with mode 0700 (XDG base directories are created so).
    static func ensureDirectory(_ path: String) throws(AtomicFileError) {
        let (parent, _) = split(path)
        if parent != path && parent != "/" && parent != "." && access(parent, F_OK) != 0 {
            try ensureDirectory(parent)
        }
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw .system(SystemError(call: "mkdir", errno: errno, path: path))
        }
    }

    /// A rename that fails with EEXIST instead of replacing: `link` is atomic and never
    /// replaces, then the temporary name is removed.
    static func renameNoReplace(_ from: String, _ to: String) throws(SystemError) {
        try Syscall.retrying("link", path: to) { link(from, to) }
        unlink(from)
    }

    static func syncDirectory(_ directory: String) throws(AtomicFileError) {
        do {
            let fd = try Syscall.retrying("open", path: directory) { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
            defer { close(fd) }
            try Syscall.retrying("fsync", path: directory) { fsync(fd) }
        } catch {
            throw .system(error)
        }
    }

    /// The directory and file name of `path` (`.` for a bare name).
    static func split(_ path: String) -> (String, String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    /// Removes `directory/.<name>.tmp-*` files left by writers that died: regular files owned
    /// by this user whose pid is gone (or, without a pid, older than ``staleAgeSeconds``). With
    /// `name` nil, the temporaries of every target in `directory` (a directory whose writers
    /// hold a lock, e.g. the gateway registry, sweeps them all: a writer killed while creating a
    /// new file leaves a temporary that no later write of that name would find). Best effort:
    /// what cannot be inspected or removed is left alone.
    public static func removeStaleTemporaries(directory: String, name: String?) {
        guard let dir = opendir(directory) else { return }
        defer { closedir(dir) }
        let now = time(nil)
        while let entry = readdir(dir) {
            let file = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            let suffix: Substring
            if let name {
                let prefix = ".\(name).tmp-"
                guard file.hasPrefix(prefix) else { continue }
                suffix = file.dropFirst(prefix.count)
            } else {
                guard file.hasPrefix("."), let after = lastTemporaryMarker(in: file) else { continue }
                suffix = file[after...]
            }
            let path = "\(directory)/\(file)"
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else { continue }
            if isStale(suffix: suffix, modified: info.st_mtim.tv_sec, now: now) { unlink(path) }
        }
    }

    /// The index just after the last `.tmp-` in `file`, if any.
    static func lastTemporaryMarker(in file: String) -> String.Index? {
        let marker = Array(".tmp-".utf8)
        let bytes = Array(file.utf8)
        guard bytes.count > marker.count else { return nil }
        for start in stride(from: bytes.count - marker.count, through: 1, by: -1) where Array(bytes[start..<start + marker.count]) == marker {
            return file.utf8.index(file.utf8.startIndex, offsetBy: start + marker.count)
        }
        return nil
    }

    /// Whether a temporary whose name ends in `suffix` (`<pid>-<random>`, or `<random>` from
    /// older versions) was left by a writer that is gone.
    static func isStale(suffix: Substring, modified: time_t, now: time_t) -> Bool {
        let parts = suffix.split(separator: "-", maxSplits: 1)
        if parts.count == 2, let pid = pid_t(parts[0]), pid > 0 {
            if pid == getpid() { return false }
            return kill(pid, 0) != 0 && errno == ESRCH
        }
        return now - modified > staleAgeSeconds
    }

    static func randomSuffix() -> String {
        String(UInt64.random(in: .min ... .max), radix: 36)
    }
}
