// swift-tools-version:6.0
// libFuzzer targets for clawpair's parsers of untrusted input. Built only by `make fuzz`
// (Fuzz/run), with -sanitize=fuzzer,address; never part of the normal build.
import PackageDescription

let package = Package(
    name: "clawpair-fuzz",
    dependencies: [.package(name: "clawpair", path: "..")],
    targets: [
        // Declares LLVMFuzzerRunDriver: SwiftPM aliases main to <Module>_main, which hands over to libFuzzer.
        .target(name: "CFuzzerDriver"),
        // Setup-code decoder: every input form (codes, JSON, pasted text, deep links, URLs).
        .executableTarget(name: "FuzzSetupCode", dependencies: [
            .product(name: "ClawpairSetupCode", package: "clawpair"),
            .product(name: "ClawpairCore", package: "clawpair"), "CFuzzerDriver",
        ]),
        // Bounded JSON parser and serializer round trip.
        .executableTarget(name: "FuzzJSON", dependencies: [.product(name: "ClawpairCore", package: "clawpair"), "CFuzzerDriver"]),
    ],
    swiftLanguageModes: [.v6]
)
