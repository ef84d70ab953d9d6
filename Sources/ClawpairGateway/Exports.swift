// The libraries whose types ClawpairGateway's public API names (in signatures, payloads, thrown errors),
// re-exported so that `import ClawpairGateway` is enough to use what it returns.

@_exported import ClawpairConfig
@_exported import ClawpairCore
@_exported import ClawpairDNS
@_exported import ClawpairIdentity
@_exported import ClawpairProbe
@_exported import ClawpairSetupCode
@_exported import ClawpairTransport
@_exported import ClawpairWebSocket
