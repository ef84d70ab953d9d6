// libFuzzer target: the lenient setup-code decoder and the strict decoder, on arbitrary bytes.
// Invariants checked beyond "never traps": a decoded setup has 1…8 endpoints, a pin only with a
// TLS primary, and every code the decoder accepts as a payload re-encodes and decodes to the same
// endpoints; a recognised join URL prints back to itself.
import CFuzzerDriver
import ClawpairCore
import ClawpairSetupCode

/// The process entry point: SwiftPM links `main` as `<Module>_main`; libFuzzer takes over from here.
@_cdecl("FuzzSetupCode_main")
public func fuzzSetupCodeMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzSetupCode(data, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSetupCode(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let decoded = try? SetupCode.parse(text) {
        precondition((1...SetupCode.maxRoutes).contains(decoded.endpoints.count))
        precondition(decoded.tlsFingerprint == nil || decoded.primary.tls)
        if let payload = decoded.payload {
            let again = try? SetupCode.parse(SetupCode.encode(json: payload))
            precondition(again?.endpoints == decoded.endpoints, "re-encoded payload decodes differently")
        }
    }
    // A join URL that is recognised prints back to a URL that is recognised as the same one.
    if let join = try? JoinLink.recognize(text) {
        precondition(JoinLink.isShortcode(join.shortcode))
        precondition((try? JoinLink.recognize(join.url)) == join, "join URL round trip")
        precondition(!join.redactedURL.contains(join.shortcode))
    }
    _ = try? SetupCode.strictDecode(text, nowMs: 0)
    _ = SetupURL.normalize(text, defaultScheme: .wss)
    _ = TLSFingerprint.normalize(text)
    return 0
}
