// The libraries whose types ClawpairMDNS's public API names (in signatures, payloads, thrown errors),
// re-exported so that `import ClawpairMDNS` is enough to use what it returns.

@_exported import ClawpairCore
@_exported import ClawpairDNS
