// libFuzzer target: the DNS message codec. Never traps; whatever unpacks packs again (in every
// compression mode) and unpacks to the same message, and packing is deterministic.
import CFuzzerDriver
import ClawpairDNS

/// The process entry point: SwiftPM links `main` as `<Module>_main`; libFuzzer takes over from here.
@_cdecl("FuzzDNSMessage_main")
public func fuzzDNSMessageMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzDNSMessage(data, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDNSMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let message = try? DNSMessage.unpack(bytes) else { return 0 }
    for mode in [DNSCompression.none, .unicast, .multicast] {
        // A parsed message may not fit 65535 bytes once written: the sender may have pointed
        // into bytes the writer does not reuse (raw bodies), or compressed more (SRV targets in
        // mDNS). That must be an error, never a trap; any other error is a bug.
        let packed: [UInt8]
        do {
            packed = try message.pack(compression: mode)
        } catch {
            if case .messageTooLarge = error.reason { continue }
            preconditionFailure("a parsed message did not pack (\(mode)): \(error)")
        }
        guard let again = try? DNSMessage.unpack(packed) else { preconditionFailure("packed output does not unpack (\(mode))") }
        precondition(again == message, "unpack → pack → unpack changed the message (\(mode))")
        precondition((try? again.pack(compression: mode)) == packed, "packing is not deterministic (\(mode))")
    }
    _ = message.description
    return 0
}
