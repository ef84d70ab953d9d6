// The only file that calls libqrencode.

#if canImport(Glibc)
import Glibc
#endif
internal import CQRencode
import Synchronization

/// libqrencode builds shared tables lazily and is not reliably thread-safe (a parallel test once
/// saw the wrong version), so every call into it holds this lock.
enum QRencodeLock {
    static let mutex = Mutex(())
}

extension QRCode {
    /// One symbol from libqrencode: version, modules per side, and the dark bits row by row.
    struct EncodedSymbol {
        let version: Int
        let size: Int
        let modules: [Bool]
    }

    /// `QRcode_encodeData(payload, version 0 = smallest that fits, level)`, under the lock.
    static func encodeWithQRencode(_ payload: [UInt8], level: QRErrorCorrection) throws(QRError) -> EncodedSymbol {
        try QRencodeLock.mutex.withLock { _ throws(QRError) -> EncodedSymbol in
            errno = 0
            let encoded = payload.withUnsafeBufferPointer { bytes in
                QRcode_encodeData(Int32(bytes.count), bytes.baseAddress, 0, level.qrencodeLevel)
            }
            guard let encoded else {
                let code = errno
                if code == ERANGE {
                    throw .payloadTooLong(bytes: payload.count, maximum: level.maxBytes, errorCorrection: level)
                }
                throw .encoderFailed(errno: code == 0 ? EINVAL : code)
            }
            defer { QRcode_free(encoded) }
            let version = Int(encoded.pointee.version)
            let width = Int(encoded.pointee.width)
            guard (1...40).contains(version), width == 17 + 4 * version, let data = encoded.pointee.data else {
                throw .encoderFailed(errno: EINVAL)
            }
            // Bit 0 of each byte is the module colour; the other bits are libqrencode's bookkeeping.
            let cells = UnsafeBufferPointer(start: data, count: width * width)
            return EncodedSymbol(version: version, size: width, modules: cells.map { $0 & 1 == 1 })
        }
    }
}

extension QRErrorCorrection {
    /// The libqrencode constant.
    var qrencodeLevel: QRecLevel {
        switch self {
        case .low: return QR_ECLEVEL_L
        case .medium: return QR_ECLEVEL_M
        case .quartile: return QR_ECLEVEL_Q
        case .high: return QR_ECLEVEL_H
        }
    }
}
