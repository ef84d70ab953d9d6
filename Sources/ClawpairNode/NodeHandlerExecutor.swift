// Where a node's command handlers run: threads of the node's own (a concurrent Dispatch queue),
// not Swift's cooperative pool. A program that embeds a node may keep that pool busy with work
// of its own (2 threads on a 2-core machine); an invoke must not wait behind it until its budget
// runs out. Handlers are `async`: a handler that awaits frees its thread as usual.

import Dispatch

/// The task executor that ``NodeHostRuntime`` starts handlers on (one per process).
final class NodeHandlerExecutor: TaskExecutor, @unchecked Sendable {
    /// The one instance: its queue lives as long as the process.
    static let shared = NodeHandlerExecutor()

    private let queue = DispatchQueue(label: "clawpair.node.handlers", attributes: .concurrent)

    /// Runs `job` on the queue's threads, as this executor.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
