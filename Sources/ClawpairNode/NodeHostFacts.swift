// What `device.info`, `device.status` and `node.host.stats` report about this Linux machine,
// read from the kernel's files (never a shell, never a program). Every read is bounded and
// checks for a regular file first; a fact the machine does not have is reported as upstream's
// "unknown" shape rather than an error. Paths are relative to ``NodeHostFacts/root`` so tests
// read a fixture tree.

#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore

/// Reads facts about the host from `/sys`, `/proc`, `/etc/os-release` and statvfs(3).
public struct NodeHostFacts: Sendable {
    /// The directory the kernel's trees are read under (`/`, or a fixture in tests).
    public var root: String
    /// The directory whose file system `storage` and disk stats describe (the node's state directory).
    public var stateDirectory: String
    /// The environment the locale is read from (`LC_ALL`, `LC_MESSAGES`, `LANG`).
    public var environment: [String: String]

    /// Facts of the machine under `root`, storage of `stateDirectory`'s file system.
    public init(root: String = "/", stateDirectory: String, environment: [String: String] = [:]) {
        self.root = root.hasSuffix("/") ? String(root.dropLast()) : root
        self.stateDirectory = stateDirectory
        self.environment = environment
    }

    static let maxFileBytes = 64 * 1024
    static let maxEntries = 256

