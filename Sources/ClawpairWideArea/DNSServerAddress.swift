// Where unicast DNS queries go: `--dns-server` values and resolv.conf `nameserver` lines.
//
// Checklist, accepting a new server spelling: add it to `parse`, give it a case in
// `ServerParsingTests.swift`, and keep `description` able to print it back.
import ClawpairCore

#if canImport(Glibc)
import Glibc
#endif

/// One DNS server: an IPv4 or IPv6 address (with its scope for link-local IPv6) and a port.
public struct DNSServerAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address family.
    public enum Family: Sendable, Hashable {
        case ipv4
        case ipv6
    }

    /// IPv4 or IPv6.
    public let family: Family
    /// The address in network byte order: 4 or 16 bytes.
    public let bytes: [UInt8]
    /// The interface index of a scoped IPv6 address (`fe80::1%eth0`), else 0.
    public let scopeID: UInt32
    /// The scope as written (`eth0` or `2`), kept for printing.
    public let scopeText: String?
    /// The port (``defaultPort`` unless given).
    public let port: UInt16

    /// The standard DNS port.
    public static let defaultPort: UInt16 = 53

    /// Parses `IP`, `IP:PORT` (IPv4), `IPv6`, `IPv6%scope` and `[IPv6]:PORT` / `[IPv6%scope]:PORT`.
    /// Returns nil for anything else, including host names (nothing is resolved) and port 0.
    public static func parse(_ text: String, defaultPort: UInt16 = DNSServerAddress.defaultPort) -> DNSServerAddress? {
        guard !text.isEmpty, text.utf8.count <= 128 else { return nil }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let inner = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            var port = defaultPort
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let value = parsePort(String(rest.dropFirst())) else { return nil }
                port = value
            }
            return parseIPv6(inner, port: port)
        }
        let colons = text.utf8.filter { $0 == UInt8(ascii: ":") }.count
        if colons == 0 { return parseIPv4(text, port: defaultPort) }
        if colons == 1 {
            // Split on the byte, as counted: a ":" followed by a combining mark is one Character
            // that is not ":" (found by FuzzTailscaleStatus: a split by Characters gave one part).
            let parts = text.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            guard parts.count == 2, let host = String(parts[0]), let portText = String(parts[1]),
                  let port = parsePort(portText) else { return nil }
            return parseIPv4(host, port: port)
        }
        return parseIPv6(text, port: defaultPort)
    }

    static func parsePort(_ text: String) -> UInt16? {
        guard !text.isEmpty, text.utf8.count <= 5, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
              let value = Int(text), (1...65535).contains(value) else { return nil }
        return UInt16(value)
    }

    static func parseIPv4(_ text: String, port: UInt16) -> DNSServerAddress? {
        // inet_pton accepts only the dotted-quad form, which is what resolv.conf holds.
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &address) { Array($0) }
        return DNSServerAddress(family: .ipv4, bytes: bytes, scopeID: 0, scopeText: nil, port: port)
    }

    static func parseIPv6(_ text: String, port: UInt16) -> DNSServerAddress? {
        var host = text
        var scopeText: String?
        var scopeID: UInt32 = 0
        if let percent = text.firstIndex(of: "%") {
            host = String(text[..<percent])
            let scope = String(text[text.index(after: percent)...])
            guard !scope.isEmpty, scope.utf8.count < 16 else { return nil }
            if scope.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
                guard let value = UInt32(scope) else { return nil }
                scopeID = value
            } else {
                scopeID = if_nametoindex(scope)
                guard scopeID != 0 else { return nil }
            }
            scopeText = scope
        }
        var address = in6_addr()
        guard inet_pton(AF_INET6, host, &address) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &address) { Array($0) }
        return DNSServerAddress(family: .ipv6, bytes: bytes, scopeID: scopeID, scopeText: scopeText, port: port)
    }

    /// The address without the port (`10.0.0.1`, `fe80::1%eth0`).
    public var host: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = self.family == .ipv4 ? AF_INET : AF_INET6
        let text: String = bytes.withUnsafeBytes { raw in
            guard inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return scopeText.map { text + "%" + $0 } ?? text
    }

    /// `10.0.0.1:53`, `[fd00::1]:5353`.
    public var description: String {
        family == .ipv4 ? "\(host):\(port)" : "[\(host)]:\(port)"
    }

    /// Calls `body` with this server as a `sockaddr` and its length.
    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        switch family {
        case .ipv4:
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &address.sin_addr) { $0.copyBytes(from: bytes) }
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .ipv6:
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_scope_id = scopeID
            withUnsafeMutableBytes(of: &address.sin6_addr) { $0.copyBytes(from: bytes) }
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
    }
}

/// The parts of `/etc/resolv.conf` (resolv.conf(5)) a unicast browse needs: the name servers.
public struct ResolvConf: Sendable, Hashable {
    /// glibc uses at most this many `nameserver` lines (MAXNS).
    public static let maxServers = 3
    /// Reading stops after this many bytes.
    public static let maxBytes = 64 * 1024
    /// The default path.
    public static let path = "/etc/resolv.conf"

    /// The servers, in file order, at most ``maxServers``, each on port 53.
    public let servers: [DNSServerAddress]

    /// A configuration naming these servers.
    public init(servers: [DNSServerAddress]) { self.servers = servers }

    /// Parses resolv.conf text. `nameserver` lines with an IPv4 or IPv6 address (IPv6 may carry
    /// `%scope`) count; comments (`#`, `;`), other keywords (`search`, `options timeout:`/`attempts:`,
    /// which the fixed per-query budget replaces) and malformed addresses are skipped.
    public static func parse(_ text: String) -> ResolvConf {
        var servers: [DNSServerAddress] = []
        for line in text.utf8.prefix(maxBytes).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            let words = line.split(whereSeparator: { $0 == 32 || $0 == 9 || $0 == 13 }).map { String(decoding: $0, as: UTF8.self) }
            guard words.count >= 2, words[0] == "nameserver" else { continue }
            // A bracket or port is not resolv.conf syntax: only a bare address.
            guard !words[1].hasPrefix("["), let server = DNSServerAddress.parse(words[1]),
                  server.family == .ipv6 || !words[1].contains(":") else { continue }
            if !servers.contains(server) { servers.append(server) }
            if servers.count == maxServers { break }
        }
        return ResolvConf(servers: servers)
    }

    /// The servers of the file at `path`; glibc's default, the local host, when there are none
    /// or the file cannot be read.
    public static func load(path: String = ResolvConf.path) -> ResolvConf {
        let text = (try? FileIO.read(path: path, limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let conf = parse(text)
        if conf.servers.isEmpty, let local = DNSServerAddress.parse("127.0.0.1") { return ResolvConf(servers: [local]) }
        return conf
    }
}
