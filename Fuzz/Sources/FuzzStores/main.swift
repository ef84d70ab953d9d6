// libFuzzer target: the two readers of files on disk that hold secrets (issue #25, "Done when"):
// a paired-gateways registry record read the way `GatewayRegistry` reads it (key-file checks,
// the 64 KiB cap, the JSON record reader), and OpenClaw's SQLite state store read by
// `OpenClawStateStore` (header check, views refused, every query bounded by steps and time).
// The input is written as a record file and as a store file in a private directory; neither read
// may trap or hang (libFuzzer's -timeout catches a query that escapes its bounds). A record that
// is read back re-serializes to one that parses equal and can be written again (it is within the
// size the registry reads).
#if canImport(Glibc)
import Glibc
#endif
import CFuzzerDriver
import ClawpairGateway
import ClawpairIdentity

/// The process entry point: SwiftPM links `main` as `<Module>_main`; libFuzzer takes over from here.
@_cdecl("FuzzStores_main")
public func fuzzStoresMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzStores(data, size) }
}

/// A private directory for this process's files, made once.
private let workDirectory: String = {
    var template = Array("/tmp/clawpair-fuzz-stores-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(made != nil, "mkdtemp")
    return String(cString: template)
}()

private func writeFile(_ path: String, _ bytes: [UInt8]) {
    unlink(path)
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    precondition(fd >= 0, "open \(path)")
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
        precondition(n > 0, "write")
        offset += n
    }
    close(fd)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStores(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))

    // The registry: one record file with the id the seed records use.
    let registryDirectory = workDirectory + "/gateways"
    mkdir(registryDirectory, 0o700)
    let recordPath = registryDirectory + "/gw-0123456789abcdef.json"
    writeFile(recordPath, bytes)
    let registry = GatewayRegistry(directory: registryDirectory)
    let snapshot = registry.snapshot()
    precondition(snapshot.gateways.count + snapshot.problems.count == 1, "a record file is either read or reported")
    if let record = snapshot.gateways.first {
        precondition(record.id == "gw-0123456789abcdef", "the record's id is its file name")
        guard let again = try? PairedGateway(json: record.json) else { preconditionFailure("a read record re-parses") }
        precondition(again == record, "a read record round-trips")
    }
    unlink(recordPath)

    // The state store, with no -wal beside it (opened immutable: nothing is created).
    let storePath = workDirectory + "/openclaw.sqlite"
    writeFile(storePath, bytes)
    _ = try? OpenClawStateStore.read(path: storePath, defaultCreatedAtMs: 0)
    unlink(storePath)
    var leftovers = 0
    for suffix in ["-wal", "-shm", "-journal"] where access(storePath + suffix, F_OK) == 0 { leftovers += 1 }
    precondition(leftovers == 0, "reading the store created a file beside it")
    return 0
}
