// libFuzzer target: the bounded JSON parser. Never traps; serialization is a fixed point:
// whatever parses, serialized and parsed again, serializes to the same text (compact and
// pretty). (Values need not be equal: `1.0` serializes as `1`, as JavaScript does, and
// parses back as an integer.)
import CFuzzerDriver
import ClawpairCore

/// The process entry point: SwiftPM links `main` as `<Module>_main`; libFuzzer takes over from here.
@_cdecl("FuzzJSON_main")
public func fuzzJSONMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzJSON(data, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let value = try? JSONValue.parse(bytes) else { return 0 }
    let compact = value.compact()
    guard let again = try? JSONValue.parse(compact) else { preconditionFailure("compact output does not parse") }
    precondition(again.compact() == compact, "compact serialization is not a fixed point")
    precondition((try? JSONValue.parse(value.pretty()))?.compact() == compact, "pretty output parses differently")
    return 0
}
