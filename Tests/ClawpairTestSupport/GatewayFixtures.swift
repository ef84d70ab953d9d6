import Foundation
#if canImport(Glibc)
import Glibc
#endif

// Fixtures shared by the transport and probe tests: self-signed certificates made with the
// openssl CLI, and the Python WebSocket test gateway (Tests/Fixtures/test_gateway_ws.py).

/// A failure in a test fixture, with what went wrong.
public struct TestError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A self-signed certificate made with the openssl CLI, and its SHA-256 fingerprint.
public struct TestCertificate: Sendable {
    public let directory: String
    public let certificate: String
    public let key: String
    public let fingerprint: String

    public static func make(commonName: String = "openclaw-gateway", subjectAltName: String = "IP:127.0.0.1") async throws -> TestCertificate {
        let directory = NSTemporaryDirectory() + "clawpair-cert-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let cert = directory + "/cert.pem", key = directory + "/key.pem"
        try await Subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "2",
                                  "-subj", "/CN=\(commonName)", "-addext", "subjectAltName=\(subjectAltName)",
                                  "-keyout", key, "-out", cert]).requireSuccess()
        let output = try await Subprocess.run(["openssl", "x509", "-in", cert, "-noout", "-fingerprint", "-sha256"]).requireSuccess().stdout
        let hex = output.split(separator: "=").last.map { $0.filter { $0.isHexDigit }.lowercased() } ?? ""
        return TestCertificate(directory: directory, certificate: cert, key: key, fingerprint: hex)
    }

    public func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

/// Starts `Tests/Fixtures/test_gateway_ws.py` on loopback and returns it with its port.
public func startFixtureServer(mode: String, host: String = "127.0.0.1", certificate: TestCertificate? = nil) async throws -> (ChildProcess, Int) {
    var command = [Harness.python3, Harness.fixturesDirectory.appendingPathComponent("test_gateway_ws.py").path,
                   "--mode", mode, "--host", host]
    if let certificate { command += ["--cert", certificate.certificate, "--key", certificate.key] }
    let child = try Subprocess.spawn(command)
    let line = try await child.waitForLine(containing: "ready", on: .stdout, timeout: .seconds(20))
    guard let port = line.split(separator: " ").last.flatMap({ Int($0) }) else { throw TestError("bad ready line \(line)") }
    return (child, port)
}

/// Runs `body` with a fixture server's port and always stops the server afterwards.
public func withFixtureServer<T>(mode: String, host: String = "127.0.0.1", certificate: TestCertificate? = nil,
                          _ body: (Int) async throws -> T) async throws -> T {
    let (server, port) = try await startFixtureServer(mode: mode, host: host, certificate: certificate)
    do {
        let value = try await body(port)
        _ = await server.terminate(grace: .seconds(2))
        return value
    } catch {
        _ = await server.terminate(grace: .seconds(2))
        throw error
    }
}

