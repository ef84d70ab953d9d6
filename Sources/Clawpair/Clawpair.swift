// The umbrella product: `import Clawpair` names every public type of the libraries, without
// ambiguity (no two share a name; PublicAPITests checks it). Add a single library product
// instead (`import ClawpairBrowse`, `import ClawpairGateway`, …) to need fewer Debian `-dev`
// packages at build time: each one re-exports the libraries its own API returns.

@_exported import ClawpairAdvertise
@_exported import ClawpairAvahi
@_exported import ClawpairBrowse
@_exported import ClawpairConfig
@_exported import ClawpairCore
@_exported import ClawpairDNS
@_exported import ClawpairDiscovery
@_exported import ClawpairGateway
@_exported import ClawpairIdentity
@_exported import ClawpairMDNS
@_exported import ClawpairNode
@_exported import ClawpairProbe
@_exported import ClawpairQR
@_exported import ClawpairSetupCode
@_exported import ClawpairTransport
@_exported import ClawpairWebSocket
@_exported import ClawpairWideArea
