internal import CSodium

// libsodium's constant-time base64 and hex codecs.

extension KeyText.Variant {
    /// The `sodium_base64_VARIANT_*` value.
    var sodiumValue: Int32 {
        switch self {
        case .standard: return sodium_base64_VARIANT_ORIGINAL
        case .standardUnpadded: return sodium_base64_VARIANT_ORIGINAL_NO_PADDING
        case .url: return sodium_base64_VARIANT_URLSAFE
        case .urlUnpadded: return sodium_base64_VARIANT_URLSAFE_NO_PADDING
        }
    }
}

extension KeyText {
    /// The number of characters `sodium_bin2base64` writes for `count` bytes (without the NUL).
    static func encodedLength(_ count: Int, _ variant: Variant) -> Int {
        sodium_base64_encoded_len(count, variant.sodiumValue) - 1
    }

    /// base64 of public bytes, written by libsodium straight into the string's storage.
    static func encode(_ bytes: UnsafeRawBufferPointer, variant: Variant) -> String {
        let size = sodium_base64_encoded_len(bytes.count, variant.sodiumValue)  // includes the NUL
        return String(unsafeUninitializedCapacity: size) { buffer in
            _ = sodium_bin2base64(UnsafeMutableRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self), size,
                                  bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, variant.sodiumValue)
            return size - 1
        }
    }

    /// base64 of `bytes` appended to `destination` without passing through ordinary memory.
    static func encode(_ bytes: UnsafeRawBufferPointer, variant: Variant, appendingTo destination: SecureBytes) {
        let size = sodium_base64_encoded_len(bytes.count, variant.sodiumValue)
        precondition(destination.count + size <= destination.capacity, "SecureBytes capacity exceeded")
        let start = destination.count
        destination.withUnsafeMutableBytes { buffer in
            _ = sodium_bin2base64((buffer.baseAddress! + start).assumingMemoryBound(to: CChar.self), size,
                                  bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, variant.sodiumValue)
        }
        destination.count = start + size - 1  // drop the NUL
    }

    /// Decodes all of `text` in `variant`, skipping bytes in `ignore`, into `output`.
    /// Returns the number of bytes written, or nil when `text` is not entirely valid (libsodium
    /// also refuses non-zero unused bits) or does not fit.
    static func decode(_ text: UnsafeRawBufferPointer, variant: Variant, ignore: StaticString?,
                       into output: UnsafeMutableRawBufferPointer) -> Int? {
        guard let textBase = text.baseAddress, let outBase = output.baseAddress else {
            return text.isEmpty ? 0 : nil
        }
        var written = 0
        var end: UnsafePointer<CChar>? = nil
        let chars = textBase.assumingMemoryBound(to: CChar.self)
        let status: Int32
        if let ignore {
            status = ignore.withUTF8Buffer { ig in
                // StaticString storage is NUL-terminated.
                sodium_base642bin(outBase.assumingMemoryBound(to: UInt8.self), output.count, chars, text.count,
                                  UnsafeRawPointer(ig.baseAddress!).assumingMemoryBound(to: CChar.self),
                                  &written, &end, variant.sodiumValue)
            }
        } else {
            status = sodium_base642bin(outBase.assumingMemoryBound(to: UInt8.self), output.count, chars, text.count,
                                       nil, &written, &end, variant.sodiumValue)
        }
        guard status == 0, let end, end == chars + text.count else { return nil }
        return written
    }

    /// Lowercase hex of public bytes.
    static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        var out = [CChar](repeating: 0, count: bytes.count * 2 + 1)
        out.withUnsafeMutableBufferPointer { buffer in
            _ = sodium_bin2hex(buffer.baseAddress!, buffer.count, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                               bytes.count)
        }
        return String(decoding: out.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
