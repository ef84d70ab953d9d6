// An operator session: which gateway, which credential, connect and authenticate, then the
// typed pairing RPCs (`pairing-rpcs.md` §2–§4) a program or the CLI calls, in a few lines:
//
//     let options = OperatorSessionOptions(target: .automatic, environment: env, registry: registry,
//                                          identity: identity)
//     let session = try OperatorSession.connect(options)
//     defer { session.close() }
//     for request in try session.listDevices().pending { print(request.requestId) }
//
// The credential order follows upstream's "Credential precedence" (openclaw/openclaw
// `docs/gateway/remote.md`): explicit credentials always win; **a command-line URL never reuses
// implicit config or environment credentials** ("when you pass `--url`, the CLI does not fall
// back to config or environment credentials"); `OPENCLAW_GATEWAY_URL` may use environment
// credentials only. The same rule holds for registry selections (issue #25.2): environment
// credentials go only to `OPENCLAW_GATEWAY_URL` or the local gateway (port from openclaw.json),
// never to whatever gateway the registry selected; a registry gateway gets the operator device
// token this machine holds for that very gateway. Then, for a loopback gateway reached without
// a URL override, `gateway.auth.*` from OpenClaw's config file.
//
// Everything below the session goes through ``GatewayCalling`` and ``OperatorConnector``, so
// tests run the session and the typed RPCs against a fake transport without sockets.
//
// Checklist, adding an RPC: a method name in `OperatorMethod`, a record in
// OperatorRecords.swift, a method here that sends the closed params and decodes the record, a
// fake-transport test (params sent, record read, wrong shape refused).

#if canImport(Glibc)
import Glibc
#endif
import ClawpairConfig
import ClawpairCore
import ClawpairIdentity

// MARK: - Transport seams

/// Sends one request over an authenticated connection and returns its response payload
/// (`null` when the response has none). ``GatewayClient`` is the real one.
public protocol GatewayCalling: AnyObject {
    /// Sends `method` with `params` and waits up to `timeout` for the payload.
    func call(_ method: String, params: JSONValue?, timeout: Duration) throws(GatewayError) -> JSONValue
    /// Ends the connection politely; safe to call more than once.
    func close()
}

extension GatewayClient: GatewayCalling {}

/// Opens a connection to a gateway and authenticates with `connect`.
public protocol OperatorConnector {
    /// Connects to `endpoint`, sends `request` signed by `identity`, and returns the open
    /// connection with hello-ok; `timeout` bounds the connection and the connect answer.
    func connect(to endpoint: GatewayEndpoint, request: ConnectRequest, identity: DeviceIdentity,
                 timeout: Duration) throws(GatewayError) -> (connection: any GatewayCalling, hello: HelloOK)
}

/// The real connector: a ``GatewayClient`` over TCP/TLS and WebSocket.
public struct WebSocketOperatorConnector: OperatorConnector {
    /// The configuration each connection is made with.
    public var configuration: GatewayClientConfiguration

    /// A connector with this configuration.
    public init(configuration: GatewayClientConfiguration) {
        self.configuration = configuration
    }

    /// Connects to `endpoint` with `request`, signed by `identity`. A gateway still starting is
    /// waited out within `timeout` (``GatewayStartupRetry``).
    public func connect(to endpoint: GatewayEndpoint, request: ConnectRequest, identity: DeviceIdentity,
                        timeout: Duration) throws(GatewayError) -> (connection: any GatewayCalling, hello: HelloOK) {
        try GatewayStartupRetry.run(within: timeout) { () throws(GatewayError) -> (connection: any GatewayCalling, hello: HelloOK) in
            let client = try GatewayClient(endpoint: endpoint, configuration: configuration)
            try client.open(timeout: timeout)
            let hello = try client.connect(request, identity: identity, timeout: timeout)
            return (client, hello)
        }
    }
}

extension GatewayClientConfiguration {
    /// clawpair's settings for a command with an overall `timeout`: the challenge wait is the
    /// apps' 6 s or less, the User-Agent names clawpair and its version.
    public static func clawpair(timeout: Duration) -> GatewayClientConfiguration {
        GatewayClientConfiguration(challengeTimeout: min(timeout, .seconds(6)), userAgent: "clawpair/\(ClawpairVersion.current)")
    }
}

