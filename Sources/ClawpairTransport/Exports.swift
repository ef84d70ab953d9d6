// The libraries whose types ClawpairTransport's public API names (in signatures, payloads, thrown errors),
// re-exported so that `import ClawpairTransport` is enough to use what it returns.

@_exported import ClawpairCore
