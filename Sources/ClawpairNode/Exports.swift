// The libraries whose types ClawpairNode's public API names (the session it runs on, the registry
// record, the identity, discovery options), re-exported so that `import ClawpairNode` is enough.

@_exported import ClawpairBrowse
@_exported import ClawpairCore
@_exported import ClawpairGateway
@_exported import ClawpairIdentity