// MARK: - Target

/// The environment variables an operator session reads.
public enum OperatorEnvironment {
    /// A gateway URL that overrides the registry; it may use environment credentials only.
    public static let gatewayURL = "OPENCLAW_GATEWAY_URL"
    /// The shared operator token.
    public static let token = "OPENCLAW_GATEWAY_TOKEN"
    /// The shared operator password.
    public static let password = "OPENCLAW_GATEWAY_PASSWORD"
}

/// Which gateway to talk to, as the user chose it.
public enum OperatorTargetChoice: Sendable, Equatable {
    /// A URL the caller names explicitly: only explicit credentials and the device token stored
    /// for that same gateway are sent to it.
    case url(String)
    /// A registry gateway by name or id.
    case registryGateway(String)
    /// `OPENCLAW_GATEWAY_URL`, else the active registry gateway, else the local gateway
    /// (``GatewayEndpoint/localURL(environment:)``: the port follows `gateway.port` in openclaw.json).
    case automatic
}

/// Where the resolved target came from; it decides which credentials may be sent to it.
public enum OperatorTargetSource: Sendable, Equatable {
    /// A URL the caller named (``OperatorTargetChoice/url(_:)``).
    case explicitURL
    /// A registry gateway named by the caller.
    case registryGateway
    /// `OPENCLAW_GATEWAY_URL`.
    case environmentURL
    /// The active (default) registry gateway.
    case activeGateway
    /// The local gateway (``GatewayEndpoint/localURL(environment:)``).
    case defaultURL

    /// Whether `OPENCLAW_GATEWAY_TOKEN`/`_PASSWORD` may be sent to a target from this source
    /// whatever its URL: only `OPENCLAW_GATEWAY_URL` and the local gateway. A registry gateway
    /// (named or the default) gets them only when it *is* one of those two URLs
    /// (``OperatorTarget/allowsEnvironmentCredentials(environment:)``); an explicit URL never.
    public var allowsEnvironmentCredentials: Bool { self == .environmentURL || self == .defaultURL }
    /// Whether OpenClaw's config file may supply the credential (no URL override at all).
    public var allowsConfigCredentials: Bool { self != .explicitURL && self != .environmentURL }
}

/// The gateway an operator session connects to.
public struct OperatorTarget: Sendable, Equatable {
    /// Where to connect, with the TLS pin to require.
    public var endpoint: GatewayEndpoint
    /// The registry record, when the gateway is a paired one.
    public var record: PairedGateway?
    /// Where the endpoint came from.
    public var source: OperatorTargetSource

    /// A target with these members.
    public init(endpoint: GatewayEndpoint, record: PairedGateway?, source: OperatorTargetSource) {
        self.endpoint = endpoint
        self.record = record
        self.source = source
    }

    /// Resolves `choice`. The pin is `pin` when given, else the record's stored pin (wss:// only).
    /// Throws ``GatewayError`` for an unusable URL and ``GatewayRegistryError`` for an unknown
    /// registry name.
    public static func resolve(_ choice: OperatorTargetChoice, pin: String? = nil, environment: [String: String],
                               registry: GatewayRegistry) throws -> OperatorTarget {
        var target: OperatorTarget
        switch choice {
        case .url(let url):
            let endpoint = try GatewayEndpoint(parsing: url)
            target = OperatorTarget(endpoint: endpoint, record: registry.gateway(url: endpoint.url), source: .explicitURL)
        case .registryGateway(let name):
            let record = try registry.gateway(named: name)
            target = OperatorTarget(endpoint: try record.primaryEndpoint(), record: record, source: .registryGateway)
        case .automatic:
            let snapshot = registry.snapshot()
            if let url = environment[OperatorEnvironment.gatewayURL], !url.isEmpty {
                let endpoint = try GatewayEndpoint(parsing: url)
                target = OperatorTarget(endpoint: endpoint, record: registry.gateway(url: endpoint.url), source: .environmentURL)
            } else if let active = snapshot.active {
                target = OperatorTarget(endpoint: try active.primaryEndpoint(), record: active, source: .activeGateway)
            } else if let problem = snapshot.unreadableActive {
                throw problem  // the default gateway's record is refused: never fall back to another gateway silently
            } else {
                target = OperatorTarget(endpoint: try GatewayEndpoint(parsing: GatewayEndpoint.localURL(environment: environment)), record: nil,
                                        source: .defaultURL)
            }
        }
        if let pin {
            target.endpoint.pin = pin
        } else if target.endpoint.tls, let stored = target.record?.tlsFingerprint {
            target.endpoint.pin = stored
        }
        return target
    }
}

