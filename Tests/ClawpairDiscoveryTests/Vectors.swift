import ClawpairTestSupport
import Foundation

// Codable models of the `vectors.json` groups this module is tested against.

/// Any JSON value, keeping `null` members (so "expect port: null" differs from "not checked").
enum AnyJSON: Decodable, Equatable {
    case null, bool(Bool), number(Double), string(String), array([AnyJSON]), object([String: AnyJSON])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([AnyJSON].self) { self = .array(a) }
        else { self = .object(try c.decode([String: AnyJSON].self)) }
    }

    var string: String? { if case let .string(s) = self { return s }; return nil }
    var int: Int? { if case let .number(n) = self { return Int(n) }; return nil }
    var bool: Bool? { if case let .bool(b) = self { return b }; return nil }
    var isNull: Bool { self == .null }
}

struct EscapesGroup: Decodable {
    struct Vector: Decodable {
        let input: String
        let output: String
        let source: String
    }
    let vectors: [Vector]
    let divergence: String
}

struct DisplayNameGroup: Decodable {
    struct Vector: Decodable {
        let fn: String
        let input: String?
        let instanceName: String?
        let txt: [String: String]?
        let output: AnyJSON
        let osHostname: String?
        let env: [String: String]?
        let inputUtf8Bytes: Int?
        let outputChars: Int?
        let outputUtf8Bytes: Int?
        let source: String
    }
    let vectors: [Vector]
}

struct TXTParsingGroup: Decodable {
    struct Options: Decodable {
        let gatewayPort: Int
        let sshPort: Int?
        let tailnetDns: String?
        let cliPath: String?
        let hostname: String?
        let minimal: Bool
    }
    struct Expect: Decodable {
        let serviceType: String?
        let port: Int?
        let domain: String?
        let hostname: String?
        let txtIncludes: [String: String]?
        let txtExcludes: [String]?
    }
    struct Vector: Decodable {
        let fn: String
        let txt: [String: String]?
        let key: String?
        let output: AnyJSON?
        let values: [String: AnyJSON]?
        let options: Options?
        let expect: Expect?
        let source: String
    }
    let vectors: [Vector]
}

struct WideAreaDomainGroup: Decodable {
    struct Vector: Decodable {
        let config: String?
        let env: String?
        let output: String?
        let note: String?
    }
    let vectors: [Vector]
    let source: String
}

struct ZoneGroup: Decodable {
    struct Primitive: Decodable {
        let input: String
        let fnv1a32Utf16: String
    }
    struct ContentHash: Decodable {
        let recomputedValue: String
        let hashedText: String
        let primitiveVectors: [Primitive]
    }
    /// Every input optional, so a delta can be merged over the full example.
    struct Inputs: Decodable {
        var domain: String?
        var serial: UInt32?
        var gatewayPort: Int?
        var displayName: String?
        var tailnetIPv4: String?
        var tailnetIPv6: String?
        var hostLabel: String?
        var instanceLabel: String?
        var sshPort: Int?
        var cliPath: String?
        var tailnetDns: String?
        var gatewayTlsEnabled: Bool?
        var gatewayTlsFingerprintSha256: String?
    }
    struct FullExample: Decodable {
        let inputs: Inputs
        let zoneText: String
        let zonePathSuffix: String
    }
    struct Substring: Decodable {
        let inputsDelta: Inputs
        let osHostname: String?
        let contains: [String]
        let source: String
    }
    struct Label: Decodable {
        let input: String
        let fallback: String?
        let output: String
        let source: String
    }
    let contentHash: ContentHash
    let fullExample: FullExample
    let substringVectors: [Substring]
    let dnsLabel: [Label]
}

struct ZoneSerialGroup: Decodable {
    struct Vector: Decodable {
        let previous: UInt32
        let expected: UInt32
    }
    let nowUtc: String
    let todayBase: UInt32
    let vectors: [Vector]
}

struct DiscoverParseGroup: Decodable {
    struct Vector: Decodable {
        let name: String
        let platform: String?
        let timeoutMs: Int?
        let browse: [String: [String]]?
        let resolveTemplate: [String]?
        let txtLine: String?
        let resolve: [String]?
        let domain: String?
        let dig: [String: String]?
        let beacon: [String: AnyJSON]?
        let expect: [String: AnyJSON]
        let source: String
    }
    let vectors: [Vector]
}

enum Vectors {
    static func escapes() throws -> EscapesGroup { try SpecFiles.vectors("bonjourEscapes") }
    static func displayName() throws -> DisplayNameGroup { try SpecFiles.vectors("displayName") }
    static func txtParsing() throws -> TXTParsingGroup { try SpecFiles.vectors("txtParsing") }
    static func wideAreaDomain() throws -> WideAreaDomainGroup { try SpecFiles.vectors("wideAreaDomain") }
    static func zone() throws -> ZoneGroup { try SpecFiles.vectors("zone") }
    static func zoneSerial() throws -> ZoneSerialGroup { try SpecFiles.vectors("zoneSerial") }
    static func discoverParse() throws -> DiscoverParseGroup { try SpecFiles.vectors("discoverParse") }

    /// An RFC 3339 UTC timestamp in ms since the epoch.
    static func ms(_ iso: String) -> Int64 {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return Int64((formatter.date(from: iso)!.timeIntervalSince1970 * 1000).rounded())
    }
}

