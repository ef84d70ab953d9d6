import ClawpairCore
import Foundation
import Testing
@testable import ClawpairNode

/// device.info, device.status and node.host.stats read from a fixture tree shaped like /sys and
/// /proc, in upstream's shapes (`upstream-2026-10.md` §2.5, §2.7).
@Suite struct NodeHostFactsTests {
    final class Tree {
        let root = NSTemporaryDirectory() + "clawpair-facts-\(UUID().uuidString.prefix(8))"
        func write(_ path: String, _ text: String) throws {
            let url = URL(fileURLWithPath: root + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: false, encoding: .utf8)
        }
        func mkdir(_ path: String) throws {
            try FileManager.default.createDirectory(atPath: root + path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    @Test func deviceInfoHasUpstreamsMembers() throws {
        let tree = Tree()
        try tree.write("/etc/os-release", "NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n# c\n")
        try tree.write("/sys/class/dmi/id/product_name", "ThinkPad X1\n")
        try tree.write("/sys/class/dmi/id/sys_vendor", "LENOVO\n")
        let facts = NodeHostFacts(root: tree.root, stateDirectory: "/", environment: ["LANG": "de_DE.UTF-8"])
        let info = facts.deviceInfo(hostName: "box")
        #expect(info.objectValue?.map(\.0) == ["deviceName", "modelIdentifier", "systemName", "systemVersion", "appVersion",
                                                "appBuild", "locale"])
        #expect(info["deviceName"] == "box")
        #expect(info["modelIdentifier"] == "LENOVO ThinkPad X1")
        #expect(info["systemName"] == "Debian GNU/Linux")
        #expect(info["systemVersion"] == "12")
        #expect(info["appVersion"] == .string(ClawpairVersion.current))
        #expect(info["locale"] == "de_DE")
    }

    @Test func theDeviceTreeModelServesBoardsWithoutDMI() throws {
        let tree = Tree()
        try tree.write("/proc/device-tree/model", "Raspberry Pi 4 Model B Rev 1.4\u{0}")
        #expect(NodeHostFacts(root: tree.root, stateDirectory: "/").model() == "Raspberry Pi 4 Model B Rev 1.4")
        #expect(NodeHostFacts(root: tree.root, stateDirectory: "/").locale() == "C")
    }