extension OperatorTarget {
    /// Whether `OPENCLAW_GATEWAY_TOKEN`/`_PASSWORD` may be sent here: upstream's rule that
    /// implicit credentials go only to the URL the user configured them for
    /// (openclaw/openclaw `docs/gateway/remote.md`, "Credential precedence": a `--url` does not
    /// fall back to config or environment credentials; `OPENCLAW_GATEWAY_URL` may use environment
    /// credentials only), held for registry selections too (issue #25.2). True for
    /// `OPENCLAW_GATEWAY_URL` and the local gateway (``GatewayEndpoint/localURL(environment:)``:
    /// its port from openclaw.json); for a registry gateway only when its URL is one of those
    /// two; never for an explicit URL.
    public func allowsEnvironmentCredentials(environment: [String: String]) -> Bool {
        switch source {
        case .environmentURL, .defaultURL: return true
        case .explicitURL: return false
        case .registryGateway, .activeGateway:
            let here = PairedGateway.canonical(endpoint.url)
            if let url = environment[OperatorEnvironment.gatewayURL], !url.isEmpty,
               let configured = try? GatewayEndpoint(parsing: url), PairedGateway.canonical(configured.url) == here {
                return true
            }
            guard let local = try? GatewayEndpoint(parsing: GatewayEndpoint.localURL(environment: environment)) else { return false }
            return PairedGateway.canonical(local.url) == here
        }
    }
}

extension PairedGateway {
    /// The endpoint of its first URL (the one that last worked).
    func primaryEndpoint() throws(GatewayError) -> GatewayEndpoint {
        guard let url = urls.first else { throw .invalidURL("(none)", reason: "the registry record of '\(name)' has no URL") }
        return try GatewayEndpoint(parsing: url)
    }
}

// MARK: - Credential

/// A shared secret the user gave explicitly (a file, standard input, a literal).
public enum OperatorSecret: Sendable, Equatable {
    case token(String)
    case password(String)
}

/// Where the operator credential came from.
public enum OperatorCredentialSource: Sendable, Equatable {
    case explicitToken
    case explicitPassword
    /// `OPENCLAW_GATEWAY_TOKEN`.
    case environmentToken
    /// `OPENCLAW_GATEWAY_PASSWORD`.
    case environmentPassword
    /// The operator device token stored in the registry for the gateway called `gateway`.
    case storedDeviceToken(gateway: String)
    /// `gateway.auth.token` in the config file at `path`.
    case configToken(path: String)
    /// `gateway.auth.password` in the config file at `path`.
    case configPassword(path: String)
    /// Nothing: the device identity alone (a loopback gateway may approve it silently).
    case none
}

/// Reads OpenClaw's gateway credential from its config (given the environment): the credential
/// and the file it came from, or nil when there is none.
public typealias GatewayAuthConfigReader = @Sendable ([String: String]) throws -> (auth: ConfiguredGatewayAuth, path: String)?

/// The credential an operator session sends, and why.
public struct OperatorCredential: Sendable, Equatable {
    /// What to present to the gateway.
    public var auth: ConnectAuth
    /// Where it came from.
    public var source: OperatorCredentialSource
    /// The scopes a stored device token was issued with; connecting asks for exactly those
    /// (more would be a scope upgrade, i.e. a new pairing request). Nil: the operator scopes.
    public var tokenScopes: [String]?
    /// Environment credentials that are set but were not sent because the target is not the
    /// URL they are for (an explicit URL, or a registry gateway that is neither
    /// `OPENCLAW_GATEWAY_URL` nor the local gateway): variable names.
    public var withheldEnvironment: [String]

