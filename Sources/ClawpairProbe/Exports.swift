// The libraries whose types ClawpairProbe's public API names (in signatures, payloads, thrown errors),
// re-exported so that `import ClawpairProbe` is enough to use what it returns.

@_exported import ClawpairCore
@_exported import ClawpairSetupCode
@_exported import ClawpairTransport
