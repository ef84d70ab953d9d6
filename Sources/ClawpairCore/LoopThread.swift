// async/await over the library's blocking calls without parking a cooperative-pool thread: the
// call runs on a ``BackgroundThread`` of its own (where its event loop polls), the awaiting task
// is suspended on a continuation that this thread resumes, and cancelling the task raises the
// call's ``StopSignal``, so the call returns within milliseconds and the continuation is resumed
// with its "cancelled" outcome. Streams work the same way: the thread yields into an
// `AsyncThrowingStream`, and ending the stream (or cancelling its consumer) raises the stop.

/// Runs the library's blocking calls on threads of their own for `async` callers.
public enum LoopThread {
    /// Runs `body` on a new thread with a ``StopSignal`` that cancelling the calling task raises
    /// (as does `stop`, when given), and returns its result once it returns. The awaiting task
    /// is suspended, not blocked. When no thread can be made, the call fails with
    /// ``OperationStopped`` only if it was cancelled; otherwise it runs as a detached task.
    public static func run<T: Sendable, E: Error>(stop: StopSignal? = nil,
                                                  _ body: @escaping @Sendable (StopSignal) throws(E) -> T) async throws(E) -> T {
        let signal = StopSignal().joined(with: stop)
        let result: Result<T, E> = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, E>, Never>) in
                BackgroundThread.detached {
                    do throws(E) {
                        continuation.resume(returning: .success(try body(signal)))
                    } catch {
                        continuation.resume(returning: .failure(error))
                    }
                }
            }
        } onCancel: {
            signal.stop()
        }
        return try result.get()
    }

    /// A stream fed by `body` on a new thread: `body` yields elements through its first
    /// argument and returns (the stream finishes) or throws (the stream finishes with that
    /// error). Cancelling the consuming task or dropping the stream raises the ``StopSignal``
    /// `body` gets, so it returns promptly; an error `body` throws after that is not reported.
    /// At most `bufferLimit` elements wait for the consumer; older ones are dropped beyond it.
    public static func stream<Element: Sendable>(
        bufferLimit: Int = 1024, stop: StopSignal? = nil,
        _ body: @escaping @Sendable (_ yield: @escaping @Sendable (Element) -> Void, StopSignal) throws -> Void
    ) -> AsyncThrowingStream<Element, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Element, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(max(1, bufferLimit)))
        let signal = StopSignal().joined(with: stop)
        continuation.onTermination = { _ in signal.stop() }
        BackgroundThread.detached {
            do {
                try body({ continuation.yield($0) }, signal)
                continuation.finish()
            } catch {
                if signal.isStopped && (error as? any ClawpairError)?.code == "cancelled" {
                    continuation.finish()
                } else {
                    continuation.finish(throwing: error)
                }
            }
        }
        return stream
    }
}
