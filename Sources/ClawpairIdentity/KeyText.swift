// Text encodings of keys and signatures: base64 in both alphabets, hex, PEM armour.
//
// Every base64 and hex conversion of identity material goes through libsodium
// (`KeyText+Sodium.swift`), whose codecs run in constant time, so secrets (seeds, PKCS#8 bodies)
// never pass through table lookups indexed by secret bytes. Public values use the same path.

/// base64 and hex for identity material.
enum KeyText {
    /// The base64 spellings libsodium knows.
    enum Variant: CaseIterable {
        /// `+/`, padded (RFC 4648 §4): Swift `device.json`, PEM bodies.
        case standard
        /// `+/`, unpadded.
        case standardUnpadded
        /// `-_`, padded.
        case url
        /// `-_`, unpadded (RFC 4648 §5): the wire form of keys and signatures.
        case urlUnpadded
    }

    /// The order lenient decoders try spellings in: the wire form first.
    static let lenientOrder: [Variant] = [.urlUnpadded, .standard, .url, .standardUnpadded]

    /// Decodes `text` in the first spelling that accepts all of it, into a fresh array of at most
    /// `maxBytes`; nil when none does. For public values only.
    static func decodeLenient(_ text: String, maxBytes: Int) -> [UInt8]? {
        var text = text
        return text.withUTF8 { utf8 -> [UInt8]? in
            var out = [UInt8](repeating: 0, count: maxBytes)
            for variant in lenientOrder {
                let n = out.withUnsafeMutableBytes { decode(UnsafeRawBufferPointer(utf8), variant: variant, ignore: nil, into: $0) }
                if let n { return Array(out[0..<n]) }
            }
            return nil
        }
    }
}

/// PEM armour (RFC 7468) for the two Ed25519 DER forms.
enum PEMLabel: String {
    /// SPKI, `BEGIN PUBLIC KEY`.
    case publicKey = "PUBLIC KEY"
    /// PKCS#8, `BEGIN PRIVATE KEY`.
    case privateKey = "PRIVATE KEY"
}
