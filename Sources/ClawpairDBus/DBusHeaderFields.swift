// The header fields array (spec: "Header Fields"): each entry an 8-aligned struct of a field
// code and a variant. Known fields must hold their type and appear once; unknown codes are
// read (bounded like any value) and skipped, as the spec requires.

extension DBusWire {
    /// Depth of a header field's variant: inside the fields array and its struct.
    private static let fieldVariantDepth = 2

    /// Reads the header fields array into `message` and returns the body's types from the
    /// SIGNATURE field (none when it is absent).
    static func decodeFields(
        into message: inout DBusMessage, reader: inout DBusReader, limits: DBusLimits
    ) throws(DBusWireError) -> [DBusType] {
        let length = Int(try reader.u32())
        try reader.align(8)
        return try reader.window(length, "header fields", mismatch: { used in
            .arrayLengthMismatch(declared: length, used: used)
        }) { (reader: inout DBusReader) throws(DBusWireError) in
            var seen: Set<UInt8> = []
            var bodyTypes: [DBusType] = []
            while reader.hasMore {
                try reader.align(8)
                let code = try reader.u8()
                let value = try reader.value(as: .variant, depth: fieldVariantDepth, limits: limits)
                guard let field = DBusHeaderField(rawValue: code) else { continue }
                guard seen.insert(code).inserted else { throw .duplicateField(code) }
                guard case let .variant(signature, inner) = value, signature == field.type.signature else {
                    throw .badFieldType(code: code, signature: value.variantSignature)
                }
                switch (field, inner) {
                case let (.path, .objectPath(v)): message.path = v
                case let (.interface, .string(v)): message.interface = v
                case let (.member, .string(v)): message.member = v
                case let (.errorName, .string(v)): message.errorName = v
                case let (.replySerial, .uint32(v)): message.replySerial = v
                case let (.destination, .string(v)): message.destination = v
                case let (.sender, .string(v)): message.sender = v
                case let (.signature, .signature(v)): bodyTypes = try DBusType.parseList(v)
                case let (.unixFDs, .uint32(v)): guard v == 0 else { throw .unixFDsUnsupported }
                default: throw .badFieldType(code: code, signature: signature)
                }
            }
            return bodyTypes
        }
    }

    /// Writes the header fields of `message` in code order; SIGNATURE only for a non-empty body.
    static func encodeFields(
        _ message: DBusMessage, signature: String, into writer: inout DBusWriter
    ) throws(DBusWireError) {
        var fields: [(DBusHeaderField, DBusValue)] = []
        if let path = message.path { fields.append((.path, .objectPath(path))) }
        if let interface = message.interface { fields.append((.interface, .string(interface))) }
        if let member = message.member { fields.append((.member, .string(member))) }
        if let errorName = message.errorName { fields.append((.errorName, .string(errorName))) }
        if let replySerial = message.replySerial { fields.append((.replySerial, .uint32(replySerial))) }
        if let destination = message.destination { fields.append((.destination, .string(destination))) }
        if let sender = message.sender { fields.append((.sender, .string(sender))) }
        if !signature.isEmpty { fields.append((.signature, .signature(signature))) }
        for (field, value) in fields {
            writer.align(8)
            writer.u8(field.rawValue)
            try writer.write(.variant(signature: field.type.signature, value), as: .variant, depth: fieldVariantDepth)
        }
        try writer.checkSize()
    }
}

extension DBusValue {
    /// A variant's declared signature; for anything else, the value's own.
    fileprivate var variantSignature: String {
        if case let .variant(signature, _) = self { return signature }
        return signature
    }
}
