#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore

// Where the toolkit keeps its own identity, and the rule that it never writes into OpenClaw's
// state directory unless the user names a path there explicitly.
//
//   $CLAWPAIR_HOME                 (when set and non-empty)
//   $XDG_CONFIG_HOME/clawpair      (when set to an absolute path)
//   ~/.config/clawpair
//     identity/                    0700
//       device.json                0600, OpenClaw TS form
//       device-auth.json           0600, device token cache

/// The toolkit's identity store: a private directory holding `identity/device.json` and
/// `identity/device-auth.json`.
public struct IdentityStore: Sendable, Equatable {
    /// The clawpair home directory.
    public let directory: String

    /// A store rooted at `directory`.
    public init(directory: String) {
        self.directory = directory
    }

    /// `<home>/identity`.
    public var identityDirectory: String { directory + "/identity" }
    /// `<home>/identity/device.json`.
    public var identityPath: String { identityDirectory + "/device.json" }
    /// `<home>/identity/device-auth.json`.
    public var tokenCachePath: String { identityDirectory + "/device-auth.json" }

    /// The store for this user: `CLAWPAIR_HOME`, else `$XDG_CONFIG_HOME/clawpair`, else
    /// `~/.config/clawpair` (home from `HOME`, else the password database).
    public static func locate(environment: [String: String]) throws(IdentityError) -> IdentityStore {
        if let home = environment["CLAWPAIR_HOME"], !home.isEmpty {
            return IdentityStore(directory: PathText.trimTrailingSlashes(home))
        }
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return IdentityStore(directory: PathText.trimTrailingSlashes(config) + "/clawpair")
        }
        guard let home = userHome(environment) else {
            throw .system(SystemError(call: "getpwuid", errno: ENOENT, path: "the home directory"))
        }
        return IdentityStore(directory: PathText.trimTrailingSlashes(home) + "/.config/clawpair")
    }

    /// The variables a store reads: where its home is (``locate(environment:)``) and where
    /// OpenClaw's state lives (``checkOutsideOpenClaw(environment:)``).
    public static let environmentKeys = ["CLAWPAIR_HOME", "XDG_CONFIG_HOME", "HOME", "OPENCLAW_STATE_DIR"]

    /// This process's values of ``environmentKeys``.
    public static func processEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        for key in environmentKeys {
            if let value = getenv(key) { environment[key] = String(cString: value) }
        }
        return environment
    }

    /// The store for the user running this process: ``locate(environment:)`` with the process's
    /// environment.
    ///
    /// ```swift
    /// let identity = try IdentityStore.locate().loadOrCreateIdentity().identity
    /// ```
    public static func locate() throws(IdentityError) -> IdentityStore {
        try locate(environment: processEnvironment())
    }

    static func userHome(_ environment: [String: String]) -> String? {
        if let home = environment["HOME"], !home.isEmpty { return home }
        guard let entry = getpwuid(geteuid()), let dir = entry.pointee.pw_dir else { return nil }
        return String(cString: dir)
    }

    /// OpenClaw's state directories: `$OPENCLAW_STATE_DIR` and `~/.openclaw`.
    public static func openClawStateDirectories(environment: [String: String]) -> [String] {
        var dirs: [String] = []
        if let state = environment["OPENCLAW_STATE_DIR"], !state.isEmpty { dirs.append(state) }
        if let home = userHome(environment) { dirs.append(PathText.trimTrailingSlashes(home) + "/.openclaw") }
        return dirs
    }

    /// Whether `path` lies inside one of OpenClaw's state directories (symlinks in existing
    /// parents resolved).
    public static func isInsideOpenClawState(_ path: String, environment: [String: String]) -> Bool {
        let target = PathText.resolved(path)
        return openClawStateDirectories(environment: environment).contains { dir in
            let base = PathText.resolved(dir)
            return target == base || target.hasPrefix(base == "/" ? "/" : base + "/")
        }
    }

    /// Refuses this store when it lies inside OpenClaw's state directory.
    public func checkOutsideOpenClaw(environment: [String: String]) throws(IdentityError) {
        if Self.isInsideOpenClawState(directory, environment: environment) { throw .insideOpenClawState(path: directory) }
    }

    /// Creates the home and `identity/` directories with mode 0700 when missing; refuses
    /// existing ones that other users can access.
    public func preparePrivateDirectories() throws(IdentityError) {
        do {
            try AtomicFile.ensurePrivateDirectory(directory)
            try AtomicFile.ensurePrivateDirectory(identityDirectory)
        } catch {
            throw .file(error)
        }
    }

    /// Loads the stored identity. A missing one is ``IdentityError/noIdentity(path:)``; a stored
    /// deviceId that is not the key's is ``IdentityError/deviceIdMismatch(path:stored:derived:)``.
    public func loadIdentity() throws(IdentityError) -> LoadedIdentity {
        let loaded = try IdentityFile.load(path: identityPath, defaultCreatedAtMs: 0)
        if let stored = loaded.storedDeviceId, !loaded.deviceIdMatches {
            throw .deviceIdMismatch(path: identityPath, stored: stored, derived: loaded.identity.deviceId)
        }
        return loaded
    }

    /// Saves `identity` (TS form, 0600) after preparing the directories; replaces an existing
    /// identity only when `replacing` is true.
    public func saveIdentity(_ identity: DeviceIdentity, replacing: Bool, environment: [String: String]) throws(IdentityError) {
        try checkOutsideOpenClaw(environment: environment)
        try preparePrivateDirectories()
        try IdentityFile.write(identity, form: .openclaw, to: identityPath, replacing: replacing)
    }
}

/// Lexical path helpers (no Foundation).
enum PathText {
    static func trimTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }

    /// An absolute, normalized form of `path`: the longest existing prefix resolved with
    /// `realpath`, the rest normalized lexically.
    static func resolved(_ path: String) -> String {
        var absolute = path
        if !absolute.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            if getcwd(&buffer, buffer.count) != nil {
                absolute = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/" + path
            }
        }
        var components: [String] = []
        for part in absolute.split(separator: "/") {
            if part == "." || part.isEmpty { continue }
            if part == ".." { if !components.isEmpty { components.removeLast() }; continue }
            components.append(String(part))
        }
        // Resolve the longest existing prefix.
        var split = components.count
        while split > 0 {
            let prefix = "/" + components[0..<split].joined(separator: "/")
            if let real = realpath(prefix, nil) {
                defer { free(real) }
                let base = String(cString: real)
                let rest = components[split...].joined(separator: "/")
                return rest.isEmpty ? base : (base == "/" ? "/" + rest : base + "/" + rest)
            }
            split -= 1
        }
        return "/" + components.joined(separator: "/")
    }
}
