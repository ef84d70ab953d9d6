// A D-Bus message as values: the fixed header, the header fields this codec knows, the body.
// The wire order of header fields is not kept; encoding writes them in field-code order.

/// One D-Bus message (spec: "Message Format").
public struct DBusMessage: Equatable, Sendable {
    /// The message type.
    public var type: DBusMessageType
    /// 0x1 NO_REPLY_EXPECTED, 0x2 NO_AUTO_START, 0x4 ALLOW_INTERACTIVE_AUTHORIZATION; unknown
    /// bits are kept as they are.
    public var flags: UInt8
    /// The sender's serial for this message; never 0.
    public var serial: UInt32
    /// Field 1 PATH: the object the call is for or the signal is from.
    public var path: String?
    /// Field 2 INTERFACE.
    public var interface: String?
    /// Field 3 MEMBER: the method or signal name.
    public var member: String?
    /// Field 4 ERROR_NAME, for errors.
    public var errorName: String?
    /// Field 5 REPLY_SERIAL: the serial of the call this replies to.
    public var replySerial: UInt32?
    /// Field 6 DESTINATION: the bus name the message is for.
    public var destination: String?
    /// Field 7 SENDER: the unique name of the sender, filled in by the bus.
    public var sender: String?
    /// The body values; the body's signature is the concatenation of their signatures.
    public var body: [DBusValue]

    /// The body's signature (field 8 SIGNATURE), e.g. `"iissu"`; empty for an empty body.
    public var signature: String { body.map(\.signature).joined() }

    /// Creates a message; every field but `type` and `serial` may be left out.
    public init(
        type: DBusMessageType, flags: UInt8 = 0, serial: UInt32, path: String? = nil, interface: String? = nil,
        member: String? = nil, errorName: String? = nil, replySerial: UInt32? = nil, destination: String? = nil,
        sender: String? = nil, body: [DBusValue] = []
    ) {
        self.type = type
        self.flags = flags
        self.serial = serial
        self.path = path
        self.interface = interface
        self.member = member
        self.errorName = errorName
        self.replySerial = replySerial
        self.destination = destination
        self.sender = sender
        self.body = body
    }

    /// A method call (path, interface, member, destination required).
    public static func methodCall(
        serial: UInt32, destination: String, path: String, interface: String, member: String, body: [DBusValue] = []
    ) -> DBusMessage {
        DBusMessage(type: .methodCall, serial: serial, path: path, interface: interface, member: member,
                    destination: destination, body: body)
    }

    /// Throws ``DBusWireError/missingField(_:)`` for the first header field the message type
    /// requires but lacks (spec: "Message Types").
    func checkRequiredFields() throws(DBusWireError) {
        switch type {
        case .methodCall:
            guard path != nil else { throw .missingField("PATH") }
            guard member != nil else { throw .missingField("MEMBER") }
        case .signal:
            guard path != nil else { throw .missingField("PATH") }
            guard interface != nil else { throw .missingField("INTERFACE") }
            guard member != nil else { throw .missingField("MEMBER") }
        case .error:
            guard errorName != nil else { throw .missingField("ERROR_NAME") }
            guard replySerial != nil else { throw .missingField("REPLY_SERIAL") }
        case .methodReturn:
            guard replySerial != nil else { throw .missingField("REPLY_SERIAL") }
        }
    }
}

/// The header field codes (spec: "Header Fields").
enum DBusHeaderField: UInt8 {
    case path = 1, interface, member, errorName, replySerial, destination, sender, signature, unixFDs

    /// The type the field's variant must hold.
    var type: DBusType {
        switch self {
        case .path: return .objectPath
        case .interface, .member, .errorName, .destination, .sender: return .string
        case .replySerial, .unixFDs: return .uint32
        case .signature: return .signature
        }
    }
}
