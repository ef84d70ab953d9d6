import ClawpairConfig

extension GatewayEndpoint {
    /// The local gateway's URL: `ws://127.0.0.1:` and the port OpenClaw's own CLI would dial
    /// (``OpenClawConfig/gatewayPort(environment:)``: `OPENCLAW_GATEWAY_PORT`, else `gateway.port`
    /// in `openclaw.json`, else 18789). ``defaultURL`` is the same without reading either.
    public static func localURL(environment: [String: String]) -> String {
        "ws://127.0.0.1:\(OpenClawConfig.gatewayPort(environment: environment))"
    }
}
