/// Request ids: random UUID v4 strings (RFC 9562 §5.4), as the iOS app sends.
public enum RequestID {
    /// A fresh UUID v4 in lowercase canonical form.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = (bytes[6] & 0x0f) | 0x40  // version 4
        bytes[8] = (bytes[8] & 0x3f) | 0x80  // RFC 4122 variant
        let hex = bytes.map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
        let chars = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(chars[$0]) }.joined(separator: "-")
    }
}
