// swift-tools-version:6.0
// libFuzzer targets for clawpair's parsers of untrusted input. Built only by `make fuzz`
// (Fuzz/run), with -sanitize=fuzzer,address; never part of the normal build.
//
// Adding a target: create Sources/Fuzz<Name>/main.swift (copy the entry-point shape of an
// existing one); every Sources/Fuzz* directory becomes an executable target that may import
// any clawpair library, and Fuzz/run runs it.
import Foundation
import PackageDescription

let libraries = ["ClawpairCore", "ClawpairSetupCode", "ClawpairIdentity", "ClawpairQR", "ClawpairDNS", "ClawpairDiscovery",
                 "ClawpairWebSocket", "ClawpairTransport", "ClawpairProbe", "ClawpairMDNS", "ClawpairAvahi",
                 "ClawpairConfig", "ClawpairWideArea", "ClawpairGateway", "ClawpairNode", "ClawpairAdvertise"]
let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Sources")
let fuzzTargets = ((try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? [])
    .filter { $0.hasPrefix("Fuzz") }.sorted()

let package = Package(
    name: "clawpair-fuzz",
    dependencies: [.package(name: "clawpair", path: "..")],
    targets: [
        // Declares LLVMFuzzerRunDriver: SwiftPM aliases main to <Module>_main, which hands over to libFuzzer.
        .target(name: "CFuzzerDriver"),
        // Cuts an input into chunks for the incremental decoders' targets.
        .target(name: "InputChunks"),
    ] + fuzzTargets.map { name in
        .executableTarget(name: name, dependencies: ["CFuzzerDriver", "InputChunks"]
            + libraries.map { .product(name: $0, package: "clawpair") })
    },
    swiftLanguageModes: [.v6]
)
