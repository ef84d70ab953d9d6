// The first message an OpenClaw gateway sends on every WebSocket (`identity-and-handshake.md`
// §4): `{"type":"event","event":"connect.challenge","payload":{"nonce":<string>,"ts":<ms>}}`.
// Receiving it is what proves the endpoint is a gateway, as the macOS app checks.

import ClawpairCore

/// A parsed `connect.challenge` event.
public struct GatewayChallenge: Sendable, Equatable {
    /// The nonce to sign in `connect` (a UUID string on current gateways).
    public var nonce: String
    /// The server's clock in epoch ms, when sent.
    public var timestamp: Int64?

    /// A challenge with this nonce and timestamp.
    public init(nonce: String, timestamp: Int64?) {
        self.nonce = nonce
        self.timestamp = timestamp
    }

    /// The largest challenge text considered (the gateway caps pre-connect frames at 64 KiB).
    public static let maxBytes = 64 * 1024

    /// Parses `text` as a challenge event; the error says what the message was instead.
    public static func parse(_ text: String) -> Result<GatewayChallenge, NotAChallenge> {
        guard text.utf8.count <= maxBytes,
              let json = try? JSONValue.parse(text, limits: JSONLimits(maxInputBytes: maxBytes, maxDepth: 16)) else {
            return .failure(NotAChallenge(detail: "the first message is not JSON"))
        }
        guard json["type"]?.stringValue == "event" else {
            let type = json["type"]?.stringValue.map { "'\($0)'" } ?? "no type"
            return .failure(NotAChallenge(detail: "the first message is not an event (\(type))"))
        }
        guard let event = json["event"]?.stringValue, event == "connect.challenge" else {
            let name = json["event"]?.stringValue.map { "'\($0)'" } ?? "no name"
            return .failure(NotAChallenge(detail: "the first event is \(name), not 'connect.challenge'"))
        }
        guard let nonce = json["payload"]?["nonce"]?.stringValue, !nonce.isEmpty else {
            return .failure(NotAChallenge(detail: "the connect.challenge event has no nonce"))
        }
        return .success(GatewayChallenge(nonce: nonce, timestamp: json["payload"]?["ts"]?.int64Value))
    }

    /// Why a message is not a challenge.
    public struct NotAChallenge: Error, Sendable, Equatable {
        /// What it was instead.
        public let detail: String
    }
}
