// JSON serialization identical to JavaScript's `JSON.stringify` (ECMA-262 §25.5.2).
//
// - Strings: `"` and `\` escaped; U+0008/0009/000A/000C/000D as `\b \t \n \f \r`; other code points
//   below U+0020 as `\u00xx` with lowercase hex; everything else (including `/`, DEL, U+2028 and
//   non-ASCII) written raw as UTF-8.
// - Numbers: `.int` in decimal; `.double` as ECMAScript Number::toString (shortest round-trip
//   digits, plain notation for exponents -7 < e < 21, otherwise `1.5e+300`); `-0` as `0`;
//   NaN and infinities as `null`.
// - Layout: `compact()` has no whitespace; `pretty(indent:)` matches `JSON.stringify(v, null, n)`.
// - `terminalSafe: true` (what the CLI prints for --json) also escapes DEL, the C1 controls
//   (U+0080–U+009F), the bidi controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069)
//   and U+2028/U+2029 as `\uxxxx`: the value a JSON reader gets is the same, and a terminal
//   showing the output never sees the raw control.

extension JSONValue {
    /// The value as compact JSON, byte-for-byte what JavaScript's `JSON.stringify(value)` prints.
    public func compact() -> String {
        compact(terminalSafe: false)
    }

    /// `compact()`, terminal-safe when asked (see the top of this file).
    public func compact(terminalSafe: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        JSONWriter.write(self, into: &out, indent: 0, level: 0, terminalSafe: terminalSafe)
        return String(decoding: out, as: UTF8.self)
    }

    /// The UTF-8 bytes of `compact()`.
    public func compactBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        JSONWriter.write(self, into: &out, indent: 0, level: 0)
        return out
    }

    /// The value as indented JSON, like JavaScript's `JSON.stringify(value, null, indent)`.
    ///
    /// `indent` is clamped to 0...10 as JavaScript does; 0 gives `compact()`. Empty arrays and
    /// objects print as `[]` and `{}`. There is no trailing newline.
    public func pretty(indent: Int = 2) -> String {
        pretty(indent: indent, terminalSafe: false)
    }

    /// `pretty(indent:)`, terminal-safe when asked (see the top of this file).
    public func pretty(indent: Int = 2, terminalSafe: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        JSONWriter.write(self, into: &out, indent: max(0, min(indent, 10)), level: 0, terminalSafe: terminalSafe)
        return String(decoding: out, as: UTF8.self)
    }
}

