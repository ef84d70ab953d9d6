/// The clawpair release this build belongs to.
public enum ClawpairVersion {
    /// Semantic version of this release of the toolkit.
    public static let current = "0.1.0"
}
