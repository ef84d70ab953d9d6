import ClawpairCLIKit
import ClawpairCore
import ClawpairProbe
import ClawpairTransport

/// The `--json` and text renderings of a probe run (documented in clawpair-probe(1)).
enum ProbeOutput {
    /// The most routes one run races.
    static let maxRoutes = 64

    /// The command that accepts an untrusted certificate of `result`, when it failed that way.
    static func trustCommand(_ result: ProbeResult) -> String? {
        result.untrustedFingerprint.map { "clawpair probe --trust \($0) \(result.route.url)" }
    }

    static func json(_ report: ProbeReport, configuration: ProbeConfiguration) -> JSONValue {
        report.json(configuration: configuration, trustCommand: trustCommand)
    }

    static func text(_ duration: Duration?) -> String { ProbeReport.text(duration) }

    static func clean(_ text: String) -> String { TerminalText.sanitize(text, maxScalars: 512) }

    static func printText(_ report: ProbeReport, configuration: ProbeConfiguration, showAll: Bool, context: CommandContext) {
        let style = context.style
        if let winner = report.winningResult {
            if context.globals.quiet {
                context.print(clean(winner.route.url))
            } else {
                var notes = ["route \(winner.index + 1) of \(report.results.count)"]
                if let started = winner.timings.started { notes.append("started +\(text(started))") }
                if winner.route.input != winner.route.url { notes.append("from \(clean(winner.route.input))") }
                context.print(style.green("reachable") + "  " + style.bold(clean(winner.route.url))
                              + "  (" + notes.joined(separator: ", ") + ")")
                context.print("  " + winner.timings.summary)
                var facts: [String] = []
                if let address = winner.address { facts.append("address \(address)") }
                if let version = winner.tlsVersion { facts.append(version) }
                if let fingerprint = winner.certificate?.fingerprint {
                    facts.append("sha256 \(fingerprint) (\(trustText(winner)))")
                }
                if !facts.isEmpty { context.print("  " + facts.joined(separator: "  ")) }
            }
        } else if !context.globals.quiet {
            context.print(style.red("unreachable") + "  " + report.failureSummary + " (\(report.results.count) route"
                          + (report.results.count == 1 ? "" : "s") + ", \(text(report.elapsed)))")
        }

        if showAll || (report.winner == nil && !context.globals.quiet) {
            if report.winner != nil { context.print("") }
            printTable(report, context: context)
        }

        // Untrusted certificates: say how to accept them, on stderr (even when another route won).
        for result in report.results {
            if let command = trustCommand(result), case .tlsUntrusted(let observed?, let reason) = result.failure {
                context.note("")
                context.note("The certificate of \(clean(result.route.url)) is not trusted"
                             + (reason.map { " (\(clean($0)))" } ?? "") + ". Its SHA-256 fingerprint is")
                context.note("  \(observed)")
                context.note("Compare it with the gateway's own (on the gateway host: openssl x509 -noout -fingerprint "
                             + "-sha256 -in ~/.openclaw/gateway/tls/gateway-cert.pem); if it matches, accept it with:")
                context.note("  \(clean(command))")
            }
        }
        if report.winner == nil {
            context.report(GeneralError(report.failureSummary, hint: failureHint(report), status: ErrorPresentation.status(of: report)))
        }
    }

    static func trustText(_ result: ProbeResult) -> String {
        switch result.trust {
        case .pinned?:
            switch result.route.pinSource {
            case .setupCode?: return "pinned by the setup code"
            case .trust?: return "confirmed with --trust"
            case .registry?: return "pinned to the fingerprint stored when it was paired"
            default: return "pinned"
            }
        case .system?: return "trusted by the system roots"
        case .trustedOnFirstUse?: return "trusted on first use"
        case .unverified?: return "not verified"
        case nil: return "not accepted"
        }
    }

    static func failureHint(_ report: ProbeReport) -> String? {
        let codes = Set(report.results.compactMap { $0.failure?.code })
        if codes.contains("pin-mismatch") {
            return "a certificate differs from its pin: the gateway's certificate changed, or something else answers there"
        }
        if codes.contains("tls-untrusted") { return "check the fingerprint above and accept it with --trust" }
        if codes == ["needs-wss"] { return "use the gateway's wss:// URL, or --allow-insecure if you accept plaintext" }
        if codes.contains("timeout") { return "a longer --timeout may help on slow links; blocked ports also look like this" }
        return nil
    }

    static func printTable(_ report: ProbeReport, context: CommandContext) {
        let style = context.style
        let urls = report.results.map { clean($0.route.url) }
        let width = min(48, max(5, urls.map(\.count).max() ?? 5))
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        for (i, result) in report.results.enumerated() {
            let outcome = result.outcome
            let mark = report.winner == i ? style.green("✓") : " "
            let coloured: String
            switch outcome {
            case "reachable": coloured = style.green(pad(outcome, 13))
            case "cancelled": coloured = style.dim(pad(outcome, 13))
            default: coloured = style.yellow(pad(outcome, 13))
            }
            let started = result.timings.started.map { "+" + text($0) } ?? "-"
            context.print("\(mark) \(pad(String(i + 1), 2)) \(pad(urls[i], width))  \(coloured) \(pad(result.phase.rawValue, 9)) "
                          + "started \(pad(started, 9)) total \(text(result.timings.total))")
            if let failure = result.failure, outcome != "cancelled" {
                context.print("       " + style.dim(clean(failure.message)))
            }
            if result.reachable {
                context.print("       " + style.dim(result.timings.summary))
            }
            switch result.route.source {
            case .setupCode, .discovered:
                // The label says which setup code route, or which discovered gateway, this is.
                context.print("       " + style.dim(clean(result.route.input)))
            case .url, .hostPort, .setupCodeDropped:
                break
            }
        }
    }
}
