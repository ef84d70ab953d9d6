import ClawpairDBus
import ClawpairTestSupport
import Testing

/// Random values of random types round-trip, and every prefix of their encoding is incomplete.
@Suite struct PropertyTests {
    /// A random signature: a basic type, or at `depth` > 0 possibly a container.
    static func randomType(_ g: inout SeededGenerator, depth: Int) -> String {
        let basics = ["y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g"]
        switch depth > 0 ? Int.random(in: 0 ..< 8, using: &g) : 0 {
        case 4: return "a" + randomType(&g, depth: depth - 1)
        case 5: return "a{" + basics.randomElement(using: &g)! + randomType(&g, depth: depth - 1) + "}"
        case 6: return "(" + (0 ..< Int.random(in: 1 ... 3, using: &g)).map { _ in randomType(&g, depth: depth - 1) }.joined() + ")"
        case 7: return "v"
        default: return basics.randomElement(using: &g)!
        }
    }

    /// A random value of `signature` (one complete type, as randomType makes them).
    static func randomValue(_ signature: Substring, _ g: inout SeededGenerator, depth: Int) -> DBusValue {
        let code = signature.first!
        switch code {
        case "y": return .byte(.random(in: .min ... .max, using: &g))
        case "b": return .boolean(.random(using: &g))
        case "n": return .int16(.random(in: .min ... .max, using: &g))
        case "q": return .uint16(.random(in: .min ... .max, using: &g))
        case "i": return .int32(.random(in: .min ... .max, using: &g))
        case "u": return .uint32(.random(in: .min ... .max, using: &g))
        case "x": return .int64(.random(in: .min ... .max, using: &g))
        case "t": return .uint64(.random(in: .min ... .max, using: &g))
        case "d": return .double(.random(in: -1e9 ... 1e9, using: &g))
        case "s": return .string(["", "a", "hé", "gatewayPort=18789", "✓🦀"].randomElement(using: &g)!)
        case "o": return .objectPath(["/", "/a", "/org/freedesktop/Avahi_1"].randomElement(using: &g)!)
        case "g": return .signature(["", "a{sv}", "(ii)ay"].randomElement(using: &g)!)
        case "v":
            let inner = randomType(&g, depth: min(depth, 2))
            return .variant(signature: inner, randomValue(inner[...], &g, depth: depth - 1))
        case "a":
            let element = signature.dropFirst()
            let count = Int.random(in: 0 ... 3, using: &g)
            let items = (0 ..< count).map { _ in randomValue(element, &g, depth: depth - 1) }
            if element == "y" { return .bytes(items.map { if case let .byte(b) = $0 { b } else { 0 } }) }
            return .array(element: String(element), items)
        case "{":
            let key = randomValue(signature.dropFirst(), &g, depth: depth - 1)
            let rest = signature.dropFirst(2).dropLast()
            return .dictEntry(key, randomValue(rest, &g, depth: depth - 1))
        default:  // "(": split the fields by scanning for complete types
            var fields: [DBusValue] = []
            var rest = signature.dropFirst().dropLast()
            while !rest.isEmpty {
                let length = completeTypeLength(rest)
                fields.append(randomValue(rest.prefix(length), &g, depth: depth - 1))
                rest = rest.dropFirst(length)
            }
            return .structure(fields)
        }
    }

    /// The length of the complete type at the start of `signature`.
    static func completeTypeLength(_ signature: Substring) -> Int {
        switch signature.first! {
        case "a": return 1 + completeTypeLength(signature.dropFirst())
        case "(", "{":
            var depth = 0
            for (i, c) in signature.enumerated() {
                if c == "(" || c == "{" { depth += 1 }
                if c == ")" || c == "}" { depth -= 1 }
                if depth == 0 { return i + 1 }
            }
            return signature.count
        default: return 1
        }
    }

    @Test(arguments: 0 ..< 200) func randomRoundTrip(_ seed: UInt64) throws {
        var g = SeededGenerator(seed: seed)
        let body = (0 ..< Int.random(in: 0 ... 4, using: &g)).map { _ in
            let type = Self.randomType(&g, depth: 4)
            let value = Self.randomValue(type[...], &g, depth: 8)
            #expect(value.signature == type, "seed \(seed)")
            return value
        }
        let message = DBusMessage(type: .methodReturn, flags: UInt8.random(in: 0 ... 7, using: &g),
                                  serial: .random(in: 1 ... .max, using: &g), replySerial: 1, body: body)
        let bytes = try DBusWire.encode(message)
        #expect(try decodeWhole(bytes) == message, "seed \(seed)")
        for length in stride(from: 0, to: bytes.count, by: 7) {
            #expect(try DBusWire.decode(Array(bytes[..<length])) == nil, "seed \(seed), prefix \(length)")
        }
    }
}
