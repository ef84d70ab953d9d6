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
    /// The host label the SRV record points to and TXT `lanHost` names (`label.local`), already
    /// validated (``AdvertiseHostName/label(_:)``); nil for `OPENCLAW_MDNS_HOSTNAME` of the
    /// environment, else the daemon's own host name.
    public var hostLabel: String?

    /// Overrides of the beacon's instance name, display name, fingerprint, extra TXT pairs and
    /// host label (nil: keep the configured value).
    public init(instanceName: String? = nil, displayName: String? = nil, fingerprint: String? = nil, txt: [TXTPair] = [],
                hostLabel: String? = nil) {
        self.instanceName = instanceName
        self.displayName = displayName
        self.fingerprint = fingerprint
        self.txt = txt
        self.hostLabel = hostLabel
    }
}

extension ServicePlan {
    /// The service for `settings` on a machine called `osHostname` after a check that found
    /// `health`: the gateway's instance-name, host-label and TXT rules (minimal or full), then
    /// `overrides`. A host label (the override's, else a valid `OPENCLAW_MDNS_HOSTNAME` of
    /// `environment`) becomes TXT `lanHost` and the SRV target (``ServicePlan/hostLabel``).
    /// Throws when a TXT entry does not fit 255 bytes or `OPENCLAW_MDNS_HOSTNAME` is not a host label.
    public static func beacon(_ settings: AdvertiseSettings, health: GatewayHealth, overrides: BeaconOverrides,
                              osHostname: String, environment: [String: String] = [:]) throws(ClawpairErrorBox) -> ServicePlan {
        var chosen = settings
        if let name = overrides.instanceName { chosen.instanceName = name }
        var hostLabel = overrides.hostLabel
        if hostLabel == nil, let raw = environment[BeaconIdentity.hostnameVariable] {
            do { hostLabel = try AdvertiseHostName.label(raw) } catch { throw ClawpairErrorBox(error) }
        }
        var variables = environment
        variables[BeaconIdentity.hostnameVariable] = hostLabel
        let advertisement = chosen.beacon(osHostname: osHostname, fingerprint: overrides.fingerprint ?? health.fingerprint,
                                          environment: variables)
        var extra = overrides.txt.map { (key: $0.key, value: $0.value) }
        if let display = overrides.displayName { extra.insert(("displayName", display), at: 0) }
        do {
            let pairs = try advertisement.txtPairs(merging: extra)
            return ServicePlan(name: advertisement.instanceName, port: settings.port, txt: pairs.map { TXTPair($0.key, $0.value) },
                               hostLabel: hostLabel)
        } catch {
            throw ClawpairErrorBox(error)
        }
    }
}
