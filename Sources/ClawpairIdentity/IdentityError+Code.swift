import ClawpairCore

extension IdentityError {
    /// `no-identity`; `identity-invalid` for a damaged file or key; `unsafe-permissions` for a
    /// file others may read, a symbolic link or a non-regular file; `exists`; `io-error` for a
    /// failed system call or write; else `error`.
    public var code: String {
        switch self {
        case .noIdentity: return "no-identity"
        case .invalid, .malformed, .deviceIdMismatch, .tokenCacheMismatch: return "identity-invalid"
        case .unsafePermissions, .symlink, .notARegularFile: return "unsafe-permissions"
        case .alreadyExists: return "exists"
        case .system, .file: return "io-error"
        case .sodiumUnavailable, .outOfSecureMemory, .crypto, .insideOpenClawState, .stateStore: return "error"
        }
    }
}

extension IdentityStore {
    /// The stored identity, or a new one generated (`createdAtMs`) and saved (0600) when there is
    /// none yet; `created` says which. Any other failure to load (a damaged file, unsafe
    /// permissions) is thrown: an identity that exists is never replaced. By default the new
    /// identity is created now, and `environment` (which says where OpenClaw's state directory is,
    /// never written into) is the process's.
    public func loadOrCreateIdentity(createdAtMs: Int64 = WallClock.nowMs(),
                                     environment: [String: String] = IdentityStore.processEnvironment())
        throws(IdentityError) -> (identity: DeviceIdentity, created: Bool) {
        do {
            return (try loadIdentity().identity, false)
        } catch .noIdentity {
            let identity = try DeviceIdentity.generate(createdAtMs: createdAtMs)
            try saveIdentity(identity, replacing: false, environment: environment)
            return (identity, true)
        }
    }
}
