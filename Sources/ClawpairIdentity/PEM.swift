// PEM armour and the two fixed Ed25519 DER forms (identity-and-handshake.md §1).
//
// Decoding is lenient with syntax (surrounding whitespace, CRLF, any line length) and strict with
// content: the label must match, the body must be base64, and the DER must have the exact
// length, then the exact prefix, of the Ed25519 form, each check with its own message.

/// The fixed DER prefixes of Ed25519 keys.
enum Ed25519DER {
    /// SubjectPublicKeyInfo: SEQUENCE { SEQUENCE { OID 1.3.101.112 }, BIT STRING (32 bytes) }.
    static let spkiPrefix: [UInt8] = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]
    /// PKCS#8 v1 PrivateKeyInfo: version 0, the OID, OCTET STRING { OCTET STRING (32-byte seed) }.
    static let pkcs8Prefix: [UInt8] = [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70,
                                       0x04, 0x22, 0x04, 0x20]
    /// 12 + 32.
    static let spkiLength = 44
    /// 16 + 32.
    static let pkcs8Length = 48

    /// Checks length then prefix of a DER structure; returns the offset of the 32 key bytes.
    static func keyOffset(_ der: UnsafeRawBufferPointer, prefix: [UInt8], what: String) throws(IdentityFormatError) -> Int {
        guard der.count == prefix.count + 32 else {
            throw .derLength(what: what, expected: prefix.count + 32, actual: der.count)
        }
        for i in 0..<prefix.count where der[i] != prefix[i] {
            throw .derPrefix(what: what)
        }
        return prefix.count
    }
}

/// PEM text (RFC 7468): `-----BEGIN <label>-----`, base64 lines, `-----END <label>-----`.
enum PEM {
    /// Characters per body line when writing (RFC 7468 §2).
    static let lineLength = 64

    private static func isSpace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x09 || b == 0x0a || b == 0x0d
    }

    private static func hasPrefix(_ text: UnsafeRawBufferPointer, at offset: Int, _ literal: String) -> Bool {
        let bytes = Array(literal.utf8)
        guard offset >= 0, offset + bytes.count <= text.count else { return false }
        for (i, b) in bytes.enumerated() where text[offset + i] != b {
            return false
        }
        return true
    }

    /// Decodes the PEM block in `text` with `label` into `output`, returning the DER length.
    /// Whitespace around the block, CRLF line ends and any body line length are accepted.
    static func decode(_ text: UnsafeRawBufferPointer, label: PEMLabel,
                       into output: UnsafeMutableRawBufferPointer) throws(IdentityFormatError) -> Int {
        var lo = 0, hi = text.count
        while lo < hi && isSpace(text[lo]) { lo += 1 }
        while hi > lo && isSpace(text[hi - 1]) { hi -= 1 }
        let begin = "-----BEGIN "
        guard hasPrefix(text, at: lo, begin) else { throw .pemMissingBegin(label: label.rawValue) }
        // The label runs to the next "-----" on the same line.
        let labelStart = lo + begin.utf8.count
        var labelEnd = labelStart
        while labelEnd < hi && text[labelEnd] != 0x0a && !hasPrefix(text, at: labelEnd, "-----") { labelEnd += 1 }
        guard labelEnd < hi, hasPrefix(text, at: labelEnd, "-----") else { throw .pemMissingBegin(label: label.rawValue) }
        let found = UnsafeRawBufferPointer(rebasing: text[labelStart..<labelEnd])
        guard found.elementsEqual(label.rawValue.utf8) else {
            let printable = found.allSatisfy { $0 >= 0x20 && $0 < 0x7f } && found.count <= 40
            throw .pemWrongLabel(expected: label.rawValue,
                                 found: printable ? String(decoding: found, as: UTF8.self) : "another kind of block")
        }
        var bodyStart = labelEnd + 5
        if bodyStart < hi && text[bodyStart] == 0x0d { bodyStart += 1 }
        guard bodyStart < hi, text[bodyStart] == 0x0a else { throw .pemMissingBegin(label: label.rawValue) }
        bodyStart += 1
        let end = "-----END \(label.rawValue)-----"
        let endStart = hi - end.utf8.count
        guard endStart >= bodyStart, hasPrefix(text, at: endStart, end), text[endStart - 1] == 0x0a else {
            throw .pemMissingEnd(label: label.rawValue)
        }
        let body = UnsafeRawBufferPointer(rebasing: text[bodyStart..<endStart])
        guard let n = KeyText.decode(body, variant: .standard, ignore: "\r\n", into: output) else {
            throw .pemBody(label: label.rawValue)
        }
        return n
    }

    /// PEM text of public DER bytes, LF line ends, trailing LF.
    static func encode(_ der: UnsafeRawBufferPointer, label: PEMLabel) -> String {
        let body = Array(KeyText.encode(der, variant: .standard).utf8)
        var text = "-----BEGIN \(label.rawValue)-----\n"
        var offset = 0
        while offset < body.count {
            let next = min(offset + lineLength, body.count)
            text += String(decoding: body[offset..<next], as: UTF8.self) + "\n"
            offset = next
        }
        return text + "-----END \(label.rawValue)-----\n"
    }

    /// The size of ``encode(_:label:appendingTo:)``'s output for `derCount` bytes.
    static func encodedLength(derCount: Int, label: PEMLabel) -> Int {
        let body = KeyText.encodedLength(derCount, .standard)
        let lines = (body + lineLength - 1) / lineLength
        return "-----BEGIN \(label.rawValue)-----\n".utf8.count + body + lines + "-----END \(label.rawValue)-----\n".utf8.count
    }

    /// PEM text of secret DER bytes appended to `destination`; `newline` is written between
    /// lines and after the last (`\n`, or the two characters `\` `n` inside a JSON string).
    static func encode(_ der: UnsafeRawBufferPointer, label: PEMLabel, newline: String,
                       appendingTo destination: SecureBytes) throws(IdentityError) {
        let body = try SecureBytes(capacity: KeyText.encodedLength(der.count, .standard) + 1)
        KeyText.encode(der, variant: .standard, appendingTo: body)
        destination.append("-----BEGIN \(label.rawValue)-----" + newline)
        body.withUnsafeBytes { all in
            var offset = 0
            while offset < all.count {
                let next = min(offset + lineLength, all.count)
                destination.append(UnsafeRawBufferPointer(rebasing: all[offset..<next]))
                destination.append(newline)
                offset = next
            }
        }
        destination.append("-----END \(label.rawValue)-----" + newline)
    }
}
