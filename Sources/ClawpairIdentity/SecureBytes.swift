/// A fixed-capacity buffer for secret bytes, in libsodium's guarded memory.
///
/// The memory comes from `sodium_malloc` (guard pages on both sides, a canary, locked with
/// `mlock` so it is never swapped) and is wiped by `sodium_free` when the buffer is released.
/// `count` is how much of the capacity is in use. The type owns a C pointer, so it is a
/// class confined to one task (not `Sendable`).
final class SecureBytes {
    /// The allocated size in bytes.
    let capacity: Int
    /// The bytes in use, from the start.
    var count: Int
    private let base: UnsafeMutableRawPointer

    /// Allocates `capacity` bytes (at least 1); `count` starts at 0.
    init(capacity: Int) throws(IdentityError) {
        self.capacity = max(capacity, 1)
        self.count = 0
        self.base = try Self.allocate(self.capacity)
    }

    deinit { Self.release(base) }

    /// The bytes in use.
    func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The whole capacity, for writing; set `count` afterwards.
    func withUnsafeMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeMutableRawBufferPointer(start: base, count: capacity))
    }

    /// Appends `bytes`; the capacity is fixed, so overflowing it is a programming error.
    func append(_ bytes: UnsafeRawBufferPointer) {
        precondition(count + bytes.count <= capacity, "SecureBytes capacity exceeded")
        if let source = bytes.baseAddress, !bytes.isEmpty {
            (base + count).copyMemory(from: source, byteCount: bytes.count)
        }
        count += bytes.count
    }

    /// Appends the UTF-8 of non-secret text.
    func append(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// A copy of the bytes in use, in ordinary memory: the caller must wipe it
    /// (``SecretWipe/wipe(_:)``) when done.
    func copyBytes() -> [UInt8] {
        withUnsafeBytes { Array($0) }
    }
}

/// Wiping secrets the caller holds in ordinary memory.
public enum SecretWipe {
    /// Overwrites every byte of `bytes` with zeros (`sodium_memzero`, which the compiler may
    /// not optimise away) and empties the array.
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { zero($0) }
        bytes.removeAll()
    }
}

/// Secret bytes made read-only for good: the one form in which a ``SecureBytes`` may be shared
/// between threads.
///
/// `init` freezes the buffer (`sodium_mprotect_readonly`: a write faults) and keeps the only
/// reference to it; nothing here writes to it or changes its `count` again, so concurrent reads
/// are safe. The buffer is still wiped and unmapped (`sodium_free`) when the last reference to
/// this value goes away.
final class FrozenSecureBytes: @unchecked Sendable {
    /// The frozen buffer; never handed out, only read through ``withUnsafeBytes(_:)``.
    private let storage: SecureBytes

    /// Freezes `bytes`, which the caller must not use afterwards.
    init(freezing bytes: SecureBytes) throws(IdentityError) {
        try bytes.freeze()
        self.storage = bytes
    }

    /// The bytes, read-only.
    func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try storage.withUnsafeBytes(body)
    }
}
