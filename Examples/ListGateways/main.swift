// Lists the OpenClaw gateways on this network (mDNS) and in the configured wide-area domain,
// as `clawpair discover` does, in a screen of async code. Ctrl-C (or SIGTERM) cancels the task,
// which stops the browse at once.
//
//   swift run ListGateways                          # 2 s of mDNS, plus the configured domain
//   swift run ListGateways openclaw.internal --first
//   swift run ListGateways --watch                  # changes until Ctrl-C (or 1 hour)
import ClawpairBrowse
import ClawpairCore

#if canImport(Glibc)
import Glibc
#endif

/// Names and URLs come from the network: sanitized before they reach the terminal.
func line(_ gateway: GatewaySighting) -> String {
    let url = gateway.beacon.endpoint?.wsUrl ?? "-"
    return TerminalText.sanitize("\(gateway.beacon.title)  \(url)  via \(gateway.backend.rawValue)  "
                                 + gateway.addresses.joined(separator: " "), maxScalars: 512)
}

/// Lists, or watches, as the arguments say; the status to exit with.
func listGateways(_ arguments: [String]) async throws -> Int32 {
    let watching = arguments.contains("--watch")
    var options = GatewayBrowser.Options(timeout: .seconds(watching ? 3600 : 2))  // backend .auto, mDNS on
    let domains = arguments.filter { !$0.hasPrefix("-") }
    if !domains.isEmpty { options.domains = domains }  // else the OpenClaw config's, or $OPENCLAW_WIDE_AREA_DOMAIN
    let browser = GatewayBrowser(options: options)
    if watching {
        for try await event in browser.events() {
            switch event {
            case .added(let gateway): print("+ " + line(gateway))
            case .updated(let gateway): print("~ " + line(gateway))
            case .removed(let gateway): print("- " + line(gateway))
            }
            fflush(nil)  // each line as it happens, also into a pipe
        }
        try Task.checkCancellation()
    } else if arguments.contains("--first") {
        guard let gateway = try await browser.first() else { print("no gateway found"); return 3 }
        print(line(gateway))
    } else {
        let scan = try await browser.scan()
        print("searched \(scan.searched.joined(separator: ", ")): \(scan.gateways.count) gateway(s)")
        scan.gateways.forEach { print(line($0)) }
    }
    return 0
}

// SIGINT and SIGTERM become a cancellation of the task: blocked here, before any thread
// starts (so every thread inherits the mask), then taken by sigwait on this thread.
var signals = sigset_t()
sigemptyset(&signals)
sigaddset(&signals, SIGINT)
sigaddset(&signals, SIGTERM)
pthread_sigmask(SIG_BLOCK, &signals, nil)

let work = Task.detached {
    do {
        exit(try await listGateways(Array(CommandLine.arguments.dropFirst())))
    } catch let error as any ClawpairError where error.code == "cancelled" {
        print("stopped")
    } catch is CancellationError {
        print("stopped")
    } catch {
        print("discovery failed: \(error)")
        exit(1)
    }
    exit(0)
}
var signal: Int32 = 0
sigwait(&signals, &signal)
work.cancel()
sigwait(&signals, &signal)  // a second Ctrl-C while stopping ends at once
exit(1)
