internal import CSodium

// The libsodium calls behind `SecureBytes` and `SecretWipe`.

/// libsodium set up once per process (`sodium_init` is idempotent and thread-safe; the lazy
/// static makes the first caller pay for it).
enum SodiumLibrary {
    /// Whether `sodium_init` succeeded (0: initialised now, 1: already initialised).
    static let ready: Bool = sodium_init() >= 0

    /// Throws unless libsodium is ready.
    static func require() throws(IdentityError) {
        guard ready else { throw .sodiumUnavailable }
    }
}

extension SecureBytes {
    /// `sodium_malloc`: guarded, locked memory; nil (out of memory) becomes a typed error.
    static func allocate(_ size: Int) throws(IdentityError) -> UnsafeMutableRawPointer {
        try SodiumLibrary.require()
        guard let pointer = sodium_malloc(size) else { throw .outOfSecureMemory }
        return pointer
    }

    /// `sodium_free`: wipes, unlocks and unmaps.
    static func release(_ pointer: UnsafeMutableRawPointer) {
        sodium_free(pointer)
    }

    /// Makes the bytes read-only (writes then fault); for keys that must not change once set.
    func freeze() throws(IdentityError) {
        let status = withUnsafeMutableBytes { sodium_mprotect_readonly($0.baseAddress!) }
        guard status == 0 else { throw .crypto("sodium_mprotect_readonly") }
    }
}

extension SecretWipe {
    /// `sodium_memzero` over a buffer.
    static func zero(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        sodium_memzero(base, buffer.count)
    }

    /// Constant-time equality of two byte buffers of the same length (`sodium_memcmp`).
    static func constantTimeEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        guard let pa = a.baseAddress, let pb = b.baseAddress else { return a.isEmpty }
        return sodium_memcmp(pa, pb, a.count) == 0
    }
}