    func read(_ path: String) -> String? {
        guard let bytes = try? FileIO.read(path: root + path, limit: Self.maxFileBytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    func line(_ path: String) -> String? {
        guard let text = read(path) else { return nil }
        let value = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init)?
            .trimmingWhitespace().replacingNUL()
        return value?.isEmpty == false ? value : nil
    }

    func list(_ directory: String) -> [String] {
        guard let dir = opendir(root + directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while names.count < Self.maxEntries, let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(root + path, &info) == 0
    }

    // MARK: device.info

    /// `device.info`: `{deviceName, modelIdentifier, systemName, systemVersion, appVersion, appBuild, locale}` (§2.5).
    public func deviceInfo(hostName: String) -> JSONValue {
        let release = osRelease()
        return .object([
            ("deviceName", .string(hostName)),
            ("modelIdentifier", .string(model() ?? "unknown")),
            ("systemName", .string(release["NAME"] ?? "Linux")),
            ("systemVersion", .string(release["VERSION_ID"] ?? release["VERSION"] ?? kernelRelease() ?? "unknown")),
            ("appVersion", .string(ClawpairVersion.current)),
            ("appBuild", .string(ClawpairVersion.current)),
            ("locale", .string(locale())),
        ])
    }

    /// The model: DMI vendor + product name, else the device tree's model.
    func model() -> String? {
        let junk: Set<String> = ["", "To Be Filled By O.E.M.", "Default string", "System Product Name", "None"]
        if let product = line("/sys/class/dmi/id/product_name"), !junk.contains(product) {
            if let vendor = line("/sys/class/dmi/id/sys_vendor"), !junk.contains(vendor), !product.hasPrefix(vendor) {
                return "\(vendor) \(product)"
            }
            return product
        }
        if let model = line("/proc/device-tree/model") ?? line("/sys/firmware/devicetree/base/model") { return model }
        return nil
    }

    func kernelRelease() -> String? { line("/proc/sys/kernel/osrelease") }

    /// `/etc/os-release` (else `/usr/lib/os-release`) as key → unquoted value.
    func osRelease() -> [String: String] {
        guard let text = read("/etc/os-release") ?? read("/usr/lib/os-release") else { return [:] }
        var values: [String: String] = [:]
        for raw in text.split(separator: "\n") {
            let line = String(raw).trimmingWhitespace()
            guard !line.hasPrefix("#"), let eq = line.firstIndex(of: "=") else { continue }
            var value = String(line[line.index(after: eq)...])
            if value.count >= 2, let q = value.first, q == "\"" || q == "'", value.last == q {
                value = String(value.dropFirst().dropLast())
            }
            values[String(line[..<eq])] = value
        }
        return values
    }

    /// The POSIX locale (`de_DE` from `de_DE.UTF-8@euro`), `C` when none is set.
    func locale() -> String {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            guard let value = environment[name], !value.isEmpty else { continue }
            let base = value.split(whereSeparator: { $0 == "." || $0 == "@" }).first.map(String.init) ?? value
            return base.isEmpty ? "C" : base
        }
        return "C"
    }

    // MARK: device.status

    /// `device.status`: battery, thermal, storage, network, uptimeSeconds (§2.5).
    public func deviceStatus() -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("battery", battery()),
            ("thermal", .object([("state", .string(thermalState()))])),
            ("storage", storage()),
            ("network", network()),
        ]
        members.append(("uptimeSeconds", uptime().map { .double($0) } ?? .int(0)))
        return .object(members)
    }

    /// The first battery under power_supply: level 0–1, percent, state; `unknown` without one.
    func battery() -> JSONValue {
        let lowPower = line("/sys/firmware/acpi/platform_profile") == "low-power"
        for supply in list("/sys/class/power_supply") {
            let base = "/sys/class/power_supply/\(supply)"
            guard line("\(base)/type") == "Battery", line("\(base)/present") != "0" else { continue }
            var members: [(String, JSONValue)] = []
            if let text = line("\(base)/capacity"), let percent = Int(text), (0...100).contains(percent) {
                members.append(("level", .double(Double(percent) / 100)))
                members.append(("levelPercent", .int(Int64(percent))))
            }
            let state: String
            switch line("\(base)/status") {
            case "Charging": state = "charging"
            case "Full": state = "full"
            case "Discharging", "Not charging": state = "unplugged"
            default: state = "unknown"
            }
            members.append(("state", .string(state)))
            members.append(("lowPowerModeEnabled", .bool(lowPower)))
            return .object(members)
        }
        return .object([("state", "unknown"), ("lowPowerModeEnabled", .bool(lowPower))])
    }

    /// The hottest thermal zone against its own trip points (critical → critical, hot → serious,
    /// passive → fair), else against fixed marks (90/80/70 °C); `nominal` without zones.
    func thermalState() -> String {
        var worst = 0
        for zone in list("/sys/class/thermal") where zone.hasPrefix("thermal_zone") {
            let base = "/sys/class/thermal/\(zone)"
            guard let text = line("\(base)/temp"), let milli = Int(text), milli > 0, milli < 200_000 else { continue }
            var level: Int
            switch milli {
            case 90_000...: level = 3
            case 80_000...: level = 2
            case 70_000...: level = 1
            default: level = 0
            }
            for index in 0..<16 {
                guard let type = line("\(base)/trip_point_\(index)_type") else { break }
                guard let tripText = line("\(base)/trip_point_\(index)_temp"), let trip = Int(tripText), trip > 0,
                      milli >= trip else { continue }
                switch type {
                case "critical": level = max(level, 3)
                case "hot": level = max(level, 2)
                case "passive": level = max(level, 1)
                default: break
                }
            }
            worst = max(worst, level)
        }
        return ["nominal", "fair", "serious", "critical"][worst]
    }

    /// statvfs of the state directory: total, free (to unprivileged users) and used bytes.
    func fileSystem() -> (total: Int64, available: Int64, used: Int64)? {
        var info = statvfs()
        guard statvfs(stateDirectory, &info) == 0 else { return nil }
        let unit = Int64(info.f_frsize == 0 ? info.f_bsize : info.f_frsize)
        let total = Int64(clamping: UInt64(info.f_blocks)).multipliedReportingOverflow(by: unit)
        let available = Int64(clamping: UInt64(info.f_bavail)).multipliedReportingOverflow(by: unit)
        let free = Int64(clamping: UInt64(info.f_bfree)).multipliedReportingOverflow(by: unit)
        guard !total.overflow, !available.overflow, !free.overflow else { return nil }
        return (total.partialValue, min(available.partialValue, total.partialValue), max(0, total.partialValue - free.partialValue))
    }

    func storage() -> JSONValue {
        guard let fs = fileSystem() else {
            return .object([("totalBytes", 0), ("freeBytes", 0), ("usedBytes", 0)])
        }
        return .object([("totalBytes", .int(fs.total)), ("freeBytes", .int(fs.available)), ("usedBytes", .int(fs.used))])
    }

    /// The interfaces carrying a default route (IPv4 `/proc/net/route`, IPv6 `/proc/net/ipv6_route`).
    func defaultRouteInterfaces() -> [String] {
        var names: [String] = []
        if let text = read("/proc/net/route") {
            for row in text.split(separator: "\n").dropFirst() {
                let fields = row.split(whereSeparator: { $0 == " " || $0 == "\t" })
                // Iface Destination Gateway Flags …: destination 0.0.0.0, RTF_UP (0x1).
                guard fields.count > 3, fields[1] == "00000000", let flags = UInt32(fields[3], radix: 16),
                      flags & 1 == 1 else { continue }
                names.append(String(fields[0]))
            }
        }
        if let text = read("/proc/net/ipv6_route") {
            for row in text.split(separator: "\n") {
                let fields = row.split(separator: " ", omittingEmptySubsequences: true)
                // dest prefixlen src srclen nexthop metric refcnt use flags iface; ::/0 with RTF_UP.
                guard fields.count >= 10, fields[0] == Substring(String(repeating: "0", count: 32)), fields[1] == "00",
                      let flags = UInt32(fields[8], radix: 16), flags & 1 == 1, fields[9] != "lo" else { continue }
                names.append(String(fields[9]))
            }
        }
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    /// wifi (a wireless or phy80211 entry), cellular (DEVTYPE=wwan), wired (a physical Ethernet
    /// device), else other (bridges, tunnels, VPNs, veth).
    func interfaceKind(_ name: String) -> String {
        guard !name.contains("/"), !name.hasPrefix(".") else { return "other" }
        let base = "/sys/class/net/\(name)"
        if exists("\(base)/wireless") || exists("\(base)/phy80211") { return "wifi" }
        if let uevent = read("\(base)/uevent"), uevent.split(separator: "\n").contains("DEVTYPE=wwan") { return "cellular" }
        if exists("\(base)/device"), line("\(base)/type") == "1" { return "wired" }
        return "other"
    }

    func network() -> JSONValue {
        let kinds = defaultRouteInterfaces().map(interfaceKind)
        var unique: [String] = []
        for kind in kinds where !unique.contains(kind) { unique.append(kind) }
        return .object([
            ("status", .string(unique.isEmpty ? "unsatisfied" : "satisfied")),
            ("isExpensive", .bool(unique.contains("cellular"))),
            ("isConstrained", .bool(false)),
            ("interfaces", .array(unique.map { .string($0) })),
        ])
    }

    /// Seconds since boot (`/proc/uptime`), to 0.01 s.
    func uptime() -> Double? {
        guard let text = line("/proc/uptime"), let first = text.split(separator: " ").first,
              let seconds = Double(first), seconds.isFinite, seconds >= 0 else { return nil }
        return seconds
    }

    // MARK: node.host.stats

    /// `node.host.stats`: `{cpuCount 1..4096, loadAverage? (omitted when all zero), memoryTotalBytes,
    /// memoryFreeBytes (MemAvailable), diskTotalBytes?, diskAvailableBytes?}` (§2.7).
    public func hostStats() -> JSONValue {
        let cpus = max(1, min(4096, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
        var members: [(String, JSONValue)] = [("cpuCount", .int(Int64(cpus)))]
        var loads = [Double](repeating: 0, count: 3)
        if getloadavg(&loads, 3) == 3 {
            let clamped = loads.map { $0.isFinite ? min(max($0, 0), 100_000) : 0 }
            if clamped.contains(where: { $0 > 0 }) {
                members.append(("loadAverage", .array(clamped.map { .double(($0 * 100).rounded() / 100) })))
            }
        }
        let memory = meminfo()
        members.append(("memoryTotalBytes", .int(memory.total)))
        members.append(("memoryFreeBytes", .int(min(memory.available, memory.total))))
        if let fs = fileSystem(), fs.total > 0 {
            members.append(("diskTotalBytes", .int(fs.total)))
            members.append(("diskAvailableBytes", .int(fs.available)))
        }
        return .object(members)
    }

    /// MemTotal and MemAvailable (else MemFree) from /proc/meminfo, in bytes.
    func meminfo() -> (total: Int64, available: Int64) {
        guard let text = read("/proc/meminfo") else { return (0, 0) }
        var values: [String: Int64] = [:]
        for row in text.split(separator: "\n") {
            let fields = row.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kb = Int64(fields[1]), kb >= 0, kb < Int64.max / 1024 else { continue }
            values[String(fields[0].dropLast())] = kb * 1024
        }
        let total = values["MemTotal"] ?? 0
        return (total, values["MemAvailable"] ?? values["MemFree"] ?? 0)
    }
}

extension String {
    func replacingNUL() -> String { String(unicodeScalars.filter { $0 != "\0" }.map(Character.init)) }
}
