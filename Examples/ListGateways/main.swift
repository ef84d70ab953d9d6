// Lists the OpenClaw gateways on this network (mDNS) and in the configured wide-area domain,
// the way `clawpair discover` does, in a screen of code.
//
//   swift run ListGateways                 # two seconds of mDNS, plus the configured domain
//   swift run ListGateways openclaw.internal --first
import ClawpairBrowse
import ClawpairCore

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments.dropFirst()
var options = GatewayBrowser.Options(timeout: .seconds(2))
let domains = arguments.filter { !$0.hasPrefix("-") }
if !domains.isEmpty { options.domains = domains }  // else the OpenClaw config's, or $OPENCLAW_WIDE_AREA_DOMAIN
let browser = GatewayBrowser(options: options)

do {
    if arguments.contains("--first") {
        guard let gateway = try browser.first() else { print("no gateway found"); exit(3) }
        print(gateway.beacon.endpoint?.wsUrl ?? "(no usable address)")
    } else {
        let scan = try browser.scan()
        print("searched \(scan.searched.joined(separator: ", ")): \(scan.gateways.count) gateway(s)")
        for gateway in scan.gateways {
            // Names and TXT values come from the network: sanitize before they reach a terminal.
            let name = TerminalText.sanitize(gateway.beacon.title, maxScalars: 64)
            let url = gateway.beacon.endpoint.map { TerminalText.sanitize($0.wsUrl, maxScalars: 256) } ?? "-"
            print("\(name)  \(url)  via \(gateway.backend.rawValue)  \(gateway.addresses.joined(separator: " "))")
        }
    }
} catch {
    print("discovery failed: \(error)")
    exit(1)
}
