// Reading values by type. Recursion goes one level per container and stops at
// `limits.maxDepth`; arrays are read inside a window of their stated length, which `need`
// has already checked against the bytes present, so nothing allocated here is larger than the
// input.

extension DBusReader {
    /// Reads one value of `type`, `depth` containers deep (0 at the top of the body).
    mutating func value(as type: DBusType, depth: Int, limits: DBusLimits) throws(DBusWireError) -> DBusValue {
        switch type {
        case .byte: return .byte(try u8())
        case .boolean:
            let word = try u32()
            guard word <= 1 else { throw .badBoolean(word) }
            return .boolean(word == 1)
        case .int16: return .int16(Int16(bitPattern: try u16()))
        case .uint16: return .uint16(try u16())
        case .int32: return .int32(Int32(bitPattern: try u32()))
        case .uint32: return .uint32(try u32())
        case .int64: return .int64(Int64(bitPattern: try u64()))
        case .uint64: return .uint64(try u64())
        case .double: return .double(Double(bitPattern: try u64()))
        case .string: return .string(try string())
        case .objectPath: return .objectPath(try objectPath())
        case .signature: return .signature(try signature().text)
        case let .array(element):
            guard depth < limits.maxDepth else { throw .tooDeep }
            let length = Int(try u32())
            guard length <= DBusLimits.maxArrayLength else { throw .arrayTooLong(length) }
            // The padding to the first element is there even when the array is empty, and is
            // not counted in the length.
            try align(element.alignment)
            let mismatch = { (used: Int) in DBusWireError.arrayLengthMismatch(declared: length, used: used) }
            if element == .byte {
                return .bytes(try window(length, "array", mismatch: mismatch) { (reader: inout DBusReader) throws(DBusWireError) in
                    try reader.take(length)
                })
            }
            let items = try window(length, "array", mismatch: mismatch) { (reader: inout DBusReader) throws(DBusWireError) in
                var items: [DBusValue] = []
                while reader.hasMore {
                    items.append(try reader.value(as: element, depth: depth + 1, limits: limits))
                }
                return items
            }
            return .array(element: element.signature, items)
        case let .structure(types):
            guard depth < limits.maxDepth else { throw .tooDeep }
            try align(8)
            var fields: [DBusValue] = []
            fields.reserveCapacity(types.count)
            for fieldType in types { fields.append(try value(as: fieldType, depth: depth + 1, limits: limits)) }
            return .structure(fields)
        case let .dictEntry(keyType, valueType):
            guard depth < limits.maxDepth else { throw .tooDeep }
            try align(8)
            let key = try value(as: keyType, depth: depth + 1, limits: limits)
            return .dictEntry(key, try value(as: valueType, depth: depth + 1, limits: limits))
        case .variant:
            guard depth < limits.maxDepth else { throw .tooDeep }
            let (text, types) = try signature()
            guard types.count == 1 else {
                throw .badSignature("variant signature \"\(text)\" is \(types.count) complete types, expected one")
            }
            return .variant(signature: text, try value(as: types[0], depth: depth + 1, limits: limits))
        }
    }
}
