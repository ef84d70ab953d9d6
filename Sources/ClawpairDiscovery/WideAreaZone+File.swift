// Writing the zone file in place: read the previous file (for its serial and content hash),
// refuse to replace a file this writer did not make, write atomically only when the records
// changed. This is the whole of what `clawpair zone` does with a file, for any program that
// publishes a gateway's wide-area beacon.

#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore
import ClawpairDNS

/// Why a zone file was not written.
public enum ZoneFileError: ClawpairError, Equatable {
    /// The file exists and has no content-hash header: it is not a zone written by clawpair or
    /// OpenClaw, and replacing it was not allowed.
    case notOurZone(path: String)

    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case let .notOurZone(path): return "\(path) exists and is not a zone written by clawpair or OpenClaw"
        }
    }
}

/// One record line of a zone, split into its fields.
public struct ZoneRecordLine: Sendable, Hashable {
    /// The owner name, relative to the origin (`@` for the origin itself).
    public let name: String
    /// The record type, e.g. `SRV`.
    public let type: String
    /// The record data in zone-file syntax.
    public let data: String
}

extension WideAreaZone {
    /// The largest previous zone file read; ours are well under 2 KiB.
    public static let maxExistingFileBytes = 1 << 20

    /// The text of the zone file at `path`, or nil when there is none. Refuses anything but a
    /// regular file and anything larger than `maxExistingFileBytes`.
    public static func readExisting(_ path: String) throws -> String? {
        var info = stat()
        if stat(path, &info) != 0 {
            if errno == ENOENT { return nil }
            throw SystemError(call: "stat", errno: errno, path: path)
        }
        return String(decoding: try FileIO.read(path: path, limit: maxExistingFileBytes), as: UTF8.self)
    }

    /// Brings the zone file at `path` up to date with `options` and says what it did.
    ///
    /// When the file's content hash matches the records, it is left alone (`changed` is false);
    /// otherwise it is replaced atomically (temporary file, fsync, rename; mode 0644, a zone is
    /// public) with the next serial after its own. A file without the content-hash header is
    /// replaced only when `replacingForeign` is true, else `ZoneFileError.notOurZone` is thrown.
    /// System failures name `path`, never the temporary file beside it.
    public static func write(_ options: WideAreaZoneOptions, to path: String, replacingForeign: Bool,
                             nowMs: Int64) throws -> ZoneUpdate {
        let existing = try readExisting(path)
        if let existing, !isOurZone(existing), !replacingForeign {
            throw ZoneFileError.notOurZone(path: path)
        }
        let update = update(options, existing: existing, nowMs: nowMs)
        guard update.changed else { return update }
        do {
            try AtomicFile.write(Array(update.text.utf8), to: path, mode: 0o644, replacing: true)
        } catch {
            if case let .system(failure) = error { throw SystemError(call: failure.call, errno: failure.errno, path: path) }
            throw error
        }
        return update
    }

    /// What is worth saying about options that make a valid zone but perhaps not the intended
    /// one: an IPv4 address outside the tailnet range (100.64.0.0/10), and a host or instance
    /// label written differently from how it was given. One sentence each, in that order.
    public static func advisories(_ options: WideAreaZoneOptions) -> [String] {
        var notes: [String] = []
        if let ipv4 = IPv4Address(options.tailnetIPv4), !ipv4.isIn(IPv4Address(0x6440_0000), prefixLength: 10) {
            notes.append("\(ipv4) is not a tailnet address (100.64.0.0/10); clients must be able to reach it")
        }
        for (name, given, used) in [("host label", options.hostLabel, hostLabel(options)),
                                    ("instance label", options.instanceLabel, instanceLabel(options))] {
            if let given, given != used { notes.append("\(name) '\(given)' is written as '\(used)'") }
        }
        return notes
    }

    /// The zone's records in file order, split into name, type and data (directives such as
    /// `$ORIGIN` left out). `serial` nil writes the SOA serial as `SERIAL`.
    public static func recordFields(_ options: WideAreaZoneOptions, serial: UInt32?) -> [ZoneRecordLine] {
        recordLines(options, serial: serial.map(String.init) ?? "SERIAL").filter { !$0.hasPrefix("$") }.compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count == 4, parts[1] == "IN" else { return nil }
            return ZoneRecordLine(name: String(parts[0]), type: String(parts[2]), data: String(parts[3]))
        }
    }
}
