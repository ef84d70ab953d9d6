// The libraries whose types ClawpairBrowse's public API names (in signatures, payloads, thrown errors),
// re-exported so that `import ClawpairBrowse` is enough to use what it returns.

@_exported import ClawpairAvahi
@_exported import ClawpairCore
@_exported import ClawpairDiscovery
@_exported import ClawpairMDNS
@_exported import ClawpairWideArea
