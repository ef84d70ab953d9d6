// Signatures parsed into type trees (spec: "Valid Signatures"). The parser is recursive, but a
// signature is at most 255 bytes and nests at most 32 arrays and 32 parentheses, so it recurses
// at most 65 levels whatever the input.

/// One single complete type, parsed from a signature.
indirect enum DBusType: Equatable, Sendable {
    case byte, boolean, int16, uint16, int32, uint32, int64, uint64, double
    case string, objectPath, signature, variant
    case array(DBusType)
    case structure([DBusType])
    case dictEntry(DBusType, DBusType)

    /// The type written as a signature.
    var signature: String {
        switch self {
        case .byte: return "y"
        case .boolean: return "b"
        case .int16: return "n"
        case .uint16: return "q"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .string: return "s"
        case .objectPath: return "o"
        case .signature: return "g"
        case .variant: return "v"
        case let .array(element): return "a" + element.signature
        case let .structure(fields): return "(" + fields.map(\.signature).joined() + ")"
        case let .dictEntry(key, value): return "{" + key.signature + value.signature + "}"
        }
    }

    /// The boundary a value of this type starts on (spec: "Marshaling (Wire Format)").
    var alignment: Int {
        switch self {
        case .byte, .signature, .variant: return 1
        case .int16, .uint16: return 2
        case .boolean, .int32, .uint32, .string, .objectPath, .array: return 4
        case .int64, .uint64, .double, .structure, .dictEntry: return 8
        }
    }

    /// The basic (non-container) type for `code`, if it is one.
    static func basic(_ code: UInt8) -> DBusType? {
        switch code {
        case UInt8(ascii: "y"): return .byte
        case UInt8(ascii: "b"): return .boolean
        case UInt8(ascii: "n"): return .int16
        case UInt8(ascii: "q"): return .uint16
        case UInt8(ascii: "i"): return .int32
        case UInt8(ascii: "u"): return .uint32
        case UInt8(ascii: "x"): return .int64
        case UInt8(ascii: "t"): return .uint64
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "s"): return .string
        case UInt8(ascii: "o"): return .objectPath
        case UInt8(ascii: "g"): return .signature
        default: return nil
        }
    }

    /// Parses a signature of any number of complete types (a message body's, or `""`).
    static func parseList(_ signature: String) throws(DBusWireError) -> [DBusType] {
        let codes = Array(signature.utf8)
        guard codes.count <= DBusLimits.maxSignatureLength else {
            throw .badSignature("\(codes.count) bytes, more than \(DBusLimits.maxSignatureLength)")
        }
        var parser = SignatureParser(codes: codes)
        var types: [DBusType] = []
        while parser.index < codes.count {
            types.append(try parser.single(arrays: 0, structs: 0))
        }
        return types
    }

    /// Parses a signature that must hold exactly one complete type (a variant's, an array
    /// element's).
    static func parseSingle(_ signature: String) throws(DBusWireError) -> DBusType {
        let types = try parseList(signature)
        guard types.count == 1 else {
            throw .badSignature("\"\(signature)\" is \(types.count) complete types, expected one")
        }
        return types[0]
    }
}

/// A cursor over the type codes of one signature.
private struct SignatureParser {
    let codes: [UInt8]
    var index = 0

    func fail(_ why: String) -> DBusWireError {
        .badSignature("\(why) at \(index) in \"\(String(decoding: codes, as: UTF8.self))\"")
    }

    mutating func single(arrays: Int, structs: Int) throws(DBusWireError) -> DBusType {
        guard index < codes.count else { throw fail("ends inside a type") }
        let code = codes[index]
        index += 1
        if let basic = DBusType.basic(code) { return basic }
        switch code {
        case UInt8(ascii: "v"):
            return .variant
        case UInt8(ascii: "a"):
            guard arrays < DBusLimits.maxArrayNesting else { throw fail("more than 32 nested arrays") }
            if index < codes.count, codes[index] == UInt8(ascii: "{") {
                index += 1
                return .array(try dictEntry(arrays: arrays + 1, structs: structs))
            }
            return .array(try single(arrays: arrays + 1, structs: structs))
        case UInt8(ascii: "("):
            guard structs < DBusLimits.maxStructNesting else { throw fail("more than 32 nested structs") }
            var fields: [DBusType] = []
            while index < codes.count, codes[index] != UInt8(ascii: ")") {
                fields.append(try single(arrays: arrays, structs: structs + 1))
            }
            guard index < codes.count else { throw fail("struct not closed") }
            guard !fields.isEmpty else { throw fail("empty struct") }
            index += 1
            return .structure(fields)
        case UInt8(ascii: "h"):
            throw .unixFDsUnsupported
        case UInt8(ascii: "{"):
            throw fail("dict entry outside an array")
        default:
            index -= 1
            throw fail("bad type code '\(String(decoding: [code], as: UTF8.self))'")
        }
    }

    /// The rest of a dict entry, after its `{`: a basic key, one complete value type, `}`.
    mutating func dictEntry(arrays: Int, structs: Int) throws(DBusWireError) -> DBusType {
        guard structs < DBusLimits.maxStructNesting else { throw fail("more than 32 nested structs") }
        guard index < codes.count else { throw fail("ends inside a dict entry") }
        if codes[index] == UInt8(ascii: "h") { throw .unixFDsUnsupported }
        guard let key = DBusType.basic(codes[index]) else { throw fail("dict entry key is not a basic type") }
        index += 1
        let value = try single(arrays: arrays, structs: structs + 1)
        guard index < codes.count, codes[index] == UInt8(ascii: "}") else {
            throw fail("dict entry needs exactly one key and one value")
        }
        index += 1
        return .dictEntry(key, value)
    }
}
