import ClawpairTestSupport
import Foundation
import Glibc

// Fixture helpers for the probe's loopback tests (the same shapes as ClawpairTransportTests').

struct TestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A self-signed certificate made with the openssl CLI, and its SHA-256 fingerprint.
struct TestCertificate {
    let directory: String
    let certificate: String
    let key: String
    let fingerprint: String

    static func make(commonName: String = "openclaw-gateway", subjectAltName: String = "IP:127.0.0.1") async throws -> TestCertificate {
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

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

/// Starts `Tests/Fixtures/test_gateway_ws.py` on loopback and returns it with its port.
func startFixtureServer(mode: String, host: String = "127.0.0.1", certificate: TestCertificate? = nil) async throws -> (ChildProcess, Int) {
    var command = [Harness.python3, Harness.fixturesDirectory.appendingPathComponent("test_gateway_ws.py").path,
                   "--mode", mode, "--host", host]
    if let certificate { command += ["--cert", certificate.certificate, "--key", certificate.key] }
    let child = try Subprocess.spawn(command)
    let line = try await child.waitForLine(containing: "ready", on: .stdout, timeout: .seconds(20))
    guard let port = line.split(separator: " ").last.flatMap({ Int($0) }) else { throw TestError("bad ready line \(line)") }
    return (child, port)
}

/// Runs `body` with a fixture server's port and always stops the server afterwards.
func withFixtureServer<T>(mode: String, host: String = "127.0.0.1", certificate: TestCertificate? = nil,
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

