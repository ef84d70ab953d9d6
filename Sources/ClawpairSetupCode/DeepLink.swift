// `openclaw://gateway?host=H&port=P&tls=1&token=T&password=W` setup links (`setup-codes.md`
// §3.1 #4), also under the `openclaw-debug://` scheme.
//
// The query is split on `&`, names and values percent-decoded once (`+` stays `+`, as Foundation's
// `URLComponents.queryItems` leaves it); items without `=` are ignored; a repeated name keeps its
// last value. Only `openclaw://gateway` with an empty or `/` path is setup input:
// `openclaw://gateway/add?url=…` (add a gateway address) and `openclaw://agent?…` are other intents.

import ClawpairCore

enum DeepLink {
    /// The most query items read from a link.
    static let maxQueryItems = 64
    /// Accepted schemes (case-insensitive).
    static let schemes = ["openclaw://", "openclaw-debug://"]

    static func hasDeepLinkScheme(_ text: String) -> Bool {
        schemes.contains { TextRules.hasPrefixASCIICaseInsensitive(text, $0) }
    }

    /// NSString `boolValue`: after spaces and one sign and leading zeros, `Y`/`y`/`T`/`t`/`1`–`9` is true.
    static func foundationBool(_ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        while let c = bytes.first, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { bytes = bytes.dropFirst() }
        if let c = bytes.first, c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        while bytes.first == UInt8(ascii: "0") { bytes = bytes.dropFirst() }
        guard let c = bytes.first else { return false }
        return "YyTt123456789".utf8.contains(c)
    }

    /// Splits a link into its lowercase authority, path and decoded query items.
    static func components(_ text: String) throws(SetupCodeError) -> (authority: String, path: String, query: [String: String]) {
        let bytes = Array(text.utf8)
        guard let scheme = schemes.first(where: { TextRules.hasPrefixASCIICaseInsensitive(text, $0) }) else {
            throw .notAPayload("not an openclaw:// link")
        }
        var i = scheme.utf8.count
        let authorityStart = i
        while i < bytes.count, ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(bytes[i]) { i += 1 }
        let authority = String(decoding: bytes[authorityStart..<i].map(TextRules.lowerASCII), as: UTF8.self)
        let pathStart = i
        while i < bytes.count, bytes[i] != UInt8(ascii: "?"), bytes[i] != UInt8(ascii: "#") { i += 1 }
        let path = String(decoding: bytes[pathStart..<i], as: UTF8.self)
        var query: [String: String] = [:]
        if i < bytes.count, bytes[i] == UInt8(ascii: "?") {
            i += 1
            let queryStart = i
            while i < bytes.count, bytes[i] != UInt8(ascii: "#") { i += 1 }
            let items = bytes[queryStart..<i].split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true)
            guard items.count <= maxQueryItems else {
                throw .notAPayload("the link has more than \(maxQueryItems) query parameters")
            }
            for item in items {
                guard let eq = item.firstIndex(of: UInt8(ascii: "=")) else { continue }
                guard let name = TextRules.decodeUTF8(TextRules.percentDecode(Array(item[..<eq]))),
                      let value = TextRules.decodeUTF8(TextRules.percentDecode(Array(item[(eq + 1)...]))) else {
                    throw .notAPayload("the link's query is not valid UTF-8 after percent-decoding")
                }
                query[name] = value
            }
        }
        return (authority, path, query)
    }

    static func interpret(_ text: String, nowMs: Int64?) throws(SetupCodeError) -> DecodedSetup {
        let (authority, path, query) = try components(text)
        guard authority == "gateway" else {
            throw .notAPayload("openclaw://\(authority) links are not setup input (only openclaw://gateway?host=…)")
        }
        guard path.isEmpty || path == "/" else {
            throw .notAPayload("openclaw://gateway\(path) links carry a gateway address, not setup credentials")
        }
        guard let hostParam = query["host"], !TextRules.jsTrim(hostParam).isEmpty else {
            throw .noEndpoint(dropped: [])
        }
        let tls = query["tls"].map(foundationBool) ?? false
        var port: Int? = nil
        if let portText = query["port"] {
            var digits = Array(portText.utf8)[...]
            if digits.first == UInt8(ascii: "+") { digits = digits.dropFirst() }
            guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy(TextRules.isASCIIDigit),
                  let value = Int(String(decoding: digits, as: UTF8.self)), value >= 1, value <= 65535 else {
                throw .invalidField(name: "port", expected: "an integer from 1 to 65535")
            }
            port = value
        }
        guard let parsedHost = SetupCode.canonicalHost(hostParam) else {
            throw .noEndpoint(dropped: [DroppedRoute(route: hostParam, reason: .invalidURL)])
        }
        let endpoint = SetupEndpoint(host: parsedHost.bareForm, explicitPort: port, tls: tls)
        guard tls || PlaintextPolicy.allowsPlaintext(host: endpoint.host) else {
            throw .insecurePlaintextHost(host: endpoint.host)
        }
        let token = query["token"]
        let password = query["password"]
        return DecodedSetup(form: .deepLink, generation: .deepLink, primary: endpoint, fallbacks: [], dropped: [],
                            tlsFingerprint: nil, expiresAtMs: nil, bootstrapToken: nil, token: token,
                            password: password, payload: nil,
                            strictCheck: .rejected(reason: "an openclaw://gateway link is not a setup code"),
                            accessHint: (token != nil || password != nil) ? .sharedSecret : .noCredentials, notes: [])
    }
}
