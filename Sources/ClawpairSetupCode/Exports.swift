// The libraries whose types ClawpairSetupCode's public API names (in signatures, payloads, thrown errors),
// re-exported so that `import ClawpairSetupCode` is enough to use what it returns.

@_exported import ClawpairCore