    /// A credential with these members.
    public init(auth: ConnectAuth, source: OperatorCredentialSource, tokenScopes: [String]? = nil, withheldEnvironment: [String] = []) {
        self.auth = auth
        self.source = source
        self.tokenScopes = tokenScopes
        self.withheldEnvironment = withheldEnvironment
    }

    /// Resolves the credential for `target`, in this order:
    /// 1. `explicit`;
    /// 2. for `OPENCLAW_GATEWAY_URL` and the local gateway: `OPENCLAW_GATEWAY_TOKEN`, then
    ///    `OPENCLAW_GATEWAY_PASSWORD`;
    /// 3. the operator device token stored for the target's registry record and `deviceId`;
    /// 4. for a registry gateway whose URL is `OPENCLAW_GATEWAY_URL` or the local gateway's:
    ///    the environment credentials (``OperatorTarget/allowsEnvironmentCredentials(environment:)``;
    ///    any other target never gets them: they are listed in ``withheldEnvironment``);
    /// 5. for a loopback gateway and no URL override, `gateway.auth.token`/`.password` from
    ///    `readConfig`;
    /// 6. none.
    public static func resolve(explicit: OperatorSecret?, target: OperatorTarget, deviceId: String, environment: [String: String],
                               readConfig: GatewayAuthConfigReader) throws -> OperatorCredential {
        switch explicit {
        case .token(let token): return OperatorCredential(auth: ConnectAuth(token: token), source: .explicitToken)
        case .password(let password): return OperatorCredential(auth: ConnectAuth(password: password), source: .explicitPassword)
        case nil: break
        }
        var withheld: [String] = []
        let environmentAllowed = target.allowsEnvironmentCredentials(environment: environment)
        func fromEnvironment() throws -> OperatorCredential? {
            for (variable, isToken) in [(OperatorEnvironment.token, true), (OperatorEnvironment.password, false)] {
                guard let value = environment[variable] else { continue }
                guard environmentAllowed else {
                    if !value.isEmpty && !withheld.contains(variable) { withheld.append(variable) }
                    continue
                }
                guard !value.isEmpty else { throw OperatorSessionError.emptyCredential(variable: variable) }
                return isToken ? OperatorCredential(auth: ConnectAuth(token: value), source: .environmentToken)
                    : OperatorCredential(auth: ConnectAuth(password: value), source: .environmentPassword)
            }
            return nil
        }
        // The URL the variables are meant for: they come first, as upstream's precedence has it.
        if target.source.allowsEnvironmentCredentials, let credential = try fromEnvironment() { return credential }
        if let record = target.record, let stored = record.token(for: GatewayRole.operator.rawValue, deviceId: deviceId) {
            var withheldHere: [String] = []
            for variable in [OperatorEnvironment.token, OperatorEnvironment.password] where !environmentAllowed {
                if environment[variable]?.isEmpty == false { withheldHere.append(variable) }
            }
            return OperatorCredential(auth: ConnectAuth(token: stored.token), source: .storedDeviceToken(gateway: record.name),
                                      tokenScopes: stored.scopes, withheldEnvironment: withheldHere)
        }
        if !target.source.allowsEnvironmentCredentials, let credential = try fromEnvironment() { return credential }
        if target.source.allowsConfigCredentials, target.endpoint.isLoopback, let (auth, path) = try readConfig(environment) {
            switch auth {
            case .token(let token): return OperatorCredential(auth: ConnectAuth(token: token), source: .configToken(path: path))
            case .password(let password):
                return OperatorCredential(auth: ConnectAuth(password: password), source: .configPassword(path: path))
            }
        }
        return OperatorCredential(auth: ConnectAuth(), source: .none, withheldEnvironment: withheld)
    }
}

/// What goes wrong choosing an operator credential.
public enum OperatorSessionError: Error, Sendable, Equatable {
    /// An environment variable that should hold a credential is set but empty.
    case emptyCredential(variable: String)
}

extension OperatorSessionError: ClawpairError {
    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .emptyCredential(let variable):
            return variable == OperatorEnvironment.password ? "the gateway password is empty" : "the gateway token is empty"
        }
    }
    /// What to do next, or nil (``ClawpairError/hint``).
    public var hint: String? { "check the file or variable that should hold it" }
}

