// Lists the OpenClaw gateways on this network (mDNS) and in the configured wide-area domain,
// as `clawpair discover` does, in a screen of code.
//
//   swift run ListGateways                          # 2 s of mDNS, plus the configured domain
//   swift run ListGateways openclaw.internal --first
//   swift run ListGateways --watch                  # changes for 60 s
import ClawpairBrowse
import ClawpairCore

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments.dropFirst()
let watching = arguments.contains("--watch")
var options = GatewayBrowser.Options(timeout: .seconds(watching ? 60 : 2))  // backend .auto, mDNS on
let domains = arguments.filter { !$0.hasPrefix("-") }
if !domains.isEmpty { options.domains = domains }  // else the OpenClaw config's, or $OPENCLAW_WIDE_AREA_DOMAIN
let browser = GatewayBrowser(options: options)

/// Names and URLs come from the network: sanitized before they reach the terminal.
func line(_ gateway: GatewaySighting) -> String {
    let url = gateway.beacon.endpoint?.url ?? "-"
    return TerminalText.sanitize("\(gateway.beacon.title)  \(url)  via \(gateway.backend.rawValue)  "
                                 + gateway.addresses.joined(separator: " "), maxScalars: 512)
}

do {
    if watching {
        try browser.watch { event in
            switch event {
            case .added(let gateway): print("+ " + line(gateway))
            case .updated(let gateway): print("~ " + line(gateway))
            case .removed(let gateway): print("- " + line(gateway))
            }
            return true
        }
    } else if arguments.contains("--first") {
        guard let gateway = try browser.first() else { print("no gateway found"); exit(3) }
        print(line(gateway))
    } else {
        let scan = try browser.scan()
        print("searched \(scan.searched.joined(separator: ", ")): \(scan.gateways.count) gateway(s)")
        scan.gateways.forEach { print(line($0)) }
    }
} catch {
    print("discovery failed: \(error)")
    exit(1)
}
