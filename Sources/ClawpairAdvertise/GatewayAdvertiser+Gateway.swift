// The advertiser a program wants for "advertise this machine's OpenClaw gateway": the beacon
// composed by ServicePlan.beacon, settings fixed or read from the gateway's openclaw.json (and
// then advertised only while the gateway answers), registered with the system's avahi-daemon.

import ClawpairCore
import ClawpairDiscovery

extension GatewayAdvertiser {
    /// Where the advertised gateway's settings come from.
    public enum Source: Sendable {
        /// Fixed settings, advertised until the run ends (no health check).
        case settings(AdvertiseSettings)
        /// The gateway's openclaw.json at `path` (``AdvertiseSettings/load(path:environment:)``),
        /// read now and again at every check and reload; the beacon is advertised only while the
        /// gateway answers. `environment` gives the variables the config and the beacon read
        /// (`OPENCLAW_GATEWAY_PORT`, the full-mode defaults). In full mode with Tailscale on in
        /// the config, `tailnetStatus` gives `tailscale status --json` for `tailnetDns` (by
        /// default ``TailnetDnsHint/cachedLookup(program:budget:validity:clock:)``).
        case config(path: String, environment: [String: String], tailnetStatus: TailnetDnsHint.StatusLookup? = nil)
    }

    /// An advertiser of the gateway of `source` on the machine named `osHostname`, as
    /// `_openclaw-gw._tcp` with the beacon ``ServicePlan/beacon(_:health:overrides:osHostname:environment:)``
    /// composes with `overrides`, on `interfaces` (empty: every interface the daemon uses). A
    /// config source is checked with `healthCheck` (by default a probe of the gateway's port).
    /// Registers through `registrar`, by default the system's avahi-daemon, renaming at most
    /// `schedule.maxRenames` times after name conflicts. Throws what loading the config first throws.
    public static func gateway(_ source: Source, overrides: BeaconOverrides = BeaconOverrides(), osHostname: String,
                               interfaces: [AdvertiseInterface] = [],
                               healthCheck: any GatewayHealthCheck = ProbeHealthCheck(),
                               registrar: any ServiceRegistrar = AvahiServiceRegistrar(),
                               clock: any MonotonicClock = SystemMonotonicClock(),
                               schedule: AdvertiserSchedule = AdvertiserSchedule(),
                               events: @escaping (AdvertiserEvent) -> Void) throws(ClawpairErrorBox) -> GatewayAdvertiser {
        let load: () throws(ClawpairErrorBox) -> AdvertiseSettings
        let environment: [String: String]
        var check: (any GatewayHealthCheck)?
        switch source {
        case .settings(let settings):
            load = { () throws(ClawpairErrorBox) in settings }
            environment = [:]
        case .config(let path, let variables, let tailnetStatus):
            let lookup = tailnetStatus ?? TailnetDnsHint.cachedLookup(clock: clock)
            load = { () throws(ClawpairErrorBox) in try AdvertiseSettings.load(path: path, environment: variables, tailnetStatus: lookup) }
            environment = variables
            check = healthCheck
        }
        return try GatewayAdvertiser(
            serviceType: BeaconIdentity.serviceType, load: load,
            compose: { (settings, health) throws(ClawpairErrorBox) in
                var plan = try ServicePlan.beacon(settings, health: health, overrides: overrides, osHostname: osHostname,
                                                  environment: environment)
                plan.interfaces = interfaces
                return plan
            },
            healthCheck: check, registrar: registrar, clock: clock, schedule: schedule, events: events)
    }
}