// MARK: - Session

/// What an operator session needs to connect.
public struct OperatorSessionOptions {
    /// Which gateway to open.
    public var target: OperatorTargetChoice
    /// A TLS pin that overrides the registry's (64 hex, normalized).
    public var pin: String?
    /// A credential the user gave explicitly; it always wins.
    public var explicitSecret: OperatorSecret?
    /// The process environment (`OPENCLAW_GATEWAY_URL`, `_TOKEN`, `_PASSWORD`, and what the
    /// config reader looks at).
    public var environment: [String: String]
    /// The registry of paired gateways (stored pins and device tokens).
    public var registry: GatewayRegistry
    /// This machine's device identity; every connect proves it.
    public var identity: DeviceIdentity
    /// Who connects (client id `cli`, mode `cli` by default).
    public var client: GatewayClientInfo
    /// Limit for connecting and for each call.
    public var timeout: Duration
    /// Reads the gateway's auth from OpenClaw's config (replaceable in tests).
    public var readConfig: GatewayAuthConfigReader
    /// Makes the connection (a WebSocket by default; replaceable in tests).
    public var connector: any OperatorConnector

    /// Options; by default the client is the operator CLI's, calls time out after 10 s, auth is read from OpenClaw's config, and the connection is a WebSocket.
    public init(target: OperatorTargetChoice, pin: String? = nil, explicitSecret: OperatorSecret? = nil, environment: [String: String],
                registry: GatewayRegistry, identity: DeviceIdentity,
                client: GatewayClientInfo = .operatorCLI(version: ClawpairVersion.current),
                timeout: Duration = .seconds(10), readConfig: @escaping GatewayAuthConfigReader = ConfiguredGatewayAuth.fromOpenClawConfig,
                connector: (any OperatorConnector)? = nil) {
        self.target = target
        self.pin = pin
        self.explicitSecret = explicitSecret
        self.environment = environment
        self.registry = registry
        self.identity = identity
        self.client = client
        self.timeout = timeout
        self.readConfig = readConfig
        self.connector = connector ?? WebSocketOperatorConnector(configuration: .clawpair(timeout: timeout))
    }
}

/// The target and credential a session will use, resolved before anything is sent.
public struct OperatorPlan: Sendable, Equatable {
    /// The gateway to open.
    public var target: OperatorTarget
    /// The credential to present.
    public var credential: OperatorCredential

    /// A plan with these members.
    public init(target: OperatorTarget, credential: OperatorCredential) {
        self.target = target
        self.credential = credential
    }

    /// The connect request: role operator, the stored token's scopes or the operator scopes.
    ///
    /// A client without a display name gets this device's name: the one it paired with at this
    /// gateway (``PairedGateway/deviceName``), else the host name, as ``PairedGateway/checkTokens(identity:pin:timeout:transport:)``
    /// sends. A gateway keeps a paired device's name from its latest connect, so an operator
    /// connect without one erased the name a node on the same machine paired with.
    public func connectRequest(client: GatewayClientInfo) -> ConnectRequest {
        var client = client
        if client.displayName == nil { client.displayName = target.record?.deviceName ?? HostName.current(fallback: "linux") }
        return ConnectRequest(client: client, role: .operator, scopes: credential.tokenScopes ?? ConnectRequest.operatorScopes,
                              auth: credential.auth)
    }

    /// The one bounded retry upstream's clients make after a shared token was refused
    /// (`docs/gateway/protocol/auth.md`, `packages/gateway-client/src/client.ts` `selectConnectAuth`):
    /// when `error` invites it (``GatewayErrorShape/invitesDeviceTokenRetry``), the credential
    /// was a shared token, this device holds a stored operator token for the target, and the
    /// endpoint is trusted (loopback, or `wss://` with a pin), the plan that connects with that
    /// stored token instead; nil otherwise (a public `wss://` without a pin never qualifies).
    public func deviceTokenRetry(after error: GatewayError, deviceId: String) -> OperatorPlan? {
        guard case .authRejected(let shape) = error, shape.invitesDeviceTokenRetry else { return nil }
        switch credential.source {
        case .explicitToken, .environmentToken, .configToken: break
        default: return nil
        }
        guard target.endpoint.admitsDeviceTokenRetry(pin: target.endpoint.pin),
              let record = target.record, let stored = record.token(for: GatewayRole.operator.rawValue, deviceId: deviceId)
        else { return nil }
        return OperatorPlan(target: target, credential: OperatorCredential(
            auth: ConnectAuth(token: stored.token), source: .storedDeviceToken(gateway: record.name), tokenScopes: stored.scopes,
            withheldEnvironment: credential.withheldEnvironment))
    }
}

