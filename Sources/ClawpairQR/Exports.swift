// The libraries whose types ClawpairQR's public API names (in signatures, payloads, thrown errors),
// re-exported so that `import ClawpairQR` is enough to use what it returns.

@_exported import ClawpairCore
