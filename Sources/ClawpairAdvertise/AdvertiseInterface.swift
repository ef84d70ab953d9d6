// The network interfaces a beacon is advertised on, and the addresses published for a host name
// of the advertiser's own (OPENCLAW_MDNS_HOSTNAME). On a multi-homed host, advertising on every
// interface announces addresses a peer on one link cannot reach and multiplies the traffic
// (upstream reports mDNS floods and name-counter storms there: openclaw#17222, #28478).

#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore

/// A network interface by name and index (if_nametoindex numbering).
public struct AdvertiseInterface: Sendable, Hashable {
    /// Most interfaces an advertisement is restricted to.
    public static let maxCount = 64
    /// The interface name, e.g. `eth0`.
    public let name: String
    /// Its index.
    public let index: Int32

    /// The interface `name` with index `index`.
    public init(name: String, index: Int32) {
        self.name = name
        self.index = index
    }

    /// The interfaces called `names`, in order, duplicates dropped. Throws for a name no
    /// interface of this machine has (or one that cannot be a Linux interface name).
    public static func named(_ names: [String]) throws(AdvertiseInterfaceError) -> [AdvertiseInterface] {
        guard names.count <= maxCount else { throw .tooMany(names.count) }
        var found: [AdvertiseInterface] = []
        for name in names where !found.contains(where: { $0.name == name }) {
            // IFNAMSIZ (16) with its NUL; no slash, blank or control (dev_valid_name in Linux).
            let bytes = Array(name.utf8)
            guard (1...15).contains(bytes.count), !bytes.contains(where: { $0 <= 0x20 || $0 == 0x2F || $0 == 0x3A || $0 >= 0x7F }),
                  name != ".", name != ".." else {
                throw .unknown(name)
            }
            let index = if_nametoindex(name)
            guard index > 0, index <= UInt32(Int32.max) else { throw .unknown(name) }
            found.append(AdvertiseInterface(name: name, index: Int32(index)))
        }
        return found
    }

    /// The addresses of `interfaces` (every up, multicast-capable, non-loopback interface when
    /// empty), IPv4 then IPv6, each with its interface's index: the records of a host name
    /// advertised on those interfaces.
    public static func addresses(of interfaces: [AdvertiseInterface]) -> [(interface: Int32, address: String)] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var v4: [(Int32, String)] = []
        var v6: [(Int32, String)] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0, let address = entry.pointee.ifa_addr,
                  let rawName = entry.pointee.ifa_name else { continue }
            let name = String(cString: rawName)
            let index: Int32
            if interfaces.isEmpty {
                guard flags & Int32(IFF_MULTICAST) != 0 else { continue }
                index = Int32(clamping: if_nametoindex(name))
            } else {
                guard let chosen = interfaces.first(where: { $0.name == name }) else { continue }
                index = chosen.index
            }
            guard index > 0 else { continue }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { socket in
                    var raw = socket.pointee.sin_addr
                    if inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count)) != nil {
                        v4.append((index, String(cString: buffer)))
                    }
                }
            case AF_INET6:
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { socket in
                    var raw = socket.pointee.sin6_addr
                    if inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count)) != nil {
                        v6.append((index, String(cString: buffer)))
                    }
                }
            default:
                break
            }
        }
        return (v4 + v6).map { (interface: $0.0, address: $0.1) }
    }
}

/// Why an interface list cannot be used.
public enum AdvertiseInterfaceError: ClawpairError, Equatable {
    /// No interface of this machine has that name.
    case unknown(String)
    /// More interfaces than ``AdvertiseInterface/maxCount`` were given.
    case tooMany(Int)

    /// `unknown-interface` (``ClawpairError/code``).
    public var code: String { "unknown-interface" }

    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .unknown(let name): return "no network interface is called \"\(TerminalText.sanitize(name, maxScalars: 64))\""
        case .tooMany(let count): return "\(count) interfaces given; at most \(AdvertiseInterface.maxCount)"
        }
    }

    /// What to do next, or nil (``ClawpairError/hint``).
    public var hint: String? { "list this machine's interfaces with: ip -brief link" }
}

/// The host label a beacon's SRV record points to, from `OPENCLAW_MDNS_HOSTNAME`.
public enum AdvertiseHostName {
    /// The label `raw` names, read as upstream's Bonjour advertiser reads `OPENCLAW_MDNS_HOSTNAME`
    /// (extensions/bonjour/src/advertiser.ts: trimmed, a `.local` suffix dropped, the part
    /// before the first dot), then required to be a DNS host label: 1–63 ASCII letters, digits
    /// and hyphens, no hyphen at either end (upstream cuts longer ones to 63 bytes; Avahi needs
    /// a valid label). Nil for an empty or blank value (the variable is then not set).
    public static func label(_ raw: String) throws(AdvertiseHostNameError) -> String? {
        let trimmed = raw.trimmingASCIIWhitespace()
        guard !trimmed.isEmpty else { return nil }
        var name = trimmed
        if name.lowercased().hasSuffix(".local") { name = String(name.dropLast(6)) }
        let label = String(name.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            .trimmingASCIIWhitespace()
        let bytes = Array(label.utf8)
        let valid = (1...63).contains(bytes.count) && bytes.first != 0x2D && bytes.last != 0x2D
            && bytes.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D }
        guard valid else { throw AdvertiseHostNameError(value: raw) }
        return label
    }
}

/// `OPENCLAW_MDNS_HOSTNAME` does not name a DNS host label.
public struct AdvertiseHostNameError: ClawpairError, Equatable {
    /// The value as given.
    public let value: String

    /// `invalid-host-name` (``ClawpairError/code``).
    public var code: String { "invalid-host-name" }

    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        "OPENCLAW_MDNS_HOSTNAME \"\(TerminalText.sanitize(value, maxScalars: 80))\" is not a DNS host label"
    }

    /// What to do next, or nil (``ClawpairError/hint``).
    public var hint: String? { "use 1-63 letters, digits and hyphens (e.g. gateway-1), or unset it" }
}

private extension String {
    func trimmingASCIIWhitespace() -> String {
        let scalars = unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = scalars.firstIndex(where: { !isSpace($0) }), let end = scalars.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(scalars[start...end])
    }
}
