import ClawpairCore
import Foundation
import ClawpairIdentity
import ClawpairSetupCode
import ClawpairTestSupport
import Testing
@testable import ClawpairGateway

/// Join URLs: what counts as one (upstream's `parseJoinTarget` rules), what each answer of the
/// gateway's `/j/` route means, and one real redemption against the stand-in gateway.
@Suite("Join URLs")
struct JoinURLTests {
    static let code = "AbCdEfGhIjKlMnOpQrStUv"

    @Test("https anywhere, http only to loopback; the path ends in exactly /j/<22 characters>")
    func parse() throws {
        let url = try #require(try JoinURL.parse("  https://gw.example.com/ctx/j/\(Self.code)\n"))
        #expect(url.host == "gw.example.com" && url.port == 443 && url.tls && url.path == "/ctx/j/\(Self.code)")
        #expect(url.origin == "https://gw.example.com:443")
        let loopback = try #require(try JoinURL.parse("http://127.0.0.1:18789/j/\(Self.code)"))
        #expect(!loopback.tls && loopback.port == 18789)
        #expect(try JoinURL.parse("http://[::1]/j/\(Self.code)")?.port == 80)
        #expect(throws: JoinURL.ParseError.plaintext(host: "192.168.1.5")) { try JoinURL.parse("http://192.168.1.5:18789/j/\(Self.code)") }
        for bad in ["https://gw/j/\(Self.code)?x=1", "https://gw/j/\(Self.code)#f", "https://user@gw/j/\(Self.code)",
                    "https://gw/j/short", "https://gw/j/\(Self.code)/", "https://gw/j/\(Self.code)x", "https://gw/j/AbCdEfGhIjKlMnOpQrSt.v"] {
            #expect(throws: JoinURL.ParseError.malformed, "\(bad)") { try JoinURL.parse(bad) }
        }
        // Not join URLs at all: gateway URLs and setup codes go their own way.
        for other in ["wss://gw.example.com/j/\(Self.code)", "https://gw.example.com:18789", "https://gw/jobs/x", "eyJ1cmwiOiJ3czovL3gifQ"] {
            #expect(try JoinURL.parse(other) == nil, "\(other)")
        }
    }

    struct Answering: JoinFetching {
        let answer: JoinHTTPResponse
        func get(_ url: JoinURL, timeout: Duration) throws(JoinError) -> JoinHTTPResponse { answer }
    }

    static func redeem(_ answer: JoinHTTPResponse) -> Result<DecodedSetup, JoinError> {
        let url = try! JoinURL.parse("https://gw.example.com/j/\(Self.code)")!
        do {
            return .success(try JoinRedemption.redeem(url, fetcher: Answering(answer: answer)))
        } catch {
            return .failure(error)
        }
    }