    @Test func batteryFromPowerSupplyOrUnknown() throws {
        let tree = Tree()
        try tree.write("/sys/class/power_supply/AC/type", "Mains\n")
        let none = NodeHostFacts(root: tree.root, stateDirectory: "/").battery()
        #expect(none == .object([("state", "unknown"), ("lowPowerModeEnabled", false)]))
        try tree.write("/sys/class/power_supply/BAT0/type", "Battery\n")
        try tree.write("/sys/class/power_supply/BAT0/capacity", "57\n")
        try tree.write("/sys/class/power_supply/BAT0/status", "Discharging\n")
        try tree.write("/sys/firmware/acpi/platform_profile", "low-power\n")
        let battery = NodeHostFacts(root: tree.root, stateDirectory: "/").battery()
        #expect(battery == .object([("level", .double(0.57)), ("levelPercent", 57), ("state", "unplugged"),
                                    ("lowPowerModeEnabled", true)]))
    }

    @Test func theHottestZoneSetsTheThermalState() throws {
        let tree = Tree()
        #expect(NodeHostFacts(root: tree.root, stateDirectory: "/").thermalState() == "nominal")
        try tree.write("/sys/class/thermal/thermal_zone0/temp", "45000\n")
        #expect(NodeHostFacts(root: tree.root, stateDirectory: "/").thermalState() == "nominal")
        try tree.write("/sys/class/thermal/thermal_zone1/temp", "72000\n")
        #expect(NodeHostFacts(root: tree.root, stateDirectory: "/").thermalState() == "fair")
        try tree.write("/sys/class/thermal/thermal_zone1/trip_point_0_type", "hot\n")
        try tree.write("/sys/class/thermal/thermal_zone1/trip_point_0_temp", "71000\n")
        #expect(NodeHostFacts(root: tree.root, stateDirectory: "/").thermalState() == "serious")
        try tree.write("/sys/class/thermal/thermal_zone2/temp", "95000\n")
        #expect(NodeHostFacts(root: tree.root, stateDirectory: "/").thermalState() == "critical")
        try tree.write("/sys/class/thermal/cooling_device0/temp", "999000\n")
        try tree.write("/sys/class/thermal/thermal_zone3/temp", "garbage\n")
        #expect(NodeHostFacts(root: tree.root, stateDirectory: "/").thermalState() == "critical")
    }

    @Test func theDefaultRouteNamesTheNetworkKind() throws {
        let tree = Tree()
        let facts = NodeHostFacts(root: tree.root, stateDirectory: "/")
        #expect(facts.network()["status"] == "unsatisfied")
        try tree.write("/proc/net/route", """
            Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask
            wlp2s0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000
            wlp2s0\t0001A8C0\t00000000\t0001\t0\t0\t600\t00FFFFFF

            """)
        try tree.mkdir("/sys/class/net/wlp2s0/wireless")
        #expect(facts.network() == .object([("status", "satisfied"), ("isExpensive", false), ("isConstrained", false),
                                            ("interfaces", ["wifi"])]))
        try tree.write("/proc/net/ipv6_route",
                       "00000000000000000000000000000000 00 00000000000000000000000000000000 00 fe800000000000000000000000000001 00000400 00000001 00000000 00000003     eth0\n"
                       + "00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo\n")
        try tree.mkdir("/sys/class/net/eth0/device")
        try tree.write("/sys/class/net/eth0/type", "1\n")
        #expect(facts.network()["interfaces"] == ["wifi", "wired"])
        #expect(facts.interfaceKind("../etc") == "other")
    }

    @Test func deviceStatusHasUpstreamsShape() throws {
        let tree = Tree()
        try tree.write("/proc/uptime", "12345.67 2345.00\n")
        let status = NodeHostFacts(root: tree.root, stateDirectory: NSTemporaryDirectory()).deviceStatus()
        #expect(status.objectValue?.map(\.0) == ["battery", "thermal", "storage", "network", "uptimeSeconds"])
        #expect(status["uptimeSeconds"] == .double(12345.67))
        let storage = try #require(status["storage"])
        let total = try #require(storage["totalBytes"]?.int64Value), free = try #require(storage["freeBytes"]?.int64Value)
        let used = try #require(storage["usedBytes"]?.int64Value)
        #expect(total > 0 && free >= 0 && used >= 0 && free <= total && used <= total)
    }

    @Test func hostStatsFollowTheWireContract() throws {
        let tree = Tree()
        try tree.write("/proc/meminfo", "MemTotal:        8000000 kB\nMemFree:          100000 kB\nMemAvailable:    3000000 kB\n")
        let stats = NodeHostFacts(root: tree.root, stateDirectory: NSTemporaryDirectory()).hostStats()
        let cpus = try #require(stats["cpuCount"]?.int64Value)
        #expect((1...4096).contains(cpus))
        #expect(stats["memoryTotalBytes"] == .int(8_000_000 * 1024))
        #expect(stats["memoryFreeBytes"] == .int(3_000_000 * 1024))
        if let loads = stats["loadAverage"]?.arrayValue { #expect(loads.count == 3) }
        let disk = try #require(stats["diskTotalBytes"]?.int64Value), free = try #require(stats["diskAvailableBytes"]?.int64Value)
        #expect(free <= disk)
    }

    @Test func aFIFOIsNeverReadFrom() throws {
        let tree = Tree()
        try tree.mkdir("/proc")
        #expect(mkfifo(tree.root + "/proc/uptime", 0o600) == 0)
        #expect(NodeHostFacts(root: tree.root, stateDirectory: "/").uptime() == nil)
    }
}
