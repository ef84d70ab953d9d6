// The paired-gateways registry for people and for `--json` (`clawpair gateways list/use`): never
// a token value. Colour is the caller's: each marked part goes through `paint`.
import ClawpairCore

extension PairedGateway {
    /// The record without token values: `{id, name, active, urls, tlsFingerprint, deviceId,
    /// tokens: [{role, scopes, issuedAtMs}], pairedAtMs, lastSeenAtMs}`.
    public func publicJSON(active: Bool) -> JSONValue {
        .object([
            ("id", .string(id)), ("name", .string(name)), ("active", .bool(active)),
            ("urls", .array(urls.map(JSONValue.string))),
            ("tlsFingerprint", tlsFingerprint.map(JSONValue.string) ?? .null),
            ("deviceId", .string(deviceId)),
            ("tokens", .array(tokens.map { token in
                .object([("role", .string(token.role)), ("scopes", .array(token.scopes.map(JSONValue.string))),
                         ("issuedAtMs", token.issuedAtMs.map(JSONValue.int) ?? .null)])
            })),
            ("pairedAtMs", .int(pairedAtMs)),
            ("lastSeenAtMs", lastSeenAtMs.map(JSONValue.int) ?? .null),
        ])
    }

    /// The record for people: `* name  id` (`*` when `active`, the name ``TextRole/bold``, the id
    /// ``TextRole/dim``), then its URLs, TLS pin, the roles tokens are held for with their scopes
    /// (never the tokens), the device id's start, and when it was paired and last seen (ages at `nowMs`).
    public func textLines(active: Bool, nowMs: Int64, paint: (TextRole, String) -> String = { $1 }) -> [String] {
        let tokenText = tokens.map { $0.role + ($0.scopes.isEmpty ? "" : " (\($0.scopes.joined(separator: ",")))") }
        let rows: [(String, String)] = [
            ("urls", urls.map { TerminalText.sanitize($0, maxScalars: 300) }.joined(separator: ", ")),
            ("tls pin", tlsFingerprint ?? "-"),
            ("tokens", tokens.isEmpty ? "-" : tokenText.joined(separator: ", ")),
            ("device", String(deviceId.prefix(16)) + "…"),
            ("paired", FieldText.age(pairedAtMs, now: nowMs)),
            ("last seen", FieldText.age(lastSeenAtMs, now: nowMs)),
        ]
        let title = (active ? "* " : "  ") + paint(.bold, TerminalText.sanitize(name, maxScalars: 80)) + "  " + paint(.dim, id)
        return [title] + rows.map { "    " + paint(.dim, FieldText.label($0.0, width: 10)) + $0.1 }
    }
}

extension RegistrySnapshot {
    /// `{"active": id or null, "gateways": [PairedGateway.publicJSON...]}`: no token value.
    public var publicJSON: JSONValue {
        .object([("active", activeID.map(JSONValue.string) ?? .null),
                 ("gateways", .array(gateways.map { $0.publicJSON(active: $0.id == activeID) }))])
    }

    /// The gateways' names for shell completion: sorted, sanitized, names with a line break left out.
    public var completionNames: [String] {
        gateways.map(\.name).sorted().filter { !$0.contains("\n") }.map { TerminalText.sanitize($0, maxScalars: 80) }
    }

    /// Every gateway's ``PairedGateway/textLines(active:nowMs:paint:)``, a blank line between two;
    /// none for an empty registry.
    public func textLines(nowMs: Int64, paint: (TextRole, String) -> String = { $1 }) -> [String] {
        var lines: [String] = []
        for gateway in gateways {
            if !lines.isEmpty { lines.append("") }
            lines += gateway.textLines(active: gateway.id == activeID, nowMs: nowMs, paint: paint)
        }
        return lines
    }
}
