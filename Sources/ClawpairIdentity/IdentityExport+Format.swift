// The formats of `clawpair identity export` by name, and which export each one makes.
import ClawpairCore

extension IdentityExport {
    /// What can be exported, by name: an identity file
    /// form, or OpenClaw's `device-auth.json` token cache.
    public enum Format: String, Sendable, CaseIterable {
        /// OpenClaw's TS `device.json` (``IdentityFileForm/openclaw``).
        case openclaw
        /// The Swift apps' `device.json` (``IdentityFileForm/openclawSwift``).
        case openclawSwift = "openclaw-swift"
        /// PKCS#8 PEM (``IdentityFileForm/pem``), or the SPKI public key.
        case pem
        /// The device token cache as OpenClaw's `device-auth.json`.
        case deviceAuth = "device-auth"

        /// The identity file form, or nil for the token cache.
        public var identityForm: IdentityFileForm? {
            switch self {
            case .openclaw: return .openclaw
            case .openclawSwift: return .openclawSwift
            case .pem: return .pem
            case .deviceAuth: return nil
            }
        }
    }

    /// The export in `format`: for ``Format/deviceAuth`` the token cache `tokenCache` reads, else
    /// the identity `identity` reads in that file form, or only its public key when `publicOnly`
    /// (which a caller allows only with ``Format/pem``). Only the one needed is read.
    public static func make(_ format: Format, publicOnly: Bool, identity: () throws -> DeviceIdentity,
                            tokenCache: () throws -> DeviceTokenCache) rethrows -> IdentityExport {
        guard let form = format.identityForm else { return .tokenCache(try tokenCache()) }
        let identity = try identity()
        return publicOnly ? .publicKey(identity) : .identity(identity, form: form)
    }
}
