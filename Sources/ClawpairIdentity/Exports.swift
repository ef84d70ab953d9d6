// The libraries whose types ClawpairIdentity's public API names (in signatures, payloads, thrown errors),
// re-exported so that `import ClawpairIdentity` is enough to use what it returns.

@_exported import ClawpairCore