/// The RPC method names the session calls.
enum OperatorMethod {
    static let devicePairList = "device.pair.list"
    static let devicePairApprove = "device.pair.approve"
    static let devicePairReject = "device.pair.reject"
    static let devicePairRemove = "device.pair.remove"
    static let deviceTokenRotate = "device.token.rotate"
    static let deviceTokenRevoke = "device.token.revoke"
    static let devicePairSetupCode = "device.pair.setupCode"
    static let nodeList = "node.list"
    static let nodeDescribe = "node.describe"
    static let nodePairList = "node.pair.list"
    static let nodePairApprove = "node.pair.approve"
    static let nodePairReject = "node.pair.reject"
}

/// An authenticated operator connection and its typed RPCs. Confined to the thread that
/// created it; closes its connection when released.
public final class OperatorSession {
    /// The gateway this session is open to.
    public let target: OperatorTarget
    /// The credential it was opened with.
    public let credential: OperatorCredential
    /// The gateway's hello-ok.
    public let hello: HelloOK
    /// Limit for each call.
    public let timeout: Duration
    let connection: any GatewayCalling

    /// A session over an already authenticated connection (tests use a fake one).
    public init(connection: any GatewayCalling, hello: HelloOK, plan: OperatorPlan, timeout: Duration) {
        self.connection = connection
        self.hello = hello
        self.target = plan.target
        self.credential = plan.credential
        self.timeout = timeout
    }

    deinit {
        connection.close()
    }

    /// Resolves the target and the credential without connecting.
    public static func plan(_ options: OperatorSessionOptions) throws -> OperatorPlan {
        let target = try OperatorTarget.resolve(options.target, pin: options.pin, environment: options.environment,
                                                registry: options.registry)
        let credential = try OperatorCredential.resolve(explicit: options.explicitSecret, target: target,
                                                        deviceId: options.identity.deviceId, environment: options.environment,
                                                        readConfig: options.readConfig)
        return OperatorPlan(target: target, credential: credential)
    }

    /// Connects and authenticates as planned; a refused shared token is retried once with the
    /// stored device token where upstream allows it (``OperatorPlan/deviceTokenRetry(after:deviceId:)``).
    public static func connect(_ plan: OperatorPlan, options: OperatorSessionOptions) throws(GatewayError) -> OperatorSession {
        func open(_ plan: OperatorPlan) throws(GatewayError) -> OperatorSession {
            let (connection, hello) = try options.connector.connect(to: plan.target.endpoint, request: plan.connectRequest(client: options.client),
                                                                    identity: options.identity, timeout: options.timeout)
            return OperatorSession(connection: connection, hello: hello, plan: plan, timeout: options.timeout)
        }
        do {
            return try open(plan)
        } catch {
            guard let retry = plan.deviceTokenRetry(after: error, deviceId: options.identity.deviceId) else { throw error }
            return try open(retry)
        }
    }

    /// Resolves the target and credential, connects and authenticates.
    public static func connect(_ options: OperatorSessionOptions) throws -> OperatorSession {
        try connect(try plan(options), options: options)
    }

    /// Closes the connection (a normal close frame). Safe to call more than once.
    public func close() {
        connection.close()
    }