/// The serializer; internal so the formatting rules stay in one place.
enum JSONWriter {
    static func write(_ value: JSONValue, into out: inout [UInt8], indent: Int, level: Int, terminalSafe: Bool = false) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case let .bool(b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case let .int(i): out.append(contentsOf: String(i).utf8)
        case let .double(d): out.append(contentsOf: formatNumber(d).utf8)
        case let .string(s): writeString(s, into: &out, terminalSafe: terminalSafe)
        case let .array(elements):
            if elements.isEmpty {
                out.append(contentsOf: "[]".utf8)
                return
            }
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(into: &out, indent: indent, level: level + 1)
                write(element, into: &out, indent: indent, level: level + 1, terminalSafe: terminalSafe)
            }
            newline(into: &out, indent: indent, level: level)
            out.append(UInt8(ascii: "]"))
        case let .object(members):
            if members.isEmpty {
                out.append(contentsOf: "{}".utf8)
                return
            }
            out.append(UInt8(ascii: "{"))
            for (i, (key, member)) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(into: &out, indent: indent, level: level + 1)
                writeString(key, into: &out, terminalSafe: terminalSafe)
                out.append(UInt8(ascii: ":"))
                if indent > 0 { out.append(UInt8(ascii: " ")) }
                write(member, into: &out, indent: indent, level: level + 1, terminalSafe: terminalSafe)
            }
            newline(into: &out, indent: indent, level: level)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(into out: inout [UInt8], indent: Int, level: Int) {
        guard indent > 0 else { return }
        out.append(0x0A)
        var count = indent * level
        while count > 0 {  // a contiguous copy per 64 spaces, not one append per space
            let run = min(count, spaces.count)
            out.append(contentsOf: spaces[0..<run])
            count -= run
        }
    }

    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 64)

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Whether `scalar` is escaped in terminal-safe output (see the top of this file).
    static func isTerminalUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    static func writeString(_ s: String, into out: inout [UInt8], terminalSafe: Bool = false) {
        // Most strings are printable ASCII without `"` or `\`: nothing to escape, safe or not,
        // so their bytes are copied whole.
        let copied = s.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) else { return false }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return true
        }
        if copied == true { return }
        if terminalSafe && s.unicodeScalars.contains(where: isTerminalUnsafe) {
            // Split at each unsafe scalar: the runs between go through the usual escaping.
            out.append(UInt8(ascii: "\""))
            var run = ""
            for scalar in s.unicodeScalars {
                guard isTerminalUnsafe(scalar) else {
                    run.unicodeScalars.append(scalar)
                    continue
                }
                appendEscaped(run, into: &out)
                run = ""
                out.append(contentsOf: "\\u".utf8)
                let v = scalar.value
                for shift in [12, 8, 4, 0] { out.append(hexDigits[Int((v >> UInt32(shift)) & 0xF)]) }
            }
            appendEscaped(run, into: &out)
            out.append(UInt8(ascii: "\""))
            return
        }
        out.append(UInt8(ascii: "\""))
        appendEscaped(s, into: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// `s` with JSON.stringify's escapes, without the quotes.
    private static func appendEscaped(_ s: String, into out: inout [UInt8]) {
        for b in s.utf8 {
            switch b {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x00..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hexDigits[Int(b >> 4)])
                out.append(hexDigits[Int(b & 0x0F)])
            default: out.append(b)
            }
        }
    }

    /// ECMAScript Number::toString for finite values; `null` for NaN and infinities.
    ///
    /// Swift's `description` already yields the shortest digits that round-trip; this re-lays
    /// them out with ECMAScript's rules for where the decimal point and exponent go.
    static func formatNumber(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == 0 { return "0" }
        var text = Substring(d.magnitude.description)
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = text[..<e]
        }
        var digits: [UInt8] = []
        var pointPosition = 0
        var seenPoint = false
        for c in text.utf8 {
            if c == UInt8(ascii: ".") {
                seenPoint = true
            } else if c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") {
                digits.append(c)
                if !seenPoint { pointPosition += 1 }
            }
        }
        pointPosition += exponent
        // Strip leading zeros (moving the point) and trailing zeros.
        var leading = 0
        while leading < digits.count && digits[leading] == UInt8(ascii: "0") { leading += 1 }
        digits.removeFirst(leading)
        pointPosition -= leading
        while let last = digits.last, last == UInt8(ascii: "0") { digits.removeLast() }
        guard !digits.isEmpty else { return "0" }

        let k = digits.count
        let n = pointPosition
        var out: [UInt8] = d < 0 ? [UInt8(ascii: "-")] : []
        if k <= n && n <= 21 {
            out += digits
            out += repeatElement(UInt8(ascii: "0"), count: n - k)
        } else if 0 < n && n <= 21 {
            out += digits[0..<n]
            out.append(UInt8(ascii: "."))
            out += digits[n...]
        } else if -6 < n && n <= 0 {
            out += Array("0.".utf8)
            out += repeatElement(UInt8(ascii: "0"), count: -n)
            out += digits
        } else {
            let e = n - 1
            out.append(digits[0])
            if k > 1 {
                out.append(UInt8(ascii: "."))
                out += digits[1...]
            }
            out.append(UInt8(ascii: "e"))
            out.append(e >= 0 ? UInt8(ascii: "+") : UInt8(ascii: "-"))
            out += Array(String(e.magnitude).utf8)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
