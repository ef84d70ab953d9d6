// `clawpair identity show` as one call: the identity to show (a named file or the store's) and,
// for the store's, the device tokens the store holds for it.
import ClawpairCore

extension IdentitySummary {
    /// The summary of the identity in the file at `path`, or when `path` is nil of the store's
    /// identity with the store's token cache entries for it (located from `environment`; see
    /// ``IdentityFile/loadNamedOrStored(path:environment:)``). `warnings` says what a person
    /// should know: a named file whose stored deviceId is not its key's, a token cache that is
    /// damaged or another device's (its entries are then left out).
    public static func load(path: String?, environment: [String: String])
        throws(IdentityError) -> (summary: IdentitySummary, warnings: [String]) {
        let found = try IdentityFile.loadNamedOrStored(path: path, environment: environment)
        var warnings = found.warning.map { [$0] } ?? []
        guard path == nil else { return (IdentitySummary(path: found.path, loaded: found.loaded), warnings) }
        let store = try IdentityStore.locate(environment: environment)
        let (tokens, problem) = store.tokenEntries(for: found.loaded.identity.deviceId)
        if let problem { warnings.append("token cache: \(problem)") }
        return (IdentitySummary(path: found.path, loaded: found.loaded, tokens: tokens), warnings)
    }
}
