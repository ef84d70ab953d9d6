import ClawpairCore
import ClawpairDiscovery

/// What the user asked to change in the beacon the settings describe.
public struct BeaconOverrides: Sendable, Equatable {
    /// The instance name (before the gateway's naming rule); nil for the settings' or the machine's.
    public var instanceName: String?
    /// The TXT displayName.
    public var displayName: String?
    /// The certificate fingerprint to advertise instead of the observed one.
    public var fingerprint: String?
    /// Extra TXT pairs, or ones that replace a standard key (same key, any case).
    public var txt: [TXTPair]

    /// Overrides of the beacon's instance name, display name, fingerprint and extra TXT pairs (nil: keep the configured value).
    public init(instanceName: String? = nil, displayName: String? = nil, fingerprint: String? = nil, txt: [TXTPair] = []) {
        self.instanceName = instanceName
        self.displayName = displayName
        self.fingerprint = fingerprint
        self.txt = txt
    }
}

extension ServicePlan {
    /// The service for `settings` on a machine called `osHostname` after a check that found
    /// `health`: the gateway's instance-name, host-label and TXT rules (minimal or full), then
    /// `overrides`. Throws when a TXT entry does not fit 255 bytes.
    public static func beacon(_ settings: AdvertiseSettings, health: GatewayHealth, overrides: BeaconOverrides,
                              osHostname: String, environment: [String: String] = [:]) throws(ClawpairErrorBox) -> ServicePlan {
        var chosen = settings
        if let name = overrides.instanceName { chosen.instanceName = name }
        let advertisement = chosen.beacon(osHostname: osHostname, fingerprint: overrides.fingerprint ?? health.fingerprint,
                                          environment: environment)
        var extra = overrides.txt.map { (key: $0.key, value: $0.value) }
        if let display = overrides.displayName { extra.insert(("displayName", display), at: 0) }
        do {
            let pairs = try advertisement.txtPairs(merging: extra)
            return ServicePlan(name: advertisement.instanceName, port: settings.port, txt: pairs.map { TXTPair($0.key, $0.value) })
        } catch {
            throw ClawpairErrorBox(error)
        }
    }
}
