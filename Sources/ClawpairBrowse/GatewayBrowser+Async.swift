// The browser for `async` callers: each run goes on a thread of its own (see ClawpairCore's
// LoopThread), the awaiting task is suspended, and cancelling the task stops the run.

import ClawpairCore

extension GatewayBrowser {
    /// ``scan(note:)`` without blocking the calling task's thread; cancelling the task ends it
    /// within milliseconds with ``OperationStopped``.
    public func scan() async throws -> Scan {
        try await LoopThread.run { (stop: StopSignal) throws -> Scan in try self.stopping(on: stop).scan() }
    }

    /// ``first(note:)`` without blocking the calling task's thread; cancelling the task ends it
    /// within milliseconds with ``OperationStopped``.
    public func first() async throws -> GatewaySighting? {
        try await LoopThread.run { (stop: StopSignal) throws -> GatewaySighting? in try self.stopping(on: stop).first() }
    }

    /// ``watch(note:onTruncated:onEvent:)`` as a stream of events, until ``Options/timeout``:
    /// it finishes when the timeout passes and throws when a backend fails. Ending the
    /// iteration (or cancelling its task) stops the watch within milliseconds.
    public func events() -> AsyncThrowingStream<Event, any Error> {
        LoopThread.stream { yield, stop in
            try self.stopping(on: stop).watch { event in
                yield(event)
                return true
            }
        }
    }
}
