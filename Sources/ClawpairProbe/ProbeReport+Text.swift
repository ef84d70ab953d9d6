// A probe run for people (clawpair-probe(1)): the verdict, the winner's timings and TLS facts, a
// table of every route, and advice for untrusted certificates. Colour is the caller's: each
// marked part goes through `paint`. Every string from the network or the user is sanitized.
import ClawpairCore

/// What a part of the text report is (``TextRole/good`` a passed route, ``TextRole/bad`` the
/// `unreachable` verdict, ``TextRole/warning`` a reason code, ``TextRole/dim`` secondary lines and
/// `cancelled`, ``TextRole/bold`` the winning URL).
public typealias ProbeTextRole = TextRole

extension ProbeResult {
    /// How the certificate was accepted, in words (`pinned by the setup code`, `trusted on first use`…).
    public var trustDescription: String {
        switch trust {
        case .pinned?:
            switch route.pinSource {
            case .setupCode?: return "pinned by the setup code"
            case .trust?: return "confirmed by the user"
            case .registry?: return "pinned to the fingerprint stored when it was paired"
            default: return "pinned"
            }
        case .system?: return "trusted by the system roots"
        case .trustedOnFirstUse?: return "trusted on first use"
        case .unverified?: return "not verified"
        case nil: return "not accepted"
        }
    }
}

extension ProbeReport {
    static func clean(_ text: String) -> String { TerminalText.sanitize(text, maxScalars: 512) }

    /// The report's lines: the winner (its URL only when `quiet`) or the unreachable verdict
    /// (nothing when `quiet`), then the table of every route when `showAll` or when nothing passed
    /// (not when `quiet`). `describeTrust` words how the winner's certificate was accepted.
    public func textLines(showAll: Bool, quiet: Bool, paint: (ProbeTextRole, String) -> String = { $1 },
                          describeTrust: (ProbeResult) -> String = { $0.trustDescription }) -> [String] {
        var lines: [String] = []
        if let winner = winningResult {
            if quiet {
                lines.append(Self.clean(winner.route.url))
            } else {
                var notes = ["route \(winner.index + 1) of \(results.count)"]
                if let started = winner.timings.started { notes.append("started +\(Self.text(started))") }
                if winner.route.input != winner.route.url { notes.append("from \(Self.clean(winner.route.input))") }
                lines.append(paint(.good, "reachable") + "  " + paint(.bold, Self.clean(winner.route.url))
                             + "  (" + notes.joined(separator: ", ") + ")")
                lines.append("  " + winner.timings.summary)
                var facts: [String] = []
                if let address = winner.address { facts.append("address \(address)") }
                if let version = winner.tlsVersion { facts.append(version) }
                if let fingerprint = winner.certificate?.fingerprint {
                    facts.append("sha256 \(fingerprint) (\(describeTrust(winner)))")
                }
                if !facts.isEmpty { lines.append("  " + facts.joined(separator: "  ")) }
            }
        } else if !quiet {
            lines.append(paint(.bad, "unreachable") + "  " + failureSummary + " (\(results.count) route"
                         + (results.count == 1 ? "" : "s") + ", \(Self.text(elapsed)))")
        }
        if showAll || (winner == nil && !quiet) {
            if winner != nil { lines.append("") }
            lines += tableLines(paint: paint)
        }
        return lines
    }

    /// One row per route (mark, number, URL, outcome, phase, start, total), each followed by its
    /// failure, its timings when it passed, and the label of a setup-code or discovered route.
    public func tableLines(paint: (ProbeTextRole, String) -> String = { $1 }) -> [String] {
        let urls = results.map { Self.clean($0.route.url) }
        let width = min(48, max(5, urls.map(TerminalText.displayWidth).max() ?? 5))
        func pad(_ s: String, _ n: Int) -> String { TerminalText.padded(s, to: n) }
        var lines: [String] = []
        for (i, result) in results.enumerated() {
            let outcome = result.outcome
            let mark = winner == i ? paint(.good, "✓") : " "
            let role: ProbeTextRole = outcome == "reachable" ? .good : (outcome == "cancelled" ? .dim : .warning)
            let started = result.timings.started.map { "+" + Self.text($0) } ?? "-"
            lines.append("\(mark) \(pad(String(i + 1), 2)) \(pad(urls[i], width))  \(paint(role, pad(outcome, 13))) "
                         + "\(pad(result.phase.rawValue, 9)) started \(pad(started, 9)) total \(Self.text(result.timings.total))")
            if let failure = result.failure, outcome != "cancelled" { lines.append("       " + paint(.dim, Self.clean(failure.message))) }
            if result.reachable { lines.append("       " + paint(.dim, result.timings.summary)) }
            switch result.route.source {
            case .setupCode, .discovered:
                // The label says which setup code route, or which discovered gateway, this is.
                lines.append("       " + paint(.dim, Self.clean(result.route.input)))
            case .url, .hostPort, .setupCodeDropped:
                break
            }
        }
        return lines
    }

    /// For each route whose certificate was not trusted (even when another route won): its
    /// fingerprint, how to compare it with the gateway's own, and `acceptCommand`'s command that
    /// accepts it.
    public func trustAdvice(acceptCommand: (ProbeResult) -> String?) -> [String] {
        var lines: [String] = []
        for result in results {
            guard let command = acceptCommand(result), case .tlsUntrusted(let observed?, let reason) = result.failure else { continue }
            lines.append("")
            lines.append("The certificate of \(Self.clean(result.route.url)) is not trusted"
                         + (reason.map { " (\(Self.clean($0)))" } ?? "") + ". Its SHA-256 fingerprint is")
            lines.append("  \(observed)")
            lines.append("Compare it with the gateway's own (on the gateway host: openssl x509 -noout -fingerprint "
                         + "-sha256 -in ~/.openclaw/gateway/tls/gateway-cert.pem); if it matches, accept it with:")
            lines.append("  \(Self.clean(command))")
        }
        return lines
    }
}
