// A WebSocket endpoint's protocol engine after the opening handshake, without I/O: bytes from
// the transport go in (`receive`), application events come out (`nextEvent`), and frames to
// send accumulate in `takeOutbound()`. It answers pings, runs the closing handshake (§7) and
// fails the connection on protocol errors with the right close code (§7.1.7).
//
// The closing handshake is one exhaustive `switch (state, input)` in `handle(_:)`:
//
//   state \ input     localClose        peerClose            protocolError      transportEnded
//   open              send close →      echo close →         send close(code) → closed (1006)
//                     closeSent         closed               failed
//   closeSent         ignore            closed               failed             closed (1006)
//   closed / failed   ignore            ignore               ignore             ignore
//
// In `closeSent` data still arrives and is delivered (§5.5.1); pings are no longer answered,
// since nothing may follow our close frame.
//
// Pongs are coalesced (§5.5.3: "an endpoint MAY elect to send a Pong frame for only the most
// recently processed Ping frame"): a ping only records its payload, and the one pong for the
// latest ping is framed when the transport takes the outbound bytes. A peer flooding pings thus
// costs one pong per transport write, not one per ping; runs of consecutive `.ping` events
// collapse the same way.

/// What the application sees.
public enum WebSocketEvent: Sendable, Equatable {
    /// A complete text message.
    case text(String)
    /// A complete binary message.
    case binary([UInt8])
    /// A pong (answering our ping, or a heartbeat).
    case pong([UInt8])
    /// A ping was received (already answered with a pong unless we are closing).
    case ping([UInt8])
    /// The connection closed: the status the peer sent (or 1005/1006), and whether we started
    /// the closing handshake.
    case closed(WebSocketCloseStatus, initiatedLocally: Bool)
    /// The peer broke the protocol; a close frame with `error.closeCode` was queued and the
    /// transport should be closed once it is written.
    case failed(WebSocketProtocolError)
}

/// Why a send was refused.
public enum WebSocketStateError: Error, Sendable, Equatable {
    /// The closing handshake has begun or ended; nothing more may be sent.
    case closing
}

/// The protocol engine of one WebSocket connection.
public struct WebSocketConnection: Sendable {
    /// The connection's position in the closing handshake.
    public enum State: Sendable, Equatable {
        /// Data flows both ways.
        case open
        /// We sent a close frame (with this code) and wait for the peer's.
        case closeSent(WebSocketCloseCode)
        /// The closing handshake finished, or the transport ended.
        case closed
        /// We failed the connection because of this protocol error.
        case failed(WebSocketProtocolError)
    }

    /// Inputs of the closing-handshake state machine.
    private enum Input {
        case localClose(WebSocketCloseStatus)
        case peerClose(WebSocketCloseStatus?)
        case protocolError(WebSocketProtocolError)
        case transportEnded
    }

    /// Which end this is (clients mask what they send).
    public let role: WebSocketFrameDecoder.Role
    /// The current state.
    public private(set) var state: State = .open

    private var decoder: WebSocketFrameDecoder
    private var assembler: WebSocketMessageAssembler
    private var events: [WebSocketEvent] = []
    private var eventIndex = 0
    private var outbound: [UInt8] = []
    /// The payload of the latest ping not yet answered (coalesced, see above).
    private var pendingPong: [UInt8]?
    private let maskingKeys: @Sendable () -> WebSocketMaskingKey

    /// An engine for `role` with the decoder's and assembler's limits (see their defaults).
    /// `maskingKeys` supplies a key per frame for a client (default: the system CSPRNG); tests
    /// may pass a fixed one.
    public init(role: WebSocketFrameDecoder.Role,
                maxFramePayloadSize: Int = WebSocketFrameDecoder.defaultMaxFramePayloadSize,
                maxMessageSize: Int = WebSocketMessageAssembler.defaultMaxMessageSize,
                maxFragmentCount: Int = WebSocketMessageAssembler.defaultMaxFragmentCount,
                maskingKeys: @escaping @Sendable () -> WebSocketMaskingKey = { WebSocketMaskingKey.random() }) {
        self.role = role
        self.decoder = WebSocketFrameDecoder(role: role, maxFramePayloadSize: maxFramePayloadSize)
        self.assembler = WebSocketMessageAssembler(maxMessageSize: maxMessageSize, maxFragmentCount: maxFragmentCount)
        self.maskingKeys = maskingKeys
    }

    /// Whether the transport should be closed once the outbound bytes are written.
    public var shouldCloseTransport: Bool {
        switch state {
        case .open, .closeSent: return false
        case .closed, .failed: return true
        }
    }

    /// Changes the frame and message limits for everything not yet decoded (a protocol above may
    /// learn its peer's limit only after the first messages, as the gateway's hello-ok policy).
    public mutating func updateLimits(maxFramePayloadSize: Int, maxMessageSize: Int) {
        precondition(maxFramePayloadSize >= WebSocketFrameDecoder.maxControlPayloadSize && maxMessageSize >= 0,
                     "the frame limit must admit control frames")
        decoder.maxFramePayloadSize = maxFramePayloadSize
        assembler.maxMessageSize = maxMessageSize
    }

    /// Bytes received but not yet decoded into a frame.
    public var bufferedByteCount: Int { decoder.bufferedByteCount }

    // MARK: Input from the transport

