// A helper for GatewayRegistryRaceTests: one of two processes changing the same registry at
// once. It waits for its byte from the FIFO GO, which the test writes once both run (so both
// start together), then runs its rounds.
//
//   registry-race commit DIR GO ID ROLE ROUNDS   each round: store the token "<ROLE>-<n>" and add
//                                                the URL ws://<ROLE>-<n>.invalid:1 to record ID
//   registry-race churn  DIR GO ROUNDS           each round: add the record gw-<n> (n = 1…ROUNDS)
//                                                and forget it; at the end, create GO.done
//   registry-race touch  DIR GO ROUNDS           until GO.done exists: read each gw-<n>, then set its
//                                                lastSeen the way `clawpair` does after a connect

#if canImport(Glibc)
import Glibc
#endif
import ClawpairGateway

func fail(_ message: String) -> Never {
    let line = Array("registry-race: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

func id(_ n: Int) -> String {
    let hex = String(n, radix: 16)
    return "gw-" + String(repeating: "0", count: 16 - hex.count) + hex
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3, let rounds = Int(arguments.last!) else { fail("usage: see Tests/RegistryRace/main.swift") }
let registry = GatewayRegistry(directory: arguments[1])
// The start line: one byte from the FIFO GO, which the test holds open for writing (so this
// open does not block) and writes to once both processes run. Bounded: no byte is a test
// failure, not a hang.
let start = open(arguments[2], O_RDONLY | O_NONBLOCK)
guard start >= 0 else { fail("cannot open \(arguments[2]): errno \(errno)") }
var go = pollfd(fd: start, events: Int16(POLLIN), revents: 0)
var ready: Int32
repeat { ready = poll(&go, 1, 300_000) } while ready == -1 && errno == EINTR
var byte: UInt8 = 0
guard ready == 1, read(start, &byte, 1) == 1 else { fail("no start byte from \(arguments[2]) within 300 s") }
close(start)

do {
    switch arguments[0] {
    case "commit" where arguments.count == 6:
        let (record, role) = (arguments[3], arguments[4])
        for n in 0..<rounds {
            let written = try registry.update(id: record) { gateway in
                gateway.store(StoredDeviceToken(token: "\(role)-\(n)", role: role, scopes: [], issuedAtMs: Int64(n)))
                gateway.urls.append("ws://\(role)-\(n).invalid:1")
            }
            if written == nil { fail("record \(record) is gone") }
        }
    case "churn" where arguments.count == 4:
        for n in 1...rounds {
            let gateway = PairedGateway(id: id(n), name: "churn-\(n)", urls: ["ws://10.0.0.\(n % 250 + 1):18789"], deviceId: "d", pairedAtMs: 1)
            try registry.save(gateway)
            usleep(2000)  // part of the scenario, not a wait: the record lives a moment, for the toucher to find it
            try registry.forget(gateway)
        }
        close(open(arguments[2] + ".done", O_WRONLY | O_CREAT, 0o600))
    case "touch" where arguments.count == 4:
        var touched = 0
        while access(arguments[2] + ".done", F_OK) != 0 {
            for n in 1...rounds {
                guard let seen = registry.snapshot().gateway(id: id(n)) else { continue }
                if try registry.update(id: seen.id, { $0.lastSeenAtMs = Int64(n) }) != nil { touched += 1 }
            }
            usleep(200)  // part of the scenario: flock is not fair, and a loop that never pauses could starve churn
        }
        print("touched \(touched)")
    default:
        fail("usage: see Tests/RegistryRace/main.swift")
    }
} catch {
    fail(error.message)
}
