import ClawpairTestSupport
import Foundation

// Codable models of the `identity` and `signatures` groups of `vectors.json`.

struct IdentityGroup: Decodable {
    struct DERPrefixes: Decodable {
        let spkiEd25519Hex: String
        let pkcs8Ed25519Hex: String
    }
    struct SwiftDeviceJSON: Decodable {
        let deviceId: String
        let publicKey: String
        let privateKey: String
        let createdAtMs: Int64
    }
    struct TSDeviceJSON: Decodable {
        let version: Int
        let deviceId: String
        let publicKeyPem: String
        let privateKeyPem: String
        let createdAtMs: Int64
    }
    struct Vector: Decodable {
        let name: String
        let seedHex: String
        let seedBase64Std: String
        let publicKeyHex: String
        let publicKeyBase64Std: String
        let publicKeyBase64Url: String
        let deviceId: String
        let spkiDerHex: String
        let pkcs8DerHex: String
        let publicKeyPem: String
        let privateKeyPem: String
        let swiftDeviceJson: SwiftDeviceJSON
        let tsDeviceJson: TSDeviceJSON
        let tsDeviceJsonFileText: String
    }
    struct InputForms: Decodable {
        let forms: [String]
    }
    let derPrefixes: DERPrefixes
    let vectors: [Vector]
    let publicKeyInputForms: InputForms
}

struct SignatureGroup: Decodable {
    struct Fields: Decodable {
        let deviceId: String?
        let clientId: String
        let clientMode: String
        let role: String
        let scopes: [String]
        let signedAtMs: Int64
        let token: String
        let nonce: String
        let platform: String?
        let deviceFamily: String?
    }
    struct Vector: Decodable {
        let name: String
        let payload: String
        let signatureBase64Url: String
        let signatureBase64Std: String?
        let fields: Fields?
    }
    struct Auth: Decodable {
        let token: String?
        let deviceToken: String?
        let bootstrapToken: String?
        let password: String?
    }
    struct TokenSelection: Decodable {
        let auth: Auth
        let signedToken: String
    }
    struct ConnectExample: Decodable {
        struct Challenge: Decodable {
            struct Payload: Decodable {
                let nonce: String
                let ts: Int64
            }
            let payload: Payload
        }
        struct Request: Decodable {
            struct Params: Decodable {
                struct Client: Decodable {
                    let id: String
                    let platform: String
                    let deviceFamily: String?
                    let mode: String
                }
                struct Device: Decodable {
                    let id: String
                    let publicKey: String
                    let signature: String
                    let signedAt: Int64
                    let nonce: String
                }
                let client: Client
                let role: String
                let scopes: [String]
                let auth: Auth
                let device: Device
            }
            let params: Params
        }
        let challenge: Challenge
        let request: Request
    }
    let vectors: [Vector]
    let tokenSelection: [TokenSelection]
    let connectExample: ConnectExample
}

enum Vectors {
    static func identity() throws -> IdentityGroup { try SpecFiles.vectors("identity") }
    static func signatures() throws -> SignatureGroup { try SpecFiles.vectors("signatures") }
}

/// Decodes hex test constants; traps on malformed literals.
func hexBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    precondition(digits.count % 2 == 0, "odd-length hex literal")
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
}

/// Lowercase hex.
func hexString(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}
