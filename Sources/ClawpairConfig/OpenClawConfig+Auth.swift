import ClawpairCore

/// An operator credential from OpenClaw's config.
public enum ConfiguredGatewayAuth: Sendable, Equatable {
    case token(String)
    case password(String)
}

extension OpenClawConfig {
    /// `gateway.auth` of a parsed config: the token (mode `token`, or a token with no mode) or
    /// the password (mode `password`, or a password with no token).
    public static func gatewayAuth(in config: JSONValue) -> ConfiguredGatewayAuth? {
        guard let auth = config["gateway"]?["auth"] else { return nil }
        let mode = auth["mode"]?.stringValue
        let token = auth["token"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let password = auth["password"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        switch mode {
        case "password": return password.map(ConfiguredGatewayAuth.password)
        case "token": return token.map(ConfiguredGatewayAuth.token)
        default: return token.map(ConfiguredGatewayAuth.token) ?? password.map(ConfiguredGatewayAuth.password)
        }
    }

    /// `gateway.auth` of the config file at `path`: nil when the file does not exist; throws when
    /// it exists but cannot be read or parsed.
    public static func gatewayAuth(path: String) throws(ClawpairErrorBox) -> ConfiguredGatewayAuth? {
        try document(path: path).flatMap(gatewayAuth(in:))
    }
}

extension ConfiguredGatewayAuth {
    /// `gateway.auth` of the OpenClaw config file the environment names (`OPENCLAW_CONFIG_PATH`,
    /// `OPENCLAW_STATE_DIR`, else `~/.openclaw/openclaw.json`) and that file's path; nil when
    /// there is no file or no credential in it. The default ``GatewayAuthConfigReader``.
    @Sendable
    public static func fromOpenClawConfig(environment: [String: String]) throws -> (auth: ConfiguredGatewayAuth, path: String)? {
        guard let path = OpenClawConfig.path(environment: environment),
              let auth = try OpenClawConfig.gatewayAuth(path: path) else { return nil }
        return (auth, path)
    }
}
