import ClawpairDiscovery
import Foundation
import Testing

@Suite struct FullModeDefaultsTests {
    @Test func sshPortFromTheEnvironmentElse22() {
        #expect(BeaconIdentity.defaultSSHPort(environment: [:]) == 22)
        #expect(BeaconIdentity.defaultSSHPort(environment: ["OPENCLAW_SSH_PORT": "2222"]) == 2222)
        #expect(BeaconIdentity.defaultSSHPort(environment: ["OPENCLAW_SSH_PORT": "99999"]) == 22)
        #expect(BeaconIdentity.defaultSSHPort(environment: ["OPENCLAW_SSH_PORT": "ssh"]) == 22)
    }

    @Test func cliPathIsTheFirstExecutableOnPath() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("clawpair-path-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        let plain = root.appendingPathComponent("plain"), exec = root.appendingPathComponent("exec")
        for directory in [plain, exec] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        let notExecutable = plain.appendingPathComponent("openclaw").path
        let executable = exec.appendingPathComponent("openclaw").path
        #expect(FileManager.default.createFile(atPath: notExecutable, contents: Data(), attributes: [.posixPermissions: 0o644]))
        #expect(FileManager.default.createFile(atPath: executable, contents: Data(), attributes: [.posixPermissions: 0o755]))
        let path = "relative:\(plain.path):\(exec.path)"
        #expect(BeaconIdentity.defaultCLIPath(environment: ["PATH": path]) == executable)
        #expect(BeaconIdentity.defaultCLIPath(environment: ["PATH": plain.path]) == nil)
        #expect(BeaconIdentity.defaultCLIPath(environment: [:]) == nil)
    }
}
