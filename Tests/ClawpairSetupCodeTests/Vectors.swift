import ClawpairTestSupport
import Foundation

// Codable models of the `vectors.json` groups this module is tested against.

struct EncodeGroup: Decodable {
    struct Vector: Decodable {
        let name: String
        let payloadJson: String
        let setupCode: String
    }
    let vectors: [Vector]
}

struct DecodeGroup: Decodable {
    struct Endpoint: Decodable {
        let host: String
        let port: Int
        let tls: Bool
    }
    struct Expect: Decodable {
        let endpoints: [Endpoint]?
        let bootstrapToken: String?
        let token: String?
        let password: String?
        let expiresAtMs: Int64?
        let tlsFingerprint: String?
        let endpointCount: Int?
        let firstHost: String?
        let lastHost: String?
        let port: Int?
        let tls: Bool?
    }
    struct Vector: Decodable {
        let name: String
        let input: String
        let nowMs: Int64?
        let expect: Expect?
        let reject: String?
    }
    let vectors: [Vector]
}

struct AccessGroup: Decodable {
    /// `scopes` is an object keyed by generation for full/limited and a plain list for node.
    enum Scopes: Decodable {
        case byGeneration([String: [String]])
        case same([String])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let list = try? container.decode([String].self) {
                self = .same(list)
            } else {
                self = .byGeneration(try container.decode([String: [String]].self))
            }
        }

        func scopes(_ generation: String) -> [String]? {
            switch self {
            case let .same(list): return list
            case let .byGeneration(map): return map[generation]
            }
        }
    }
    struct Profile: Decodable {
        let roles: [String]
        let scopes: Scopes
        let purpose: String?
    }
    struct Downgrade: Decodable {
        let requested: String
        let urls: [String]
        let issued: String
        let accessDowngraded: Bool
        let source: String
    }
    struct Label: Decodable {
        let profile: String
        let label: String
    }
    let profiles: [String: Profile]
    let downgradeVectors: [Downgrade]
    let accessLabel: [Label]
}

struct URLPolicyGroup: Decodable {
    struct URLCase: Decodable {
        let url: String
        let source: String
    }
    struct Normalization: Decodable {
        let input: String
        let defaultScheme: String?
        let output: String?
        let source: String
    }
    struct Fingerprint: Decodable {
        let input: String
        let output: String?
    }
    let plaintextWsAccepted: [URLCase]
    let plaintextWsRefused: [URLCase]
    let alwaysAccepted: [URLCase]
    let normalization: [Normalization]
    let tlsFingerprint: [Fingerprint]
}

enum Vectors {
    static func encode() throws -> EncodeGroup { try SpecFiles.vectors("setupCode.encode") }
    static func decode() throws -> DecodeGroup { try SpecFiles.vectors("setupCode.decode") }
    static func access() throws -> AccessGroup { try SpecFiles.vectors("setupCode.access") }
    static func urlPolicy() throws -> URLPolicyGroup { try SpecFiles.vectors("urlPolicy") }

    /// A time before every expiry in the vectors, for vectors without `nowMs`.
    static let fixedNowMs: Int64 = 1_700_000_000_000
}

