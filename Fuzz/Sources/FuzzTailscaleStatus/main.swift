// libFuzzer target: the readers of `tailscale status --json` output (another program's output,
// read whole up to its bound): discovery's tailnet address (TailnetFallback.selfTailnetIPv4) and
// the advertiser's tailnetDns hint (TailnetDnsHint.name). Never traps; what they return is a
// plain name or address within its bound, never text a terminal would act on.
import CFuzzerDriver
import ClawpairAdvertise
import ClawpairWideArea

/// The process entry point: SwiftPM links `main` as `<Module>_main`; libFuzzer takes over from here.
@_cdecl("FuzzTailscaleStatus_main")
public func fuzzTailscaleStatusMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzTailscaleStatus(data, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTailscaleStatus(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let name = TailnetDnsHint.name(statusJSON: bytes) {
        precondition(!name.isEmpty && name.utf8.count <= TailnetDnsHint.maxNameBytes, "hint out of bounds")
        precondition(name.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }, "hint not plain")
    }
    if let address = TailnetFallback.selfTailnetIPv4(statusJSON: bytes) {
        let parts = address.split(separator: ".", omittingEmptySubsequences: false)
        precondition(parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }, "not an IPv4 address: \(address)")
    }
    return 0
}
