// A connected byte stream on an `EventLoop`: a non-blocking socket, optionally wrapped in TLS
// (`TLSClientEngine`), with buffered writes and readiness-driven reads. Protocol layers above
// (the WebSocket handshake and codec) see only plaintext bytes in and out.

import ClawpairCore

/// Why a stream failed.
public enum StreamError: Error, Sendable, Equatable {
    /// The socket failed or the peer reset it.
    case transport(TransportError)
    /// TLS failed.
    case tls(TLSError)
    /// The peer stopped reading: more than `limit` bytes waited for it to drain.
    case peerNotReading(queuedBytes: Int, limit: Int)
}

extension StreamError: ClawpairError {
    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .transport(let error): return error.message
        case .tls(let error): return error.message
        case .peerNotReading(let queued, let limit):
            return "the peer stopped reading: \(queued) bytes waited to be sent (limit \(limit))"
        }
    }
}

/// What a stream reports to its owner.
public enum StreamEvent: Sendable, Equatable {
    /// Plaintext bytes arrived.
    case data([UInt8])
    /// The peer closed the stream (end of file, or TLS close_notify).
    case closed
    /// The stream broke.
    case failed(StreamError)
}

/// A TCP connection (plain or TLS) driven by an ``EventLoop``.
public final class StreamConnection {
    /// The socket (owned).
    public let socket: TCPSocket
    /// The peer's address.
    public let remoteAddress: SocketAddress
    /// The largest read per `read(2)` call. Default 16 KiB.
    public let readChunkSize: Int
    /// The most bytes that may wait for the peer to read them (beyond what the kernel's socket
    /// buffer holds); a send past it fails the stream with ``StreamError/peerNotReading(queuedBytes:limit:)``.
    /// Default ``defaultMaxQueuedBytes``.
    public let maxQueuedBytes: Int
    /// 4 MiB: well above any request clawpair sends (the gateway itself gives up on a client
    /// after 1.5 MiB of unsent data, `src/gateway/server-constants.ts` MAX_BUFFERED_BYTES).
    public static let defaultMaxQueuedBytes = 4 << 20
    /// Receives data, end of stream and failures, on the loop's thread. Set it before the
    /// first loop round.
    public var onEvent: ((StreamEvent) -> Void)?

    private let loop: EventLoop
    private var registration: EventLoop.Registration?
    private var tls: TLSClientEngine?
    private var tlsCompletion: ((Result<TLSClientEngine, StreamError>) -> Void)?
    private var outgoing: [UInt8] = []
    private var outgoingOffset = 0
    private var readBuffer: [UInt8]
    private var finished = false

    /// Wraps a connected `socket` (from ``TCPDialer``) and starts watching it.
    public init(loop: EventLoop, socket: TCPSocket, remoteAddress: SocketAddress, readChunkSize: Int = 16 * 1024,
                maxQueuedBytes: Int = StreamConnection.defaultMaxQueuedBytes) {
        self.loop = loop
        self.socket = socket
        self.remoteAddress = remoteAddress
        self.readChunkSize = readChunkSize
        self.maxQueuedBytes = maxQueuedBytes
        self.readBuffer = [UInt8](repeating: 0, count: readChunkSize)
        registration = loop.register(socket.fileDescriptor, interest: .readable) { [weak self] events in
            self?.ready(events)
        }
    }

    deinit {
        if let registration { loop.deregister(registration) }
    }

    /// Whether the stream was closed or failed.
    public var isFinished: Bool { finished }

    /// Starts a TLS handshake with `engine`; `completion` runs once on the loop's thread with
    /// the engine (inspect `peerCertificate` before sending) or the failure. Data events flow
    /// only after it succeeded.
    public func startTLS(_ engine: TLSClientEngine, completion: @escaping (Result<TLSClientEngine, StreamError>) -> Void) {
        precondition(tls == nil, "TLS is started once")
        tls = engine
        tlsCompletion = completion
        advanceHandshake()
    }

    /// Queues bytes (encrypted first when TLS is on) and writes what the socket takes now. When
    /// more than ``maxQueuedBytes`` are left waiting, the peer is not reading: the stream fails.
    public func send(_ bytes: [UInt8]) {
        guard !finished else { return }
        if let tls {
            do {
                try tls.writePlaintext(bytes)
            } catch {
                fail(.tls(error))
                return
            }
            outgoing.append(contentsOf: tls.takeCiphertext())
        } else {
            outgoing.append(contentsOf: bytes)
        }
        flush()
        let queued = outgoing.count - outgoingOffset
        if !finished && queued > maxQueuedBytes { fail(.peerNotReading(queuedBytes: queued, limit: maxQueuedBytes)) }
    }

