// The libraries whose types ClawpairConfig's public API names (in signatures, payloads, thrown errors),
// re-exported so that `import ClawpairConfig` is enough to use what it returns.

@_exported import ClawpairCore
