import ClawpairCLIKit
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

    /// `tls.pinSource` in `--json`: the option a pin came from (`tls-fingerprint`, `trust`), else
    /// the library's name (`setup-code`, `registry`); the strings clawpair-probe(1) documents.
    static func pinSourceName(_ source: ProbeRoute.PinSource) -> String {
        switch source {
        case .caller: return "tls-fingerprint"
        case .trust: return "trust"
        case .setupCode, .registry: return source.name
        }
    }

    static func printText(_ report: ProbeReport, showAll: Bool, context: CommandContext) {
        let lines = report.textLines(showAll: showAll, quiet: context.globals.quiet, paint: context.style.paint,
                                     describeTrust: trustText)
        for line in lines { context.print(line) }
        // Untrusted certificates: say how to accept them, on stderr (even when another route won).
        for line in report.trustAdvice(acceptCommand: trustCommand) { context.note(line) }
    }

    /// How the certificate was accepted; a pin from `--trust` says so.
    static func trustText(_ result: ProbeResult) -> String {
        result.trust == .pinned && result.route.pinSource == .trust ? "confirmed with --trust" : result.trustDescription
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
}
