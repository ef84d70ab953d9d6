import CQRencode
import Glibc
@testable import ClawpairQR
import Testing

/// libqrencode: symbol version and size for known inputs.
///
/// Serialized: twice in ~35 runs the two cases, run in parallel, saw version 1 at level H,
/// which points at shared state in libqrencode (its lazily built tables). The QR module likewise
/// calls libqrencode from one thread at a time, under ``QRencodeLock``; this test takes the same
/// lock, since ClawpairQRTests encode in the same process at the same time (unlocked, it once got
/// NULL from QRcode_encodeString).
@Suite("libqrencode", .serialized)
struct QRencodeTests {
    /// "HELLO WORLD" (11 alphanumeric characters) fits version 1 at level Q (capacity 16) but
    /// needs version 2 at level H (capacity 10 in version 1, 20 in version 2).
    @Test("QRcode_encodeString picks the smallest version for the level", arguments: [
        (QR_ECLEVEL_Q, Int32(1)),
        (QR_ECLEVEL_H, Int32(2)),
    ])
    func versionForLevel(level: QRecLevel, expectedVersion: Int32) throws {
        try QRencodeLock.mutex.withLock { _ in try check(level: level, expectedVersion: expectedVersion) }
    }

    private func check(level: QRecLevel, expectedVersion: Int32) throws {
        errno = 0
        let encoded = QRcode_encodeString("HELLO WORLD", 0, level, QR_MODE_8, 1)
        let code = try #require(encoded, "QRcode_encodeString returned NULL, errno \(errno)")
        defer { QRcode_free(code) }
        #expect(code.pointee.version == expectedVersion)
        #expect(code.pointee.width == 17 + 4 * expectedVersion)
        // Finder pattern: the top-left 7×7 corner has a dark border (bit 0 of each module).
        let width = Int(code.pointee.width)
        let modules = UnsafeBufferPointer(start: code.pointee.data, count: width * width)
        #expect((0..<7).allSatisfy { modules[$0] & 1 == 1 && modules[$0 * width] & 1 == 1 })
        #expect(modules[width + 1] & 1 == 0)
    }
}
