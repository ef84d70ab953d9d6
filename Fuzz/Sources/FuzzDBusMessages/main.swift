// libFuzzer target: the D-Bus message codec. Never traps; whatever decodes encodes again and
// decodes to the same message, encoding is deterministic, and messageLength agrees with decode.
import CFuzzerDriver
import ClawpairDBus

/// The process entry point: SwiftPM links `main` as `<Module>_main`; libFuzzer takes over from here.
@_cdecl("FuzzDBusMessages_main")
public func fuzzDBusMessagesMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzDBusMessages(data, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDBusMessages(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let (message, length) = try? DBusWire.decode(bytes) else { return 0 }
    precondition(length <= bytes.count, "decoded length \(length) is past the input's \(bytes.count) bytes")
    precondition((try? DBusWire.messageLength(bytes)) == length, "messageLength disagrees with decode")
    // Encoding writes little-endian and the header fields in code order, so it may differ from the
    // input, but never grows: a message that decoded within the limit encodes within it, and a
    // decoded message breaks no rule the encoder checks.
    let encoded: [UInt8]
    do {
        encoded = try DBusWire.encode(message)
    } catch {
        preconditionFailure("a decoded message did not encode: \(error)")
    }
    let again: DBusMessage
    do {
        guard let (decoded, againLength) = try DBusWire.decode(encoded) else {
            preconditionFailure("encoded output is incomplete")
        }
        precondition(againLength == encoded.count, "encoded output decodes to \(againLength) of \(encoded.count) bytes")
        again = decoded
    } catch {
        preconditionFailure("encoded output does not decode: \(error)")
    }
    // A NaN double is unequal to itself; then the bytes must still agree.
    if message == message {
        precondition(again == message, "decode → encode → decode changed the message")
    }
    precondition((try? DBusWire.encode(again)) == encoded, "encoding is not deterministic")
    _ = message.signature
    return 0
}
