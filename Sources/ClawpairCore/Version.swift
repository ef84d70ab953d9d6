/// The clawpair release this build belongs to.
public enum ClawpairVersion {
    /// Semantic version, printed by `clawpair --version` and in man page headers.
    public static let current = "0.1.0"
}
