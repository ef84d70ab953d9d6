// Pairing for `async` callers: the run goes on a thread of its own (ClawpairCore's LoopThread),
// the awaiting task is suspended, and cancelling it stops the probe, the connect in flight or
// the wait for approval within milliseconds.

import ClawpairCore
import ClawpairIdentity
import ClawpairSetupCode

/// What ``GatewayPairing/progress(setup:options:registry:configuration:identity:)`` reports:
/// each step, then the result.
public enum PairingUpdate: Sendable {
    /// A step of the run.
    case progress(PairingProgress)
    /// The device is paired and its token(s) stored; the stream finishes after this.
    case paired(PairingResult)
}

extension GatewayPairing {
    /// Pairs with the gateway of `setup` over the network and stores the token(s) in `registry`,
    /// as ``run(identity:progress:)`` does; `identity` is asked for this machine's identity once
    /// a route answered, on the pairing's own thread. Cancelling the task ends the run with
    /// ``PairingError/gateway(_:)`` wrapping ``GatewayError/cancelled``, storing nothing.
    public static func pair(setup: DecodedSetup, options: PairingOptions, registry: GatewayRegistry,
                            configuration: GatewayClientConfiguration = GatewayClientConfiguration(),
                            identity: @escaping @Sendable () throws -> DeviceIdentity,
                            progress: @escaping @Sendable (PairingProgress) -> Void = { _ in }) async throws(PairingError) -> PairingResult {
        try await LoopThread.run { (stop: StopSignal) throws(PairingError) -> PairingResult in
            try network(setup: setup, options: options, registry: registry, configuration: configuration, stop: stop)
                .run(identity: identity, progress: progress)
        }
    }

    /// ``pair(setup:options:registry:configuration:identity:progress:)`` as a stream: each
    /// progress step, then ``PairingUpdate/paired(_:)``; a failure ends it with the
    /// ``PairingError``. Ending the iteration (or cancelling its task) stops the pairing.
    public static func progress(setup: DecodedSetup, options: PairingOptions, registry: GatewayRegistry,
                                configuration: GatewayClientConfiguration = GatewayClientConfiguration(),
                                identity: @escaping @Sendable () throws -> DeviceIdentity) -> AsyncThrowingStream<PairingUpdate, any Error> {
        LoopThread.stream { yield, stop in
            let result = try network(setup: setup, options: options, registry: registry, configuration: configuration, stop: stop)
                .run(identity: identity, progress: { yield(.progress($0)) })
            yield(.paired(result))
        }
    }

    /// A pairing over the network whose probe, connects and waits all end when `stop` is raised.
    public static func network(setup: DecodedSetup, options: PairingOptions, registry: GatewayRegistry,
                               configuration: GatewayClientConfiguration = GatewayClientConfiguration(),
                               stop: StopSignal) -> GatewayPairing {
        var pairing = GatewayPairing(setup: setup, options: options, registry: registry,
                                     transport: NetworkPairingTransport(configuration: configuration, stop: stop))
        pairing.stop = stop
        return pairing
    }
}
