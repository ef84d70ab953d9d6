// libFuzzer target: the bounded JSON5 reader. Never traps; whatever parses serializes (as strict
// JSON) to text that the JSON5 reader parses back to the same serialization, since JSON is JSON5.
import CFuzzerDriver
import ClawpairCore
import ClawpairConfig

/// The process entry point: SwiftPM links `main` as `<Module>_main`; libFuzzer takes over from here.
@_cdecl("FuzzJSON5_main")
public func fuzzJSON5Main(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzJSON5(data, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON5(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let value = try? JSON5.parse(bytes) else { return 0 }
    let compact = value.compact()
    guard let again = try? JSON5.parse(compact) else { preconditionFailure("compact output does not parse as JSON5") }
    precondition(again.compact() == compact, "compact serialization is not a fixed point")
    return 0
}