    /// Closes the socket (after a best-effort TLS close_notify and a last non-blocking write).
    /// No events follow.
    public func close() {
        guard !finished else { return }
        if let tls, tlsCompletion == nil {
            tls.shutdown()
            outgoing.append(contentsOf: tls.takeCiphertext())
        }
        flush()
        finish()
    }

    private func finish() {
        finished = true
        if let registration { loop.deregister(registration) }
        registration = nil
        socket.close()
    }

    private func fail(_ error: StreamError) {
        guard !finished else { return }
        finish()
        if let completion = tlsCompletion {
            tlsCompletion = nil
            completion(.failure(error))
        } else {
            onEvent?(.failed(error))
        }
    }

    private func flush() {
        guard !finished else { return }
        while outgoingOffset < outgoing.count {
            let written: Int
            do {
                written = try socket.write(outgoing[outgoingOffset...])
            } catch {
                fail(.transport(error))
                return
            }
            if written == 0 { break }
            outgoingOffset += written
        }
        if outgoingOffset == outgoing.count {
            outgoing.removeAll(keepingCapacity: true)
            outgoingOffset = 0
        } else if outgoingOffset >= 64 * 1024 && outgoingOffset >= outgoing.count / 2 {
            // A peer that reads slowly never lets the queue empty: drop the written prefix so
            // memory follows what is still queued.
            outgoing.removeFirst(outgoingOffset)
            outgoingOffset = 0
        }
        if let registration {
            loop.setInterest(registration, outgoing.isEmpty ? .readable : [.readable, .writable])
        }
    }

    private func ready(_ events: PollEvents) {
        if events.contains(.writable) { flush() }
        guard !finished, !events.intersection([.readable, .error, .hangup]).isEmpty else { return }
        var endOfFile = false
        var received: [UInt8] = []
        // Drain what is there (bounded, so one busy stream cannot starve the others).
        for _ in 0..<16 {
            let result: TCPSocket.ReadResult
            do {
                result = try socket.read(into: &readBuffer)
            } catch {
                fail(.transport(error))
                return
            }
            switch result {
            case .bytes(let count):
                received.append(contentsOf: readBuffer[0..<count])
                continue
            case .endOfFile:
                endOfFile = true
            case .wouldBlock:
                break
            }
            break
        }
        if let tls {
            if !received.isEmpty { tls.receiveCiphertext(received) }
            if tlsCompletion != nil {
                advanceHandshake()
                if finished { return }
                if tlsCompletion != nil {
                    if endOfFile { fail(.tls(.closedDuringHandshake)) }
                    return
                }
            }
            readPlaintext(endOfFile: endOfFile)
        } else {
            if !received.isEmpty { onEvent?(.data(received)) }
            if endOfFile && !finished {
                finish()
                onEvent?(.closed)
            }
        }
    }

    private func advanceHandshake() {
        guard let tls, tlsCompletion != nil else { return }
        let progress: TLSClientEngine.HandshakeProgress
        do {
            progress = try tls.handshake()
        } catch {
            outgoing.append(contentsOf: tls.takeCiphertext())  // the alert, if any
            flush()
            fail(.tls(error))
            return
        }
        outgoing.append(contentsOf: tls.takeCiphertext())
        flush()
        if progress == .complete, !finished, let completion = tlsCompletion {
            tlsCompletion = nil
            completion(.success(tls))
        }
    }

    private func readPlaintext(endOfFile: Bool) {
        guard let tls, !finished else { return }
        do {
            switch try tls.readPlaintext() {
            case .bytes(let bytes):
                outgoing.append(contentsOf: tls.takeCiphertext())
                flush()
                if !finished { onEvent?(.data(bytes)) }
            case .closed:
                finish()
                onEvent?(.closed)
                return
            case .needMore:
                break
            }
        } catch {
            fail(.tls(error))
            return
        }
        if endOfFile && !finished {
            finish()
            onEvent?(.closed)
        }
    }
}

@available(*, unavailable)
extension StreamConnection: Sendable {}