    /// Calls `method` with a closed params object and returns the payload. A method the
    /// gateway's hello-ok does not list (``HelloOK/offers(_:)``) is not called; an `unknown
    /// method` answer is reported the same way (``GatewayError/unsupportedMethod(method:serverVersion:)``).
    func call(_ method: String, _ params: [(String, JSONValue)]) throws(GatewayError) -> JSONValue {
        guard hello.offers(method) else { throw .unsupportedMethod(method: method, serverVersion: hello.serverVersion) }
        do {
            return try connection.call(method, params: .object(params), timeout: timeout)
        } catch {
            if case .rpcFailed(_, let shape) = error, shape.message.hasPrefix("unknown method") {
                throw .unsupportedMethod(method: method, serverVersion: hello.serverVersion)
            }
            throw error
        }
    }

    // MARK: Devices

    /// `device.pair.list`: pending requests and paired devices.
    public func listDevices() throws(GatewayError) -> DevicePairingList {
        try DevicePairingList(json: call(OperatorMethod.devicePairList, []))
    }

    /// `device.pair.approve {requestId}`. Check the id is still pending first (``listDevices()``):
    /// a superseded request fails.
    public func approveDevice(requestId: String) throws(GatewayError) -> DeviceApproval {
        try DeviceApproval(json: call(OperatorMethod.devicePairApprove, [("requestId", .string(requestId))]))
    }

    /// `device.pair.reject {requestId}`.
    public func rejectDevice(requestId: String) throws(GatewayError) -> DeviceRejection {
        try DeviceRejection(json: call(OperatorMethod.devicePairReject, [("requestId", .string(requestId))]))
    }

    /// `device.pair.remove {deviceId}`: the device's tokens stop working and its sockets close.
    public func removeDevice(deviceId: String) throws(GatewayError) -> DeviceRemoval {
        try DeviceRemoval(json: call(OperatorMethod.devicePairRemove, [("deviceId", .string(deviceId))]))
    }

    /// `device.token.rotate {deviceId, role, scopes?}`; `scopes` nil keeps the token's scopes.
    public func rotateDeviceToken(deviceId: String, role: String, scopes: [String]? = nil) throws(GatewayError) -> TokenRotation {
        var params: [(String, JSONValue)] = [("deviceId", .string(deviceId)), ("role", .string(role))]
        if let scopes { params.append(("scopes", .array(scopes.map(JSONValue.string)))) }
        return try TokenRotation(json: call(OperatorMethod.deviceTokenRotate, params))
    }

    /// `device.token.revoke {deviceId, role}`.
    public func revokeDeviceToken(deviceId: String, role: String) throws(GatewayError) -> TokenRevocation {
        try TokenRevocation(json: call(OperatorMethod.deviceTokenRevoke, [("deviceId", .string(deviceId)), ("role", .string(role))]))
    }

    /// `device.pair.setupCode` (needs operator.admin).
    public func mintSetupCode(_ request: SetupCodeRequest = SetupCodeRequest()) throws(GatewayError) -> SetupCodeResult {
        try SetupCodeResult(json: connection.call(OperatorMethod.devicePairSetupCode, params: request.params, timeout: timeout))
    }

    // MARK: Nodes

    /// `node.list`.
    public func listNodes() throws(GatewayError) -> NodeList {
        try NodeList(json: call(OperatorMethod.nodeList, []))
    }

    /// `node.describe {nodeId}`: one node as `node.list` shows it (`{ts} & NodeListNode`).
    public func describeNode(nodeId: String) throws(GatewayError) -> NodeListNode {
        try NodeListNode(json: call(OperatorMethod.nodeDescribe, [("nodeId", .string(nodeId))]), context: OperatorMethod.nodeDescribe)
    }

    /// `node.pair.list`: the separate node pairing store.
    public func listNodePairing() throws(GatewayError) -> NodePairingList {
        try NodePairingList(json: call(OperatorMethod.nodePairList, []))
    }

    /// `node.pair.approve {requestId}` (issues the node a fresh token, redacted in the result).
    public func approveNode(requestId: String) throws(GatewayError) -> NodePairResolution {
        NodePairResolution(json: try call(OperatorMethod.nodePairApprove, [("requestId", .string(requestId))]))
    }

    /// `node.pair.reject {requestId}`.
    public func rejectNode(requestId: String) throws(GatewayError) -> NodePairResolution {
        NodePairResolution(json: try call(OperatorMethod.nodePairReject, [("requestId", .string(requestId))]))
    }
}

@available(*, unavailable)
extension OperatorSession: Sendable {}
