import ClawpairCore
import ClawpairGateway
import Testing

/// Which gateway errors are refusals of permission (exit 4 on the command line) rather than failures.
@Suite struct GatewayErrorTests {
    @Test("a missing scope or role is a permission refusal, in every form a gateway sends it",
          arguments: [
              // authorizeGatewayMethod (src/gateway/server-methods.ts): INVALID_REQUEST with the scope in the message.
              GatewayErrorShape(code: "INVALID_REQUEST", message: "missing scope: operator.pairing"),
              GatewayErrorShape(code: "INVALID_REQUEST", message: "unauthorized role: node"),
              GatewayErrorShape(code: "FORBIDDEN", message: "missing scope: operator.write"),
              GatewayErrorShape(code: "UNAUTHORIZED", message: "no"),
              GatewayErrorShape(code: "INVALID_REQUEST", message: "denied", details: .object([("code", .string("MISSING_SCOPE"))])),
          ])
    func permission(shape: GatewayErrorShape) {
        #expect(GatewayError.rpcFailed(method: "device.pair.list", shape).isPermissionRefusal, "\(shape)")
    }

    @Test("other INVALID_REQUEST errors are failures, not refusals")
    func failures() {
        for message in ["unknown requestId", "invalid params: missing scope", "device pairing approval denied"] {
            let shape = GatewayErrorShape(code: "INVALID_REQUEST", message: message)
            #expect(!GatewayError.rpcFailed(method: "device.pair.approve", shape).isPermissionRefusal, "\(message)")
        }
        #expect(!GatewayError.timedOut(what: "rpc", after: .seconds(1)).isPermissionRefusal)
    }

    /// Found by FuzzGatewayDetails: an error without a message was described by its code as sent.
    @Test("a peer's error code reaches a message only sanitized, also when the gateway sent no message")
    func codeIsSanitized() {
        let shape = GatewayErrorShape(code: "AUTH_\u{1B}[31mRED\u{7F}", message: "")
        for error in [GatewayError.connectFailure(shape), .rpcFailed(method: "node.list", shape)] {
            #expect(!error.message.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x7F }, "\(error.message.debugDescription)")
        }
    }
}
