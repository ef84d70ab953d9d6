// The libraries whose types ClawpairDiscovery's public API names (in signatures, payloads, thrown errors),
// re-exported so that `import ClawpairDiscovery` is enough to use what it returns.

@_exported import ClawpairCore
@_exported import ClawpairDNS
@_exported import ClawpairSetupCode