    @Test("200 JSON is the setup payload; 404, 429, redirects, other types and bad payloads each say so")
    func answers() throws {
        let payload = #"{"url":"wss://gw.example.com:443","bootstrapToken":"bootstrap-0123456789abcdef","expiresAtMs":1900000000000}"#
        let ok = try Self.redeem(JoinHTTPResponse(status: 200, contentType: "application/json; charset=utf-8", body: Array(payload.utf8))).get()
        #expect(ok.bootstrapToken == "bootstrap-0123456789abcdef" && ok.endpoints.first?.host == "gw.example.com" && ok.endpoints.first?.tls == true)

        #expect(Self.redeem(JoinHTTPResponse(status: 404, contentType: "application/json", body: Array(#"{"error":"not_found"}"#.utf8)))
                == .failure(.notFound(origin: "https://gw.example.com:443")))
        #expect(JoinError.notFound(origin: "https://gw").hint?.contains("mint another") == true)
        #expect(Self.redeem(JoinHTTPResponse(status: 429, retryAfterSeconds: 30)) == .failure(.rateLimited(retryAfterSeconds: 30)))
        #expect(Self.redeem(JoinHTTPResponse(status: 302)) == .failure(.unexpectedAnswer(status: 302, contentType: nil)))
        #expect(Self.redeem(JoinHTTPResponse(status: 200, contentType: "text/html", body: Array(payload.utf8)))
                == .failure(.unexpectedAnswer(status: 200, contentType: "text/html")))
        guard case .failure(.invalidPayload) = Self.redeem(JoinHTTPResponse(status: 200, contentType: "application/json", body: Array("[1]".utf8))) else {
            Issue.record("an array is no payload"); return
        }
        guard case .failure(.invalidPayload) = Self.redeem(JoinHTTPResponse(status: 200, contentType: "application/json",
                                                                            body: Array(#"{"bootstrapToken":"x"}"#.utf8))) else {
            Issue.record("a payload without url"); return
        }
        let huge = JoinHTTPResponse(status: 200, contentType: "application/json", body: Array(repeating: 0x20, count: JoinURL.maxBodyBytes + 1))
        #expect(Self.redeem(huge) == .failure(.tooLarge))
    }

    @Test("pair's input: a target file is read and removed, a code file kept, - reads standard input, an argument is in argv")
    func readTarget() throws {
        let directory = NSTemporaryDirectory() + "clawpair-target-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = directory + "/target", code = directory + "/code"
        try " https://gw/j/\(Self.code)\n".write(toFile: target, atomically: true, encoding: .utf8)
        try "CODE\n".write(toFile: code, atomically: true, encoding: .utf8)
        let none: (Int) throws -> [UInt8] = { _ in Issue.record("standard input read"); return [] }
        #expect(try JoinRedemption.readTarget(argument: nil, codeFile: nil, targetFile: target, standardInput: none) == ("https://gw/j/\(Self.code)", false))
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(try JoinRedemption.readTarget(argument: nil, codeFile: code, targetFile: nil, standardInput: none) == ("CODE", false))
        #expect(FileManager.default.fileExists(atPath: code))
        var asked = 0
        let piped = try JoinRedemption.readTarget(argument: "-", codeFile: nil, targetFile: nil) { limit in
            asked = limit
            return Array("piped\n".utf8)
        }
        #expect(piped == ("piped", false) && asked == JoinRedemption.maxCodeBytes)
        #expect(try JoinRedemption.readTarget(argument: "ws://h:1", codeFile: nil, targetFile: nil, standardInput: none) == ("ws://h:1", true))
    }

    @Test("a target file that holds no join URL or setup code is kept, and the error says why (#25.8)")
    func targetFileCheckedBeforeRemoval() throws {
        let directory = NSTemporaryDirectory() + "clawpair-target-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = directory + "/target"
        try "this is not a setup code\n".write(toFile: target, atomically: true, encoding: .utf8)
        #expect(throws: (any Error).self) {
            try JoinRedemption.readTarget(argument: nil, codeFile: nil, targetFile: target) { _ in [] }
        }
        #expect(FileManager.default.fileExists(atPath: target), "the file is not deleted before it is checked")
    }

    /// Records the timeout each fetch was given.
    final class Recording: JoinFetching, @unchecked Sendable {
        var timeouts: [Duration] = []
        func get(_ url: JoinURL, timeout: Duration) throws(JoinError) -> JoinHTTPResponse {
            timeouts.append(timeout)
            return JoinHTTPResponse(status: 404, contentType: "application/json", body: Array(#"{"error":"not_found"}"#.utf8))
        }
    }

    @Test("the join-URL fetch gets the pairing's timeout, at most JoinURL.timeout (#25.13)")
    func joinFetchFollowsTimeout() {
        let recording = Recording()
        let url = "https://gw.example.com/j/\(Self.code)"
        _ = try? JoinRedemption.setup(from: url, fetcher: recording, timeout: .seconds(2))
        _ = try? JoinRedemption.setup(from: url, fetcher: recording, timeout: .seconds(600))
        _ = try? JoinRedemption.setup(from: url, fetcher: recording)
        #expect(recording.timeouts == [.seconds(2), JoinURL.timeout, JoinURL.timeout])
    }

    @Test("against the stand-in gateway: minted by device.pair.setupCode joinUrl, fetched once over loopback http, then gone")
    func loopbackRedemption() async throws {
        let token = "join-test-token-0123456789"
        try await withTestGateway(TestGatewayOptions(token: token)) { gateway in
            let client = try GatewayClient(endpoint: try GatewayEndpoint(parsing: gateway.url))
            defer { client.close() }
            try client.open(timeout: .seconds(5))
            try client.connect(ConnectRequest(client: .operatorCLI(version: "test", platform: "Linux"), role: .operator,
                                              scopes: ConnectRequest.operatorScopes, auth: ConnectAuth(token: token)),
                               identity: try DeviceIdentity.generate(createdAtMs: 0), timeout: .seconds(5))
            let minted = try client.call("device.pair.setupCode", params: .object([("bootstrapProfile", "node"), ("joinUrl", true),
                                                                                   ("includeQr", false)]), timeout: .seconds(5))
            let text = try #require(minted["joinUrl"]?.stringValue)
            let url = try #require(try JoinURL.parse(text))
            #expect(text.hasPrefix("http://127.0.0.1:\(gateway.port)/j/"))
            let setup = try JoinRedemption.redeem(url)
            #expect(setup.bootstrapToken != nil)
            #expect(setup.endpoints.first?.url == gateway.url)
            #expect(throws: JoinError.notFound(origin: url.origin)) { try JoinRedemption.redeem(url) }
            #expect(try await gateway.waitForLog("join")["ok"] as? Bool == true)
            #expect(try await gateway.waitForLog("join", occurrence: 2)["ok"] as? Bool == false)
        }
    }
}
