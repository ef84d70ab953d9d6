import ClawpairCore

/// Why a DNS message (or a name, or a piece of one) could not be read or written.
///
/// Errors carry the path to the failing field, outermost first, so a message reads like
/// `answer 2: SRV target: pointer loop at offset 57`. Parsers add context on the way up with
/// ``within(_:)``.
public struct DNSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, without the context.
    public enum Reason: Sendable, Equatable {
        /// The message ends before the field does.
        case truncated
        /// The record body needs more bytes than its RDLENGTH gives.
        case bodyOverrunsLength(rdlength: Int)
        /// The record body ends before its RDLENGTH does (`used` of `rdlength` bytes were read).
        case bodyUnderrunsLength(rdlength: Int, used: Int)
        /// A compression pointer leads back into bytes already read for this name.
        case pointerLoop
        /// A compression pointer does not point to an earlier place in the message (RFC 1035 §4.1.4:
        /// pointers refer to a prior occurrence).
        case forwardPointer(target: Int)
        /// A compression pointer points outside the message or into the header.
        case pointerOutOfRange(target: Int)
        /// More than ``DNSLimits/maxPointerJumps`` pointers were followed for one name.
        case tooManyPointers
        /// The name is longer than ``DNSLimits/maxNameLength`` bytes in wire form.
        case nameTooLong(length: Int)
        /// A label is longer than ``DNSLimits/maxLabelLength`` bytes.
        case labelTooLong(length: Int)
        /// A label length octet uses a reserved or extended label type (0x40 or 0x80; RFC 6891 §5
        /// retired the extended label types).
        case reservedLabelType(UInt8)
        /// A name in presentation form has an empty label (`a..b`, or a leading dot).
        case emptyLabel
        /// A name in presentation form has a bad escape (`\256`, `\1`, or a trailing backslash).
        case invalidEscape(String)
        /// A section count promises more entries than the remaining bytes could hold.
        case countTooLarge(count: Int, remainingBytes: Int)
        /// An NSEC type bitmap is malformed (the detail says how).
        case invalidTypeBitmap(String)
        /// The message is larger than ``DNSLimits/maxMessageSize``.
        case messageTooLarge(size: Int)
        /// A character-string to write is longer than ``DNSLimits/maxCharacterString`` bytes.
        case stringTooLong(length: Int)
        /// A record body to write is longer than ``DNSLimits/maxRecordDataLength`` bytes.
        case dataTooLong(length: Int)
        /// A section to write has more than ``DNSLimits/maxSectionCount`` entries.
        case tooManyEntries(count: Int)
    }

    /// What went wrong.
    public var reason: Reason
    /// Where, outermost first: e.g. `["answer 2", "SRV target"]`.
    public var context: [String]
    /// The byte offset in the message where the problem was found, when known.
    public var offset: Int?

    /// Creates an error without context.
    public init(_ reason: Reason, offset: Int? = nil, context: [String] = []) {
        self.reason = reason
        self.offset = offset
        self.context = context
    }

    /// The same error with `outer` in front of its context.
    public func within(_ outer: String) -> DNSError {
        var copy = self
        copy.context.insert(outer, at: 0)
        return copy
    }

    /// The reason alone, in words.
    public var reasonText: String {
        switch reason {
        case .truncated: return "message ends early"
        case let .bodyOverrunsLength(rdlength): return "record body runs past its RDLENGTH of \(rdlength)"
        case let .bodyUnderrunsLength(rdlength, used): return "record body ends after \(used) of its RDLENGTH of \(rdlength) bytes"
        case .pointerLoop: return "pointer loop"
        case let .forwardPointer(target): return "compression pointer to \(target) does not point to an earlier name"
        case let .pointerOutOfRange(target): return "compression pointer to \(target) is outside the message"
        case .tooManyPointers: return "more than \(DNSLimits.maxPointerJumps) compression pointers"
        case let .nameTooLong(length): return "name is \(length) bytes, more than \(DNSLimits.maxNameLength)"
        case let .labelTooLong(length): return "label is \(length) bytes, more than \(DNSLimits.maxLabelLength)"
        case let .reservedLabelType(bits): return "reserved label type 0x\(String(bits, radix: 16))"
        case .emptyLabel: return "empty label"
        case let .invalidEscape(text): return "invalid escape \(text)"
        case let .countTooLarge(count, remaining): return "count \(count) cannot fit in the \(remaining) bytes left"
        case let .invalidTypeBitmap(detail): return "invalid type bitmap: \(detail)"
        case let .messageTooLarge(size): return "message is \(size) bytes, more than \(DNSLimits.maxMessageSize)"
        case let .stringTooLong(length): return "string is \(length) bytes, more than \(DNSLimits.maxCharacterString)"
        case let .dataTooLong(length): return "record body is \(length) bytes, more than \(DNSLimits.maxRecordDataLength)"
        case let .tooManyEntries(count): return "\(count) entries, more than \(DNSLimits.maxSectionCount)"
        }
    }

    /// `answer 2: SRV target: pointer loop at offset 57`.
    public var description: String {
        var text = (context + [reasonText]).joined(separator: ": ")
        if let offset { text += " at offset \(offset)" }
        return text
    }
}

extension DNSError: ClawpairError {
    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String { "DNS: \(description)" }
}
