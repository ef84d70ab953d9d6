// OpenClaw's config file (`openclaw.json`, JSON5): where it is and what clawpair reads from it.
// The credential parts are in OpenClawConfig+Auth.swift.
import ClawpairCore

/// What clawpair reads from OpenClaw's config file (`openclaw.json`, JSON5).
public enum OpenClawConfig {
    /// The config file: `$OPENCLAW_CONFIG_PATH`, else `$OPENCLAW_STATE_DIR/openclaw.json`, else
    /// `~/.openclaw/openclaw.json`; nil when no home directory is known.
    public static func path(environment: [String: String]) -> String? {
        if let path = environment["OPENCLAW_CONFIG_PATH"], !path.isEmpty { return path }
        if let state = environment["OPENCLAW_STATE_DIR"], !state.isEmpty { return state + "/openclaw.json" }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return (home.hasSuffix("/") ? String(home.dropLast()) : home) + "/.openclaw/openclaw.json"
    }

    /// `discovery.wideArea.domain` of a parsed config: the string as written (untrimmed), or nil
    /// when absent or not a string.
    public static func wideAreaDomain(in config: JSONValue) -> String? {
        config["discovery"]?["wideArea"]?["domain"]?.stringValue
    }

    /// `discovery.wideArea.domain` of the config file at `path`: nil when the file does not
    /// exist; throws when it exists but cannot be read or parsed.
    public static func wideAreaDomain(path: String) throws(ClawpairErrorBox) -> String? {
        try document(path: path).flatMap(wideAreaDomain(in:))
    }

    /// The parsed config file at `path`: nil when the file does not exist; throws when it exists
    /// but cannot be read or parsed.
    public static func document(path: String) throws(ClawpairErrorBox) -> JSONValue? {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(path: path, limit: JSON5.maxInputBytes)
        } catch {
            if let system = error.error as? SystemError, system.errno == 2 /* ENOENT */ { return nil }
            throw error
        }
        do {
            return try JSON5.parse(bytes)
        } catch {
            throw ClawpairErrorBox(ContextualError(path, error))
        }
    }
}
