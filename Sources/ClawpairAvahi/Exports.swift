// The libraries whose types ClawpairAvahi's public API names (in signatures, payloads, thrown errors),
// re-exported so that `import ClawpairAvahi` is enough to use what it returns.

@_exported import ClawpairCore
