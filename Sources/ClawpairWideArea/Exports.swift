// The libraries whose types ClawpairWideArea's public API names (in signatures, payloads, thrown errors),
// re-exported so that `import ClawpairWideArea` is enough to use what it returns.

@_exported import ClawpairCore
@_exported import ClawpairDNS