    /// Feeds bytes from the transport and decodes every complete frame into events.
    public mutating func receive(_ bytes: some Collection<UInt8>) {
        guard !shouldCloseTransport else { return }
        decoder.append(bytes)
        while !shouldCloseTransport {
            let frame: WebSocketFrame?
            do {
                frame = try decoder.next()
            } catch {
                handle(.protocolError(error))
                return
            }
            guard let frame else { return }
            let event: WebSocketInboundEvent?
            do {
                event = try assembler.receive(frame)
            } catch {
                handle(.protocolError(error))
                return
            }
            guard let event else { continue }
            switch event {
            case .text(let text): events.append(.text(text))
            case .binary(let bytes): events.append(.binary(bytes))
            case .pong(let bytes): events.append(.pong(bytes))
            case .ping(let bytes):
                if state == .open { pendingPong = bytes }
                if eventIndex < events.count, case .ping = events[events.count - 1] {
                    events[events.count - 1] = .ping(bytes)
                } else {
                    events.append(.ping(bytes))
                }
            case .close(let status): handle(.peerClose(status))
            }
        }
    }

    /// The transport reached end of file or broke.
    public mutating func transportEnded() {
        handle(.transportEnded)
    }

    /// The next event, in arrival order; nil when none is pending.
    public mutating func nextEvent() -> WebSocketEvent? {
        guard eventIndex < events.count else {
            events.removeAll(keepingCapacity: true)
            eventIndex = 0
            return nil
        }
        defer { eventIndex += 1 }
        return events[eventIndex]
    }

    // MARK: Output

    /// Queues a text message (one frame).
    public mutating func send(text: String) throws(WebSocketStateError) {
        guard state == .open else { throw .closing }
        enqueue(WebSocketFrame(opcode: .text, payload: Array(text.utf8)))
    }

    /// Queues a binary message (one frame).
    public mutating func send(binary: [UInt8]) throws(WebSocketStateError) {
        guard state == .open else { throw .closing }
        enqueue(WebSocketFrame(opcode: .binary, payload: binary))
    }

    /// Queues a ping (payload at most 125 bytes).
    public mutating func ping(_ payload: [UInt8] = []) throws(WebSocketStateError) {
        precondition(payload.count <= WebSocketFrameDecoder.maxControlPayloadSize, "ping payloads carry at most 125 bytes")
        guard state == .open else { throw .closing }
        enqueue(WebSocketFrame(opcode: .ping, payload: payload))
    }

    /// Starts the closing handshake with `code` (which must be valid on the wire) and `reason`.
    /// A second call, or a call after the connection closed, does nothing.
    public mutating func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        precondition(code.isValidOnWire, "close code \(code) may not be sent")
        handle(.localClose(WebSocketCloseStatus(code: code, reason: reason)))
    }

    /// Takes the bytes queued for the transport (with the pong for the latest ping, if one is
    /// owed).
    public mutating func takeOutbound() -> [UInt8] {
        flushPong()
        defer { outbound.removeAll(keepingCapacity: true) }
        return outbound
    }

    /// Whether bytes are waiting to be written (a pong owed counts).
    public var hasOutbound: Bool { !outbound.isEmpty || pendingPong != nil }

    /// Frames the owed pong, if any.
    private mutating func flushPong() {
        guard let payload = pendingPong else { return }
        pendingPong = nil
        enqueue(WebSocketFrame(opcode: .pong, payload: payload))
    }

    private mutating func enqueue(_ frame: WebSocketFrame) {
        let key: WebSocketMaskingKey? = role == .client ? maskingKeys() : nil
        outbound.append(contentsOf: WebSocketFrameEncoder.encode(frame, maskingKey: key))
    }

    // MARK: The closing handshake

    private mutating func handle(_ input: Input) {
        // An owed pong goes out before our close frame; nothing may follow that.
        if state == .open { flushPong() }
        switch (state, input) {
        case (.open, .localClose(let status)):
            enqueue(WebSocketFrame(opcode: .close, payload: WebSocketFrameEncoder.closePayload(status)))
            state = .closeSent(status.code)
        case (.open, .peerClose(let status)):
            // Echo the peer's code (§5.5.1); an empty close is answered with an empty one.
            enqueue(WebSocketFrame(opcode: .close, payload: WebSocketFrameEncoder.closePayload(status.map {
                WebSocketCloseStatus(code: $0.code)
            })))
            state = .closed
            events.append(.closed(status ?? WebSocketCloseStatus(code: .noStatusReceived), initiatedLocally: false))
        case (.closeSent, .peerClose(let status)):
            state = .closed
            events.append(.closed(status ?? WebSocketCloseStatus(code: .noStatusReceived), initiatedLocally: true))
        case (.open, .protocolError(let error)):
            enqueue(WebSocketFrame(opcode: .close, payload: WebSocketFrameEncoder.closePayload(
                WebSocketCloseStatus(code: error.closeCode))))
            state = .failed(error)
            events.append(.failed(error))
        case (.closeSent, .protocolError(let error)):
            state = .failed(error)
            events.append(.failed(error))
        case (.open, .transportEnded):
            state = .closed
            events.append(.closed(WebSocketCloseStatus(code: .abnormalClosure), initiatedLocally: false))
        case (.closeSent, .transportEnded):
            state = .closed
            events.append(.closed(WebSocketCloseStatus(code: .abnormalClosure), initiatedLocally: true))
        case (.closeSent, .localClose),
             (.closed, _), (.failed, _):
            break
        }
    }
}
