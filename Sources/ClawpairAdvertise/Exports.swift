// The libraries whose types ClawpairAdvertise's public API names (in signatures, payloads, thrown errors),
// re-exported so that `import ClawpairAdvertise` is enough to use what it returns.

@_exported import ClawpairCore
@_exported import ClawpairDiscovery
