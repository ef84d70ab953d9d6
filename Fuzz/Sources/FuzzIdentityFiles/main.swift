// libFuzzer target: the identity-file, PEM, key-text, token-cache and connect-payload parsers.
// Never traps; whatever decodes round-trips: an identity re-encoded in every form decodes to the
// same key (and signs the same), a public key re-encoded as base64url and PEM parses back equal,
// a token cache re-encoded decodes equal, and a parsed connect payload prints back as its input.
import CFuzzerDriver
import ClawpairIdentity

/// The process entry point: SwiftPM links `main` as `<Module>_main`; libFuzzer takes over from here.
@_cdecl("FuzzIdentityFiles_main")
public func fuzzIdentityFilesMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzIdentityFiles(data, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIdentityFiles(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)

    if let loaded = try? IdentityFile.decode(bytes, defaultCreatedAtMs: 7) {
        let identity = loaded.identity
        precondition(identity.deviceId == identity.publicKey.deviceId, "deviceId is derived from the key")
        for form in IdentityFileForm.allCases {
            guard var encoded = try? IdentityFile.withEncoded(identity, form: form, { Array($0) }) else {
                preconditionFailure("an identity that decoded must encode")
            }
            guard let again = try? IdentityFile.decode(consuming: &encoded, name: "fuzz", defaultCreatedAtMs: 7) else {
                preconditionFailure("\(form) output does not decode")
            }
            precondition(again.identity.publicKey == identity.publicKey, "\(form) round trip changed the key")
            precondition(again.form == form, "\(form) round trip changed the form")
        }
        precondition((try? identity.sign("fuzz")).map { identity.publicKey.isValidSignature($0, for: "fuzz") } == true,
                     "a decoded identity signs verifiably")
    }

    if let key = try? DevicePublicKey(parsing: text) {
        precondition((try? DevicePublicKey(parsing: key.base64URL)) == key, "base64url round trip")
        precondition((try? DevicePublicKey(parsing: key.base64Standard)) == key, "base64 round trip")
        precondition((try? DevicePublicKey(parsing: key.pem)) == key, "PEM round trip")
        precondition((try? DevicePublicKey(spkiDER: key.spkiDER)) == key, "DER round trip")
        precondition(key.deviceId.utf8.count == 64, "deviceId is 64 hex digits")
    }

    if let signature = try? DeviceSignature(parsing: text) {
        precondition((try? DeviceSignature(parsing: signature.base64URL)) == signature, "signature round trip")
    }

    if let cache = try? DeviceTokenCache.decode(bytes) {
        precondition((try? DeviceTokenCache.decode(cache.encoded())) == cache, "token cache round trip")
    }

    var copy = bytes
    _ = try? ImportedFile.decode(consuming: &copy, name: "fuzz", defaultCreatedAtMs: 0)

    if let payload = ConnectPayload(parsing: text) {
        // v2 text is reproduced exactly; v3 and v4 normalize platform/deviceFamily, so their text is a fixed point.
        let again = ConnectPayload(parsing: payload.text)
        precondition(again != nil && (payload.version != .v2 || payload.text == text) && again?.text == payload.text,
                     "connect payload round trip")
    }
    return 0
}
